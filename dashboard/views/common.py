"""Shared view helpers: text that stays text, numbers with units, tables, empty states and notifications.

Everything the service sends is untrusted text. It reaches the page only through `esc` (HTML
panes built here), Tabulator's `plaintext` formatter (which escapes), widget labels (rendered
as text) or Bokeh data (drawn on a canvas). Markdown panes only ever get the dashboard's own text.
"""

from __future__ import annotations

import html
import logging
import math
import re
from collections.abc import Iterable, Sequence
from typing import Any

import pandas as pd
import panel as pn
import panel_material_ui as pmui
import param

from dashboard.api.errors import SecApiError
from dashboard.models.dashboard_state import DashboardState
from dashboard.records.labels import ASSET_TYPE, FUND_STATUS, asset_class_english, normalise_code, normalise_fund_status

log = logging.getLogger("dashboard.views")

DASH = "–"
NOTIFY_MS = 8000


# ---- text --------------------------------------------------------------------------------------


def is_missing(value: Any) -> bool:
    if value is None or value is pd.NA or value is pd.NaT:
        return True
    if isinstance(value, float) and math.isnan(value):
        return True
    return isinstance(value, str) and not value.strip()


def esc(value: Any, missing: str = DASH) -> str:
    """Service text as HTML text: escaped, line breaks kept, placeholders as a dash."""
    if is_missing(value):
        return html.escape(missing)
    return html.escape(str(value), quote=True).replace("\n", "<br>")


NOT_PUBLISHED_HTML = '<span class="sd-muted">not published by the current service</span>'


def published(record: Any, field: str, rendered: str) -> str:
    """`rendered`, or the note that the answering service does not publish this field at all."""
    from dashboard.records.successor import not_published

    return NOT_PUBLISHED_HTML if not_published(record, field) else rendered


def company_text(record: Any, id_field: str = "unique_id", name_field: str = "comp_name_en") -> str:
    """A company as its name with the identifier after it; the bare identifier only when no name is known."""
    if not isinstance(record, dict):
        return esc(None)
    ident, name = record.get(id_field), record.get(name_field)
    if is_missing(name):
        return esc(ident)
    return f'{esc(name)} <span class="sd-muted">({esc(ident)})</span>' if not is_missing(ident) else esc(name)


def safe_url(value: Any) -> str | None:
    """An http(s) link from the service, or None: other schemes (javascript:, data:) are never linked."""
    if is_missing(value):
        return None
    text = str(value).strip()
    return text if re.match(r"^https?://[^\s<>\"']+$", text, re.I) else None


def link(value: Any, label: str) -> str:
    url = safe_url(value)
    if url is None:
        return f'<span class="sd-muted">{esc(value, "not published")}</span>'
    return f'<a href="{html.escape(url, quote=True)}" target="_blank" rel="noopener noreferrer">{html.escape(label)}</a>'


# ---- numbers with units ----------------------------------------------------------------------------


def _number(value: Any) -> float | None:
    if is_missing(value):
        return None
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(number) or math.isinf(number) else number


def fmt_number(value: Any, digits: int = 2) -> str:
    number = _number(value)
    return DASH if number is None else f"{number:,.{digits}f}"


def fmt_percent(value: Any, digits: int = 2, signed: bool = False) -> str:
    """"1.23 %"; "+1.23 %" when signed; a dash when missing."""
    number = _number(value)
    if number is None:
        return DASH
    return f"{number:+,.{digits}f} %" if signed else f"{number:,.{digits}f} %"


BAHT_UNITS = {"บาท", "thb", "baht", "฿"}


def fmt_baht(value: Any, digits: int = 2) -> str:
    number = _number(value)
    return DASH if number is None else f"{number:,.{digits}f} baht"


def fmt_amount(value: Any, unit: Any = None, digits: int = 2) -> str:
    """A number with the unit the service gave ("บาท", "THB", "units"); baht when it says so."""
    number = _number(value)
    if number is None:
        return DASH
    unit_text = "" if is_missing(unit) else str(unit).strip()
    if unit_text.casefold() in BAHT_UNITS:
        return fmt_baht(number, digits)
    text = f"{number:,.{digits}f}"
    return f"{text} {unit_text}" if unit_text else text


# ---- names for codes, and words for people ------------------------------------------------------
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
    if is_missing(value):
        return DASH
    if isinstance(value, pd.Timestamp):
        return value.date().isoformat()
    return str(value)[:10]


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
    from dashboard.views import charts

    params.setdefault("sizing_mode", "stretch_width")
    return pn.pane.HoloViews(charts.empty_chart(""), linked_axes=False, name=name, **params)


def kv_table(rows: Iterable[tuple[str, str]]) -> str:
    """A two-column table; labels are the dashboard's own text, values already escaped HTML."""
    body = "".join(f"<tr><th>{html.escape(label)}</th><td>{value}</td></tr>" for label, value in rows)
    return f'<table class="sd-kv">{body}</table>'


def card(title: str, body_html: str) -> str:
    return f'<div class="sd-card"><h3>{html.escape(title)}</h3>{body_html}</div>'


def pill(text: Any, tone: str = "") -> str:
    tone_class = f" sd-{tone}" if tone else ""
    return f'<span class="sd-pill{tone_class}">{esc(text)}</span>'


def empty_html(message: str, error: bool = False) -> str:
    kind = " sd-error" if error else ""
    role = ' role="alert"' if error else ""
    return f'<div class="sd-empty{kind}"{role}>{esc(message)}</div>'


def empty_state(message: str, error: bool = False, **params: Any) -> pn.pane.HTML:
    """An empty-state box: why this view shows nothing (no data, or what failed)."""
    return html_pane(empty_html(message, error), **params)


STATUS_TONES = {"RG": "good", "SE": "", "EX": "warn", "CA": "bad", "LI": "bad"}


# ---- tables ------------------------------------------------------------------------------------------

def _number_formatter(digits: int = 2):
    from bokeh.models.widgets.tables import NumberFormatter

    pattern = "0,0" + ("." + "0" * digits if digits else "")
    return NumberFormatter(format=pattern, nan_format=DASH, null_format=DASH, text_align="right")


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


def status_text(code: object) -> str:
    """A fund status for people, with its code beside it: "registered (RG)"; an unknown code as sent."""
    if is_missing(code):
        return ""
    key = normalise_fund_status(code)
    known = FUND_STATUS.get(key) if key else None
    return f"{known[1]} ({key})" if known else str(code)
