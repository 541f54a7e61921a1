"""Feeder funds and their masters: a master fund's name normalised, and every feeder's master matched,
by the ISIN of its master-fund holding where it filed one, else by the master's name (docs/feeders.md).

Pure functions over plain rows; the market store runs them over the whole market (market/feeders.py).
A case the rules cannot decide is returned as undecided, with the reason, never guessed.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

# management_style of a feeder fund: the master's style (active, passive, inverse, leveraged) + "N"
FEEDER_STYLES = frozenset({"AN", "PN", "IN", "LN"})
# A fund holding at least this share of its NAV in one foreign fund's units feeds that fund (issue 36).
MASTER_SHARE_PCT = 60.0
# Holding codes of fund units (assetliab_id): units of foreign funds, and fund units (a non-Thai ISIN).
FOREIGN_FUND_CODES = ("401",)
FUND_UNIT_CODES = ("104",)

# How a feeder's master was found (the words are in present/siblings.py).
BY_ISIN = "isin"  # the ISIN of its own master-fund holding line
BY_NAME_TO_ISIN = "name_to_isin"  # its master's name, matched to a master other feeders file by ISIN
BY_NAME = "name"  # its master's name, matched only to names
# Why a feeder's master is not decided.
NO_MASTER = "no_master"  # no master named, and no one foreign fund at 60 % of NAV
NAME_FITS_SEVERAL = "name_fits_several"  # the name fits masters of different domiciles (different funds)

_CURRENCIES = {"usd", "eur", "gbp", "jpy", "thb", "sgd", "hkd", "chf", "aud", "cny", "cnh", "rmb", "cad", "nzd", "krw",
               "inr", "twd", "sek", "nok", "dkk"}
_CLASS_WORDS = {"class", "classes", "share", "shares", "acc", "accumulating", "accumulation", "dis", "dist",
                "distributing", "distribution", "inc", "income", "hedged", "unhedged", "hdg", "cap", "capitalisation",
                "capitalization", "units", "unit", "สะสมมูลค่า", "จ่ายเงินปันผล", "จ่ายปันผล", "ปันผล"}
_LEGAL_FORMS = {"sicav", "plc", "sa", "ltd", "limited", "icav", "fcp"}
_THAI_WORDS = ("กองทุนหลัก", "กองทุนรวม", "กองทุน", "ชนิดหน่วยลงทุน", "หน่วยลงทุน", "ชนิด", "คลาส", "สกุลเงิน")
_SHORT_CODE = re.compile(r"^[a-z]{0,2}[0-9]{0,2}$")


def master_name_key(text: object) -> str | None:
    """A master fund's name with its share class, currency, legal form and punctuation removed, in Thai or
    English, lower case: "กองทุน LO Funds – Asia Diversified High Yield Bond, X1, (USD), IA" and
    "LO Funds - Asia Diversified High Yield Bond Class IA USD" are both "lo funds asia diversified high yield bond".

    Rules (docs/feeders.md): text in brackets and every part after the first comma go (share class and
    currency); Thai words for fund, master fund and class go; punctuation becomes a space; then from the
    end, currency codes, share-class words ("class", "acc", "dis", "hedged", ...), legal forms ("sicav",
    "s.a.") and short class codes ("I", "X1", "IA": at most two letters and two digits) go, a short code
    only next to a class word, a currency or another code taken away (so "US" in "Demo Fund US" stays).
    None for no name ("", "-").
    """
    if not isinstance(text, str):
        return None
    name = unicodedata.normalize("NFKC", text).casefold()
    name = re.sub(r"\([^)]*\)|\[[^]]*\]", " ", name)
    name = name.split(",", 1)[0]
    for word in _THAI_WORDS:
        name = name.replace(word, " ")
    name = name.replace("s.a.", " sa ").replace("_", " ")
    name = "".join(" " if unicodedata.category(ch)[0] in "PSZC" else ch for ch in name)
    tokens = name.split()
    tokens = _strip_class(tokens)
    key = " ".join(tokens)
    return key or None


def _strip_class(tokens: list[str]) -> list[str]:
    """Take share-class tokens off the end (and a "class X" anywhere: it names a class, never the fund)."""
    out: list[str] = []
    skip = 0
    for i, token in enumerate(tokens):  # "class I", "share class A2" inside the name
        if skip:
            skip -= 1
            continue
        if token == "class" and i + 1 < len(tokens) and _SHORT_CODE.match(tokens[i + 1]):
            skip = 1
            continue
        out.append(token)
    taken = False
    while out:
        last = out[-1]
        if last in _CURRENCIES or last in _CLASS_WORDS or last in _LEGAL_FORMS:
            out.pop()
            taken = True
        elif taken and _SHORT_CODE.match(last) and len(out) > 1:
            out.pop()
        else:
            break
    return out


@dataclass(frozen=True)
class MasterLine:
    """A fund's largest holding of one foreign fund's units in the newest quarter it filed."""

    isin: str
    issuer: str | None
    percent_nav: float
    period: str


def master_lines(rows: Iterable[Mapping]) -> dict[str, MasterLine]:
    """Each fund's largest foreign-fund holding (summed by ISIN) in its newest quarter, from holding lines
    (proj_id, period, assetliab_id, isin_code, issuer, percent_nav; NAV totals left out by the caller).

    A foreign fund's units: a line of code 401 (units of foreign funds), or of code 104 (fund units) with an
    ISIN not of Thailand. Lines without an ISIN cannot name a master and are not counted."""
    newest: dict[str, str] = {}
    rows = list(rows)
    for row in rows:
        period = str(row.get("period") or "")
        if period > newest.get(row["proj_id"], ""):
            newest[row["proj_id"]] = period
    sums: dict[tuple[str, str], float] = {}
    issuers: dict[tuple[str, str], str | None] = {}
    for row in rows:
        proj_id = row["proj_id"]
        if str(row.get("period") or "") != newest.get(proj_id):
            continue
        isin = _isin(row.get("isin_code"))
        code = str(row.get("assetliab_id") or "").strip()
        if isin is None or not (code in FOREIGN_FUND_CODES or (code in FUND_UNIT_CODES and not isin.startswith("TH"))):
            continue
        try:
            share = float(row.get("percent_nav"))
        except (TypeError, ValueError):
            continue
        if share != share:  # NaN
            continue
        sums[(proj_id, isin)] = sums.get((proj_id, isin), 0.0) + share
        issuers.setdefault((proj_id, isin), _text(row.get("issuer")))
    best: dict[str, MasterLine] = {}
    for (proj_id, isin), share in sorted(sums.items()):
        current = best.get(proj_id)
        if current is None or share > current.percent_nav:
            best[proj_id] = MasterLine(isin, issuers[(proj_id, isin)], round(share, 6), newest[proj_id])
    return best


def _isin(value: object) -> str | None:
    text = str(value or "").strip().upper()
    return text if re.fullmatch(r"[A-Z]{2}[A-Z0-9]{9}[0-9]", text) else None


def _text(value: object) -> str | None:
    text = str(value).strip() if value is not None else ""
    return text if text and text not in ("-", "--") else None


def is_feeder(fund: Mapping, line: MasterLine | None) -> bool:
    """A feeder: it names a master, or its management style is a feeder's, or it holds 60 % in one foreign fund."""
    return (master_name_key(fund.get("feederfund_master_fund")) is not None
            or str(fund.get("management_style") or "").strip().upper() in FEEDER_STYLES
            or (line is not None and line.percent_nav >= MASTER_SHARE_PCT))


MATCH_FIELDS = ("proj_id", "master_id", "master_name", "master_isins", "matched_by", "undecided", "declared_name",
                "name_key", "holding_isin", "holding_pct", "holding_period", "candidates")


def match_masters(funds: Iterable[Mapping], lines: Mapping[str, MasterLine]) -> list[dict]:
    """Every feeder's master: rows MATCH_FIELDS, one per feeder, by proj_id.

    `funds`: fund rows (proj_id, feederfund_master_fund, management_style); `lines`: `master_lines`.
    1. A feeder holding >= 60 % of NAV in one foreign fund is matched to that fund by its ISIN (BY_ISIN).
    2. ISINs are share classes of one master when their names (the holding's issuer, the feeder's declared
       name) have one key and the ISINs one domicile (their first two letters); the master's id is
       "isin:" + its smallest ISIN.
    3. A feeder without such a line is matched by its master's name key: to the one ISIN master of that key
       (BY_NAME_TO_ISIN), else to the feeders of that key (BY_NAME, id "name:" + key). A key that fits
       ISIN masters of several domiciles is undecided (NAME_FITS_SEVERAL, the candidates listed).
    4. A feeder with neither line nor name is undecided (NO_MASTER).
    """
    feeders = []
    for fund in funds:
        line = lines.get(fund["proj_id"])
        if not is_feeder(fund, line):
            continue
        key = master_name_key(fund.get("feederfund_master_fund"))
        held = line if line is not None and line.percent_nav >= MASTER_SHARE_PCT else None
        feeders.append((fund, key, held, line))
    # 2. ISIN masters: union of ISINs sharing a name key within one domicile
    parent: dict[str, str] = {}

    def find(isin: str) -> str:
        while parent.setdefault(isin, isin) != isin:
            parent[isin] = parent[parent[isin]]
            isin = parent[isin]
        return isin

    by_key_domicile: dict[tuple[str, str], str] = {}
    for fund, key, held, _ in feeders:
        if held is None:
            continue
        find(held.isin)
        for name_key in {key, master_name_key(held.issuer)} - {None}:
            slot = (name_key, held.isin[:2])
            if slot in by_key_domicile:
                a, b = find(by_key_domicile[slot]), find(held.isin)
                if a != b:
                    parent[max(a, b)] = min(a, b)
            else:
                by_key_domicile[slot] = held.isin
    groups: dict[str, set[str]] = {}
    for isin in list(parent):
        groups.setdefault(find(isin), set()).add(isin)
    key_groups: dict[str, set[str]] = {}
    for (name_key, _), isin in by_key_domicile.items():
        key_groups.setdefault(name_key, set()).add(find(isin))
    names: dict[str, Counter] = {}
    out = []
    for fund, key, held, line in feeders:
        row = {"proj_id": fund["proj_id"], "master_id": None, "master_name": None, "master_isins": None,
               "matched_by": None, "undecided": None, "declared_name": _text(fund.get("feederfund_master_fund")),
               "name_key": key, "holding_isin": line.isin if line else None,
               "holding_pct": line.percent_nav if line else None, "holding_period": line.period if line else None,
               "candidates": None}
        if held is not None:
            root = find(held.isin)
            row.update(master_id=f"isin:{root}", matched_by=BY_ISIN)
            names.setdefault(row["master_id"], Counter()).update([held.issuer or row["declared_name"] or held.isin])
        elif key is not None and len(key_groups.get(key, ())) == 1:
            root = next(iter(key_groups[key]))
            row.update(master_id=f"isin:{root}", matched_by=BY_NAME_TO_ISIN)
        elif key is not None and key_groups.get(key):
            row.update(undecided=NAME_FITS_SEVERAL,
                       candidates=",".join(f"isin:{r}" for r in sorted(key_groups[key])))
        elif key is not None:
            row.update(master_id=f"name:{key}", matched_by=BY_NAME)
            names.setdefault(row["master_id"], Counter()).update([row["declared_name"]])
        else:
            row.update(undecided=NO_MASTER)
        out.append(row)
    for row in out:
        master = row["master_id"]
        if master is None:
            continue
        if master.startswith("isin:"):
            row["master_isins"] = ",".join(sorted(groups[master[5:]]))
        counted = names.get(master)
        if counted:  # the name most feeders file (the holding's issuer first), ties alphabetically
            row["master_name"] = sorted(counted.items(), key=lambda kv: (-kv[1], kv[0]))[0][0]
        else:
            row["master_name"] = row["declared_name"]
    return sorted(out, key=lambda r: r["proj_id"])
