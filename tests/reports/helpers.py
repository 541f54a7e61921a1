"""Demo funds and a hostile fund for the report tests (shared by the browser tests)."""

from __future__ import annotations

import base64
import copy
from datetime import date, datetime, timedelta, timezone

import httpx

from dashboard.api.sync import SecClient
from dashboard.config import ApiSettings
from dashboard.demo.connect import open_client
from dashboard.demo.dataset import DemoDataset
from dashboard.demo.simulator import create_app

HOSTILE_PROJ_ID = "M9998_2569"
HOSTILE_ABBR = "EVIL<b>FUND</b>"
HOSTILE_NAME = '<script>alert("name")</script><img src=x onerror=alert("img")> & "quoted"'
HOSTILE_REMARK = '"><svg onload=alert("svg")></svg><a href="javascript:alert(1)">click</a></textarea></script>'
HOSTILE_URL = "javascript:alert('url')"
# Fragments that may appear only escaped: any of them raw in the file means markup got through.
RAW_MARKUP = ("<script>alert", "<img src=x", "<svg onload", '<a href="javascript:', "<b>FUND</b>")


def full_funds(dataset: DemoDataset) -> list[dict]:
    """Registered funds with every part a report draws, multi-class ones first."""
    funds = [f for f in dataset.funds
             if f["fund_status"] == "RG" and f["proj_id"] in dataset.holdings and dataset.fees.get(f["proj_id"])
             and dataset.performance.get(f["proj_id"]) and dataset.allocation.get(f["proj_id"])
             and dataset.suitability.get(f["proj_id"])]
    return sorted(funds, key=lambda f: -len(dataset.classes.get(f["proj_id"]) or []))


def hostile_dataset(dataset: DemoDataset) -> DemoDataset:
    """The demo data plus one fund whose names, fee remarks, assets, issuers and links are markup."""
    ds = copy.deepcopy(dataset)
    src = full_funds(ds)[0]["proj_id"]
    record = dict(ds.fund(src), proj_id=HOSTILE_PROJ_ID, proj_abbr_name=HOSTILE_ABBR,
                  proj_name_en=HOSTILE_NAME, proj_name_th=HOSTILE_NAME)

    def rows(payload, **changes):
        return [dict(r, **changes) for r in copy.deepcopy(payload)]

    classes = ds.classes.get(src) or [{"proj_id": src, "last_upd_date": "2026-01-01T00:00:00", "proj_abbr_name": "",
                                       "class_abbr_name": "-", "class_name": "-", "class_additional_desc": "-"}]
    fees = rows(ds.fees[src], fee_other_desc=HOSTILE_REMARK)
    fees[0]["fee_type_desc"] = HOSTILE_NAME
    allocation = rows(ds.allocation[src])
    allocation[0]["asset_name"] = HOSTILE_NAME
    holdings = {period: rows(lines) for period, lines in ds.holdings[src].items()}
    for lines in holdings.values():
        lines[0]["issuer"] = HOSTILE_REMARK
        lines[0]["issue_code"] = HOSTILE_ABBR
    suitability = dict(ds.suitability[src], fund_suitable_desc=base64.b64encode(HOSTILE_NAME.encode()).decode())
    ds.add_fund(
        record,
        classes=rows(classes, proj_id=HOSTILE_PROJ_ID, proj_abbr_name=HOSTILE_ABBR),
        fees=fees, allocation=allocation, holdings=holdings, suitability=suitability,
        performance=rows(ds.performance[src]),
        urls={"last_upd_date": "2026-01-01T00:00:00", "url_factsheet": HOSTILE_URL,
              "url_annual_report": HOSTILE_REMARK, "url_halfyear_report": "-"},
    )
    return ds


def client_for(dataset: DemoDataset, today: date, layout: str = "legacy", settings: ApiSettings | None = None,
               **options) -> SecClient:
    """A demo-mode client over a given data set (in-process simulator playing one layout, no network)."""
    app = create_app(dataset, require_key=False, today=today, layout=layout)
    settings = settings or ApiSettings.from_env(demo=True, layout=layout, environ={})
    return open_client(settings, transport=httpx.ASGITransport(app=app), today=lambda: today, **options)


#: When the shared reports below say they were made (tests/reports/test_reports.py checks how it is written).
GENERATED = datetime(2026, 11, 21, 9, 30, 5, tzinfo=timezone(timedelta(hours=7)))


def factsheet_report(tmp_path_factory, layout: str, proj_id: str) -> str:
    """The factsheet report of a demo fund (the demo data set of tests.conftest.TODAY, made at GENERATED) on one
    layout, rendered once in the run (`report_once`)."""
    return report_once(tmp_path_factory, layout, [proj_id])


def report_once(tmp_path_factory, layout: str, proj_ids: list[str]) -> str:
    """The report of demo funds (a factsheet of one, a comparison of several; the demo data set of
    tests.conftest.TODAY, made at GENERATED) on one layout, rendered once in the run (tests/built_once.py) for the
    modules that read the same report: a report draws a dozen charts (seconds of CPU each time). Its client's
    cache directory is the build's own (empty) directory: no market snapshot is there, so the report has no market
    context, whatever a developer's own cache holds (tests/reports/test_market_context.py reads that)."""
    from dashboard.demo.generator import generate_demo_dataset
    from dashboard.reports import fund_report_html
    from tests.built_once import built_once
    from tests.conftest import TODAY

    def build(directory) -> str:
        settings = ApiSettings.from_env(demo=True, layout=layout, environ={}, cache_dir=directory)
        client = client_for(generate_demo_dataset(today=TODAY), TODAY, layout=layout, settings=settings)
        try:
            return fund_report_html(client, list(proj_ids), generated_at=GENERATED)
        finally:
            client.close()

    name = "report-" + layout + "-" + "-".join(proj_ids)
    return built_once(tmp_path_factory, name, build)[1]
