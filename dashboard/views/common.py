"""Panel pieces shared by the views: panes, tables, empty states, notifications and the tab base.

Everything the service sends is untrusted text. It reaches the page only through `esc` (HTML
panes built here), Tabulator's `plaintext` formatter (which escapes), widget labels (rendered
as text) or Bokeh data (drawn on a canvas). Markdown panes only ever get the dashboard's own text.
The words and numbers themselves come from `dashboard.present.text`.
"""

from __future__ import annotations

import html
import logging
from collections.abc import Iterable
from typing import Any

import pandas as pd
import panel as pn
import panel_material_ui as pmui
import param

from dashboard.errors import SecApiError
from dashboard.models.dashboard_state import DashboardState
from dashboard.present.text import DASH, empty_html, esc

log = logging.getLogger("dashboard.views")

NOTIFY_MS = 8000


# ---- numbers with units ----------------------------------------------------------------------------


# ---- names for codes, and words for people ------------------------------------------------------


# ---- HTML fragments (every value escaped here) -------------------------------------------------------

CSS = """
.sd-card {border: 1px solid rgba(128,128,128,.28); border-radius: 8px; padding: 10px 14px; margin: 0; line-height: 1.45;}
.sd-card h3 {margin: 0 0 6px 0; font-size: 1.02em;}
.sd-kv {border-collapse: collapse; width: 100%;}
.sd-kv th {text-align: left; font-weight: 600; padding: 3px 10px 3px 0; vertical-align: top; white-space: nowrap; width: 1%;}
.sd-kv td {padding: 3px 0; vertical-align: top; overflow-wrap: anywhere;}
.sd-muted {opacity: .65;}
.sd-pill {display: inline-block; padding: 1px 8px; border-radius: 10px; font-size: .85em; font-weight: 600;
          background: rgba(59,110,165,.15); border: 1px solid rgba(59,110,165,.4); margin-right: 4px;}
.sd-pill.sd-bad {background: rgba(215,48,39,.12); border-color: rgba(215,48,39,.45);}
.sd-pill.sd-good {background: rgba(26,152,80,.12); border-color: rgba(26,152,80,.45);}
.sd-pill.sd-warn {background: rgba(253,174,97,.25); border-color: rgba(230,120,20,.6);}
.sd-empty {border: 1px dashed rgba(128,128,128,.55); border-radius: 8px; padding: 14px 16px; opacity: .9;}
.sd-empty.sd-error {border-color: rgba(215,48,39,.7); background: rgba(215,48,39,.06);}
.sd-text {white-space: pre-wrap; overflow-wrap: anywhere;}
.sd-title {font-size: 1.25em; font-weight: 700; margin: 0;}
.sd-sub {margin: 2px 0 0 0;}
.sd-stat {font-size: 1.05em;}
"""

STYLESHEETS = [CSS]


DEMO_BANNER_STYLE = ("background:#fff3cd;color:#5c4300;border:1px solid #e0b84c;border-radius:6px;padding:6px 12px;"
                     "font-weight:700;letter-spacing:.02em;")


def data_source_note(settings: Any) -> pn.pane.HTML:
    """Where the data comes from, for notebooks and pages: the demo-data banner in demo mode,
    else the service's address (`settings.source_label`, which never contains a key)."""
    if getattr(settings, "demo", False):
        from dashboard.demo.generator import DEMO_LABEL

        body = f'<div style="{DEMO_BANNER_STYLE}" role="note" class="sd-demo-banner">{esc(DEMO_LABEL)}</div>'
    else:
        body = f'<div class="sd-muted" role="note">Data: {esc(getattr(settings, "source_label", "") or "the SEC Open API")}</div>'
    return html_pane(body, name="data-source", margin=(0, 8, 6, 8))


def html_pane(text: str = "", **params: Any) -> pn.pane.HTML:
    """An HTML pane for fragments built with `esc`; never give it raw service text."""
    params.setdefault("sizing_mode", "stretch_width")
    params.setdefault("margin", (4, 4))
    return pn.pane.HTML(text, stylesheets=STYLESHEETS, **params)


def chart_pane(name: str, **params: Any) -> pn.pane.HoloViews:
    """A HoloViews pane for one chart. Axes are not linked across panes: Panel would otherwise merge
    the categories of every chart sharing a dimension name (top holdings, heatmap, changes)."""
    from dashboard.present import charts

    params.setdefault("sizing_mode", "stretch_width")
    return pn.pane.HoloViews(charts.empty_chart(""), linked_axes=False, name=name, **params)


def empty_state(message: str, error: bool = False, **params: Any) -> pn.pane.HTML:
    """An empty-state box: why this view shows nothing (no data, or what failed)."""
    return html_pane(empty_html(message, error), **params)


# ---- tables ------------------------------------------------------------------------------------------

def _number_formatter(digits: int = 2):
    from bokeh.models.widgets.tables import NumberFormatter

    pattern = "0,0" + ("." + "0" * digits if digits else "")
    return NumberFormatter(format=pattern, nan_format=DASH, null_format=DASH, text_align="right")


def table_formatters(frame: pd.DataFrame, percent: Iterable[str] = (), baht: Iterable[str] = (),
                     number: Iterable[str] = ()) -> dict[str, Any]:
    """Tabulator formatters: text columns `plaintext` (escaped), numbers with separators and a dash
    when missing; the unit (%, baht) is in the column title."""
    percent, baht, number = set(percent), set(baht), set(number)
    out: dict[str, Any] = {}
    for col in frame.columns:
        if col in percent or col in number:
            out[col] = _number_formatter(2)
        elif col in baht:
            out[col] = _number_formatter(2)
        elif not pd.api.types.is_numeric_dtype(frame[col]):
            out[col] = "plaintext"
    return out


def unit_titles(titles: dict[str, str], columns: Iterable[str], percent: Iterable[str] = (),
                baht: Iterable[str] = ()) -> dict[str, str]:
    """Column titles with the unit of each number column: "% of NAV" stays, "Value" becomes "Value (baht)"."""
    out = dict(titles)
    for col in columns:
        title = out.get(col, col)
        if col in set(percent) and "%" not in title:
            out[col] = f"{title} (%)"
        elif col in set(baht) and "baht" not in title.lower():
            out[col] = f"{title} (baht)"
    return out


def data_table(frame: pd.DataFrame | None = None, *, titles: dict[str, str] | None = None, percent: Iterable[str] = (),
               baht: Iterable[str] = (), number: Iterable[str] = (), **params: Any) -> pn.widgets.Tabulator:
    """A read-only Tabulator whose text cells render as text, never HTML."""
    frame = frame if frame is not None else pd.DataFrame()
    percent, baht, number = tuple(percent), tuple(baht), tuple(number)
    params.setdefault("sizing_mode", "stretch_width")
    params.setdefault("pagination", "local")
    params.setdefault("page_size", 10)
    params.setdefault("layout", "fit_data_table")
    params.setdefault("show_index", False)
    params.setdefault("disabled", True)
    params.setdefault("selectable", False)
    titles = unit_titles(titles or {}, [*percent, *baht], percent, baht)
    table = pn.widgets.Tabulator(frame, titles=safe_titles(frame, titles),
                                 formatters=table_formatters(frame, percent, baht, number), **params)
    table._sd_units = (percent, baht, number)
    table._sd_titles = titles
    return table


def safe_titles(frame: pd.DataFrame, titles: dict[str, str]) -> dict[str, str]:
    """A title for every column, HTML-escaped: Tabulator sets header titles as HTML, and a column
    named after service text (a reference period, say) would otherwise be markup."""
    return {str(col): html.escape(str(titles.get(col, col)), quote=True) for col in frame.columns}


def update_table(table: pn.widgets.Tabulator, frame: pd.DataFrame) -> None:
    """Swap a data_table's frame, keeping text columns plaintext and numbers formatted."""
    percent, baht, number = getattr(table, "_sd_units", ((), (), ()))
    formatters = table_formatters(frame, percent, baht, number)
    same_formatters = set(formatters) == set(table.formatters) and all(
        isinstance(v, str) == isinstance(table.formatters.get(k), str) for k, v in formatters.items())
    current = table.value
    if same_formatters and isinstance(current, pd.DataFrame) and list(current.columns) == list(frame.columns) \
            and current.equals(frame):
        # Re-sending the same rows makes Panel echo them back as if the browser had edited them.
        return
    titles = safe_titles(frame, getattr(table, "_sd_titles", {}))
    update = {"value": frame}
    if not same_formatters:
        update["formatters"] = formatters
    if titles != table.titles:
        update["titles"] = titles
    table.param.update(**update)


# ---- notifications and status ---------------------------------------------------------------------------


def notify_error(exc: BaseException | str, prefix: str = "") -> None:
    """An error notification; the message is rendered as text by the notification area."""
    message = str(exc)
    if prefix:
        message = f"{prefix}: {message}"
    if not isinstance(exc, (SecApiError, str)):
        log.exception("unexpected error in a dashboard callback", exc_info=exc)
    notifications = pn.state.notifications
    if notifications is not None:
        notifications.error(message, duration=NOTIFY_MS)
    else:
        log.warning("%s", message)


def notify_warning(message: str) -> None:
    if pn.state.notifications is not None:
        pn.state.notifications.warning(message, duration=NOTIFY_MS)


def stale_badge(model: param.Parameterized) -> pn.pane.HTML:
    """A visible "stale (cached)" badge while `model.stale` is True."""
    return html_pane(
        '<span class="sd-pill sd-warn" title="The service failed; this is an older copy from the cache">'
        "stale (cached)</span>",
        visible=model.param.stale, sizing_mode="fixed", width=130, height=28, margin=(8, 4),
    )


def section_title(text: str) -> pmui.Typography:
    return pmui.Typography(text, variant="h6", margin=(12, 8, 0, 8))


def progress_value(progress: float) -> float:
    return round(100 * float(progress or 0), 1)


class TabView(pn.viewable.Viewer):
    """A tab's view: `render()` redraws every part from the state; `invalidate` is what watchers call.

    The app shell builds a view the first time its tab is shown and the Tabs render only the active
    tab (dynamic), so redrawing a hidden view only builds HoloViews elements, never Bokeh models.
    """

    state = param.ClassSelector(class_=DashboardState, doc="The dashboard state this view shows.")

    tab: str = ""
    # Whether the view is in the page. A hidden view only notes that it is out of date and redraws
    # when shown: updating the tables of a view the browser has just removed (a tab switch while a
    # basket loads) made Tabulator patch widgets it no longer had.
    hidden: bool = False
    _stale_view: bool = False

    def invalidate(self, *_) -> None:
        if self.hidden:
            self._stale_view = True
            return
        self.render()

    def hide(self) -> None:
        self.hidden = True

    def show(self) -> None:
        """Called when the tab is shown: redraw if anything changed while it was hidden."""
        self.hidden = False
        if self._stale_view:
            self._stale_view = False
            self.render()

    def render(self) -> None:
        self._render()

    def _render(self) -> None:
        raise NotImplementedError


