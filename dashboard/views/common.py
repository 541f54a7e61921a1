"""Panel pieces shared by the views: panes, tables, empty states, notifications and the tab base.

Everything the service sends is untrusted text. It reaches the page only through `esc` (HTML
panes built here), Tabulator's `plaintext` formatter (which escapes), widget labels (rendered
as text) or Bokeh data (drawn on a canvas). Markdown panes only ever get the dashboard's own text.
The words and numbers themselves come from `dashboard.present.text`.
"""

from __future__ import annotations

import html
import inspect
import logging
import weakref
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import pandas as pd
import panel as pn
import panel_material_ui as pmui
import param

from dashboard.errors import SecApiError, quoted
from dashboard.models.dashboard_state import DashboardState
from dashboard.present.text import DASH, column_title, empty_html, esc

log = logging.getLogger("dashboard.views")

NOTIFY_MS = 8000


# ---- HTML fragments (every value escaped here) -------------------------------------------------------

CSS = (Path(__file__).parent / "common.css").read_text(encoding="utf-8")

STYLESHEETS = [CSS]


DEMO_BANNER_STYLE = ("background:#fff3cd;color:#5c4300;border:1px solid #e0b84c;border-radius:6px;padding:6px 12px;"
                     "font-weight:700;letter-spacing:.02em;")


def demo_banner_html(label: str) -> str:
    """The demo-data banner (the label comes from whoever built the demo client: the app, a notebook)."""
    return f'<div style="{DEMO_BANNER_STYLE}" role="note" class="sd-demo-banner">{esc(label)}</div>'


def data_source_note(settings: Any, banner: str = "") -> pn.pane.HTML:
    """Where the data comes from, for notebooks and pages: the demo-data banner in demo mode
    (`banner`, the demo data's label), else the service's address (`settings.source_label`,
    which never contains a key)."""
    if getattr(settings, "demo", False):
        body = demo_banner_html(banner or getattr(settings, "source_label", "") or "demo data")
    else:
        body = f'<div class="sd-muted" role="note">Data: {esc(getattr(settings, "source_label", "") or "the SEC Open API")}</div>'
    return html_pane(body, name="data-source", margin=(0, 8, 6, 8))


def html_text(value: Any) -> str:
    """What an HTML pane is given: trusted HTML as a plain str.

    Panel's HTML pane escapes its text for the browser with `html.escape`, which on a markupsafe
    `Markup` escapes twice (Markup's own `replace` escapes its arguments): a pane given Markup shows
    its tags as text."""
    return "" if value is None else str(value)


def html_pane(text: Any = "", **params: Any) -> pn.pane.HTML:
    """An HTML pane for fragments built with `esc`; never give it raw service text. A bound function
    (`pn.bind`) is followed; whatever it returns is shown as HTML through `html_text`."""
    params.setdefault("sizing_mode", "stretch_width")
    params.setdefault("margin", (4, 4))
    text = pn.bind(html_text, text) if callable(text) else html_text(text)
    return pn.pane.HTML(text, stylesheets=STYLESHEETS, **params)


def chart_pane(name: str, **params: Any) -> pn.pane.HoloViews:
    """A HoloViews pane for one chart. Axes are not linked across panes: Panel would otherwise merge
    the categories of every chart sharing a dimension name (top holdings, heatmap, changes)."""
    from dashboard.present import charts

    params.setdefault("sizing_mode", "stretch_width")
    return pn.pane.HoloViews(charts.empty_chart(""), linked_axes=False, name=name, **params)


def basket_state_html(state: DashboardState) -> str | None:
    """Why a basket tab has nothing to show (the basket failed to load, or is empty); None when it has funds."""
    if state.basket_error:
        return empty_html(f"The basket could not be loaded: {state.basket_error}", error=True)
    if not state.basket.proj_ids:
        return empty_html("The basket is empty: add funds from the Fund explorer, or fill it with a company's funds.")
    return None


def failed_part_html(basket: Any, part: str, what: str) -> str:
    """Which of the basket's funds could not load `part`, with the first reason; "" when none failed.
    (A failure is not "no data": the tabs say so apart from what is not published.)"""
    failed = basket.failed_part(part)
    if not failed:
        return ""
    return empty_html(f"{what} could not be loaded for: {', '.join(basket.label(p) for p in failed)} "
                      f"({basket.part_status(failed[0], part).reason}).", error=True)



# ---- tables ------------------------------------------------------------------------------------------

def _number_formatter(digits: int = 2):
    from bokeh.models.widgets.tables import NumberFormatter

    pattern = "0,0" + ("." + "0" * digits if digits else "")
    return NumberFormatter(format=pattern, nan_format=DASH, null_format=DASH, text_align="right")


def table_formatters(frame: pd.DataFrame, percent: Iterable[str] = (), baht: Iterable[str] = (),
                     number: Iterable[str] = ()) -> dict[str, Any]:
    """Tabulator formatters: text columns `plaintext` (escaped), numbers with separators and a dash
    when missing; the unit (%, baht) is in the column title."""
    numbers = {*percent, *baht, *number}
    out: dict[str, Any] = {}
    for col in frame.columns:
        if col in numbers:
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


# A table wider than the page scrolls sideways with a scrollbar a person can see (Chromium's overlay scrollbar
# showed nothing: the right-hand columns were off-screen with no sign of them).
TABLE_CSS = (".tabulator .tabulator-tableholder::-webkit-scrollbar {height: 10px;}"
             ".tabulator .tabulator-tableholder::-webkit-scrollbar-thumb {background: #b0b0b0; border-radius: 5px;}"
             ".tabulator .tabulator-tableholder::-webkit-scrollbar-track {background: #f0f0f0;}")


def data_table(frame: pd.DataFrame | None = None, *, titles: dict[str, str] | None = None, percent: Iterable[str] = (),
               baht: Iterable[str] = (), number: Iterable[str] = (), **params: Any) -> pn.widgets.Tabulator:
    """A read-only table made with its rows: text cells render as text, never HTML; numbers formatted with
    separators (a dash when missing); each number column's unit (%, baht) in its escaped title."""
    frame = frame if frame is not None else pd.DataFrame()
    params.setdefault("sizing_mode", "stretch_width")
    params.setdefault("pagination", "local")
    params.setdefault("page_size", 10)
    params.setdefault("layout", "fit_data_table")
    params.setdefault("show_index", False)
    params.setdefault("disabled", True)
    params.setdefault("selectable", False)
    params["stylesheets"] = [TABLE_CSS, *params.get("stylesheets", [])]
    percent, baht = list(percent), list(baht)
    # Every column under the product's one title for it (present.text.COLUMN_TITLES), but where the view gives
    # its own because the column means something else there.
    named = {str(col): column_title(str(col)) for col in frame.columns}
    shown_titles = safe_titles(frame, unit_titles({**named, **(titles or {})}, [*percent, *baht], percent, baht))
    return pn.widgets.Tabulator(frame, titles=shown_titles, formatters=table_formatters(frame, percent, baht, number),
                                **params)


class TableSlot(pn.viewable.Viewer):
    """Where a view's table stands. `show(frame)` puts a new table, made with its rows, in the slot; the
    table shown is never changed (its rows, columns, pages or selection patched).

    Panel's Tabulator (1.9) throws on a change that reaches a table the browser has not finished building,
    and Bokeh then drops the rest of that message (docs/upstream.md #6): a table made whole and put in the
    page arrives with its rows, and one replaced before it was drawn is simply gone."""

    hide_empty = param.Boolean(default=False, doc="Show nothing (not a table of headers) while there are no rows.")

    def __init__(self, *, titles: dict[str, str] | None = None, percent: Iterable[str] = (), baht: Iterable[str] = (),
                 number: Iterable[str] = (), on_select: Callable[[list[int]], Any] | None = None,
                 on_click: Callable[[Any], Any] | None = None, hide_empty: bool = False, **table_params: Any):
        super().__init__(hide_empty=hide_empty)
        self._on_click = on_click
        self._options = dict(titles=titles, percent=tuple(percent), baht=tuple(baht), number=tuple(number), **table_params)
        self._on_select = on_select
        #: The table shown (None before the first `show` and while an empty slot is hidden).
        self.table: pn.widgets.Tabulator | None = None
        self._frame: pd.DataFrame | None = None
        self._shown_options: dict[str, Any] = {}
        self._held = False
        self._pending: tuple[pd.DataFrame, list[int] | None, dict[str, Any]] | None = None
        self._place = pn.Column(sizing_mode="stretch_width", margin=0, name=table_params.get("name", "table-slot"))

    def __panel__(self):
        return self._place

    def show(self, frame: pd.DataFrame, selection: list[int] | None = None, **options: Any) -> None:
        """Show `frame` (with rows `selection` selected) in a new table; nothing when it is what is shown.
        `options` override the slot's table options for this frame (say, which columns are percentages)."""
        if self._held:
            self._pending = (frame, selection, options)
            return
        selection = list(selection or [])
        current = self._frame
        if (current is not None and list(current.columns) == list(frame.columns) and current.equals(frame)
                and options == self._shown_options
                and (self.table is None or list(self.table.selection) == selection)):
            return
        self._frame, self._shown_options = frame, options
        if self.hide_empty and frame.empty:
            self.table = None
            self._place.objects = []
            return
        table = data_table(frame, selection=selection, **{**self._options, **options})
        on_select = self._on_select
        if on_select is not None:
            if inspect.iscoroutinefunction(on_select):
                async def picked(event):
                    await on_select(event.new)
            else:
                def picked(event):
                    on_select(event.new)
            table.param.watch(picked, "selection")
        if self._on_click is not None:
            table.on_click(self._on_click)
        self.table = table
        self._place.objects = [table]

    def hold(self) -> None:
        """Make no table until `release`: `show` meanwhile only keeps what to show. A view filling its tables by
        several lookups in a row (the Licensee tab's first lookups) makes each table once, with its last rows,
        not once per step (each Tabulator costs the server ~25 ms of CPU)."""
        self._held = True

    def release(self) -> None:
        """Show what was asked for while held (the last `show`), in a new table; nothing if nothing was."""
        self._held = False
        pending, self._pending = self._pending, None
        if pending is not None:
            frame, selection, options = pending
            self.show(frame, selection, **options)

    # What a reader of the slot (a test, a download) asks of the table shown (or to be shown, while held).
    @property
    def value(self) -> pd.DataFrame:
        if self._pending is not None:
            return self._pending[0]
        return self._frame if self._frame is not None else pd.DataFrame()

    @property
    def selection(self) -> list[int]:
        return list(self.table.selection) if self.table is not None else []

    @selection.setter
    def selection(self, rows: list[int]) -> None:
        """Select rows as a click in the browser does."""
        if self.table is not None:
            self.table.selection = list(rows)

    @property
    def titles(self) -> dict[str, str]:
        return dict(self.table.titles) if self.table is not None else {}

    @property
    def formatters(self) -> dict[str, Any]:
        return dict(self.table.formatters) if self.table is not None else {}


def safe_titles(frame: pd.DataFrame, titles: dict[str, str]) -> dict[str, str]:
    """A title for every column, HTML-escaped: Tabulator sets header titles as HTML, and a column
    named after service text (a reference period, say) would otherwise be markup."""
    return {str(col): html.escape(str(titles.get(col, col)), quote=True) for col in frame.columns}


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


def text_box(parameter: param.Parameter, on_enter: Callable[[], Any] | None = None, **params: Any) -> pmui.TextInput:
    """A text input for a parameter (two-way). Enter runs `on_enter` with the text as typed: the
    browser sends the key before it commits the text, so Enter first commits it to the parameter.
    A button beside the box needs nothing of the kind (the box commits its text when it loses focus)."""
    params.setdefault("description", "")  # the label says it all: no tooltip with the parameter's doc
    box = pmui.TextInput.from_param(parameter, **params)
    if on_enter is not None:
        def enter(_event) -> None:
            if box.value_input is not None and box.value_input != box.value:
                box.value = box.value_input
            pn.state.execute(on_enter)

        box.param.watch(enter, "enter_pressed")
    return box


def optional_number_box(owner: param.Parameterized, name: str, *, what: str, example: str,
                        on_error: Callable[[str], Any], decimals: int = 0, **params: Any) -> pmui.TextInput:
    """A box for a number that may be left empty (the parameter None), with a placeholder saying what empty stands
    for. Panel's number inputs showed an empty value as "0" (a None is left out of the first message, so the
    browser's input starts at 0): a 0 the person never typed. Here empty is None, "1,200,000" is 1200000, and
    text that is no number, or a number past the parameter's bounds, is one line to `on_error` and changes nothing."""
    parameter = owner.param[name]

    def shown(value: Any) -> str:
        return "" if value is None else f"{value:,.{decimals}f}".rstrip("0").rstrip(".") if decimals else f"{value:,.0f}"

    params.setdefault("description", parameter.doc)
    box = pmui.TextInput(value=shown(getattr(owner, name)), **params)

    def typed(event) -> None:
        text = (event.new or "").strip().replace(",", "").replace("_", "")
        if not text:
            setattr(owner, name, None)
            return
        try:
            number = float(text)
        except ValueError:
            number = float("nan")
        if number != number or number in (float("inf"), float("-inf")):
            on_error(f"{what} must be a number such as {example}, or left empty, not {quoted(event.new)}")
            return
        low, high = parameter.bounds or (None, None)
        if (low is not None and number < low) or (high is not None and number > high):
            on_error(f"{what} must be from {low:g} to {high:g}, not {number:g}")
            return
        setattr(owner, name, number)

    def changed(event) -> None:
        if box.value.strip().replace(",", "") != shown(event.new).replace(",", ""):
            box.value = shown(event.new)

    box.param.watch(typed, "value")
    owner.param.watch(changed, name)
    return box


def section_title(text: str) -> pmui.Typography:
    return pmui.Typography(text, variant="h6", margin=(12, 8, 0, 8))


def progress_value(progress: float) -> float:
    return round(100 * float(progress or 0), 1)


class SessionBound:
    """Knows the served session it was made in (weakly), to tell whether that session has ended: a load
    still running when its session ends (a visitor leaving while a tab fetches) must not redraw panes
    Panel has cleaned up (Bokeh refuses: "source doesn't have a value set")."""

    def bind_session(self) -> None:
        doc = pn.state.curdoc
        self._document = weakref.ref(doc) if doc is not None and doc.session_context is not None else None

    def session_ended(self) -> bool:
        """Whether the served session this was made in has ended (never, outside a server)."""
        ref = getattr(self, "_document", None)
        if ref is None:
            return False
        doc = ref()
        return doc is None or doc.session_context is None


class TabView(pn.viewable.Viewer, SessionBound):
    """A tab's view: `render()` makes its tables (and other parts) anew from the state; `invalidate` is
    what watchers call.

    The app shell makes a view the first time its tab is shown and only the shown tab's view is in the
    page: a hidden view's new parts have no Bokeh models until it is shown again."""

    state = param.ClassSelector(class_=DashboardState, doc="The dashboard state this view shows.")

    def __init__(self, **params):
        super().__init__(**params)
        self.bind_session()

    def invalidate(self, *_) -> None:
        """Redraw from the state; nothing once the session has ended."""
        if not self.session_ended():
            self.render()

    def render(self) -> None:
        """Redraw every part of the view from the state."""
        raise NotImplementedError
