"""`sec-dashboard market ...` through its own parser (the lead registers it in the main one)."""

from __future__ import annotations

import argparse
import io
import json
import shutil

import pytest

from dashboard.cli import market as cli
from dashboard.market.sync import SyncProgress
from tests.market.conftest import cli_synced_once


@pytest.fixture(scope="module")
def synced_cache(tmp_path_factory):
    """A cache directory with the demo market synced by the command (once in the run: 19 tests here and other
    modules read it; tests/market/conftest.py's `cli_synced_once`)."""
    return cli_synced_once(tmp_path_factory, "synced")


@pytest.fixture
def demo_store(synced_cache, tmp_path, monkeypatch, capsys):
    """The synced cache directory, a copy of its own for each test (the store and its snapshot)."""
    capsys.readouterr()
    shutil.copytree(synced_cache, tmp_path / "cache")
    monkeypatch.setenv("SEC_DASHBOARD_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache" / "market-demo.duckdb"


def read_json(capsys):
    return json.loads(capsys.readouterr().out)


def test_sync_status_and_questions_as_json(demo_store, capsys):
    capsys.readouterr()
    assert demo_store.exists()
    assert cli.main(["market", "status", "--demo", "--json"]) == 0
    status = read_json(capsys)
    assert set(status) == {"funds", "classes", "datasets", "calls"} and status["funds"] > 50
    assert status["datasets"]["fees"]["complete"] and not status["datasets"]["allocation"]["complete"]
    assert cli.main(["market", "screen", "--demo", "--risk", "RS6", "--risk", "RS5", "--sort=-total_fee_actual",
                     "--limit", "3", "--json"]) == 0
    rows = read_json(capsys)
    assert 0 < len(rows) <= 3 and {r["risk_spectrum"] for r in rows} <= {"RS5", "RS6"}
    fees = [r["total_fee_actual"] for r in rows if r["total_fee_actual"] is not None]
    assert fees == sorted(fees, reverse=True)
    assert cli.main(["market", "sync", "--demo", "--only", "funds", "--json"]) == 0
    assert read_json(capsys)["calls"] == 0  # fresh: nothing sent
    from dashboard.market.store import MarketStore
    with MarketStore(demo_store, read_only=True) as store:
        # overlap and holders answer for the latest quarter, so the security and its two funds come from it
        latest = store.query("SELECT max(period) AS p FROM holdings")[0]["p"]
        code = store.query("SELECT issue_code, count(DISTINCT proj_id) AS n FROM holdings WHERE NOT is_nav_total "
                           "AND issue_code IS NOT NULL AND period = ? GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 1",
                           [latest])[0]["issue_code"]
        two = [r["proj_id"] for r in store.query("SELECT DISTINCT proj_id FROM holdings WHERE issue_code = ? "
                                                 "AND period = ? AND NOT is_nav_total ORDER BY 1 LIMIT 2",
                                                 [code, latest])]
    assert cli.main(["market", "holders", "--demo", code.lower(), "--json"]) == 0
    holders = read_json(capsys)
    assert len(holders) >= 2 and set(holders[0]) >= {"proj_id", "proj_abbr_name", "period", "percent_nav",
                                                      "assetliab_value"}
    assert cli.main(["market", "overlap", "--demo", *two, "--json"]) == 0
    answer = read_json(capsys)
    assert answer["funds"] == two and f"{two[0]}|{two[1]}" in answer["overlap_pct"]
    assert any(c["issue_code"] == code for c in answer["common"])
    assert cli.main(["market", "overlap", "--demo", *two]) == 0
    assert "overlap" in capsys.readouterr().out


def test_every_market_json_output_gives_a_quarter_as_text_yyyymm(demo_store, capsys):
    from dashboard.market.store import MarketStore

    capsys.readouterr()
    with MarketStore(demo_store, read_only=True) as store:
        period, code = next((r["period"], r["issue_code"]) for r in store.query(
            "SELECT period, issue_code, count(DISTINCT proj_id) AS n FROM holdings WHERE NOT is_nav_total "
            "AND issue_code IS NOT NULL GROUP BY 1, 2 HAVING n > 1 ORDER BY 1 DESC, 3 DESC, 2 LIMIT 1"))
    assert isinstance(period, str) and len(period) == 6 and period.isdigit()
    assert cli.main(["market", "holders", "--demo", code, "--period", period, "--json"]) == 0
    holders = read_json(capsys)
    assert len(holders) > 1 and {h["period"] for h in holders} == {period}
    assert cli.main(["market", "overlap", "--demo", *[h["proj_id"] for h in holders[:2]], "--period", period, "--json"]) == 0
    assert read_json(capsys)["period"] == period


def test_readable_output_and_export(demo_store, capsys, tmp_path):
    capsys.readouterr()
    assert cli.main(["market", "screen", "--demo", "--status", "RG", "--limit", "2"]) == 0
    text = capsys.readouterr().out
    assert "fee % (charged)" in text and "(2 rows)" in text
    assert cli.main(["market", "status", "--demo"]) == 0
    assert "funds" in capsys.readouterr().out
    assert cli.main(["market", "export", "--demo", str(tmp_path / "snap")]) == 0
    assert (tmp_path / "snap" / "funds.parquet").exists() and (tmp_path / "snap" / "holdings.parquet").exists()


def test_exit_codes(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("SEC_DASHBOARD_CACHE_DIR", str(tmp_path / "cache"))
    assert cli.main(["market", "status", "--demo"]) == 2  # no store yet
    assert "market sync" in capsys.readouterr().err
    assert cli.main(["market", "sync", "--demo", "--only", "navs"]) == 2
    assert "no dataset navs" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exc:
        cli.main(["market", "sync", "--demo", "--max-calls", "-1"])
    assert exc.value.code == 2
    assert cli.main(["market", "sync", "--demo", "--only", "funds", "--max-calls", "1"]) == 0
    assert "run it again" in capsys.readouterr().out
    assert cli.main(["market", "overlap", "--demo", "NO-SUCH", "OTHER"]) == 2
    assert cli.main(["market", "screen", "--demo", "--sort", "nav"]) == 2
    # a rejected key is exit 3, as everywhere on the command line
    monkeypatch.setenv("SEC_API_KEY", "0" * 32)
    from dashboard.demo.loopback import SimulatorServer
    from dashboard.demo.simulator import create_app
    with SimulatorServer(create_app(valid_keys={"1" * 32})) as server:
        code = cli.main(["market", "sync", "--base-url", server.base_url, "--layout", "successor", "--only", "risk"])
    assert code == 3


def test_progress_is_plain_lines_off_a_terminal_and_one_bar_on_one(monkeypatch):
    # Nothing here depends on the clock or the machine's uptime (the first line once waited for an hour of it).
    plain = io.StringIO()
    progress = cli.Progress(plain)
    progress(SyncProgress("fees", 100, 1, 0.5, None, pages=1, max_pages=5000))
    progress(SyncProgress("fees", 200, 2, 0.9, 3.0, pages=2, max_pages=5000))
    progress(SyncProgress("fees", 710, 8, 1.0, None, done=True, pages=8, max_pages=5000))
    progress(SyncProgress("holdings:202606", 10_000, 108, 130.0, None, pages=100, max_pages=5000))
    progress(SyncProgress("holdings:202606", 10_100, 109, 131.0, None, pages=101, max_pages=5000))
    progress.finish()
    # One count a dataset, the records stored (the number `market status` shows); pages while it runs.
    assert plain.getvalue().splitlines() == [
        "fees: 710 stored; 8 calls, 1 s",
        "holdings:202606: fetching, page 100; 108 calls, 2 min 10 s"]  # the page cap is no reader's business

    class Tty(io.StringIO):
        def isatty(self):
            return True

    monkeypatch.setenv("COLUMNS", "200")
    tty = Tty()
    bar = cli.Progress(tty)
    bar(SyncProgress("holdings:202606", 2500, 30, 12.0, 75.0, pages=25, max_pages=5000))
    bar(SyncProgress("risk", 900, 31, 12.5, None, done=True))
    bar.finish()
    drawn = tty.getvalue()
    assert "holdings:202606: fetching, page 25; 30 calls, 12 s, about 1 min 15 s left" in drawn
    assert "\x1b[" in drawn  # redrawn in place by the terminal's own controls
    assert "risk: 900 stored; 31 calls, 12 s\n" in drawn  # a dataset stored stays on screen


def test_one_call_is_said_in_the_singular_in_the_progress_and_the_market_tab():
    """A sync's first dataset is one call ("companies: 9 stored; 1 calls"): a count says what it counts, one
    unit table (records.counts) for every output."""
    from dashboard.market.screen import _sync_words

    plain = io.StringIO()
    progress = cli.Progress(plain)
    progress(SyncProgress("companies", 9, 1, 0.2, None, done=True, pages=1, max_pages=5000))
    progress.finish()
    assert plain.getvalue().splitlines() == ["companies: 9 stored; 1 call, 0 s"]
    assert _sync_words("companies", 9, 1, done=True).endswith("9 stored, 1 call")
    assert _sync_words("dealing", 0, 1).endswith("fetching, 1 call")


@pytest.mark.parametrize("layout", ["successor", "legacy"])
def test_sync_and_status_count_the_same_records(layout, tmp_path, monkeypatch, capsys):
    """The service's rows are not the store's records (links and dealing become one record a fund, profile
    rows one a fund and one a class): sync and status both say the records stored, and agree."""
    import re

    monkeypatch.setenv("SEC_DASHBOARD_CACHE_DIR", str(tmp_path / "cache"))
    assert cli.main(["market", "sync", "--demo", "--layout", layout, "--only", "funds,dealing,links,holdings",
                     "--quarters", "1"]) == 0
    printed = capsys.readouterr()
    done = {name: int(n.replace(",", "")) for name, n in re.findall(r"^([\w:]+): ([\d,]+) stored;", printed.err, re.M)}
    summary = next(line for line in printed.out.splitlines() if line.startswith("stored: "))
    stored = {name: int(n.replace(",", "")) for name, n in re.findall(r"(\w+) ([\d,]+)", summary)}
    assert cli.main(["market", "status", "--demo", "--layout", layout, "--json"]) == 0
    status = read_json(capsys)
    counted = {name: entry["rows"] for name, entry in status["datasets"].items()}
    assert stored == counted and status["funds"] == counted["funds"]
    holdings = next(v for k, v in done.items() if k.startswith("holdings:"))
    assert {k: done[k] for k in ("funds", "dealing", "links")} == {k: counted[k] for k in ("funds", "dealing", "links")}
    assert holdings == counted["holdings"] and counted["dealing"] > 0 and counted["links"] > 0
    assert len(re.findall(r"^companies:", printed.err, re.M)) <= 1  # each dataset's line once
    assert cli.main(["market", "status", "--demo", "--layout", layout]) == 0
    table = capsys.readouterr().out
    assert re.search(rf"^dealing\s+{counted['dealing']:,}\s", table, re.M)


def test_sync_progress_its_summary_and_status_name_the_same_datasets(tmp_path, monkeypatch, capsys):
    """Issue 39: the Market tab said "7 of 11 datasets", the first `market sync` "13 datasets fetched", the
    second "12 still fresh", `market status` listed 12. One definition now (SyncResult.by_dataset: the
    datasets `market status` lists, the quarters of holdings one, the NAV one): the progress the CLI and
    the Market tab read (SyncProgress.datasets_done/_total), the summary and status agree; NAV progress says
    how many days are stored, never a window's page numbers or the page cap."""
    import re

    from dashboard.market.store import MarketStore
    from dashboard.market.sync import sync_blocking
    from dashboard.config import ApiSettings
    from dashboard.demo.connect import open_client

    monkeypatch.setenv("SEC_DASHBOARD_CACHE_DIR", str(tmp_path / "cache"))
    steps = []
    settings = ApiSettings.from_env(demo=True, layout="successor", cache_dir=str(tmp_path / "cache"))
    with MarketStore(settings=settings) as store, open_client(settings) as client:
        result = sync_blocking(store, client, nav_days=20, progress=steps.append)
    assert cli.main(["market", "status", "--demo", "--json"]) == 0
    listed = list(read_json(capsys)["datasets"])
    assert result.plan == listed and len(listed) == 12 and "nav" in listed
    assert {s.datasets_total for s in steps} == {12}
    done = [s.datasets_done for s in steps]
    assert done == sorted(done) and done[-1] == 12 and result.datasets_stored() == 12  # the NAV's line says 12 of 12
    # Each dataset status lists has its own line when stored: the unit classes, filled by the funds' calls, were
    # counted silently with the funds ("companies ... 1 of 11", then "funds ... 3 of 11").
    stored = [s for s in steps if s.done]
    assert {s.dataset.split(":")[0] for s in stored} == set(listed)
    at = {s.dataset: s.datasets_done for s in stored}
    assert at["funds"] == at["companies"] + 1 and at["classes"] == at["funds"] + 1
    nav = [s for s in steps if s.dataset == "nav"]
    assert nav and all(s.pages == 0 for s in nav)
    days = [tuple(map(int, re.fullmatch(r"(\d+) of (\d+) days' NAVs stored", s.detail).groups())) for s in nav]
    assert [d for d, _of in days] == sorted(d for d, _of in days) and {of for _d, of in days} == {days[-1][1]}
    assert days[-1][0] == days[-1][1]

    assert cli.main(["market", "sync", "--demo", "--nav-days", "20"]) == 0
    again = capsys.readouterr()
    assert "12 datasets: 0 fetched, 12 still fresh" in again.out
    assert "stops at" not in again.err and "pages" not in again.err


def test_commands_plug_into_a_parser_with_the_main_options():
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--demo", action="store_true", default=argparse.SUPPRESS)
    as_json = argparse.ArgumentParser(add_help=False)
    as_json.add_argument("--json", action="store_true")
    parser = argparse.ArgumentParser()
    cli.add_market_commands(parser.add_subparsers(dest="command"), common=common, as_json=as_json)
    args = parser.parse_args(["market", "holders", "PTT", "--period", "202606", "--demo", "--json"])
    assert args.func is cli.cmd_market_holders and args.query == "PTT" and args.period == "202606" and args.json


def test_holdings_of_the_newest_two_quarters_by_default_and_more_on_request(demo_store, capsys):
    from dashboard.api.periods import valid_periods
    from dashboard.market.datasets import DEFAULT_QUARTERS

    capsys.readouterr()
    assert cli.main(["market", "status", "--demo", "--json"]) == 0
    held = sorted(k for k in read_json(capsys)["datasets"] if k.startswith("holdings:"))
    assert cli.main(["market", "holders", "--demo", "XYZ", "--json"]) == 0  # the latest quarter: no holder is fine
    read_json(capsys)
    from dashboard.market.store import MarketStore
    with MarketStore(demo_store, read_only=True) as store:
        stored = [r["period"] for r in store.query("SELECT DISTINCT period FROM holdings ORDER BY 1 DESC")]
    with pytest.raises(SystemExit):
        cli.main(["market", "sync", "--help"])
    assert len(stored) == DEFAULT_QUARTERS and f"(default {DEFAULT_QUARTERS};" in " ".join(capsys.readouterr().out.split())
    older = sorted(valid_periods(_demo_today()))[0]
    assert older not in stored, held
    # a quarter the store does not hold is a one-line error naming what it holds and how to get more
    assert cli.main(["market", "holders", "--demo", "XYZ", "--period", older]) == 2
    message = capsys.readouterr().err
    assert older in message and stored[0] in message and "--quarters" in message and "Traceback" not in message
    # asking for three quarters fetches only the one missing; the two stored stay fresh
    assert cli.main(["market", "sync", "--demo", "--only", "holdings", "--quarters", str(DEFAULT_QUARTERS + 1),
                     "--json"]) == 0
    result = read_json(capsys)
    fetched = [k for k, v in result["datasets"].items() if v == "fetched"]
    assert len(fetched) == 1 and result["calls"] >= 1
    with MarketStore(demo_store, read_only=True) as store:
        assert len(store.query("SELECT DISTINCT period FROM holdings")) == DEFAULT_QUARTERS + 1
    with pytest.raises(SystemExit):
        cli.main(["market", "sync", "--demo", "--quarters", "0"])


def _demo_today():
    from dashboard.demo.connect import open_client
    from dashboard.config import ApiSettings

    with open_client(ApiSettings.from_env(demo=True, environ={})) as client:
        return client.today


def test_sort_takes_a_descending_field_as_the_next_word_or_after_equals(demo_store, capsys):
    """`--sort -total_fee_actual` (the README's `[--sort [-]FIELD]`) and `--sort=-total_fee_actual` alike."""
    from dashboard.cli.main import main as full_main

    capsys.readouterr()
    answers = []
    for form in (["--sort", "-total_fee_actual"], ["--sort=-total_fee_actual"]):
        assert cli.main(["market", "screen", "--demo", *form, "--limit", "5", "--json"]) == 0
        answers.append(read_json(capsys))
    assert answers[0] == answers[1]
    fees = [r["total_fee_actual"] for r in answers[0]]
    assert None not in fees and fees == sorted(fees, reverse=True)
    assert full_main(["--demo", "market", "screen", "--sort", "-total_fee_actual", "--limit", "5", "--json"]) == 0
    assert read_json(capsys) == answers[0]


def test_company_filter_takes_a_name(demo_store, capsys):
    capsys.readouterr()
    assert cli.main(["market", "screen", "--demo", "--company", "mekong", "--json"]) == 0
    by_name = read_json(capsys)
    assert by_name and {r["company_name_en"] for r in by_name} == {"Demo Mekong Asset Management Co., Ltd."}
    assert cli.main(["market", "screen", "--demo", "--company", by_name[0]["unique_id"], "--json"]) == 0
    assert read_json(capsys) == by_name
    # several companies match: exit 2 listing them; none: exit 2 with a hint; nothing is printed on stdout
    assert cli.main(["market", "screen", "--demo", "--company", "Asset Management"]) == 2
    captured = capsys.readouterr()
    assert not captured.out and "Demo Mekong Asset Management Co., Ltd." in captured.err and "management companies" in captured.err
    assert cli.main(["market", "screen", "--demo", "--company", "No Such Company"]) == 2
    assert "no management company" in capsys.readouterr().err


def test_readable_market_output_gives_words_not_codes(demo_store, capsys):
    from dashboard.market.store import MarketStore

    capsys.readouterr()
    assert cli.main(["market", "screen", "--demo", "--risk", "RS81", "--json"]) == 0
    complex_funds = read_json(capsys)
    assert complex_funds
    assert cli.main(["market", "screen", "--demo", "--risk", "RS81"]) == 0
    text = capsys.readouterr().out
    assert "RS81" not in text and "8+" in text and "registered (RG)" in text and "proj_abbr_name" not in text
    with MarketStore(demo_store, read_only=True) as store:
        latest = store.query("SELECT max(period) AS p FROM holdings")[0]["p"]
        two = store.query("SELECT proj_id, proj_abbr_name FROM funds WHERE proj_id IN (SELECT DISTINCT proj_id FROM "
                          "holdings WHERE period = ?) AND proj_abbr_name IS NOT NULL ORDER BY proj_id LIMIT 2", [latest])
    assert cli.main(["market", "overlap", "--demo", two[0]["proj_id"], two[1]["proj_id"]]) == 0
    text = capsys.readouterr().out
    assert f"{two[0]['proj_abbr_name']} and {two[1]['proj_abbr_name']}" in text
    assert two[0]["proj_id"] not in text and f"quarter Q{(int(latest[4:]) - 1) // 3 + 1} {latest[:4]}" in text
    assert cli.main(["market", "overlap", "--demo", two[0]["proj_id"], two[1]["proj_id"], "--json"]) == 0
    assert read_json(capsys)["period"] == latest  # JSON keeps YYYYMM


def test_screen_as_csv_has_a_byte_order_mark_titles_and_numbers(demo_store, capsys, monkeypatch):
    import csv

    buffer = io.BytesIO()
    monkeypatch.setattr("sys.stdout", io.TextIOWrapper(buffer, encoding="utf-8"))
    assert cli.main(["market", "screen", "--demo", "--risk", "RS81", "--csv"]) == 0
    import sys
    sys.stdout.flush()
    data = buffer.getvalue()
    assert data.startswith(b"\xef\xbb\xbf")
    rows = list(csv.reader(io.StringIO(data.decode("utf-8-sig"))))
    assert "Risk level (1 to 8+)" in rows[0] and "proj_id" not in rows[0]
    risk = rows[0].index("Risk level (1 to 8+)")
    assert {r[risk] for r in rows[1:]} == {"8+"}


def test_holders_finds_a_security_by_part_of_its_issuers_name(demo_store, capsys):
    from dashboard.market.store import MarketStore

    capsys.readouterr()
    with MarketStore(demo_store, read_only=True) as store:
        latest = store.query("SELECT max(period) AS p FROM holdings")[0]["p"]
        row = store.query("SELECT issue_code, issuer FROM holdings WHERE period = ? AND NOT is_nav_total AND issuer IS NOT NULL "
                          "AND issue_code IS NOT NULL ORDER BY issue_code LIMIT 1", [latest])[0]
    assert cli.main(["market", "holders", "--demo", row["issue_code"], "--json"]) == 0
    by_code = read_json(capsys)
    part = row["issuer"].split()[1].lower() + " " + row["issuer"].split()[2].lower()  # "Demo Chanthaburi Foods" -> "chanthaburi foods"
    assert cli.main(["market", "holders", "--demo", part, "--json"]) == 0
    by_name = read_json(capsys)
    assert {r["proj_id"] for r in by_code} <= {r["proj_id"] for r in by_name}
    assert all(part in r["issuer"].lower() for r in by_name)
    assert cli.main(["market", "holders", "--demo", "no issuer is called this"]) == 0
    assert "no data" in capsys.readouterr().err


def test_company_choices_name_every_company_of_the_stored_funds(demo_store):
    from dashboard.market.queries import company_choices, company_id
    from dashboard.market.store import MarketStore

    with MarketStore(demo_store, read_only=True) as store:
        choices = company_choices(store)
        ids = {r["unique_id"] for r in store.query("SELECT DISTINCT unique_id FROM funds WHERE unique_id IS NOT NULL")}
        assert {c["unique_id"] for c in choices} == ids
        mekong = next(c for c in choices if "Mekong" in c["name"])
        assert company_id(store, mekong["name"]) == mekong["unique_id"]
        assert sum(c["funds"] for c in choices) == store.query("SELECT count(*) AS n FROM funds WHERE unique_id IS NOT NULL")[0]["n"]


def test_holders_by_issuers_name_counts_funds_not_holding_lines(demo_store, capsys):
    """"179 funds hold Demo Treasury" in a market of 94 funds: a name finds several securities, and a fund holding
    two of them is two rows. Both the command and the Market tab's model count distinct funds (issue 39)."""
    from dashboard.config import ApiSettings
    from dashboard.market.screen import MarketScreen
    from dashboard.models.source import run

    capsys.readouterr()
    assert cli.main(["market", "holders", "--demo", "Demo Treasury", "--json"]) == 0
    rows = read_json(capsys)
    funds = {r["proj_id"] for r in rows}
    securities = {r["isin_code"] or r["issue_code"] for r in rows}
    assert len(rows) > len(funds) > 1  # the case: some fund holds several of the issuer's securities
    assert cli.main(["market", "holders", "--demo", "Demo Treasury"]) == 0
    last = capsys.readouterr().out.strip().splitlines()[-1]
    assert last.startswith(f"{len(funds)} funds hold Demo Treasury in Q")
    assert f"({len(rows)} holdings of {len(securities)} securities)" in last
    market = MarketScreen(settings=ApiSettings.from_env(demo=True))
    try:
        run(market.find_holders("Demo Treasury"))
        assert market.holders_summary == last
        assert market.holders["proj_id"].nunique() == len(funds)
    finally:
        market.close()
    # one security: a row a fund, and nothing about holdings in brackets
    code = rows[0]["issue_code"]
    assert cli.main(["market", "holders", "--demo", code]) == 0
    last = capsys.readouterr().out.strip().splitlines()[-1]
    assert " hold" in last and "holdings of" not in last and code in last


def test_a_table_of_one_row_says_1_row(demo_store, capsys):
    capsys.readouterr()
    assert cli.main(["market", "screen", "--demo", "--limit", "1"]) == 0
    assert capsys.readouterr().out.strip().splitlines()[-1] == "(1 row)"


@pytest.mark.parametrize("option, value, words", [("--max-fee", "-1", "0 or more"), ("--limit", "0", "1 or more"),
                                                   ("--max-volatility", "-1", "")])
def test_screen_refuses_a_negative_fee_and_a_zero_limit_as_it_refuses_a_negative_volatility(demo_store, capsys,
                                                                                           option, value, words):
    """`--max-fee -1` answered "no data" with exit 0 and `--limit 0` "no fund passes the filters", while
    `--max-volatility -1` was refused with exit 2 (issue 39)."""
    from dashboard.cli.main import main as full_main

    capsys.readouterr()
    try:
        code = full_main(["--demo", "market", "screen", option, value])
    except SystemExit as exc:  # refused by the parser
        code = exc.code
    captured = capsys.readouterr()
    error = captured.err.strip().splitlines()[-1]
    assert code == 2 and not captured.out and option in error and words in error
