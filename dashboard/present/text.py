"""Text for people, shared by the dashboard and the reports: values with units, names instead of
codes, the missing-value mark, and escaping. No Panel here: reports and notebooks use it too.

Everything the service sends is untrusted text. HTML is `markupsafe.Markup` (what Jinja2 uses):
the helpers here return Markup, and escape whatever else they are given, so a plain `str` (service
text, or HTML written with an f-string) is always escaped and only Markup is trusted. Build HTML
with `Markup("...{}...").format(value)`, which escapes the values.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from datetime import date, datetime
from typing import Any

import pandas as pd
from markupsafe import Markup, escape

from dashboard.records.counts import COUNT_UNITS, count_text  # noqa: F401  (one definition of what a count counts)
from dashboard.records.values import to_number
from dashboard.records.labels import (ASSET_TYPE, FUND_STATUS, asset_class_english, normalise_code, normalise_fund_status,
                                      policy_type_english)


DASH = "–"


def is_missing(value: Any) -> bool:
    """None, NaN/NA/NaT of any kind, or blank text: shown as the missing-value mark."""
    if value is None:
        return True
    if isinstance(value, str):
        return not value.strip()
    try:
        return bool(pd.isna(value))
    except (TypeError, ValueError):  # lists, dicts: values, not missing
        return False


def text(value: Any, missing: str = DASH) -> str:
    """Any value as text; a missing one as the mark."""
    return missing if is_missing(value) else str(value)


def esc(value: Any, missing: str = DASH) -> Markup:
    """Service text as HTML text: escaped, line breaks kept, placeholders as a dash."""
    if is_missing(value):
        return escape(missing)
    return Markup("<br>").join(escape(str(value)).split("\n"))


NOT_PUBLISHED_HTML = Markup('<span class="sd-muted">not published by the current service</span>')


def published(record: Any, field: str, rendered: Any) -> Markup:
    """`rendered`, or the note that the answering service does not publish this field at all."""
    from dashboard.records.successor import not_published

    return NOT_PUBLISHED_HTML if not_published(record, field) else escape(rendered)


def company_text(record: Any, id_field: str = "unique_id", name_field: str = "comp_name_en") -> Markup:
    """A company as its name with the identifier after it; the bare identifier only when no name is known."""
    if not isinstance(record, dict):
        return esc(None)
    ident, name = record.get(id_field), record.get(name_field)
    if is_missing(name):
        return esc(ident)
    return Markup('{} <span class="sd-muted">({})</span>').format(esc(name), esc(ident)) if not is_missing(ident) else esc(name)


def safe_url(value: Any) -> str | None:
    """An http(s) link from the service, or None: other schemes (javascript:, data:) are never linked."""
    if is_missing(value):
        return None
    text = str(value).strip()
    return text if re.match(r"^https?://[^\s<>\"']+$", text, re.I) else None


def link(value: Any, label: str) -> Markup:
    url = safe_url(value)
    if url is None:
        return Markup('<span class="sd-muted">{}</span>').format(esc(value, "not published"))
    return Markup('<a href="{}" target="_blank" rel="noopener noreferrer">{}</a>').format(url, label)


def number(value: Any) -> float | None:
    """The one reading of a number from the service or a person: a JSON number, or numeric text with
    a comma as the thousands separator and a point for decimals ("1,234.5", " 1.605 ", "๑๒"); None
    for missing, placeholder ("-") or other text, NaN and infinities (`records.values.to_number`)."""
    if isinstance(value, bool):
        return None
    if not isinstance(value, (str, int, float)) and is_missing(value):
        return None
    found = to_number(value)
    return None if found is None else float(found)


def typed_number(typed: str | None) -> float | None:
    """A number a person typed in a box or on the command line ("1.5", "1,234.5", "-3 %"); None when
    the box is empty; ValueError (with a one-line message) when it is not a number. A comma is a
    thousands separator here as everywhere: "1,5" is refused, not read as 1.5."""
    text = (typed or "").strip()
    if not text:
        return None
    found = number(text[:-1].rstrip() if text.endswith("%") else text)
    if found is None:
        raise ValueError(f"{typed!r} is not a number: type one such as 1.5 or 1,234.5")
    return found


def fmt_number(value: Any, digits: int = 2, *, suffix: str = "") -> str:
    """A number with thousands separators; the mark when missing or not a number."""
    found = number(value)
    return DASH if found is None else f"{found:,.{digits}f}{suffix}"


def fmt_percent(value: Any, digits: int = 2, signed: bool = False, *, up_to: int | None = None, sign: str = " %",
                missing: str = DASH) -> str:
    """The one percent formatter: "1.23 %"; "+1.23 %" when signed; with `up_to`, the decimals the value
    has, from `digits` up to `up_to` ("24.30435", "65.48"); `sign=""` for a column already headed in
    percent; `missing` when missing or not a number."""
    found = number(value)
    if found is None:
        return missing
    if up_to is not None:
        whole, _, decimals = f"{found:{'+' if signed else ''},.{up_to}f}".partition(".")
        decimals = decimals.rstrip("0").ljust(digits, "0")
        return (f"{whole}.{decimals}" if decimals else whole) + sign
    return f"{found:{'+' if signed else ''},.{digits}f}{sign}"


def fmt_signed(value: Any, digits: int = 2, suffix: str = "") -> str:
    """A change with its sign: "+0.125", "-1.50 %"."""
    found = number(value)
    return DASH if found is None else f"{found:+,.{digits}f}{suffix}"


BAHT_UNITS = {"บาท", "thb", "baht", "฿"}


def fmt_baht(value: Any, digits: int = 2) -> str:
    found = number(value)
    return DASH if found is None else f"{found:,.{digits}f} baht"


def fmt_amount(value: Any, unit: Any = None, digits: int = 2) -> str:
    """A number with the unit the service gave ("บาท", "THB", "units"); baht when it says so."""
    found = number(value)
    if found is None:
        return DASH
    unit_text = "" if is_missing(unit) else str(unit).strip()
    if unit_text.casefold() in BAHT_UNITS:
        return fmt_baht(found, digits)
    text = f"{found:,.{digits}f}"
    return f"{text} {unit_text}" if unit_text else text


_TRAILING_ENGLISH = re.compile(r"^(?P<head>.*\S)\s*\((?P<tail>[^()]*)\)\s*$", re.S)


_THAI = re.compile(r"[\u0e00-\u0e7f]")


def thai_and_english(text: object) -> tuple[str | None, str | None]:
    """("สัญญาซื้อขายล่วงหน้า", "Forward") from "สัญญาซื้อขายล่วงหน้า (Forward)"; English only when the text carries it."""
    if not isinstance(text, str) or not text.strip():
        return None, None
    text = text.strip()
    match = _TRAILING_ENGLISH.match(text)
    if match and re.search(r"[A-Za-z]", match["tail"]) and not _THAI.search(match["tail"]) and _THAI.search(match["head"]):
        return match["head"].strip(), match["tail"].strip()
    return (text, None) if _THAI.search(text) else (None, text)


def asset_type_text(code: object, description: object = None) -> str:
    """A holding's asset type for people: "bank deposits · เงินฝากธนาคาร (301)".

    The English name comes from the table, else from English in parentheses in the service's text; the
    Thai text is the service's own (assetliab_desc) when it sent one; the code goes beside them."""
    key = normalise_code(code)
    thai, english = thai_and_english(description)
    known = ASSET_TYPE.get(key) if key else None
    if known:
        english = known[1]
        thai = thai or known[0]
    parts = [p for p in (english, thai) if p]
    text = " · ".join(parts)
    if key:
        return f"{text} ({key})" if text else key
    return text


def asset_name_text(name: object) -> str | None:
    """An allocation asset as "Forward · สัญญาซื้อขายล่วงหน้า": English from parentheses in the text, else
    from the table of common asset classes; the Thai text as sent."""
    thai, english = thai_and_english(name)
    english = english or asset_class_english(thai)
    return " · ".join(p for p in (english, thai) if p) or None


def policy_type_text(policy: object) -> str | None:
    """A policy type as "fixed income · ตราสารหนี้" (English from the table of the reference's values); a
    value the table lacks as sent; None when missing."""
    if is_missing(policy):
        return None
    thai = " ".join(str(policy).split())
    english = policy_type_english(thai)
    return f"{english} · {thai}" if english else thai


US_INVESTORS = {"Y": "may invest", "N": "may not invest"}  # the same words in the dashboard and the reports


def us_investors_text(flag: object) -> str | None:
    """"may invest" / "may not invest" for the Y/N flag; any other text as sent."""
    if is_missing(flag):
        return None
    return US_INVESTORS.get(str(flag).strip().upper(), str(flag))


def currency_word(unit: object) -> str:
    """The currency as the dashboard writes it: baht for บาท/THB, anything else as sent."""
    if is_missing(unit):
        return ""
    return "baht" if str(unit).strip().casefold() in BAHT_UNITS else str(unit)


def fmt_date(value: Any) -> str:
    """A date as YYYY-MM-DD; text that is not a date stays whole."""
    if is_missing(value):
        return DASH
    if isinstance(value, (pd.Timestamp, datetime)):
        return value.strftime("%Y-%m-%d")
    if isinstance(value, date):
        return value.isoformat()
    value = str(value)
    return value[:10] if len(value) >= 10 and value[4:5] == "-" and value[7:8] == "-" else value


def fmt_datetime(value: Any) -> str:
    """A last-modified stamp as YYYY-MM-DD HH:MM (the service gives no time zone)."""
    if is_missing(value):
        return DASH
    if isinstance(value, (pd.Timestamp, datetime)):
        return value.strftime("%Y-%m-%d %H:%M")
    value = str(value).replace("T", " ")
    return value[:16] if len(value) >= 16 else value


def fmt_period(period: str | None) -> str:
    """A holdings period YYYYMM as its quarter, "Q3 2026": one spelling on charts, screens and reports."""
    return quarter_text(period)


def distinct_dates(values: Iterable[Any]) -> list[str]:
    """Distinct non-missing dates (or free texts), sorted."""
    return sorted({fmt_date(v) for v in values if not is_missing(v)})


def latest_update(*sources: Any) -> str | None:
    """The newest `last_upd_date` anywhere in these records (dicts, lists, nested), as ISO text."""
    stamps: list[str] = []

    def walk(node: Any) -> None:
        if isinstance(node, Mapping):
            for key, value in node.items():
                if key == "last_upd_date" and isinstance(value, str) and value.strip():
                    stamps.append(value.strip())
                elif isinstance(value, (Mapping, list, tuple)):
                    walk(value)
        elif isinstance(node, (list, tuple)):
            for item in node:
                walk(item)

    for source in sources:
        walk(source)
    return max(stamps) if stamps else None


def kv_table(rows: Iterable[tuple[str, Any]]) -> Markup:
    """A two-column table of our labels and values; a value that is not Markup is escaped."""
    body = Markup("").join(Markup("<tr><th>{}</th><td>{}</td></tr>").format(label, value) for label, value in rows)
    return Markup('<table class="sd-kv">{}</table>').format(body)


def card(title: str, body: Any) -> Markup:
    """A titled card; a body that is not Markup is escaped."""
    return Markup('<div class="sd-card"><h3>{}</h3>{}</div>').format(title, body)


def pill(text: Any, tone: str = "") -> Markup:
    tone_class = f" sd-{tone}" if tone else ""
    return Markup('<span class="sd-pill{}">{}</span>').format(tone_class, esc(text))


def empty_html(message: str, error: bool = False) -> Markup:
    kind = " sd-error" if error else ""
    role = Markup(' role="alert"') if error else ""
    return Markup('<div class="sd-empty{}"{}>{}</div>').format(kind, role, esc(message))


STATUS_TONES = {"RG": "good", "SE": "", "EX": "warn", "CA": "bad", "LI": "bad"}


def display_frame(frame: pd.DataFrame, columns: Sequence[str] | None = None) -> pd.DataFrame:
    """A copy for display: dates as ISO text, text as plain Python strings, missing text empty.

    Columns the frame lacks (a field only one of the service's layouts sends) are shown empty, so a
    table keeps the same columns whatever answered."""
    if columns is not None:
        missing = [c for c in columns if c not in frame.columns]
        if missing:
            frame = frame.assign(**{c: pd.Series([None] * len(frame), index=frame.index, dtype=object) for c in missing})
    out = frame[list(columns)].copy() if columns is not None else frame.copy()
    for col in out.columns:
        series = out[col]
        if pd.api.types.is_datetime64_any_dtype(series):
            out[col] = series.dt.strftime("%Y-%m-%d").astype(object).where(series.notna(), "")
        elif pd.api.types.is_bool_dtype(series):
            out[col] = series.map({True: "yes", False: "no"}).astype(object)
        elif not pd.api.types.is_numeric_dtype(series):
            out[col] = series.astype(object).where(series.notna(), "").map(str)
        elif pd.api.types.is_extension_array_dtype(series) and pd.api.types.is_integer_dtype(series):
            out[col] = series.astype(object).where(series.notna(), "").map(str)  # sequence numbers, codes
        elif pd.api.types.is_extension_array_dtype(series):
            out[col] = series.astype("float64")
    return out.reset_index(drop=True)


def status_text(code: object) -> str:
    """A fund status for people, with its code beside it: "registered (RG)"; an unknown code as sent."""
    if is_missing(code):
        return ""
    key = normalise_fund_status(code)
    known = FUND_STATUS.get(key) if key else None
    return f"{known[1]} ({key})" if known else str(code)


# The service names no person by id (no licence endpoint takes a person's id and gives a name: the person search
# takes a name or a registration number), so a person on duty is shown by the id, titled so.
PERSON_ID_TITLE = "Licensed person (id)"
# Readable titles for the service's field names, where a table or a CSV would otherwise show the field name.
COLUMN_TITLES: dict[str, str] = {
    "proj_id": "Fund id", "proj_abbr_name": "Fund", "proj_name_en": "Fund name", "proj_name_th": "Fund name (Thai)",
    "unique_id": "Identifier", "comp_name_en": "Company", "comp_name_th": "Company (Thai)", "company": "Company",
    "company_unique_id": "Company id", "person_unique_id": PERSON_ID_TITLE, "name_en": "Name", "name_th": "Name (Thai)",
    "regis_sale_no": "Registration no.", "lic_code": "Licence type", "lic_no": "Licence no.",
    "lic_name_en": "Licence", "lic_name_th": "Licence (Thai)", "lic_action_code": "Duty code",
    "lic_action_name_en": "Duty", "lic_action_name_th": "Duty (Thai)", "apply_type": "Licensed or registered",
    "acc_type": "Act", "effective_date": "From", "expire_date": "Expires", "privilege_type": "Privilege",
    "approval_state": "Approval state", "action_start_date": "Since", "action_end_date": "Until",
    "action_status": "Status", "action_remark": "Remark", "enforcement_type": "Kind of action", "case_id": "Case",
    "enforcement_relevant_section_law": "Law broken", "enforcement_summarized_facts": "Facts",
    "enforcement_date": "Date", "enforcement_details": "Sanction", "enforcement_remark": "Remark",
    "fund_status": "Status", "risk_spectrum": "Risk level", "policy_desc": "Policy type", "period": "Quarter",
    "last_upd_date": "Updated", "seq_no": "Sequence", "license_th": "Act (Thai)", "license_en": "Act (English)",
    "size_bytes": "Size", "regis_date": "Registered", "cancel_date": "Cancelled", "reason": "Warning", "disclosure_date": "Disclosed",
    "class_abbr_name": "Unit class", "class_name": "Unit class name", "enforcement_type_label_en": "Kind of action (English)",
    "company_name_en": "Company", "proj_retail_type": "Who may buy", "tax_incentives": "Tax incentive",
    "total_fee_actual": "Total annual fee, charged (%)", "total_fee_ceiling": "Total annual fee, ceiling (%)",
    "return_1y": "1-year return (%)", "issuer": "Issuer", "issue_code": "Issue code", "isin_code": "ISIN",
    "percent_nav": "% of NAV", "assetliab_value": "Value (baht)", "assetliab_desc": "Asset type", "website": "Website", "privilege_type_label_en": "Privilege",
    "action_status_label_en": "Status", "is_current": "Current", "persuade_desc": "What they offered",
    "through": "Through (funds between)", "overlap_pct": "Overlap (% of NAV)", "other": "Other fund",
    # a basket with amounts (views.basket_amounts)
    "asset_name": "Asset", "percent_of_basket": "% of the basket", "baht_held": "Held (baht)",
    "basket_funds": "Basket funds holding it", "security": "Security",
    # the screener's figures from the NAV history (market.queries.NAV_FIELDS)
    "nav_class": "NAV figures' unit class", "last_nav_date": "Last NAV date", "return_1m": "1-month return (NAV, %)",
    "return_3m": "3-month return (NAV, %)", "return_6m": "6-month return (NAV, %)",
    "return_ytd": "Year-to-date return (NAV, %)", "nav_return_1y": "1-year price return (NAV, %)",
    "nav_total_return_1y": "1-year total return (NAV, distributions reinvested, %)",
    "return_3y_ann": "3-year price return (NAV, a year, %)", "return_5y_ann": "5-year price return (NAV, a year, %)",
    "volatility_1y": "Volatility (1 year, %)", "max_drawdown_1y": "Max drawdown (1 year, NAV per unit, %)", "sharpe_1y": "Sharpe (1 year)",
    "peers": "Peers (same policy type and risk level)", "peer_pct_return_1y": "1-year total return percentile among peers",
    "peer_pct_volatility_1y": "Volatility percentile among peers", "peer_pct_sharpe_1y": "Sharpe percentile among peers",
    # the regular-investing simulation's value over time (present.dca.values_frame)
    "dca_put_in": "Put in so far (baht)", "dca_units": "Units held", "dca_value": "Value of the units (baht)",
    "dca_paid_out": "Distributions paid so far (baht)", "dca_total": "Monthly plan: value with distributions paid (baht)",
    "dca_lump_total": "All at the start: value with distributions paid (baht)",
    # sibling feeders and fee drag (market.feeders, present.siblings)
    "master_name": "Master fund", "master_isins": "Master's ISINs", "feeders": "Thai feeders", "companies": "Companies",
    "classes": "Unit classes", "matched_by": "Matched by", "total_expense_min": "Lowest total expense charged (%)",
    "total_expense_max": "Highest total expense charged (%)", "class": "Unit class", "fx_policy": "FX hedging",
    "total_expense": "Total expense charged (% a year)", "total_expense_ceiling": "Total expense ceiling (% a year)",
    "front_fee": "Front-end fee charged (%)", "front_fee_ceiling": "Front-end fee ceiling (%)",
    "back_fee": "Back-end fee charged (%)", "back_fee_ceiling": "Back-end fee ceiling (%)",
    "total_return_1y": "1-year total return (NAV, %)", "total_return_3y_ann": "3-year total return (NAV, a year, %)",
    "diff_1y_vs_cheapest": "1-year return vs the cheapest sibling (points)",
    "diff_3y_vs_cheapest": "3-year return vs the cheapest sibling (points a year)", "nav_date": "Returns to",
    "comparison": "Against", "cost": "Fees take (baht)", "final_value": "Value at the end (baht)",
    "extra_cost": "Paid beyond it (baht)", "unstated": "Not stated (counted as 0)", "basis": "Compared with",
    "undecided": "Why undecided", "declared_name": "Master named by the company", "holding_pct": "Largest foreign fund (% of NAV)",
    "candidates": "Masters it could be", "cost_100k_10y": "Cost of 100,000 THB over 10 years (baht)",
    "sibling_marks": "Note", "holding_isin": "Largest foreign fund's ISIN", "holding_period": "Holdings quarter",
}


def column_title(name: str) -> str:
    """A column's readable title: the table's, else the field name with its underscores as spaces, capitalised."""
    if name in COLUMN_TITLES:
        return COLUMN_TITLES[name]
    words = str(name).replace("_", " ").strip()
    return words[:1].upper() + words[1:]


def csv_bytes(frame: pd.DataFrame) -> bytes:
    """The one CSV writer for downloads and `--csv`: UTF-8 with a byte-order mark (so Excel opens Thai
    intact), readable column titles instead of field names, dates as YYYY-MM-DD, missing cells empty.
    Values are written as given: map codes to their labels before calling."""
    out = display_frame(frame)
    out.columns = [column_title(c) for c in out.columns]
    return out.to_csv(index=False, lineterminator="\r\n").encode("utf-8-sig")


def quarter_text(period: Any) -> str:
    """A quarter YYYYMM (text or number) as "Q2 2026"; anything else as sent, missing as the mark."""
    if is_missing(period):
        return DASH
    raw = str(period).strip()
    if raw.endswith(".0"):
        raw = raw[:-2]
    if len(raw) == 6 and raw.isdigit() and 1 <= int(raw[4:]) <= 12:
        return f"Q{(int(raw[4:]) - 1) // 3 + 1} {raw[:4]}"
    return raw


# What each level of the SEC's risk spectrum means, in the words its factsheets use (ต่ำ, ปานกลางค่อนข้างต่ำ, ...).
RISK_WORDS: dict[str, str] = {"RS1": "low", "RS2": "moderately low", "RS3": "moderately low", "RS4": "moderately high",
                              "RS5": "moderately high", "RS6": "high", "RS7": "high", "RS8": "very high",
                              "RS81": "very high (complex or high-risk)"}
RISK_LEVELS = {**{f"RS{n}": str(n) for n in range(1, 9)}, "RS81": "8+"}


def risk_text(code: Any) -> str:
    """A risk code for people: "6 of 8, high" for RS6, "8+ of 8, very high (complex or high-risk)" for RS81;
    an unknown code as sent, missing as empty."""
    if is_missing(code):
        return ""
    key = str(code).strip().upper()
    if key not in RISK_LEVELS:
        return str(code)
    return f"{RISK_LEVELS[key]} of 8, {RISK_WORDS[key]}"


# Fee remarks the service writes in Thai, in English (the Thai is kept beside it).
FEE_REMARKS: dict[str, str] = {"ปัจจุบันยกเว้นการเรียกเก็บ": "currently waived", "ยกเว้น": "waived",
                               "ไม่เรียกเก็บ": "not charged"}


def fee_remark_text(remark: Any) -> str:
    """A fee's remark as "currently waived · ปัจจุบันยกเว้นการเรียกเก็บ"; other text as sent; missing as empty."""
    if is_missing(remark):
        return ""
    thai = " ".join(str(remark).split())
    english = FEE_REMARKS.get(thai)
    return f"{english} · {thai}" if english else thai


# A company licence's apply_type, which the service writes in Thai only, with English beside it.
APPLY_TYPES = {"ใบอนุญาต": "licensed (ใบอนุญาต)", "จดทะเบียน": "registered (จดทะเบียน)"}


def apply_type_text(value: Any) -> str:
    """"licensed (ใบอนุญาต)" / "registered (จดทะเบียน)"; other text as sent; missing as empty."""
    if is_missing(value):
        return ""
    thai = " ".join(str(value).split())
    return APPLY_TYPES.get(thai, thai)

