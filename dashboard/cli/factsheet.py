"""`fund show` as readable sections: what the answering service does not publish is said so."""

from __future__ import annotations

from collections.abc import Sequence

from dashboard.cli.output import FIELD_WIDTH
from dashboard.cli.terminal import MONEY_FIELDS, PERCENT_FIELDS, baht, cell, out, percent, plain, table_lines, terminal_text
from dashboard.present.overview import FundOverview, build_overview
from dashboard.present.text import asset_name_text, asset_type_text, fee_remark_text, number, quarter_text, risk_text


def _section(title: str) -> None:
    out("")
    out(title.upper())


LABEL_WIDTH = 24


def _line(label: str, value: object) -> None:
    """One labelled value on one line, cut to FIELD_WIDTH characters (`--json` keeps the whole text)."""
    # At least two spaces between a label and its value, however long the label.
    out(f"  {label:<{LABEL_WIDTH - 2}}  {terminal_text(value, single_line=True, limit=FIELD_WIDTH) or '-'}")


def _table(records: list, columns: Sequence[str], headers: Sequence[str], **formatters) -> None:
    right = [i for i, c in enumerate(columns) if c in PERCENT_FIELDS or c in MONEY_FIELDS]
    shown = {**{c: (lambda r, c=c: cell(c, r.get(c))) for c in columns}, **formatters}
    for line in table_lines([[shown[c](r) for c in columns] for r in records], headers, right=right):
        out(f"  {line}")


def _class_name(record: dict) -> str:
    return plain(record.get("class_abbr_name")) or "whole fund"


def print_overview(overview: FundOverview) -> None:
    """The overview's sections as labelled lines: the same labels and values as the dashboard and the report."""
    _section("fund")
    _line("fund", " ".join(p for p in (overview.title, overview.name_en) if p))
    _line("Thai name", overview.name_th)
    for section in overview.sections:
        _section(section.title)
        if not section.rows:
            out(f"  {section.empty}")
        group = None
        for row in section.rows:
            if row.group != group:
                group = row.group
                out(f"  {group}:")
            text = row.text
            if row.label == "About the risk" and overview_risk(overview) and text:
                text = f"{overview_risk(overview)} · {text}"
            _line(row.label, text)


def overview_risk(overview: FundOverview) -> str:
    """The fund's risk level in English words ("6 of 8, high"), from the code in the risk row."""
    row = next((r for r in overview.rows() if r.label == "Risk level"), None)
    code = row.text.rsplit("(", 1)[-1].rstrip(")") if row and row.text and "(" in row.text else None
    return risk_text(code) if code and code.upper().startswith("RS") else ""


def _charged(record: dict) -> str:
    """The fee charged: a number as a percent; a word the service wrote instead ("ยกเว้น") with its English."""
    if number(record.get("actual_value_num")) is not None:
        return cell("actual_value_num", record.get("actual_value_num"))
    return fee_remark_text(record.get("actual_value"))


def print_factsheet(data: dict, unpublished: dict[str, list[str]] | None = None, holdings_note: str = "") -> None:
    """The factsheet as readable sections; what the answering service does not publish is said so.
    `holdings_note`: why the newest quarter shown is not the one due (FundFactsheet.holdings_note)."""
    print_overview(build_overview(data["proj_id"], data.get("fund"), data, unpublished=unpublished or {}))

    _section("fees by class")
    fees = data.get("fees") or []
    if fees:
        _table(fees, ["class_abbr_name", "fee_type_desc", "rate_num", "actual_value_num", "fee_other_desc"],
               ["class", "fee", "rate (%)", "charged (%)", "remark"], class_abbr_name=_class_name,
               fee_type_desc=lambda r: plain(r.get("fee_type_en") or r.get("fee_type_desc") or r.get("fee_type_th")),
               actual_value_num=_charged, fee_other_desc=lambda r: fee_remark_text(r.get("fee_other_desc")))
        total = data.get("total_annual_fee")
        out(f"  total annual fee charged: {percent(total)} %" if total is not None else
            "  total annual fee charged: - (no total or management, trustee and registrar line published)")
    else:
        out("  -")

    _section("allocation")
    allocation = data.get("allocation") or []
    if allocation:
        _table(allocation, ["asset_name", "asset_ratio"], ["asset", "share (%)"],
               asset_name=lambda r: asset_name_text(r.get("asset_name")) or plain(r.get("asset_name")))
    else:
        out("  -")

    holdings = data.get("holdings") or {}
    latest = next(iter(holdings), None)
    _section(f"holdings {quarter_text(latest)}, top 10" if latest else "holdings")
    if holdings_note:
        out(f"  note: {holdings_note}")
    if latest:
        from dashboard.models.holdings import split_nav_total  # pandas only for a factsheet

        rows, totals = split_nav_total(holdings[latest])
        rows.sort(key=lambda r: -(r.get("percent_nav") or 0))
        total = totals[0] if totals else None
        _table(rows[:10], ["issuer", "issue_code", "assetliab_desc", "assetliab_value", "percent_nav"],
               ["issuer", "issue", "asset type", "value (baht)", "% of NAV"],
               assetliab_desc=lambda r: asset_type_text(r.get("assetliab_id"), r.get("assetliab_desc")))
        if total:
            out(f"  net asset value {baht(total.get('assetliab_value'))} baht; quarters with data: "
                f"{', '.join(quarter_text(q) for q in holdings)}")
    else:
        out("  -")

    _section("performance (%)")
    _print_performance(data.get("performance") or [])


def _print_performance(rows: list[dict]) -> None:
    """Performance as one line per class and measure, one column per period."""
    if not rows:
        out("  -")
        return
    periods = sorted({(r.get("reference_period_order") or 99, plain(r.get("reference_period_label_en")
                                                                       or r.get("reference_period"))) for r in rows})
    names = [name for _, name in dict.fromkeys(periods)]
    lines: dict[tuple[str, str], dict[str, str]] = {}
    for r in rows:
        measure = plain(r.get("performance_kind_label_en") or r.get("performance_type_desc"))
        period = plain(r.get("reference_period_label_en") or r.get("reference_period"))
        lines.setdefault((_class_name(r), measure), {})[period] = percent(r.get("performance_val"))
    grid = [[cls, measure, *(values.get(n, "") for n in names)] for (cls, measure), values in lines.items()]
    for line in table_lines(grid, ["class", "measure", *names], right=range(2, 2 + len(names)), limit=30):
        out(f"  {line}")
