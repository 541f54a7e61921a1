"""What the store should hold, computed straight from the demo data set (not through the records layer)."""

from __future__ import annotations

import re

NAV_TOTAL = "903"
PLACEHOLDERS = {"", "-", "--"}
FUND_RETURN = "ผลตอบแทนกองทุนรวม"


def class_of(row: dict) -> str | None:
    """A row's unit class; None for the markers of a fund without classes ("-", "main", "1")."""
    value = row.get("class_abbr_name")
    return None if value is None or str(value).strip() in ("", "-", "main", "1") else str(value).strip()


def number(value) -> float | None:
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value)
    found = re.findall(r"-?\d+(?:\.\d+)?", str(value).replace(",", ""))
    return float(found[0]) if len(found) == 1 else None


def text(value) -> str | None:
    return None if value is None or str(value).strip() in PLACEHOLDERS else str(value).strip()


def is_nav_total(row: dict) -> bool:
    return str(row.get("assetliab_id") or "").strip().lstrip("0").split(".")[0] == NAV_TOTAL


def holding_lines(ds, period: str) -> list[tuple]:
    """(proj_id, issue_code, isin_code, percent_nav rounded) of every holding line of a quarter."""
    out = []
    for pid, by_period in ds.holdings.items():
        for row in by_period.get(period, []):
            out.append((pid, text(row.get("issue_code")), text(row.get("isin_code")),
                        round(number(row.get("percent_nav")) or 0.0, 4)))
    return out


def security_key(row: dict) -> str | None:
    for field in ("isin_code", "issue_code"):
        value = row.get(field)
        if isinstance(value, str) and value.strip() not in PLACEHOLDERS:
            return value.strip().upper()
    return None


def holders(ds, code: str, period: str) -> dict[str, float]:
    """proj_id -> summed percent of NAV of the lines whose issue code or ISIN is `code` (any case)."""
    out: dict[str, float] = {}
    for pid, by_period in ds.holdings.items():
        for row in by_period.get(period, []):
            if is_nav_total(row):
                continue
            if code.upper() in (str(row.get("issue_code") or "").strip().upper(), str(row.get("isin_code") or "").strip().upper()):
                out[pid] = out.get(pid, 0.0) + (number(row.get("percent_nav")) or 0.0)
    return out


def weights(ds, pid: str, period: str) -> dict[str, float]:
    out: dict[str, float] = {}
    for row in ds.holdings.get(pid, {}).get(period, []):
        key = security_key(row)
        value = number(row.get("percent_nav"))
        if is_nav_total(row) or key is None or value is None:
            continue
        out[key] = out.get(key, 0.0) + value
    return out


def pair_overlap(ds, a: str, b: str, period: str) -> float:
    wa, wb = weights(ds, a, period), weights(ds, b, period)
    return sum(min(wa[k], wb[k]) for k in wa.keys() & wb.keys())


# The fee lines that count, as the reference spells them (successor-api.md 4.8, 4.14): each kind's
# "<Thai> (<English>)" line, its English name alone or its Thai name alone; anything else counts nowhere.
_FEE_NAMES = {"total": ("ค่าธรรมเนียมและค่าใช้จ่ายรวมทั้งหมด", "Total Fee and Expense"),
              "management": ("ค่าธรรมเนียมการจัดการ", "Management Fee"),
              "trustee": ("ค่าธรรมเนียมผู้ดูแลผลประโยชน์", "Trustee Fee"),
              "registrar": ("ค่าธรรมเนียมนายทะเบียน", "Registrar Fee")}
_FEE_SPELLINGS = {" ".join(text.split()).casefold(): kind for kind, (th, en) in _FEE_NAMES.items()
                  for text in (f"{th} ({en})", th, en)} | {"total fee": "total"}


def fee_kind(text) -> str | None:
    return _FEE_SPELLINGS.get(" ".join(str(text or "").split()).casefold())


def first_class_total_fee(rows: list[dict]) -> float | None:
    """Total fee and expense (actual) of the first class by name, else management + trustee + registrar."""
    if not rows:
        return None
    classes = sorted({class_of(r) or "" for r in rows})
    first = [r for r in rows if (class_of(r) or "") == classes[0]]
    def named(kinds):
        return [number(r.get("actual_value")) for r in first
                if fee_kind(r.get("fee_type_desc")) in kinds and number(r.get("actual_value")) is not None]
    total = named(("total",))
    if total:
        return total[0]
    recurring = named(("management", "trustee", "registrar"))
    return sum(recurring) if recurring else None


def one_year_return(rows: list[dict]) -> float | None:
    """The 1-year fund return of the first class by name that has one."""
    found = sorted(((class_of(r) or ""), number(r.get("performance_val"))) for r in rows
                   if r.get("performance_type_desc") == FUND_RETURN and r.get("reference_period") == "1 year"
                   and number(r.get("performance_val")) is not None)
    return found[0][1] if found else None
