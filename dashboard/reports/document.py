"""A report document: its header facts, its sections of blocks and charts, drawn by the Jinja2 templates.

A report is one static HTML file. Text (headers, tables, notes) comes from `templates/` with
autoescape on, so service text is data wherever it shows; charts are HoloViews elements embedded
with the Bokeh JavaScript inline (`embed.py`), so the file opens from disk with no network. A
Content-Security-Policy in the document forbids every fetch, as a second line of defence.
"""

from __future__ import annotations

import html
import urllib.parse
import os
import tempfile
from dataclasses import dataclass, field
from datetime import datetime
from functools import lru_cache
from pathlib import Path
from typing import Any

import jinja2
from markupsafe import Markup

from dashboard.config import ApiSettings
from dashboard.reports.blocks import Caution, Note
from dashboard.reports.embed import embed
from dashboard.present.text import DASH as MISSING, is_missing

DEMO_BANNER = "DEMO DATA — fictional funds and companies"


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


def format_generated(generated_at: datetime | None) -> tuple[str, str]:
    """(text shown, ISO value) of the generation time, with the local UTC offset."""
    moment = generated_at or datetime.now().astimezone()
    if moment.tzinfo is None:
        moment = moment.astimezone()
    return moment.strftime("%Y-%m-%d %H:%M:%S %z").replace("+0000", "UTC"), moment.isoformat(timespec="seconds")



def _escaped(value: Any) -> Any:
    """Every `{{ value }}` of a template as HTML text, written as `html.escape` writes it (`&quot;`,
    `&#x27;`); markup the templates mark safe (macros, Bokeh's output) passes unchanged."""
    if hasattr(value, "__html__"):
        return value
    return Markup(html.escape(str(value), quote=True))


@lru_cache(maxsize=1)
def environment() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.PackageLoader("dashboard.reports", "templates"),
        autoescape=True, finalize=_escaped, trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True,
    )


@dataclass(frozen=True)
class ChartSlot:
    """Where a chart goes in a section: its place among the document's charts."""

    index: int
    label: str
    kind: str = "chart"


@dataclass
class Section:
    ident: str
    heading: str
    parts: list[Any] = field(default_factory=list)  # blocks (dashboard.reports.blocks) and chart slots

    def add(self, *blocks: Any) -> None:
        self.parts.extend(blocks)


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
        self.header_notes: list[Note | Caution] = []
        self.sections: list[Section] = []
        self._charts: list[Any] = []

    def fact(self, ident: str, label: str, value: Any) -> None:
        self.facts.append((ident, label, MISSING if is_missing(value) else str(value)))

    def section(self, ident: str, heading: str) -> Section:
        section = Section(ident, heading)
        self.sections.append(section)
        return section

    def chart(self, section: Section, element: Any, label: str = "") -> None:
        section.parts.append(ChartSlot(len(self._charts), label))
        self._charts.append(element)

    def render(self) -> str:
        """The whole HTML document."""
        shown, iso = format_generated(self.generated_at)
        return environment().get_template("report.html.j2").render(
            doc=self, demo=self.settings.demo, demo_banner=DEMO_BANNER, charts=embed(self._charts),
            facts=[("source", "Data source", safe_source_label(self.settings)), *self.facts],
            generated=shown, generated_iso=iso,
        )


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
