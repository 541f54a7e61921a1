"""HTML reports without a browser: structure, header facts, escaping, no key, no external resources, CLI."""

from __future__ import annotations

import html
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from dashboard.api.periods import valid_periods
from dashboard.errors import AuthenticationError, BadInputError
from dashboard.demo.generator import generate_demo_dataset
from dashboard.models import FundSearch
from dashboard.models.licensee import LicenceCheck, enforcement_meanings
from dashboard.records.licence_labels import ENFORCEMENT_TYPE, enforcement_type_key
from dashboard.models.source import run
from dashboard.present.text import quarter_text
from dashboard.reports import fund_report_html, licensee_report_html, write_report
from dashboard.reports.document import DEMO_BANNER
from tests.conftest import KEY, TODAY
from tests.reports.helpers import (
    GENERATED,
    HOSTILE_NAME,
    HOSTILE_PROJ_ID,
    HOSTILE_REMARK,
    RAW_MARKUP,
    client_for,
    factsheet_report,
    full_funds,
    hostile_dataset,
    report_once,
)

ROOT = Path(__file__).resolve().parents[2]
FACTSHEET_SECTIONS = ("overview", "allocation", "holdings", "changes", "fees", "performance", "risk")


def fact(page: str, name: str) -> str:
    match = re.search(rf'<dd data-fact="{name}">(.*?)</dd>', page, re.S)
    assert match, f"no header fact {name}"
    return html.unescape(re.sub(r"<[^>]+>", "", match.group(1)))


def external_references(page: str) -> list[str]:
    """What in the markup would load something from off the file: src/href/url() to another host,
    and any element that loads a resource by attribute. Script bodies (the inline Bokeh library)
    are markup-free and left out; the browser tests prove they fetch nothing."""
    markup = re.sub(r"(<script\b[^>]*>).*?</script>", r"\1</script>", page, flags=re.S | re.I)
    refs = re.findall(r'\b(?:src|href|action|data|poster)\s*=\s*["\']?\s*((?:https?:)?//[^"\'\s>]+)', markup, re.I)
    refs += re.findall(r"<(?:script|link|iframe|img|object|embed|source)\b[^>]*\b(?:src|href)\s*=[^>]*>", markup, re.I)
    refs += re.findall(r"@import[^;]*|url\(\s*['\"]?(?:https?:)?//[^)]*\)", markup, re.I)
    return refs


def section(page: str, ident: str) -> str:
    match = re.search(rf'<section id="{ident}">(.*?)</section>', page, re.S)
    assert match, f"no section {ident}"
    return match.group(1)


@pytest.fixture(scope="module")
def fund(dataset_module):
    return full_funds(dataset_module)[0]


@pytest.fixture(scope="module")
def dataset_module():
    return generate_demo_dataset(today=TODAY)


@pytest.fixture(scope="module")
def module_client(dataset_module):
    client = client_for(dataset_module, TODAY)
    yield client
    client.close()


@pytest.fixture(scope="module")
def factsheet_html(tmp_path_factory, fund):
    """The legacy layout's report (as module_client's), rendered once in the run: test_report_words.py and
    tests/present/test_overview.py read the same report."""
    return factsheet_report(tmp_path_factory, "legacy", fund["proj_id"])


def test_factsheet_report_is_one_self_contained_document(factsheet_html, fund):
    page = factsheet_html
    assert page.startswith("<!DOCTYPE html>") and page.rstrip().endswith("</html>")
    assert 'data-report-kind="factsheet"' in page
    for ident in FACTSHEET_SECTIONS:
        section(page, ident)
    assert "Content-Security-Policy" in page and "connect-src 'none'" in page
    assert external_references(page) == []
    assert "Bokeh" in page and page.count('class="chart"') >= 7  # charts are embedded with their library
    assert len(page.encode()) < 6_000_000
    assert html.escape(fund["proj_name_th"]) in page and html.escape(fund["proj_name_en"]) in page


def test_factsheet_header_states_the_as_of_dates_and_generation_time(factsheet_html, fund, dataset_module):
    page = factsheet_html
    pid = fund["proj_id"]
    latest = max(p for p in dataset_module.holdings[pid] if p in valid_periods(TODAY, "legacy"))  # the client's layout
    as_of = {r["as_of_date"] for r in dataset_module.holdings[pid][latest] if r.get("as_of_date")}
    assert fact(page, "holdings-as-of") == f"{quarter_text(latest)} (as of {', '.join(sorted(as_of))})"
    perf_dates = sorted({r["as_of_date"][:10] for r in dataset_module.performance[pid]})
    assert fact(page, "performance-as-of") == ", ".join(perf_dates)
    stamps = [fund["last_upd_date"]]
    for part in ("classes", "investment", "performance", "fees", "allocation"):
        stamps += [r["last_upd_date"] for r in getattr(dataset_module, part).get(pid) or []]
    for part in ("project_type", "suitability", "return_estimate", "redemption", "urls"):
        record = getattr(dataset_module, part).get(pid)
        stamps += [record["last_upd_date"]] if record else []
    stamps += [r["last_upd_date"] for p, rows in dataset_module.holdings[pid].items() for r in rows
               if p in valid_periods(TODAY, "legacy")]
    assert fact(page, "last-updated") == max(stamps)[:16].replace("T", " ")
    assert fact(page, "generated") == "2026-11-21 09:30:05 +0700"
    assert '<time datetime="2026-11-21T09:30:05+07:00">' in page
    assert fact(page, "source") == "demo data (embedded simulator)"
    assert 'id="demo-banner"' in page and DEMO_BANNER in page


def test_factsheet_sections_carry_the_data(factsheet_html, fund, dataset_module):
    page = factsheet_html
    pid = fund["proj_id"]
    holdings = section(page, "holdings")
    latest = max(p for p in dataset_module.holdings[pid] if p in valid_periods(TODAY, "legacy"))
    issuers = {r["issuer"] for r in dataset_module.holdings[pid][latest] if r.get("issuer") not in (None, "", "-", " ")}
    assert any(html.escape(i) in holdings for i in issuers)
    assert 'id="holdings-table"' in holdings
    fees = section(page, "fees")
    assert "Prospectus ceiling" in fees and "(rate)" not in fees and "Actually charged" in fees
    assert "Management Fee" in fees
    risk = section(page, "risk")
    level = dataset_module.suitability[pid]["risk_spectrum"]
    assert level.replace("RS81", "RS8+")[:3] in risk or level in risk
    assert "Fund return" in section(page, "performance")
    assert "From " in section(page, "changes")  # the quarter-to-quarter comparison is stated


def test_unpublished_parts_say_so(module_client, dataset_module):
    no_holdings = next(f for f in dataset_module.funds
                       if f["fund_status"] == "RG" and f["proj_id"] not in dataset_module.holdings
                       and dataset_module.fees.get(f["proj_id"]))
    page = fund_report_html(module_client, [no_holdings["proj_id"]])
    assert "Not published" in section(page, "holdings")
    assert "Not enough published quarters" in section(page, "changes")

    old = next(f for f in dataset_module.funds if f["fund_status"] == "LI" and f["proj_id"] not in dataset_module.fees
               and f["proj_id"] not in dataset_module.allocation)
    search = FundSearch(client=module_client)
    pid = run(search.resolve(old["proj_abbr_name"]))
    page = fund_report_html(module_client, [pid], funds={pid: search.fund_record(pid)})
    for ident in ("allocation", "fees", "holdings"):
        assert "Not published" in section(page, ident)
    assert html.escape(old["proj_name_en"]) in page


def test_a_fund_the_service_does_not_know_is_bad_input(module_client):
    with pytest.raises(BadInputError, match="no data for fund M0001_2501"):
        fund_report_html(module_client, ["M0001_2501"])
    with pytest.raises(BadInputError):
        fund_report_html(module_client, [])


def test_comparison_report_puts_the_funds_side_by_side(dataset_module, tmp_path_factory):
    funds = full_funds(dataset_module)[:3]
    # on the current service's layout, rendered once in the run (test_nav_reports.py reads its NAV section)
    page = report_once(tmp_path_factory, "successor", [f["proj_id"] for f in funds])
    assert 'data-report-kind="comparison"' in page
    for ident in ("summary", "fees", "risk", "allocation", "performance"):
        section(page, ident)
    summary = section(page, "summary")
    for f in funds:
        assert html.escape(f["proj_abbr_name"]) in summary and f["proj_id"] in summary
        assert html.escape(f["proj_name_en"]) in page and html.escape(f["proj_name_th"]) in page
    perf_dates = sorted({r["as_of_date"][:10] for f in funds for r in dataset_module.performance[f["proj_id"]]})
    assert fact(page, "performance-as-of") == ", ".join(perf_dates)
    assert fact(page, "generated") == "2026-11-21 09:30:05 +0700"
    assert re.search(r"\d{4}-\d\d-\d\d \d\d:\d\d", fact(page, "last-updated"))
    assert external_references(page) == []
    assert 'id="allocation-table"' in page and 'id="performance-table"' in page and 'id="fees-table"' in page


def test_comparison_report_has_a_holdings_overlap_section(module_client, dataset_module):
    from dashboard.api.periods import latest_period

    period = latest_period(TODAY, module_client.layout())

    def held(proj_id):
        rows = (dataset_module.holdings.get(proj_id) or {}).get(period) or []
        return {r["issue_code"]: float(r["percent_nav"]) for r in rows
                if r.get("issue_code") and str(r.get("assetliab_id")) != "903" and r.get("percent_nav") is not None}

    with_holdings = [f for f in dataset_module.funds if held(f["proj_id"])]
    a, b = next((x, y) for i, x in enumerate(with_holdings) for y in with_holdings[i + 1:]
                if set(held(x["proj_id"])) & set(held(y["proj_id"])))
    shared = sorted(set(held(a["proj_id"])) & set(held(b["proj_id"])))
    page = html.unescape(fund_report_html(module_client, [a["proj_id"], b["proj_id"]], generated_at=GENERATED))
    overlap = section(page, "overlap")
    assert 'id="overlap-pairs-table"' in overlap and 'id="overlap-table"' in overlap
    assert any(code in overlap for code in shared)
    expected = sum(min(held(a["proj_id"])[c], held(b["proj_id"])[c]) for c in shared)
    assert f"{expected:.2f} %" in overlap


def test_licensee_report_shows_approvals_duties_and_cases(module_client, dataset_module):
    person, case_id = next((uid, case) for (uid, case) in dataset_module.enforcement if uid.startswith("P"))
    alert_id = next(iter(dataset_module.alerts))
    page = licensee_report_html(module_client, person, [case_id, alert_id, "NO-SUCH-CASE"], generated_at=GENERATED)
    assert 'data-report-kind="licensee"' in page
    assert 'id="approvals-table"' in page
    assert f'data-case="{case_id}"' in page and f'data-case="{alert_id}"' in page
    assert "No enforcement action or investor alert is recorded under case NO-SUCH-CASE" in page
    record = dataset_module.enforcement[(person, case_id)]
    assert html.escape(record["enforcement_details"]) in page
    # The action-type meanings, with types 3 and 4 read differently for the date and the details.
    meanings = re.search(r'<table class="data" id="enforcement-meanings">.*?</table>', page, re.S).group(0)
    assert "date of administrative action" in meanings and "date of administrative fine" in meanings
    assert "administrative fine in the form" in meanings and "compounding details" in meanings
    assert fact(page, "generated") == "2026-11-21 09:30:05 +0700"
    assert external_references(page) == []


def test_licensee_report_of_a_company(module_client, dataset_module):
    amc = dataset_module.amcs[0]["unique_id"]
    page = licensee_report_html(module_client, amc)
    assert 'id="company-funds-table"' in page
    assert "--case" not in page  # a command-line flag has no place in an HTML page


def test_licence_report_of_a_company_holds_its_record_and_cases_under_its_name(dataset_module):
    """The title names the company; the current service's licences, personnel, business activities and the case
    list are in the report."""
    (uid, case_id) = next(k for k in dataset_module.enforcement if k[0].startswith("C"))
    client = client_for(dataset_module, TODAY, layout="successor")
    try:
        page = html.unescape(licensee_report_html(client, uid, generated_at=GENERATED))
        amc = dataset_module.amcs[0]
        amc_page = html.unescape(licensee_report_html(client, amc["unique_id"], generated_at=GENERATED))
    finally:
        client.close()
    assert f"Licence check: {amc['name_en']} ({amc['unique_id']})" in amc_page
    assert f"Licence check: company {amc['unique_id']}" not in amc_page
    for ident in ("company-licences-table", "business-table"):
        assert f'id="{ident}"' in amc_page
    assert "People on duty" in amc_page
    assert 'id="cases-table"' in page and case_id in section(page, "enforcement") and "--case" not in page


@pytest.mark.parametrize("layout", ["legacy", "successor"])
def test_licence_report_of_a_company_that_holds_a_licence_never_says_it_once_held_one(dataset_module, layout):
    """Issue 39: a fund management company licensed today was reported as having 'once held a licence'."""
    amc = dataset_module.amcs[0]
    client = client_for(dataset_module, TODAY, layout=layout)
    try:
        page = html.unescape(licensee_report_html(client, amc["unique_id"], generated_at=GENERATED))
    finally:
        client.close()
    assert 'id="company-funds-table"' in page
    assert "once held a licence" not in page


def test_licence_report_of_a_person_is_titled_with_the_persons_name(dataset_module):
    """Issue 39: a person's report was titled 'person P...' and showed the id twice, with no name. The register
    names a person only in its person search, found by a registration number of the person's approvals."""
    person = next(p for p in dataset_module.persons
                  if any(a.get("regis_sale_no") for a in dataset_module.approvals.get(p["unique_id"]) or []))
    name = person["name_en"]
    client = client_for(dataset_module, TODAY, layout="successor")
    try:
        page = html.unescape(licensee_report_html(client, person["unique_id"], generated_at=GENERATED))
    finally:
        client.close()
    assert f"<title>Licence check: {name} ({person['unique_id']})</title>" in page
    assert f"<h1>Licence check: {name} ({person['unique_id']})</h1>" in page
    assert f"person {person['unique_id']}" not in page


def test_licence_report_warns_of_a_duty_past_its_approval(module_client, dataset_module):
    from dashboard.models.licensee import duties_past_approval
    from dashboard.records import records_frame

    pid, flagged = next((p, f) for p, a in sorted(dataset_module.approvals.items())
                        if not (f := duties_past_approval(records_frame("approval", a),
                                                          records_frame("duty", dataset_module.duties.get(p) or []), TODAY)).empty)
    page = html.unescape(licensee_report_html(module_client, pid, generated_at=GENERATED))
    warning = section(page, "compliance")
    assert f"the approval for it expired on {flagged.iloc[0]['approval_expired']}" in warning


@pytest.mark.parametrize("layout", ["legacy", "successor"])
def test_hostile_service_text_is_escaped_everywhere(dataset_module, layout):
    client = client_for(hostile_dataset(dataset_module), TODAY, layout)
    try:
        page = fund_report_html(client, [HOSTILE_PROJ_ID])
        other = full_funds(dataset_module)[0]["proj_id"]
        comparison = fund_report_html(client, [HOSTILE_PROJ_ID, other])
    finally:
        client.close()
    for doc in (page, comparison):
        for fragment in RAW_MARKUP:
            assert fragment not in doc, fragment
        assert not re.search(r'href\s*=\s*["\']?\s*javascript:', doc, re.I)
        assert html.escape(HOSTILE_NAME) in doc
    assert html.escape(HOSTILE_REMARK) in section(page, "fees")
    assert "javascript:alert(&#x27;url&#x27;)" in section(page, "overview")  # shown as text, not a link


def test_the_key_never_reaches_the_report(make_client, dataset, tmp_path):
    client = make_client()  # the loopback simulator accepts only KEY
    proj_ids = [f["proj_id"] for f in full_funds(dataset)[:2]]
    person, case_id = next(iter(dataset.enforcement))
    pages = [fund_report_html(client, proj_ids[:1]), fund_report_html(client, proj_ids),
             licensee_report_html(client, person, [case_id])]
    assert 'id="holdings-table"' in pages[0]  # the key worked: real data, not an error page
    for page in pages:
        assert KEY not in page and KEY[:12] not in page
        assert "Ocp-Apim" not in page and "subscription" not in page.lower()
        # Not demo data here: no banner, and the source is the service's address.
        assert DEMO_BANNER not in page and 'id="demo-banner"' not in page
        assert fact(page, "source") == client.settings.base_url
    with pytest.raises(AuthenticationError):
        fund_report_html(make_client(api_key="wrong-test-value", cache_dir=tmp_path / "empty-cache"), proj_ids[:1])


def test_write_report_is_atomic_and_returns_the_path(tmp_path):
    target = tmp_path / "sub" / "report.html"
    path = write_report("<!DOCTYPE html><html></html>\n", target)
    assert path == target.resolve() and path.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    assert [p.name for p in path.parent.iterdir()] == ["report.html"]


def run_cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SEC_")}
    env["PYTHONPATH"] = str(ROOT)
    return subprocess.run([sys.executable, "-m", "dashboard", "--demo", *args], capture_output=True, text=True,
                          env=env, timeout=120, cwd=cwd)


@pytest.mark.slow  # a whole sync, a subprocess or whole reports: seconds each
def test_cli_writes_a_fund_report(tmp_path, capsys):
    """The command line's main() in this process (a fresh process added seconds of imports to the report's own;
    the real entry point's exit code and stderr are test_cli_bad_query_exits_2_and_writes_nothing's)."""
    from dashboard.cli.main import main

    # The command line runs on the real today: take the abbreviation from that day's demo data.
    abbr = full_funds(generate_demo_dataset())[0]["proj_abbr_name"]
    out = tmp_path / "fund.html"
    assert main(["--demo", "report", "fund", abbr, "-o", str(out)]) == 0
    stderr = capsys.readouterr().err
    assert out.exists() and out.stat().st_size > 100_000
    assert f"wrote {out}" in stderr and "MB" in stderr
    text = out.read_text(encoding="utf-8")
    assert 'data-report-kind="factsheet"' in text and DEMO_BANNER in text


def test_cli_bad_query_exits_2_and_writes_nothing(tmp_path):
    out = tmp_path / "bad.html"
    done = run_cli("report", "fund", "NO-SUCH-FUND-ABBR", "-o", str(out), cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert "no fund has the abbreviation" in done.stderr
    assert not out.exists() and list(tmp_path.iterdir()) == []


def test_cli_licensee_report_in_process(tmp_path, capsys, dataset):
    from dashboard.cli.main import main

    person, case_id = next(iter(dataset.enforcement))
    out = tmp_path / "person.html"
    assert main(["--demo", "report", "licensee", person, "--case", case_id, "-o", str(out)]) == 0
    assert "wrote" in capsys.readouterr().err
    assert f'data-case="{case_id}"' in out.read_text(encoding="utf-8")
    assert main(["--demo", "report", "licensee", "bad/id", "-o", str(tmp_path / "x.html")]) == 2
    assert not (tmp_path / "x.html").exists()


def test_factsheet_report_draws_a_negative_share_as_bars_and_names_it(dataset_module, fund):
    import copy

    data = copy.deepcopy(dataset_module)
    pid = fund["proj_id"]
    template = data.allocation[pid][0]
    shares = [("Shares", 60.50), ("Debentures", 25.25), ("Units of property funds", 15.31),
              ("Other assets and liabilities", -1.06)]
    data.allocation[pid] = [dict(template, asset_seq=type(template["asset_seq"])(i + 1), asset_name=name,
                                 asset_ratio=type(template["asset_ratio"])(ratio))
                            for i, (name, ratio) in enumerate(shares)]
    client = client_for(data, TODAY)
    try:
        page = fund_report_html(client, [pid], generated_at=GENERATED)
    finally:
        client.close()
    allocation = section(page, "allocation")
    assert "Below zero: Other assets and liabilities -1.06 %" in html.unescape(allocation)
    # No ring anywhere in the report's charts (the inline Bokeh library names the glyph too): bars instead.
    assert '"name":"AnnularWedge"' not in page and '"name":"HBar"' in page


def test_licensee_report_reads_a_case_with_the_kind_its_case_list_names(dataset_module):
    (uid, case_id), _ = next(iter(dataset_module.enforcement.items()))
    client = client_for(dataset_module, TODAY, layout="successor")
    try:
        listed = run(LicenceCheck(client=client).load_cases(uid))
        page = html.unescape(licensee_report_html(client, uid, [case_id], generated_at=GENERATED))
    finally:
        client.close()
    kind = enforcement_type_key(listed.loc[listed["case_id"] == case_id, "enforcement_type"].iloc[0])
    meanings = enforcement_meanings(kind)
    enforcement = section(page, "enforcement")
    assert f"{ENFORCEMENT_TYPE[kind][1]} ({ENFORCEMENT_TYPE[kind][0]}), as the case list names it" in enforcement
    assert f"the date is the {meanings['date'][1]}" in enforcement
    assert "No case list names" not in enforcement and 'id="enforcement-meanings"' not in enforcement


def test_licence_report_names_a_duty_at_a_company_that_is_not_an_asset_manager(module_client, dataset_module):
    """A duty at a securities company was listed by its bare identifier: the company list (E16) names it (issue 30)."""
    amcs = {a["unique_id"] for a in dataset_module.amcs}
    pid, company = next((p, d["company_unique_id"]) for p, duties in sorted(dataset_module.duties.items())
                        for d in duties if d["company_unique_id"] not in amcs)
    name = next(r["name_en"] for r in dataset_module.licensees if r["unique_id"] == company)
    page = html.unescape(licensee_report_html(module_client, pid, generated_at=GENERATED))
    assert f"{name} ({company})" in page
    assert f"at {company}" not in page  # the timeline's duty too
