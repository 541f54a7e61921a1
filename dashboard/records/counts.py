"""What a number counts: the one table of counted things, so every output names them alike.

"179 funds hold Demo Treasury" was said of 179 holding lines from 32 funds (issue 39). Every count the
product prints comes with its unit from here:

- a **fund** is one proj_id, whatever its unit classes;
- a **unit class** is one class of a fund (a fund without classes has none);
- a **holding** is one fund's holding of one security in a quarter (its lines of that security summed);
- a **security** is its ISIN, else its issue code;
- a **dataset** is one of the datasets `market status` lists (companies ... holdings, nav): the quarters of
  holdings are one dataset, though the sync fetches each apart (`holdings:202609`) (`SyncResult.by_dataset`);
- a **row** is one line of a table as printed; a **call** one request to the service (as `--max-calls` counts).
"""

from __future__ import annotations

COUNT_UNITS: dict[str, tuple[str, str]] = {
    "fund": ("fund", "funds"),
    "class": ("unit class", "unit classes"),
    "holding": ("holding", "holdings"),
    "security": ("security", "securities"),
    "dataset": ("dataset", "datasets"),
    "row": ("row", "rows"),
    "call": ("call", "calls"),
}


def count_text(n: int, unit: str) -> str:
    """"1 fund", "32 funds", "1,234 rows": the number with what it counts (a key of COUNT_UNITS), singular for one."""
    one, many = COUNT_UNITS[unit]
    return f"{n:,} {one if n == 1 else many}"
