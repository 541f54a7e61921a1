"""The demo data set: deterministic, fictional, and as untidy as the real service's payloads."""

from __future__ import annotations

import base64
import binascii
import re
from collections import Counter
from datetime import date

import pytest

from dashboard.api.periods import offered_periods, quarter_end
from dashboard.demo.dataset import DemoDataset
from dashboard.demo.generator import _generated, generate_demo_dataset
from dashboard.demo.pools import DEMO_LABEL, PERFORMANCE_TYPES, REFERENCE_PERIODS

TODAY = date(2026, 11, 21)
PER_FUND = ("classes", "investment", "project_type", "suitability", "return_estimate", "performance",
            "redemption", "fees", "allocation", "urls")
STAMP = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?$")


@pytest.fixture(scope="module")
def ds() -> DemoDataset:
    return generate_demo_dataset(today=TODAY)


def holding_sum(rows: list[dict]) -> float:
    return sum(float(r["percent_nav"]) for r in rows if r["assetliab_id"] != "903")


def all_records(ds: DemoDataset):
    """Every record of every payload, with the name of the payload it came from."""
    for f in ds.funds:
        yield "funds", f
    for name in PER_FUND:
        for payload in getattr(ds, name).values():
            for record in payload if isinstance(payload, list) else [payload]:
                yield name, record
    for by_period in ds.holdings.values():
        for rows in by_period.values():
            for r in rows:
                yield "holdings", r
    for name in ("licensees", "former_licensees"):
        for r in getattr(ds, name):
            yield name, r
    for name in ("approvals", "duties"):
        for records in getattr(ds, name).values():
            for r in records:
                yield name, r
    for name in ("enforcement", "alerts"):
        for r in getattr(ds, name).values():
            yield name, r


def decode(text: str) -> str:
    return base64.b64decode(text, validate=True).decode("utf-8")


# ---- determinism and speed -----------------------------------------------------------------------


def test_same_seed_and_day_give_the_same_data():
    _generated.cache_clear()
    first = generate_demo_dataset(seed=7, today=TODAY)
    _generated.cache_clear()
    assert generate_demo_dataset(seed=7, today=TODAY) == first


def test_different_seed_gives_different_data(ds):
    other = generate_demo_dataset(seed=99, today=TODAY)
    assert other.funds != ds.funds
    assert other.holdings != ds.holdings


def test_each_call_returns_an_independent_copy():
    a = generate_demo_dataset(today=TODAY)
    a.funds.clear()
    a.holdings[next(iter(a.holdings))].clear()
    b = generate_demo_dataset(today=TODAY)
    assert b.funds and all(len(v) == len(offered_periods(TODAY)) for v in b.holdings.values())


def test_today_defaults_to_the_real_today():
    assert generate_demo_dataset().today == date.today()
    assert generate_demo_dataset().periods == offered_periods(date.today())


# ---- funds ---------------------------------------------------------------------------------------


def test_label_period_and_day(ds):
    assert ds.label == DEMO_LABEL == "DEMO DATA — fictional funds and companies"
    assert ds.today == TODAY
    assert ds.periods == offered_periods(TODAY)  # every quarter either layout offers (45 or 60 days on)


def test_companies_and_funds_are_many_and_fictional(ds):
    assert len(ds.amc_ids()) >= 8
    assert len(ds.funds) >= 60
    for amc in ds.amcs:
        assert amc["name_en"].startswith("Demo ") and "เดโม" in amc["name_th"]
        assert re.fullmatch(r"C\d{10}", amc["unique_id"])
        assert ds.amc_name(amc["unique_id"]) == amc["name_en"]
        assert ds.amc_name(amc["unique_id"], "th") == amc["name_th"]
    assert ds.amc_name("C9999999999") == "C9999999999"
    for f in ds.funds:
        assert "Demo" in f["proj_name_en"] and "เดโม" in f["proj_name_th"]
        assert f["unique_id"] in ds.amc_ids()


def test_every_status_occurs_and_most_funds_are_registered(ds):
    statuses = Counter(f["fund_status"] for f in ds.funds)
    assert set(statuses) == {"SE", "EX", "RG", "CA", "LI"}
    assert statuses["RG"] > len(ds.funds) / 2


def test_fund_identifiers(ds):
    ids = [f["proj_id"] for f in ds.funds]
    assert len(set(ids)) == len(ids)
    abbrs = [f["proj_abbr_name"] for f in ds.funds]
    assert len(set(abbrs)) == len(abbrs)
    for f in ds.funds:
        assert re.fullmatch(r"M\d{4}_25\d{2}", f["proj_id"]), f["proj_id"]
        assert f["proj_abbr_name"] == f["proj_abbr_name"].upper()
        assert f["permit_us_investment"] in ("Y", "N")
        if f["fund_status"] in ("RG", "LI"):
            assert int(f["proj_id"][-4:]) - 543 == int(f["regis_date"][:4])
        if f["fund_status"] in ("CA", "LI"):
            assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", f["cancel_date"])
        else:
            assert f["cancel_date"] in ("-", "")
    assert ds.fund(ids[0]) is ds.funds[0]
    assert ds.fund("M0000_0000") is None


def test_both_spellings_of_the_country_flag(ds):
    spellings = Counter("invest_country_flage" if "invest_country_flage" in f else "invest_country_flag" for f in ds.funds)
    assert spellings["invest_country_flage"] > spellings["invest_country_flag"] > 0
    values = {f.get("invest_country_flage", f.get("invest_country_flag")) for f in ds.funds}
    assert values <= {"1", "2", "3", "4"} and len(values) >= 3


def test_multi_class_funds_and_single_class_funds(ds):
    assert len(ds.classes) >= 5
    for pid, classes in ds.classes.items():
        fund = ds.fund(pid)
        assert len(classes) >= 2
        for c in classes:
            assert c["proj_id"] == pid and c["proj_abbr_name"] == fund["proj_abbr_name"]
            assert c["class_abbr_name"].startswith(fund["proj_abbr_name"] + "-")
            assert set(c) == {"proj_id", "last_upd_date", "proj_abbr_name", "class_abbr_name", "class_name", "class_additional_desc"}
    names = {c["class_abbr_name"] for cs in ds.classes.values() for c in cs}
    assert any(n.endswith("-SSF") for n in names) and any(n.endswith("-A") for n in names)
    assert len(ds.classes) < len(ds.funds)  # the rest are single-class: E4 answers 204


def test_value_types_follow_the_specification(ds):
    for name, record in all_records(ds):
        assert isinstance(record.get("last_upd_date"), str), (name, record)
        for key, value in record.items():
            if key in ("lowbal_val", "lowbal_unit"):
                assert isinstance(value, (int, float)) and not isinstance(value, bool)
            else:
                assert value is None or isinstance(value, str), (name, key, value)


def test_last_update_stamps_have_zero_to_three_fractional_digits(ds):
    stamps = [r["last_upd_date"] for _, r in all_records(ds)]
    assert all(STAMP.match(s) for s in stamps)
    digits = Counter(len(s.split(".")[1]) if "." in s else 0 for s in stamps)
    assert set(digits) == {0, 1, 2, 3}


def test_missing_values_use_every_spelling(ds):
    seen = Counter()
    for _, record in all_records(ds):
        for value in record.values():
            if value in ("-", None, " ", "", "0000-00-00"):
                seen[value] += 1
    assert set(seen) == {"-", None, " ", "", "0000-00-00"}


def test_investment_minimums_in_varied_forms(ds):
    values = {r["minimum_sub_ipo"] for rs in ds.investment.values() for r in rs}
    assert {"1000", "0.01", "1000.00", "-"} <= values
    lowbal = {r["lowbal_val"] for rs in ds.investment.values() for r in rs}
    assert any(isinstance(v, float) for v in lowbal) and any(isinstance(v, int) for v in lowbal)


# ---- holdings ------------------------------------------------------------------------------------


def test_holdings_cover_exactly_the_twelve_valid_quarters(ds):
    registered = [f["proj_id"] for f in ds.funds if f["fund_status"] == "RG"]
    with_holdings = [pid for pid in registered if pid in ds.holdings]
    assert len(with_holdings) > len(registered) * 0.8
    assert set(ds.holdings) <= set(registered)
    for pid, by_period in ds.holdings.items():
        assert list(by_period) == offered_periods(TODAY)
        for period, rows in by_period.items():
            assert 15 <= len(rows) <= 120, (pid, period, len(rows))
            for r in rows:
                assert list(r) == ["last_upd_date", "as_of_date", "assetliab_id", "issue_code", "isin_code",
                                   "issuer", "assetliab_value", "percent_nav"]
                assert r["as_of_date"] == quarter_end(period).isoformat()
                assert re.fullmatch(r"-?\d+\.\d{5}", r["percent_nav"])
                assert re.fullmatch(r"-?\d+(\.\d{1,5})?", r["assetliab_value"])
                assert r["isin_code"] == "-" or len(r["isin_code"]) == 12


def test_holdings_sums_stay_within_100_20_except_one_feeder(ds):
    over = set()
    for pid, by_period in ds.holdings.items():
        for rows in by_period.values():
            total = holding_sum(rows)
            if total > 100.2:
                over.add(pid)
                assert 140 <= total <= 160
            else:
                assert 99.5 <= total <= 100.2
    assert len(over) == 1
    assert "Feeder" in ds.fund(over.pop())["proj_name_en"]


def test_some_portfolios_have_a_nav_total_line(ds):
    nav_lines = [r for by_period in ds.holdings.values() for rows in by_period.values() for r in rows
                 if r["assetliab_id"] == "903"]
    assert nav_lines
    assert all(abs(float(r["percent_nav"]) - 100) < 0.001 for r in nav_lines)
    codes = {r["assetliab_id"] for by_period in ds.holdings.values() for rows in by_period.values() for r in rows}
    assert len(codes) >= 8
    isins = [r["isin_code"] for by_period in ds.holdings.values() for rows in by_period.values() for r in rows]
    assert "-" in isins and any(i.startswith("TH") for i in isins)


def test_securities_persist_drift_enter_and_leave(ds):
    entered = left = drifted = 0
    for by_period in ds.holdings.values():
        quarters = list(by_period.values())
        for newer, older in zip(quarters, quarters[1:]):
            new = {r["issue_code"]: r["percent_nav"] for r in newer if r["issue_code"] != "-" and r["assetliab_id"] != "501"}
            old = {r["issue_code"]: r["percent_nav"] for r in older if r["issue_code"] != "-" and r["assetliab_id"] != "501"}
            assert len(new.keys() & old.keys()) >= 0.5 * min(len(new), len(old))
            entered += len(new.keys() - old.keys())
            left += len(old.keys() - new.keys())
            drifted += sum(new[k] != old[k] for k in new.keys() & old.keys())
    assert entered > 50 and left > 50 and drifted > 1000


# ---- factsheet parts -----------------------------------------------------------------------------


def test_project_types_cover_every_retail_type(ds):
    retail = Counter(r["proj_retail_type"] for r in ds.project_type.values())
    assert set(retail) == {"R", "A", "N", "G", "X", "H", "B", None}
    assert retail.most_common(1)[0][0] == "R"
    flags = Counter(r["proj_term_flag"] for r in ds.project_type.values())
    assert flags["Y"] and flags["N"]
    for r in ds.project_type.values():
        if r["proj_term_flag"] == "Y":
            assert any(r[k] not in ("0", "-", "", None) for k in ("proj_term_dd", "proj_term_mm", "proj_term_yy"))


def test_suitability_texts_are_untidy_base64(ds):
    risks = Counter(r["risk_spectrum"] for r in ds.suitability.values())
    assert {"RS81", "RS8+", "RS8", "RS6", "RS4"} <= set(risks)
    assert set(risks) <= {f"RS{i}" for i in range(1, 9)} | {"RS81", "RS8+"}
    fields = ("fund_suitable_desc", "fund_not_suitable_desc", "important_notice", "risk_spectrum_desc")
    invalid = empty = stray_n = newline = 0
    for record in ds.suitability.values():
        for key in fields:
            value = record[key]
            if value == "":
                empty += 1
                continue
            try:
                text = decode(value)
            except (binascii.Error, ValueError):
                invalid += 1
                continue
            assert re.search(r"[\u0e00-\u0e7f]", text)
            newline += "\n" in text
            stray_n += bool(re.search(r"[\u0e00-\u0e7f)]n[\u0e00-\u0e7f(]", text))
    assert invalid >= 1 and empty >= 1 and stray_n >= 1 and newline >= 1


def test_return_estimates_for_fixed_term_funds(ds):
    assert ds.return_estimate
    for pid, r in ds.return_estimate.items():
        assert ds.project_type[pid]["proj_term_flag"] == "Y"
        assert float(r["total_estimated_return"]) > float(r["annual_average_return"])
        assert set(r) == {"last_upd_date", "total_estimated_return", "annual_estimated_expense",
                          "annual_average_return", "investment_period_year", "investment_period_month"}


def test_performance_has_every_period_and_type_per_class(ds):
    labels = set()
    nulls = 0
    for pid, records in ds.performance.items():
        by_class = {}
        for r in records:
            by_class.setdefault(r["class_abbr_name"], set()).add((r["reference_period"], r["performance_type_desc"]))
            assert re.fullmatch(r"\d{4}-\d{2}-\d{2} 00:00:00\.0000000", r["as_of_date"])
            if r["performance_val"] is None:
                nulls += 1
            else:
                float(r["performance_val"])
        for combos in by_class.values():
            assert combos == {(p, t) for p in REFERENCE_PERIODS for t in PERFORMANCE_TYPES}
        if pid in ds.classes:
            assert set(by_class) == {c["class_abbr_name"] for c in ds.classes[pid]}
        labels |= set(by_class)
    assert {"-", "1", "main"} <= labels
    assert nulls > 0
    young = [rs for rs in ds.performance.values() if all(r["performance_val"] is None for r in rs if r["reference_period"] == "10 years")]
    assert young


def test_redemption_codes(ds):
    codes = {r["redemp_period"] for r in ds.redemption.values()}
    assert codes == {"1", "2", "3", "4", "5", "6", "7", "8", "9", "E", "T"}
    for r in ds.redemption.values():
        assert re.fullmatch(r"T\+\d", r["settlement_period"])
        if r["redemp_period"] == "9":
            assert r["redemp_period_oth"] not in ("-", "", None, " ")
        assert r["buying_cut_off_time"] == "-" or re.fullmatch(r"\d{2}:\d{2}", r["buying_cut_off_time"])


def test_fees_per_class_with_free_text(ds):
    types = {r["fee_type_desc"] for rs in ds.fees.values() for r in rs}
    for wanted in ("Front-end Fee", "Back-end Fee", "Management Fee", "Trustee Fee", "Registrar Fee", "Total Fee and Expense"):
        assert any(f"({wanted})" in t for t in types)
    values = [v for rs in ds.fees.values() for r in rs for v in (r["rate"], r["actual_value"])]
    numeric = [v for v in values if re.fullmatch(r"\d+(\.\d+)?", v)]
    assert len(numeric) > len(values) / 2
    assert {"ยกเว้น", "-", "ไม่เกิน 1.50", "0.25 - 1.00"} <= set(values)
    assert any(r["fee_other_desc"] not in ("-", "", None) for rs in ds.fees.values() for r in rs)
    for pid, classes in ds.classes.items():
        if pid in ds.fees:
            assert {r["class_abbr_name"] for r in ds.fees[pid]} == {c["class_abbr_name"] for c in classes}


def test_allocations_sum_to_about_100(ds):
    for proj_id, rows in ds.allocation.items():
        assert 1 <= len(rows) <= 8
        assert [r["asset_seq"] for r in rows] == [str(i) for i in range(1, len(rows) + 1)]
        total = sum(float(r["asset_ratio"]) for r in rows)
        if proj_id in ds.holdings:  # the newest quarter's lines by type: their sum, 150 % for the gross feeder
            quarter = ds.holdings[proj_id][max(ds.holdings[proj_id])]
            held = sum(float(r["percent_nav"]) for r in quarter if r["assetliab_id"] != "903")
            assert abs(total - held) <= 0.01 * len(rows)
        else:
            assert 3 <= len(rows) and abs(total - 100) <= 0.05


def test_report_links(ds):
    all_dash = [u for u in ds.urls.values() if {u["url_halfyear_report"], u["url_annual_report"], u["url_factsheet"]} == {"-"}]
    linked = [u for u in ds.urls.values() if u["url_factsheet"].startswith("https://demo.invalid/")]
    assert all_dash and linked and len(all_dash) + len(linked) == len(ds.urls)


def test_old_funds_often_have_no_data(ds):
    old = [f["proj_id"] for f in ds.funds if f["fund_status"] in ("EX", "CA", "LI")]
    for name in ("performance", "fees", "allocation", "suitability"):
        missing = [pid for pid in old if pid not in getattr(ds, name)]
        assert len(missing) > len(old) / 2, name


def test_no_data_cases_exist_and_some_answer_an_empty_200(ds):
    ids = {f["proj_id"] for f in ds.funds}
    for name in PER_FUND:
        assert ids - set(getattr(ds, name)), f"every fund has {name}: no 204 case"
    assert len(ds.empty_200) >= 4
    lookup = {"E4": ds.classes, "E6": ds.holdings, "E9": ds.return_estimate, "E10": ds.performance,
              "E12": ds.fees, "E18": ds.duties}
    for key, endpoint_id in ds.empty_200:
        assert key not in lookup[endpoint_id]


# ---- licence side --------------------------------------------------------------------------------


def test_licensees(ds):
    assert len(ds.licensees) == 40
    ids = {r["unique_id"] for r in ds.licensees}
    assert len(ids) == 40 and set(ds.amc_ids()) <= ids
    assert len(ds.former_licensees) >= 8
    assert not ids & {r["unique_id"] for r in ds.former_licensees}
    for r in ds.licensees + ds.former_licensees:
        assert "Demo" in r["name_en"] and "เดโม" in r["name_th"]
        assert set(r) == {"last_upd_date", "unique_id", "name_th", "name_en"}


def test_persons_approvals_and_duties(ds):
    assert len(ds.persons) == 60
    licensee_ids = {r["unique_id"] for r in ds.licensees}
    expiries = Counter()
    privileges = set()
    for p in ds.persons:
        pid = p["unique_id"]
        assert p["company_unique_id"] in licensee_ids
        approvals = ds.approvals[pid]
        assert 1 <= len(approvals) <= 4
        for a in approvals:
            assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", a["effective_date"])
            privileges.add(a["privilege_type"])
            if a["expire_date"] == "":
                expiries["none"] += 1
            else:
                expiries["past" if date.fromisoformat(a["expire_date"]) < TODAY else "future"] += 1
        duties = ds.duties.get(pid, [])
        assert len(duties) <= 3
        for d in duties:
            assert d["person_unique_id"] == pid and d["company_unique_id"] in licensee_ids
            assert d["action_end_date"] == ""
    assert set(expiries) == {"none", "past", "future"}
    assert privileges == {"MD", "FM", ""}
    assert any(a["regis_sale_no"] not in ("-", "", None, " ") for rs in ds.approvals.values() for a in rs)
    assert any(p["unique_id"] not in ds.duties for p in ds.persons)
    assert ds.person(ds.persons[0]["unique_id"]) is ds.persons[0]


def test_enforcement_cases_cover_every_action_type(ds):
    assert len(ds.enforcement) >= 10
    assert set(ds.enforcement_types.values()) == {1, 2, 3, 4, 5}
    unpaid = 0
    for key, record in ds.enforcement.items():
        unique_id, case_id = key
        assert re.fullmatch(r"EN-\d{4}-\d{3}", case_id)
        action = ds.enforcement_types[key]
        if action == 2:
            assert re.search(r"compounding order no\. \S+ with a fine of [\d,]+ baht", record["enforcement_details"])
            unpaid += "not paid in full" in record["enforcement_remark"]
        if action == 3:
            assert re.search(r"with a fine of [\d,]+ baht", record["enforcement_details"])
        if action == 4:
            assert re.search(r"effective from \d{2}/\d{2}/\d{4} to \d{2}/\d{2}/\d{4}", record["enforcement_remark"])
        assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", record["enforcement_date"])
    assert unpaid == 1
    cases = {c for p in ds.persons for c in p["case_ids"]}
    assert cases and cases <= {case for _, case in ds.enforcement}


def test_investor_alerts(ds):
    assert len(ds.alerts) >= 8
    for case_id, record in ds.alerts.items():
        assert re.fullmatch(r"IA-\d{4}-\d{3}", case_id) and record["case_id"] == case_id
        assert set(record) == {"last_upd_date", "case_id", "seq_no", "license_th", "license_en"}
        assert "Demo" in record["license_en"]


# ---- mutability ----------------------------------------------------------------------------------


def test_a_hostile_fund_can_be_injected():
    ds = generate_demo_dataset(today=TODAY)
    hostile = dict(ds.funds[0], proj_id="M9999_2569", proj_name_en="<img src=x onerror=alert(1)>",
                   proj_abbr_name="<B>", unique_id="C0000000999")
    ds.add_fund(hostile, urls={"last_upd_date": "2025-07-04T08:10:00", "url_factsheet": "javascript:alert(1)",
                               "url_annual_report": "-", "url_halfyear_report": "-"})
    assert ds.fund("M9999_2569")["proj_name_en"] == "<img src=x onerror=alert(1)>"
    assert ds.urls["M9999_2569"]["url_factsheet"] == "javascript:alert(1)"
    assert "C0000000999" in ds.amc_ids()
    with pytest.raises(TypeError):
        ds.add_fund(dict(hostile, proj_id="M9998_2569"), nonsense=[])
    assert generate_demo_dataset(today=TODAY).fund("M9999_2569") is None


def test_an_empty_data_set_can_be_built():
    ds = DemoDataset()
    assert ds.funds == [] and ds.amc_ids() == [] and ds.label == DEMO_LABEL


def test_the_company_list_names_every_company_people_are_on_duty_at(ds):
    """E16 lists entities that ever held a licence: the demo's held only ten former licensees, so a duty at any
    other company could not be named. It holds every company a duty names, and the former licensees, once each."""
    register = ds.company_register()
    listed = {r["unique_id"] for r in register}
    on_duty = {d["company_unique_id"] for duties in ds.duties.values() for d in duties}
    assert on_duty - set(ds.amc_ids()) and on_duty <= listed  # companies that are not asset managers among them
    assert {r["unique_id"] for r in ds.former_licensees} <= listed and len(listed) == len(register)
    assert all(set(r) == {"last_upd_date", "unique_id", "name_th", "name_en"} for r in register)
