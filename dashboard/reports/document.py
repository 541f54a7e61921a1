"""The shared shell of every report: escaping, tables, the header facts, chart embedding and saving.

A report is one static HTML document. Text (headers, tables, notes) is plain HTML built here, with
every service string passed through `esc`; charts are HoloViews elements rendered to Bokeh models
and embedded with the Bokeh JavaScript inline, so the file opens from disk with no network. A
Content-Security-Policy in the document forbids every fetch, as a second line of defence.
"""

from __future__ import annotations

import html
import logging
import math
import os
import tempfile
import urllib.parse
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from pathlib import Path
from typing import Any

import pandas as pd

from dashboard.config import ApiSettings

log = logging.getLogger("dashboard.reports")

DEMO_BANNER = "DEMO DATA — fictional funds and companies"
MISSING = "—"

# Only inline scripts and styles, and images drawn in the page: nothing may be fetched.
CONTENT_SECURITY_POLICY = (
    "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
    "img-src data: blob:; font-src data:; connect-src 'none'; base-uri 'none'; form-action 'none'"
)

STYLE = """
:root { --ink: #1f2933; --muted: #5f6b7a; --line: #d9dee5; --accent: #3b6ea5; --warn: #8a4b00; }
* { box-sizing: border-box; }
body { margin: 0; color: var(--ink); background: #f6f7f9;
       font-family: "Noto Sans Thai", "Sarabun", "Loma", "Garuda", "Tahoma", "Segoe UI", Arial, sans-serif;
       font-size: 15px; line-height: 1.5; }
main { max-width: 1180px; margin: 0 auto; padding: 16px 24px 48px; background: #fff; }
h1 { font-size: 1.6em; margin: 0.2em 0; }
h2 { font-size: 1.25em; margin: 1.6em 0 0.5em; padding-bottom: 0.2em; border-bottom: 2px solid var(--line); }
h3 { font-size: 1.05em; margin: 1.2em 0 0.4em; }
.subtitle { color: var(--muted); margin: 0 0 0.2em; }
.names { margin: 0.3em 0 0.8em; }
.names p { margin: 0.1em 0; }
.demo-banner { background: #fff3cd; border: 1px solid #e0b84c; color: #6b4e00; font-weight: 700;
               padding: 8px 12px; margin: 8px 0 12px; border-radius: 4px; letter-spacing: 0.02em; }
.facts { display: grid; grid-template-columns: max-content 1fr; gap: 2px 16px; margin: 8px 0 12px; }
.facts dt { color: var(--muted); }
.facts dd { margin: 0; }
nav.toc { margin: 8px 0 4px; }
nav.toc a { margin-right: 14px; color: var(--accent); text-decoration: none; }
.note { color: var(--muted); font-style: italic; margin: 0.4em 0; }
.warning { color: var(--warn); background: #fff7ec; border-left: 4px solid #e8a33d; padding: 6px 10px; margin: 6px 0; }
.chart { overflow-x: auto; margin: 8px 0 16px; }
.table-wrap { overflow-x: auto; margin: 6px 0 14px; }
table.data { border-collapse: collapse; font-size: 0.92em; min-width: 40%; }
table.data caption { text-align: left; color: var(--muted); padding: 2px 0 4px; }
table.data th, table.data td { border-bottom: 1px solid var(--line); padding: 4px 10px; vertical-align: top; }
table.data th { background: #eef1f5; text-align: left; font-weight: 600; }
table.data td.num, table.data th.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
table.data td.nowrap { white-space: nowrap; }
.text-block { white-space: pre-line; margin: 0.2em 0 0.8em; }
.case { border: 1px solid var(--line); border-radius: 4px; padding: 8px 14px; margin: 10px 0; }
.case h3 { margin-top: 0.2em; }
.case dl { display: grid; grid-template-columns: max-content 1fr; gap: 2px 16px; margin: 4px 0; }
.case dt { color: var(--muted); }
.case dd { margin: 0; }
footer { margin-top: 32px; color: var(--muted); font-size: 0.88em; border-top: 1px solid var(--line); padding-top: 8px; }
@media print { body { background: #fff; } main { max-width: none; } nav.toc { display: none; } }
"""


# ---- text ----------------------------------------------------------------------------------------


def is_missing(value: Any) -> bool:
    if value is None:
        return True
    if isinstance(value, str):
        return not value.strip()
    try:
        return bool(pd.isna(value))
    except (TypeError, ValueError):
        return False


def esc(value: Any, missing: str = MISSING) -> str:
    """Any value as escaped HTML text; missing values as a dash."""
    if is_missing(value):
        return html.escape(missing)
    return html.escape(str(value), quote=True)


def fmt_number(value: Any, decimals: int = 2, *, suffix: str = "") -> str:
    """A number with thousands separators, or a dash."""
    if is_missing(value):
        return MISSING
    try:
        number = float(value)
    except (TypeError, ValueError):
        return str(value)
    if not math.isfinite(number):
        return MISSING
    return f"{number:,.{decimals}f}{suffix}"


def fmt_percent(value: Any, decimals: int = 2) -> str:
    return fmt_number(value, decimals, suffix=" %")


def fmt_signed(value: Any, decimals: int = 2, suffix: str = "") -> str:
    if is_missing(value):
        return MISSING
    return f"{float(value):+,.{decimals}f}{suffix}"


def fmt_date(value: Any) -> str:
    """A date as YYYY-MM-DD; text that is not a date stays as it is."""
    if is_missing(value):
        return MISSING
    if isinstance(value, (pd.Timestamp, datetime)):
        return value.strftime("%Y-%m-%d")
    if isinstance(value, date):
        return value.isoformat()
    text = str(value)
    return text[:10] if len(text) >= 10 and text[4:5] == "-" and text[7:8] == "-" else text


def fmt_datetime(value: Any) -> str:
    """A last-modified stamp as YYYY-MM-DD HH:MM (the service gives no time zone)."""
    if is_missing(value):
        return MISSING
    if isinstance(value, (pd.Timestamp, datetime)):
        return value.strftime("%Y-%m-%d %H:%M")
    text = str(value).replace("T", " ")
    return text[:16] if len(text) >= 16 else text


def fmt_period(period: str | None) -> str:
    """A holdings period YYYYMM as YYYY-MM."""
    return f"{period[:4]}-{period[4:]}" if period and len(period) == 6 else (period or MISSING)


def text_block(value: Any, missing: str = "not published") -> str:
    """Decoded multi-line service text, line breaks kept, nothing interpreted."""
    if is_missing(value):
        return f'<p class="note">{html.escape(missing)}</p>'
    return f'<div class="text-block">{esc(value)}</div>'


def note(text: str) -> str:
    """A short explanatory note (text is escaped)."""
    return f'<p class="note">{html.escape(text)}</p>'


def warning(text: str) -> str:
    return f'<p class="warning" role="note">{html.escape(text)}</p>'


def safe_source_label(settings: ApiSettings) -> str:
    """Where the data came from, without any user name, password, query or fragment of the URL."""
    label = settings.source_label
    if settings.demo:
        return label
    try:
        parts = urllib.parse.urlsplit(label)
    except ValueError:
        return "the configured service"
    host = parts.hostname or ""
    if parts.port:
        host = f"{host}:{parts.port}"
    return urllib.parse.urlunsplit((parts.scheme, host, parts.path, "", "")) or "the configured service"


# ---- tables --------------------------------------------------------------------------------------


@dataclass
class Column:
    """One column of an HTML table: its heading, how to get the value from a row, how to show it."""

    label: str
    key: str | Callable[[Mapping], Any]
    fmt: Callable[[Any], str] | None = None
    numeric: bool = False
    nowrap: bool = False

    @property
    def css(self) -> str:
        names = " ".join(n for n, on in (("num", self.numeric), ("nowrap", self.nowrap)) if on)
        return f' class="{names}"' if names else ""

    def cell(self, row: Mapping) -> str:
        value = self.key(row) if callable(self.key) else row.get(self.key)
        if self.fmt is not None and not is_missing(value):
            text = self.fmt(value)
        else:
            text = value
        return esc(text)


def num_col(label: str, key, decimals: int = 2) -> Column:
    return Column(label, key, lambda v: fmt_number(v, decimals), numeric=True)


def pct_col(label: str, key, decimals: int = 2) -> Column:
    return Column(label, key, lambda v: fmt_percent(v, decimals), numeric=True)


def date_col(label: str, key) -> Column:
    return Column(label, key, fmt_date)


def rows_of(data: pd.DataFrame | Iterable[Mapping] | None) -> list[Mapping]:
    if data is None:
        return []
    if isinstance(data, pd.DataFrame):
        return data.to_dict("records")
    return list(data)


def html_table(data: pd.DataFrame | Iterable[Mapping] | None, columns: Sequence[Column], *, caption: str = "",
               empty: str = "No rows.", css_id: str = "") -> str:
    """An HTML table with every cell escaped; a note instead when there are no rows."""
    rows = rows_of(data)
    if not rows:
        return note(empty)
    head = "".join(f'<th scope="col"{c.css}>{html.escape(c.label)}</th>' for c in columns)
    body = "\n".join(
        "<tr>" + "".join(f"<td{c.css}>{c.cell(row)}</td>" for c in columns) + "</tr>"
        for row in rows
    )
    cap = f"<caption>{html.escape(caption)}</caption>" if caption else ""
    ident = f' id="{html.escape(css_id)}"' if css_id else ""
    return (f'<div class="table-wrap"><table class="data"{ident}>{cap}<thead><tr>{head}</tr></thead>'
            f"<tbody>\n{body}\n</tbody></table></div>")


def key_value_table(pairs: Sequence[tuple[str, Any]], *, caption: str = "") -> str:
    """A two-column table of labelled values (labels are ours, values are escaped)."""
    rows = "\n".join(f'<tr><th scope="row">{html.escape(label)}</th><td>{esc(value)}</td></tr>' for label, value in pairs)
    cap = f"<caption>{html.escape(caption)}</caption>" if caption else ""
    return f'<div class="table-wrap"><table class="data kv">{cap}<tbody>\n{rows}\n</tbody></table></div>'


# ---- as-of facts ---------------------------------------------------------------------------------


def latest_update(*sources: Any) -> str | None:
    """The newest `last_upd_date` anywhere in these records (dicts, lists, nested), as ISO text."""
    stamps: list[str] = []

    def walk(node: Any) -> None:
        if isinstance(node, Mapping):
            for key, value in node.items():
                if key == "last_upd_date" and isinstance(value, str) and value.strip():
                    stamps.append(value.strip())
                elif isinstance(value, (Mapping, list, tuple)):
                    walk(value)
        elif isinstance(node, (list, tuple)):
            for item in node:
                walk(item)

    for source in sources:
        walk(source)
    return max(stamps) if stamps else None


def distinct_dates(values: Iterable[Any]) -> list[str]:
    """Distinct non-missing dates (or free texts), sorted."""
    return sorted({fmt_date(v) for v in values if not is_missing(v)})


def format_generated(generated_at: datetime | None) -> tuple[str, str]:
    """(text shown, ISO value) of the generation time, with the local UTC offset."""
    moment = generated_at or datetime.now().astimezone()
    if moment.tzinfo is None:
        moment = moment.astimezone()
    return moment.strftime("%Y-%m-%d %H:%M:%S %z").replace("+0000", "UTC"), moment.isoformat(timespec="seconds")


# ---- charts --------------------------------------------------------------------------------------


def _render(element) -> Any:
    import holoviews as hv
    from bokeh.models import Plot

    model = hv.render(element, backend="bokeh")
    # A static file draws on a 2D canvas: WebGL is not always available (headless browsers,
    # remote desktops) and would add the bokeh-gl bundle for nothing.
    for plot in model.select({"type": Plot}):
        plot.output_backend = "canvas"
        _repair_donut(plot)
    return model


def _render_or_note(element: Any) -> Any:
    """A Bokeh model for the element; a note chart when the element cannot be drawn.

    Some failures only show when HoloViews draws (an option of the wrong type, say), after the
    builder returned; the report still must not fail because of one chart.
    """
    try:
        return _render(element)
    except Exception as exc:  # noqa: BLE001
        repaired = _integer_sizes(element)
        if repaired is not None:
            try:
                return _render(repaired)
            except Exception:  # noqa: BLE001
                pass
        log.warning("report chart could not be drawn (%s: %s); a note replaces it", type(exc).__name__, exc)
        from dashboard.present.charts import empty_chart

        return _render(empty_chart("This chart could not be drawn; the table below has the figures."))


def _integer_sizes(element: Any) -> Any | None:
    """The element with whole-pixel width and height when a builder computed them as floats."""
    import holoviews as hv

    sizes = {k: v for k, v in hv.Store.lookup_options("bokeh", element, "plot").kwargs.items()
             if k in ("width", "height", "frame_width", "frame_height") and isinstance(v, float)}
    if not sizes:
        return None
    return element.opts(clone=True, **{k: int(round(v)) for k, v in sizes.items()})


def _repair_grouped_bar_colors(element: Any) -> Any:
    """Grouped bars coloured by their own group dimension, correctly.

    With `color=<second key dimension>` HoloViews 1.23.2 builds the colour column in the data's
    order but the bars in sorted order, so bars get other groups' colours (and legend entries).
    Without the option HoloViews colours grouped bars by that same dimension, correctly.
    """
    import holoviews as hv

    if not isinstance(element, hv.Bars) or len(element.kdims) < 2:
        return element
    color = hv.Store.lookup_options("bokeh", element, "style").kwargs.get("color")
    if isinstance(color, str) and color in [d.name for d in element.kdims[1:]]:
        return element.opts(color=None, clone=True)
    return element


def _repair_donut(plot) -> None:
    """Give a donut numeric axes. HoloViews 1.23.2 puts its wedges (drawn at x=0) on a categorical
    x range, where Bokeh draws nothing; a square frame over the unit circle shows them."""
    from bokeh.models import AnnularWedge, FactorRange, LinearScale, Range1d

    if not any(isinstance(getattr(r, "glyph", None), AnnularWedge) for r in plot.renderers):
        return
    if isinstance(plot.x_range, FactorRange) or isinstance(plot.y_range, FactorRange):
        plot.x_range, plot.y_range = Range1d(-1.1, 1.1), Range1d(-1.1, 1.1)
        plot.x_scale, plot.y_scale = LinearScale(), LinearScale()
        side = min(plot.height or 300, 320) - 40
        plot.frame_width = plot.frame_height = side


def safe_chart(builder: Callable[..., Any], *args: Any, fallback: Callable[..., Any] | None = None,
               note_on_failure: str = "This chart could not be drawn; the table below has the figures.", **kwargs: Any):
    """A chart element from a shared builder; when the builder fails, a fallback or a short note element.

    Reports must not fail because one chart cannot be drawn: the tables still carry the data.
    """
    name = getattr(builder, "__name__", "chart")
    try:
        return builder(*args, **kwargs)
    except Exception as exc:  # noqa: BLE001 - any chart failure degrades to a note, never a failed report
        log.warning("report chart %s failed (%s: %s)%s", name, type(exc).__name__, exc,
                    "; using the report's fallback" if fallback else "; a note replaces it")
        if fallback is not None:
            try:
                return fallback(*args, **kwargs)
            except Exception as exc2:  # noqa: BLE001
                log.warning("fallback for %s failed too (%s)", name, exc2)
        from dashboard.present.charts import empty_chart

        return empty_chart(note_on_failure)


@dataclass
class Section:
    ident: str
    heading: str
    parts: list[Any] = field(default_factory=list)  # HTML strings or _ChartSlot


@dataclass
class _ChartSlot:
    index: int
    label: str


class ReportDocument:
    """Collects a report's header facts, sections and charts, and renders one HTML document."""

    def __init__(self, settings: ApiSettings, *, title: str, kind: str, generated_at: datetime | None = None):
        self.settings = settings
        self.title = title
        self.kind = kind
        self.generated_at = generated_at
        self.subtitle = ""
        self.names: list[tuple[str, str]] = []  # (lang, text)
        self.facts: list[tuple[str, str, str]] = []  # (fact id, label, value text)
        self.header_notes: list[str] = []  # HTML
        self.sections: list[Section] = []
        self._charts: list[Any] = []

    # building

    def fact(self, ident: str, label: str, value: Any) -> None:
        self.facts.append((ident, label, MISSING if is_missing(value) else str(value)))

    def section(self, ident: str, heading: str) -> Section:
        section = Section(ident, heading)
        self.sections.append(section)
        return section

    def chart(self, section: Section, element: Any, label: str = "") -> None:
        section.parts.append(_ChartSlot(len(self._charts), label))
        self._charts.append(_repair_grouped_bar_colors(element))

    # rendering

    def _header(self) -> str:
        shown, iso = format_generated(self.generated_at)
        parts = [f'<header class="report-header" data-report-kind="{html.escape(self.kind)}">']
        if self.settings.demo:
            parts.append(f'<div class="demo-banner" id="demo-banner" role="note">{html.escape(DEMO_BANNER)}</div>')
        parts.append(f"<h1>{esc(self.title)}</h1>")
        if self.subtitle:
            parts.append(f'<p class="subtitle">{esc(self.subtitle)}</p>')
        if self.names:
            names = "".join(f'<p lang="{html.escape(lang)}">{esc(text)}</p>' for lang, text in self.names)
            parts.append(f'<div class="names">{names}</div>')
        facts = [("source", "Data source", safe_source_label(self.settings)), *self.facts]
        rows = "".join(
            f'<dt>{html.escape(label)}</dt><dd data-fact="{html.escape(ident)}">{esc(value)}</dd>'
            for ident, label, value in facts
        )
        rows += (f'<dt>Report generated</dt><dd data-fact="generated"><time datetime="{html.escape(iso)}">'
                 f"{html.escape(shown)}</time></dd>")
        parts.append(f'<dl class="facts">{rows}</dl>')
        parts.extend(self.header_notes)
        if len(self.sections) > 1:
            links = "".join(f'<a href="#{html.escape(s.ident)}">{html.escape(s.heading)}</a>' for s in self.sections)
            parts.append(f'<nav class="toc" aria-label="Sections">{links}</nav>')
        parts.append("</header>")
        return "\n".join(parts)

    def render(self) -> str:
        """The whole HTML document."""
        from bokeh.embed import components
        from bokeh.embed.bundle import bundle_for_objs_and_resources
        from bokeh.resources import INLINE

        models = [_render_or_note(element) for element in self._charts]
        script, divs = components(models) if models else ("", ())
        js = css = ""
        if models:
            bundle = bundle_for_objs_and_resources(models, INLINE)
            # Only the inline bundles: an extension's URL (panel registers some) would be a fetch.
            js = "\n".join(f"<script>\n{code}\n</script>" for code in bundle.js_raw)
            css = "\n".join(f"<style>\n{code}\n</style>" for code in bundle.css_raw)

        body: list[str] = [self._header()]
        for section in self.sections:
            body.append(f'<section id="{html.escape(section.ident)}"><h2>{html.escape(section.heading)}</h2>')
            for part in section.parts:
                if isinstance(part, _ChartSlot):
                    label = f' aria-label="{html.escape(part.label)}"' if part.label else ""
                    body.append(f'<div class="chart" role="figure"{label}>{divs[part.index]}</div>')
                else:
                    body.append(part)
            body.append("</section>")
        body.append(
            "<footer>Made by sec-dashboard from the SEC Thailand Open API (fund factsheets and licence register). "
            "Figures are shown as the service published them. This file needs no network: charts and tables are "
            "embedded.</footer>"
        )
        return "\n".join([
            "<!DOCTYPE html>",
            '<html lang="en">',
            "<head>",
            '<meta charset="utf-8">',
            f'<meta http-equiv="Content-Security-Policy" content="{CONTENT_SECURITY_POLICY}">',
            '<meta name="viewport" content="width=device-width, initial-scale=1">',
            '<meta name="referrer" content="no-referrer">',
            '<meta name="generator" content="sec-dashboard">',
            f"<title>{esc(self.title)}</title>",
            f"<style>{STYLE}</style>",
            css,
            js,
            "</head>",
            "<body>",
            "<main>",
            *body,
            "</main>",
            script,
            "</body>",
            "</html>",
            "",
        ])


# ---- saving --------------------------------------------------------------------------------------


def write_report(html_text: str, path: str | os.PathLike) -> Path:
    """Write a report atomically (a temporary file renamed into place); returns the absolute path."""
    target = Path(path).expanduser()
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".report-", suffix=".html.tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(html_text)
        os.chmod(tmp, 0o644)
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    return target.resolve()
