"""The datasets of the market store: the tables each fills, how each layout asks it, how long it
stays fresh, and which of them a sync is asked for (`--only`, `--quarters`)."""

from __future__ import annotations

from dataclasses import dataclass

from dashboard.api.layouts import V2
from dashboard.errors import BadInputError

HOUR, DAY = 3600.0, 86400.0
WEEK, MONTH = 7 * DAY, 30 * DAY
NEVER = float("inf")


@dataclass(frozen=True)
class Dataset:
    """One dataset of the store: the tables it fills, how each layout asks it, how long it stays fresh."""

    name: str
    tables: tuple[str, ...]
    endpoint: str  # the logical endpoint: its records' kind, and the per-fund call on the legacy layout
    path: str | None  # the successor's whole-market path
    latest: bool
    refresh_s: float


DATASETS: dict[str, Dataset] = {d.name: d for d in (
    Dataset("companies", ("companies",), "S7", V2 + "/general-info/amcs", False, DAY),
    Dataset("funds", ("funds",), "E1", V2 + "/general-info/profiles", False, DAY),
    Dataset("classes", ("classes",), "E4", None, False, DAY),
    Dataset("fees", ("fees",), "E12", V2 + "/factsheet/fees", True, MONTH),
    Dataset("risk", ("risk",), "E8", V2 + "/factsheet/risk-spectrum", True, MONTH),
    Dataset("performance", ("performance",), "E10", V2 + "/factsheet/performance", True, WEEK),
    Dataset("allocation", ("allocation",), "E13", V2 + "/factsheet/asset-allocation", True, MONTH),
    Dataset("minimums", ("minimums",), "E5", V2 + "/factsheet/subscription-redemption-minimums", True, MONTH),
    Dataset("dealing", ("dealing",), "E11", V2 + "/factsheet/subscription-redemption-periods", True, MONTH),
    Dataset("links", ("links",), "E14", V2 + "/factsheet/urls", False, WEEK),
    Dataset("holdings", ("holdings",), "E6", V2 + "/outstanding/portfolio", False, WEEK),
)}
DATASET_NAMES = tuple(DATASETS)
# What `--only` names: the datasets, and `nav` (every class's daily NAV, `dashboard.market.nav_sync`).
SYNC_NAMES = (*DATASET_NAMES, "nav")


# Holdings of the newest two quarters by default: a quarter of the whole market's holdings is about
# 570 pages (the largest page is 100 rows), more than every factsheet dataset but performance
# together, and the questions people ask (who holds this, how much do my funds overlap) are about
# the latest quarter, with the one before for change. Older quarters come with --quarters N; a
# stored quarter is kept when a later run asks for fewer.
DEFAULT_QUARTERS = 2


def parse_only(text: str | None) -> tuple[str, ...]:
    """Dataset names from `--only a,b`; every name checked."""
    if not text:
        return SYNC_NAMES
    names = tuple(dict.fromkeys(n.strip().lower() for n in text.split(",") if n.strip()))
    unknown = [n for n in names if n not in SYNC_NAMES]
    if unknown or not names:
        raise BadInputError(f"no dataset {', '.join(unknown) or '(none given)'}; datasets: {', '.join(SYNC_NAMES)}")
    return names
