"""Self-contained HTML reports: a fund factsheet, a fund comparison and a licence check.

Each function returns the whole document as text: inline Bokeh JavaScript, no network needed to
open it, every service string escaped, and never the subscription key.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from dashboard.api.sync import SecClient
from dashboard.api.endpoints import validate_path_param
from dashboard.errors import BadInputError
from dashboard.reports.document import write_report


def fund_report_html(client: SecClient, proj_ids: list[str], *, funds: dict[str, dict] | None = None,
                     generated_at: datetime | None = None) -> str:
    """One proj_id: a factsheet report. Several: a comparison report. `funds` holds known fund records by proj_id."""
    ids = list(dict.fromkeys(validate_path_param("proj_id", p) for p in proj_ids or []))
    if not ids:
        raise BadInputError("give at least one fund for a report")
    if len(ids) == 1:
        from dashboard.reports.factsheet import factsheet_document

        doc = factsheet_document(client, ids[0], fund=(funds or {}).get(ids[0]), generated_at=generated_at)
    else:
        from dashboard.reports.comparison import comparison_document

        doc = comparison_document(client, ids, funds=funds, generated_at=generated_at)
    return doc.render()


def licensee_report_html(client: SecClient, unique_id: str, case_ids: Sequence[str] = (), *,
                         generated_at: datetime | None = None) -> str:
    """A licence check of a person (approvals, duties) or a company, with the enforcement cases asked for."""
    from dashboard.reports.licensee import licensee_document

    return licensee_document(client, unique_id, case_ids, generated_at=generated_at).render()


__all__ = ["fund_report_html", "licensee_report_html", "write_report"]
