"""A basket that holds amounts: baht per fund (typed in, or a CSV of fund, class and amount), and what they add up to:
the weighted asset allocation, the weighted total expense and its yearly baht cost, and the NAV history of the
basket as one portfolio. Estimates from published figures, not investment advice (`ESTIMATE_NOTE`).

A pure Param model (no Panel): the amounts stay in the session (and in the page link only when its holder opts in);
nothing is written on the server. The holdings looked through across the funds come from the market store
(`market.basket_holdings`), which this layer does not import.
"""

from __future__ import annotations

import csv
import io
import math
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import date

import pandas as pd
import param

from dashboard.errors import BadInputError, quoted

ESTIMATE_NOTE = ("An estimate from the funds' published figures (factsheets, holdings, NAV), not investment advice: "
                 "real costs, holdings and returns differ.")
MAX_AMOUNT = 1e13  # ten trillion baht: past any one investor's holding, so a typo of many zeros is refused
MAX_CSV_BYTES = 200_000
# A CSV's columns, by the titles it may carry (any case): fund, class, amount.
CSV_COLUMNS = {"fund": ("fund", "proj_id", "proj_abbr_name", "fund id", "กองทุน"),
               "class": ("class", "unit class", "class_abbr_name", "ชนิดหน่วย"),
               "amount": ("amount", "amount (baht)", "baht", "value", "จำนวนเงิน")}


def parse_amount(text: object) -> float:
    """An amount in baht as typed: "100000", "100,000", "1.5e5", "250000 baht", "฿ 1,000"; more than 0. Bad input
    is one clear line (BadInputError)."""
    raw = str(text if text is not None else "").strip()
    cleaned = re.sub(r"(?i)\s*(baht|thb|บาท)\s*$", "", raw).replace("฿", "").replace(",", "").replace("_", "").strip()
    try:
        value = float(cleaned)
    except ValueError:
        raise BadInputError(f"{quoted(raw) if raw else 'an empty amount'} is not an amount in baht (type one such as "
                            "100,000)") from None
    if math.isnan(value) or value <= 0:
        raise BadInputError(f"an amount must be more than 0 baht, not {quoted(raw)}")
    if value > MAX_AMOUNT:
        raise BadInputError(f"{quoted(raw)} baht is more than this basket takes ({MAX_AMOUNT:,.0f} baht a fund)")
    return value


@dataclass(frozen=True)
class AmountLine:
    """One line of an amounts CSV: the fund as written (proj_id or abbreviation), its unit class (may be empty), and
    the amount in baht."""

    fund: str
    unit_class: str
    amount: float
    line: int


def read_amounts_csv(text: str | bytes) -> list[AmountLine]:
    """The lines of a CSV of fund, class and amount (a header row naming them, any case; the class may be left out).
    Anything malformed (no fund or amount column, an amount that is not one, a fund twice) is one clear line and
    nothing is read."""
    if isinstance(text, bytes):
        if len(text) > MAX_CSV_BYTES:
            raise BadInputError(f"the CSV is larger than {MAX_CSV_BYTES // 1000} kB: a basket holds at most 30 funds")
        try:
            text = text.decode("utf-8-sig")
        except UnicodeDecodeError:
            raise BadInputError("the CSV is not UTF-8 text (save it from Excel as 'CSV UTF-8')") from None
    text = text.lstrip("\ufeff")
    if len(text) > MAX_CSV_BYTES:
        raise BadInputError(f"the CSV is larger than {MAX_CSV_BYTES // 1000} kB: a basket holds at most 30 funds")
    rows = [r for r in csv.reader(io.StringIO(text)) if any(cell.strip() for cell in r)]
    if not rows:
        raise BadInputError("the CSV is empty: it needs a header row (fund, class, amount) and a row per fund")
    header = [cell.strip().casefold() for cell in rows[0]]
    where: dict[str, int] = {}
    for name, titles in CSV_COLUMNS.items():
        found = [i for i, cell in enumerate(header) if cell in titles]
        if found:
            where[name] = found[0]
    if "fund" not in where or "amount" not in where:
        raise BadInputError("the CSV's first row must name its columns: fund, class (may be left out) and amount; "
                            f"it has {', '.join(quoted(c) for c in rows[0]) or 'nothing'}")
    lines: list[AmountLine] = []
    seen: dict[tuple[str, str], int] = {}
    for n, row in enumerate(rows[1:], start=2):
        cell = lambda name: row[where[name]].strip() if name in where and where[name] < len(row) else ""  # noqa: E731
        fund = cell("fund")
        if not fund:
            raise BadInputError(f"CSV line {n}: no fund")
        try:
            amount = parse_amount(cell("amount"))
        except BadInputError as exc:
            raise BadInputError(f"CSV line {n} ({fund}): {exc}") from None
        key = (fund.upper(), cell("class").upper())
        if key in seen:
            raise BadInputError(f"CSV line {n}: {fund} {cell('class')} is on line {seen[key]} already".replace("  ", " "))
        seen[key] = n
        lines.append(AmountLine(fund, cell("class"), amount, n))
    if not lines:
        raise BadInputError("the CSV has a header row but no fund under it")
    return lines


def amounts_csv(amounts: Mapping[str, float], classes: Mapping[str, str], names: Mapping[str, str]) -> str:
    """The basket's amounts as the CSV `read_amounts_csv` reads (fund by abbreviation, else proj_id)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(["fund", "class", "amount"])
    for proj_id, amount in amounts.items():
        writer.writerow([names.get(proj_id) or proj_id, classes.get(proj_id, ""), f"{amount:.2f}"])
    return out.getvalue()


# ---- what the amounts add up to -------------------------------------------------------------------


def weights(amounts: Mapping[str, float]) -> dict[str, float]:
    """Each fund's share of the basket (0 to 1)."""
    total = sum(amounts.values())
    return {p: a / total for p, a in amounts.items()} if total > 0 else {}


def weighted_allocation(allocation: pd.DataFrame, amounts: Mapping[str, float]) -> tuple[pd.DataFrame, list[str]]:
    """The basket's asset allocation: each asset class's share of the funds that publish one, weighted by amount.

    `allocation`: rows proj_id, asset_name, asset_ratio (% of the fund). Returns (rows asset_name, percent (% of the
    amount covered), baht), largest first; and the funds left out (no allocation published). Shares of a fund that
    add up to more or less than 100 are used as published."""
    have = set(allocation["proj_id"].astype(str)) if not allocation.empty else set()
    covered = {p: a for p, a in amounts.items() if p in have}
    left_out = [p for p in amounts if p not in have]
    total = sum(covered.values())
    if not covered or total <= 0:
        return pd.DataFrame({"asset_name": pd.Series(dtype=object), "percent": pd.Series(dtype="float64"),
                             "baht": pd.Series(dtype="float64")}), left_out
    rows = allocation[allocation["proj_id"].astype(str).isin(covered)].copy()
    rows["ratio"] = pd.to_numeric(rows["asset_ratio"], errors="coerce").fillna(0.0)
    rows["baht"] = [covered[str(p)] * r / 100.0 for p, r in zip(rows["proj_id"], rows["ratio"])]
    out = rows.groupby("asset_name", sort=False, dropna=False)["baht"].sum().reset_index()
    out["percent"] = 100.0 * out["baht"] / total
    out = out.sort_values(["baht", "asset_name"], ascending=[False, True], kind="stable").reset_index(drop=True)
    return out[["asset_name", "percent", "baht"]], left_out


@dataclass(frozen=True)
class WeightedExpense:
    """The basket's total expense: `percent` (a year, weighted by amount over the funds with a charged total fee),
    `yearly_baht` (what those fees take a year from the amounts), `covered` (baht with a fee known) and
    `left_out` (funds without a charged fee)."""

    percent: float | None
    yearly_baht: float | None
    covered: float
    left_out: list[str]


def weighted_expense(fees: Mapping[str, float | None], amounts: Mapping[str, float]) -> WeightedExpense:
    """The amount-weighted total annual fee as charged (`fees`: proj_id -> percent a year, None when unknown) and
    its yearly cost in baht: sum(amount x fee / 100)."""
    known = {p: a for p, a in amounts.items() if fees.get(p) is not None and math.isfinite(float(fees[p]))}
    left_out = [p for p in amounts if p not in known]
    covered = sum(known.values())
    if covered <= 0:
        return WeightedExpense(None, None, 0.0, left_out)
    yearly = sum(a * float(fees[p]) / 100.0 for p, a in known.items())
    return WeightedExpense(100.0 * yearly / covered, yearly, covered, left_out)


def portfolio_nav(navs: Mapping[str, pd.Series], amounts: Mapping[str, float]) -> tuple[date | None, pd.Series, list[str]]:
    """The basket's value as one portfolio, bought on the first day every fund has a NAV and held: each fund's amount
    grows with its NAV per unit (amount x NAV(t) / NAV(start)), summed; a fund's last NAV is carried over days it
    publishes none. `navs`: proj_id -> NAV per unit by date. Returns (the start, baht by date, the funds left out
    for want of a NAV); (None, empty, ...) when no fund has one."""
    series = {p: s.dropna().sort_index() for p, s in navs.items()
              if p in amounts and s is not None and not s.dropna().empty}
    left_out = [p for p in amounts if p not in series]
    if not series:
        return None, pd.Series(dtype="float64"), left_out
    start = max(s.index[0] for s in series.values())
    index = pd.Index(sorted({d for s in series.values() for d in s.index if d >= start}))
    total = pd.Series(0.0, index=index)
    for proj_id, s in series.items():
        base = float(s[s.index <= start].iloc[-1])
        total = total + amounts[proj_id] * s.reindex(s.index.union(index)).ffill().reindex(index) / base
    return (start.date() if hasattr(start, "date") else start), total, left_out


LINK_ITEM = re.compile(r"^(?P<proj_id>[A-Za-z0-9_-]{1,40}):(?P<amount>[0-9]+(?:\.[0-9]{1,2})?)(?::(?P<cls>[^:,]{1,40}))?$")


def link_form(amounts: Mapping[str, float], classes: Mapping[str, str]) -> str:
    """The amounts as a link carries them: "M0001_2560:100000,M0002_2560:2500.5:DAMEQ-A"."""
    parts = []
    for proj_id, amount in amounts.items():
        text = f"{amount:.2f}".rstrip("0").rstrip(".")
        parts.append(f"{proj_id}:{text}" + (f":{classes[proj_id]}" if classes.get(proj_id) else ""))
    return ",".join(parts)


def parse_link(text: str, limit: int = 30) -> tuple[dict[str, float], dict[str, str]]:
    """A link's amounts (`link_form`), checked whole: BadInputError (one line) when any part is not one."""
    amounts: dict[str, float] = {}
    classes: dict[str, str] = {}
    for part in [p for p in str(text or "").split(",") if p.strip()]:
        match = LINK_ITEM.match(part.strip())
        if match is None or not any(c.isprintable() for c in part):
            raise BadInputError(f"{quoted(part[:60])} is not fund:amount")
        proj_id = match["proj_id"]
        amounts[proj_id] = parse_amount(match["amount"])
        if match["cls"]:
            if not match["cls"].isprintable():
                raise BadInputError("a unit class holds control characters")
            classes[proj_id] = match["cls"]
    if len(amounts) > limit:
        raise BadInputError(f"the link names {len(amounts)} funds; a basket holds at most {limit}")
    return amounts, classes


class BasketAmounts(param.Parameterized):
    """Baht per basket fund, and a unit class per fund where one was named. Changes only through its methods, each
    of which checks everything first and changes nothing on bad input."""

    amounts = param.Dict(default={}, doc="proj_id -> the amount held, baht (more than 0).")
    classes = param.Dict(default={}, doc="proj_id -> the unit class named for it (empty: the fund's first class).")
    unknown = param.List(default=[], item_type=str, doc="The funds the last CSV named that are not known (as written).")
    in_link = param.Boolean(default=False, doc="Whether the page link carries the amounts: off unless its holder "
                                               "opts in (anyone given the link then sees them).")
    link_text = param.String(default="", doc="The amounts as the page link carries them (URL: amounts): "
                                             "proj_id:amount[:class], comma-separated; empty while not opted in.")

    @param.depends("amounts", "classes", "in_link", watch=True)
    def _to_link(self) -> None:
        text = link_form(self.amounts, self.classes) if self.in_link else ""
        if text != self.link_text:
            self.link_text = text

    @param.depends("link_text", watch=True)
    def _from_link(self) -> None:
        if self.link_text == (link_form(self.amounts, self.classes) if self.in_link else ""):
            return
        amounts, classes = parse_link(self.link_text)  # checked by the URL codec before it is set
        self.param.update(amounts=amounts, classes=classes, in_link=bool(amounts))

    def set_amount(self, proj_id: str, text: object) -> float:
        """Set one fund's amount from what was typed (an empty box removes it); bad input raises, nothing changes."""
        if text is None or not str(text).strip():
            self.amounts = {p: a for p, a in self.amounts.items() if p != proj_id}
            return 0.0
        value = parse_amount(text)
        self.amounts = {**self.amounts, proj_id: value}
        return value

    def keep_only(self, proj_ids: Iterable[str]) -> None:
        """Forget the amounts of funds no longer in the basket."""
        keep = set(proj_ids)
        if set(self.amounts) - keep or set(self.classes) - keep:
            self.param.update(amounts={p: a for p, a in self.amounts.items() if p in keep},
                              classes={p: c for p, c in self.classes.items() if p in keep})

    def load_csv(self, text: str | bytes, resolve: Callable[[str], str | None], *, limit: int = 30) -> list[str]:
        """Take a CSV's amounts: each fund as the resolver names it (proj_id or abbreviation -> proj_id, None when
        unknown). Unknown funds are listed in `unknown` (and returned), the rest kept; a malformed CSV raises and
        changes nothing. The CSV's funds replace the amounts (a fund named twice by two classes is refused)."""
        lines = read_amounts_csv(text)
        found: dict[str, AmountLine] = {}
        unknown: list[str] = []
        for line in lines:
            proj_id = resolve(line.fund)
            if proj_id is None:
                unknown.append(line.fund)
                continue
            if proj_id in found:
                raise BadInputError(f"CSV line {line.line}: {line.fund} is the fund of line {found[proj_id].line} "
                                    "(a basket holds a fund once)")
            found[proj_id] = line
        if len(found) > limit:
            raise BadInputError(f"the CSV names {len(found)} funds; a basket holds at most {limit}")
        if not found:
            raise BadInputError("no fund of the CSV is known: " + ", ".join(quoted(u) for u in unknown))
        self.param.update(amounts={p: line.amount for p, line in found.items()},
                          classes={p: line.unit_class for p, line in found.items() if line.unit_class},
                          unknown=unknown)
        return unknown

    def clear(self) -> None:
        self.param.update(amounts={}, classes={}, unknown=[])

    @property
    def total(self) -> float:
        return float(sum(self.amounts.values()))
