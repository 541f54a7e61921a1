"""The comparison basket panel: its funds, loading progress, filling it, and the report download."""

from __future__ import annotations

import asyncio
import io

import panel as pn
import panel_material_ui as pmui
import param

from dashboard.errors import SecApiError
from dashboard.models.basket import MAX_BASKET
from dashboard.models.dashboard_state import DashboardState
from dashboard.models.fund import fund_label
from dashboard.views.common import html_pane, html_text, notify_error, progress_value
from dashboard.present.text import esc


def fund_line(state: DashboardState, proj_id: str) -> str:
    basket = state.basket
    record = basket.funds.get(proj_id) or state.fund_record(proj_id) or {}
    mark = ""
    if proj_id in basket.errors:
        failed = len(basket.errors[proj_id])
        mark = f' <span class="sd-pill sd-bad" title="parts that failed">{failed} part{"s" if failed > 1 else ""} failed</span>'
    elif proj_id in basket.unknown:
        mark = ' <span class="sd-pill sd-bad" title="the service has no data and no record for this id">unknown id</span>'
    elif proj_id not in basket.loaded:
        mark = ' <span class="sd-muted">loading…</span>'
    name = record.get("proj_name_en") or record.get("proj_name_th")
    return (f'<b>{esc(fund_label(record, proj_id))}</b>{mark}'
            + (f'<br><span class="sd-muted" style="font-size:.85em">{esc(name)}</span>' if name else ""))


class BasketPanel(pn.viewable.Viewer):
    """Sidebar: the basket's funds with remove buttons, a progress bar while it loads, and actions.

    `title`, `fund_list` (a row per fund) and `download` are the parts shown; `report_file()` is
    what the download button runs.
    """

    state = param.ClassSelector(class_=DashboardState, doc="The dashboard state whose basket is shown.")
    report = param.Callable(default=None, doc="Builds the report: report(client, state.report_request()) -> HTML "
                            "text, run off the event loop; None when reports are not available.")

    def __init__(self, **params):
        super().__init__(**params)
        state, basket = self.state, self.state.basket
        self.title = pmui.Typography(pn.bind(self._title_text, basket.param.proj_ids), variant="subtitle1",
                                     margin=(8, 10, 0, 10))
        self._progress = pmui.LinearProgress(value=pn.bind(progress_value, basket.param.progress),
                                             visible=basket.param.loading, sizing_mode="stretch_width",
                                             margin=(4, 10), name="basket-progress")
        self.fund_list = pn.Column(sizing_mode="stretch_width", name="basket-list")
        self._add = pmui.Button(label="Add the selected fund", icon="playlist_add", variant="outlined",
                                sizing_mode="stretch_width", margin=(4, 10))
        self._add.on_click(self._add_selected)
        self._company = pmui.Button(label="Fill with its company's funds", icon="apartment", variant="outlined",
                                    sizing_mode="stretch_width", margin=(4, 10))
        self._company.on_click(self._fill_company)
        self._clear = pmui.Button(label="Clear the basket", icon="delete_sweep", variant="text", color="error",
                                  sizing_mode="stretch_width", margin=(4, 10))
        self._clear.on_click(lambda *_: state.basket.clear())
        # The file is named after what the tab shows (a fund, the basket, a licence check) when it is made
        # (`report_file`): a bound name stopped following the tab once a download had set it.
        self.download = pmui.FileDownload(callback=self.report_file, filename=state.report_filename(),
                                           label="Download report", icon="download", variant="contained",
                                           sizing_mode="stretch_width", margin=(12, 10), name="report-download")
        self._rows: dict[str, pn.Row] = {}  # a row per fund in the basket (see `_refresh`)
        self._empty = html_pane('<span class="sd-muted">Empty: add funds from the Fund explorer.</span>', margin=(2, 12))
        basket.param.watch(self._refresh, ["proj_ids"])
        state.param.watch(self._refresh, ["basket_revision"])
        self._refresh()
        self._layout = pn.Column(
            self.title,
            self._progress,
            pn.Column(self.fund_list, loading=basket.param.loading, sizing_mode="stretch_width"),
            self._add, self._company, self._clear,
            pmui.Divider(margin=(8, 10)),
            self.download,
            pn.pane.Markdown("The report is a file of what the tab shows: the selected fund's factsheet, the "
                             "basket's comparison (Fees, Risk), the licence check (Licensee) or the plans (Plan).", margin=(0, 10),
                             styles={"font-size": "0.85em"}),
            sizing_mode="stretch_width",
        )

    def __panel__(self):
        return self._layout

    def _title_text(self, *_) -> str:
        n = len(self.state.basket.proj_ids)
        return f"Comparison basket: {n} fund{'s' if n != 1 else ''} (at most {MAX_BASKET})"

    def _refresh(self, *_):
        """Show the basket's funds. A fund's row is made once and kept while the fund is in the
        basket; a refresh only rewrites its text, so the browser keeps its models (remaking every
        row and button at each step of a load was most of the first load's server time)."""
        state = self.state
        ids = list(state.basket.proj_ids)
        rows = []
        for proj_id in ids:
            row = self._rows.get(proj_id)
            if row is None:
                remove = pmui.IconButton(icon="close", size="small", description=f"Remove {proj_id} from the basket",
                                         margin=(4, 0), width=36)
                remove.on_click(lambda _e, p=proj_id: state.basket.remove(p))
                row = pn.Row(html_pane(fund_line(state, proj_id), margin=(2, 4)), remove,
                             sizing_mode="stretch_width", margin=(0, 6))
                self._rows[proj_id] = row
            else:
                text = fund_line(state, proj_id)
                if row[0].object != text:
                    row[0].object = html_text(text)
            rows.append(row)
        for gone in set(self._rows) - set(ids):
            del self._rows[gone]
        if not rows:
            rows.append(self._empty)
        if self.fund_list.objects != rows:
            self.fund_list.objects = rows


    def _add_selected(self, *_):
        try:
            self.state.add_to_basket()
        except SecApiError as exc:
            notify_error(exc)

    async def _fill_company(self, *_):
        try:
            await self.state.fill_basket_from_company()
        except SecApiError as exc:
            notify_error(exc, "The basket could not be filled")

    async def report_file(self):
        """The report for what is on screen, built off the event loop so the page stays responsive."""
        state = self.state
        request = state.report_request()
        self.download.filename = state.report_filename()
        if request["kind"] is None:
            pn.state.notifications.warning(f"Nothing to report yet: {request['reason']}.", duration=6000)
            return io.StringIO(_note_document("Nothing to report yet", request["reason"]))
        if self.report is None:
            return io.StringIO(_note_document("Reports are not available", "this dashboard was built without them"))
        try:
            text = await asyncio.to_thread(self.report, state.factsheet.api, request)
        except SecApiError as exc:
            notify_error(exc, "The report could not be made")
            return io.StringIO(_note_document("The report could not be made", str(exc)))
        except ImportError as exc:
            notify_error(f"Reports are not available in this installation ({exc})")
            return io.StringIO(_note_document("Reports are not available", str(exc)))
        return io.StringIO(text)


def _note_document(title: str, message: str) -> str:
    return (f"<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>{esc(title)}</title></head>"
            f"<body><h1>{esc(title)}</h1><p>{esc(message)}</p></body></html>")
