"""NAV & returns: the selected fund's NAV history per unit class, its figures beside the factsheet's, and the basket rebased.

A thin view over `models.nav.FundNav` (the state's `nav`, whose class and range are in the URL):
a class picker, range buttons, the NAV chart over a linked drawdown chart, the figures table
(computed from the history, beside the published figures, with the difference), the calendar
years, the gaps and what the fetch noticed. Below it, the basket on one rebased chart
(`views.nav_basket`). The history is fetched when the tab is shown (never for a hidden tab).
"""

from __future__ import annotations

from collections.abc import Iterable

import pandas as pd
import panel as pn
import panel_material_ui as pmui

from dashboard.config import LAYOUT_LEGACY
from dashboard.errors import SecApiError
from dashboard.models.fund import SINGLE_CLASS
from dashboard.models.nav import EMPTY, FAILED, IDLE, RANGES
from dashboard.models.nav_figures import gaps as series_gaps
from dashboard.present import nav_charts
from dashboard.present.nav import figure_rows, published_as_of, published_for_class
from dashboard.present.text import empty_html, esc, fmt_percent
from dashboard.views.common import TableSlot, TabView, chart_pane, html_pane, html_text, notify_error, section_title
from dashboard.views.nav_basket import BasketNavSection

RANGE_LABELS = {("Max" if r == "MAX" else r): r for r in RANGES}
SINGLE_CLASS_LABEL = "Single class fund"
# The numbers next to the figure's name (a phone shows the first columns; the name stays put when
# the table scrolls sideways).
FIGURE_TITLES = {"label": "Figure", "value": "From the NAV", "published": "Published in the factsheet",
                 "difference": "Difference", "compared": "From the NAV at the factsheet's date", "window": "Window",
                 "reason": "Note"}
# The figure's name wraps in a narrow column (it stays in view while the numbers scroll sideways).
WRAPPED_LABELS = (".tabulator-cell[tabulator-field='label'], .tabulator-cell[tabulator-field='year'] "
                  "{white-space: normal !important; word-break: normal;}")
SHORT_LABELS = {"Total return (distributions reinvested)": "Total return"}
YEAR_TITLES = {"year": "Year", "price": "Price return (%)", "total": "Total return, distributions reinvested (%)",
               "note": "Note"}
# Words in the fetch's notes that mean the older service answered (one day per call: recent weeks only).
OLDER_SERVICE = "older service"


def class_label(name: str) -> str:
    return SINGLE_CLASS_LABEL if name in ("", SINGLE_CLASS) else name


def figures_frame(rows) -> pd.DataFrame:
    """The figures table: one row per figure, text formatted by `present.nav.figure_rows`."""
    frame = pd.DataFrame([{"label": short_label(r.label), "window": r.window, "value": r.value,
                           "compared": fmt_percent(r.raw_compared, 2) if r.published and r.raw_compared is not None else "",
                           "published": r.published, "difference": r.difference, "reason": r.reason} for r in rows],
                         columns=list(FIGURE_TITLES))
    return frame if frame["reason"].astype(bool).any() else frame.drop(columns=["reason"])


def short_label(label: str) -> str:
    """A figure's label, shortened where the table's note says what it means."""
    for long, short in SHORT_LABELS.items():
        label = label.replace(long, short)
    return label


def years_frame(years) -> pd.DataFrame:
    return pd.DataFrame([{"year": y.label, "price": y.price_return, "total": y.total_return, "note": y.reason or ""}
                         for y in years], columns=list(YEAR_TITLES))


def older_service_note(notes: Iterable[str]) -> str | None:
    """What the fetch said about the older service's limits (one day per call: recent weeks only), or None."""
    said = [n for n in notes if OLDER_SERVICE in n]
    return "; ".join(said) if said else None


class NavView(TabView):
    """The fund's NAV history: `class_select`, `range_buttons`, `chart` (NAV over drawdown), `figures`
    (computed beside published), `years`, `note` (state, empty states) and `details` (gaps, notes)."""

    _refreshed = False  # whether the app has asked for a first refresh (see `_fund_changed`)

    def __init__(self, **params):
        super().__init__(**params)
        state, nav = self.state, self.state.nav
        self.class_select = pmui.Select(label="Unit class", options={}, width=240, margin=(4, 8))
        self.class_select.param.watch(self._class_picked, "value")
        self.range_buttons = pmui.RadioButtonGroup(options=RANGE_LABELS, value=nav.range, margin=(8, 8),
                                                   label="Range")
        self.range_buttons.param.watch(lambda e: setattr(nav, "range", e.new), "value")
        nav.param.watch(lambda e: setattr(self.range_buttons, "value", e.new), "range")
        self.progress = pmui.LinearProgress(variant="indeterminate", visible=nav.param.loading,
                                            sizing_mode="stretch_width", margin=(0, 8), name="nav-progress")
        self.note = html_pane(name="nav-note")
        self.chart = chart_pane("nav-chart")
        self.figures = TableSlot(titles=FIGURE_TITLES, page_size=40, frozen_columns=["label"], widths={"label": 190},
                                 stylesheets=[WRAPPED_LABELS], name="nav-figures", hide_empty=True)
        self.figures_note = html_pane(name="nav-figures-note")
        self.years = TableSlot(titles=YEAR_TITLES, percent=["price", "total"], page_size=10, widths={"year": 170},
                               stylesheets=[WRAPPED_LABELS], name="nav-years", hide_empty=True)
        self._years_title = section_title("Calendar years")
        self.details = html_pane(name="nav-details")
        self.basket = BasketNavSection(state=state)
        nav.param.watch(self.invalidate, ["history", "class_name", "range", "error", "loading"])
        state.factsheet.param.watch(self.invalidate, ["performance"])
        state.param.watch(self._fund_changed, ["fund"])
        nav.param.watch(self._fund_changed, ["range"])  # the Max range loads the whole history once
        state.param.watch(self._basket_changed, ["basket_revision"])
        self._layout = pn.Column(
            section_title("NAV and returns"),
            pn.FlexBox(self.class_select, self.range_buttons, sizing_mode="stretch_width"),  # wraps on a phone
            self.progress, self.note,
            pn.Column(self.chart, loading=nav.param.loading, sizing_mode="stretch_width"),
            section_title("Figures from the NAV history, beside the factsheet's"),
            self.figures_note,
            self.figures, self._years_title, self.years,
            self.details,
            self.basket,
            sizing_mode="stretch_width",
        )
        self.render()

    def __panel__(self):
        return self._layout

    # ---- loading -----------------------------------------------------------------------------------

    # A fund or basket changed while the tab is shown is fetched at once (the app asks for the first
    # `refresh` when it shows the tab); a hidden tab fetches when it is shown again.

    def _follows(self) -> bool:
        return self.state.tab == "nav" and self._refreshed and pn.state.curdoc is not None

    def _fund_changed(self, *_):
        if self._follows():
            pn.state.execute(self.refresh)

    def _basket_changed(self, *_):
        if self._follows():
            pn.state.execute(self.basket.refresh)

    async def refresh(self) -> None:
        """Fetch the selected fund's history when it is not the one shown (the tab is opened, a fund picked),
        and the basket's when it changed."""
        state, nav = self.state, self.state.nav
        self._refreshed = True
        # (a load of another fund still running is overtaken: FundNav applies the latest load's outcome only)
        whole = nav.range == "MAX"  # the whole history, from each class's launch (its since-launch figures)
        # a fund whose history was never loaded is fetched too (a load that never ended, cancelled with its page's
        # task, left the fund's id and no history: no later refresh asked again)
        unloaded = nav.state == IDLE and not nav.loading
        if state.fund and (nav.proj_id != state.fund or unloaded or (whole and not nav.since_launch)):
            try:
                await nav.load(state.fund, since_launch=whole)
            except SecApiError as exc:  # FundNav keeps its error for the empty state; this says it once more
                notify_error(exc, "The NAV history could not be loaded")
        await self.basket.refresh()

    def _class_picked(self, event) -> None:
        nav = self.state.nav
        if event.new is not None and event.new != nav.class_name:
            nav.class_name = event.new

    # ---- drawing ------------------------------------------------------------------------------------

    def render(self) -> None:
        nav = self.state.nav
        # (the last fund's history stays until the selected fund's load starts: never shown under its name)
        classes = nav.classes() if nav.history is not None and nav.proj_id == self.state.fund else []
        options = {class_label(c): c for c in classes}
        value = nav.class_name if nav.class_name in classes else (classes[0] if classes else None)
        self.class_select.param.update(options=options, value=value, visible=len(classes) > 1)
        self.note.object = html_text(self._note_html())
        shown = not nav.error and bool(classes)
        self.chart.object = self._chart() if shown else nav_charts.empty_chart(self._empty_text())
        figures = nav.figures() if shown else None
        published = published_for_class((self.state.factsheet.records or {}).get("performance"), value or "")
        # the difference is taken at the published figures' date, so like is compared with like
        as_of = published_as_of(published)
        at_published = nav.figures(as_of=as_of) if figures is not None and as_of is not None else None
        rows = figure_rows(figures, published, at_published) if figures is not None else []
        self.figures_note.object = html_text(self._figures_note(figures, as_of, nav.message() if shown else ""))
        self.figures.show(figures_frame(rows))
        years = years_frame(nav.calendar_years() if shown else [])
        self.years.show(years)
        self._years_title.visible = not years.empty
        self.details.object = html_text(self._details_html(value) if shown else "")

    def _chart(self):
        nav = self.state.nav
        history = nav.history.classes.get(nav.class_name) or next(iter(nav.history.classes.values()))
        series = nav.series()
        gaps = series_gaps(series, history.frequency) if len(series) > 1 else []
        label = class_label(history.class_name)
        title = f"NAV per unit, {self.state.factsheet.fund and self._fund_name() or nav.proj_id}" + (
            f" · {label}" if len(nav.classes()) > 1 else "")
        return nav_charts.nav_with_drawdown(
            nav_charts.nav_chart(series, nav.distributions(), gaps=gaps, frequency=history.frequency, title=title),
            nav_charts.drawdown_chart(nav.drawdown(), gaps=gaps, frequency=history.frequency))

    def _fund_name(self) -> str:
        record = self.state.factsheet.fund or {}
        return str(record.get("proj_abbr_name") or record.get("proj_id") or "")

    def _loading(self) -> bool:
        """Whether the selected fund's NAV history is being fetched (or is still to be: another fund's is held, or
        none was asked for yet: the tab is put in the page before its first fetch, which said "No NAV to draw" and
        "no NAV history" for a fund that has one until the fetch began)."""
        nav, state = self.state.nav, self.state
        return nav.loading or ((nav.proj_id != state.fund or nav.state == IDLE) and not nav.error)

    def _empty_text(self) -> str:
        if not self.state.fund:
            return "Select a fund in the Fund explorer"
        if self._loading():
            return "Loading the NAV history…"
        return "No NAV to draw"

    def _note_html(self) -> str:
        nav, state = self.state.nav, self.state
        if not state.fund:
            return empty_html("Select a fund in the Fund explorer to see its NAV history.")
        if self._loading():
            return '<span class="sd-muted">Loading the NAV history…</span>'
        older = older_service_note(nav.notes)
        if nav.error:
            why = older or (self._older_layout() if nav.state == EMPTY else None)
            return empty_html(f"No NAV history to show: {nav.error}", error=nav.state == FAILED) + self._older_html(why)
        history = nav.history
        parts = []
        if older:
            parts.append(self._older_html(older))
        series = nav.series()
        if len(series):
            first, last = series["nav_date"].iloc[0], series["nav_date"].iloc[-1]
            cls = history.classes.get(nav.class_name) or next(iter(history.classes.values()))
            parts.append(f'<span class="sd-muted">NAV per unit in baht, {first:%d %b %Y} to {last:%d %b %Y} '
                         f'({esc(cls.frequency)} NAVs). Hover the line for the offer and bid prices and the fund '
                         f'size; triangles mark distributions (ex dates); shaded bands are days without a NAV.</span>')
        return "".join(parts)

    def _older_layout(self) -> str | None:
        """Why a fund may have no NAV here when the older service answers (it keeps no NAV list: one day per call)."""
        if self.state.search.api.async_client.layout_name == LAYOUT_LEGACY:
            return ("the older service gives one fund's NAV one day per call, so only its recent weeks are asked; "
                    "the current service has the whole history")
        return None

    @staticmethod
    def _older_html(text: str | None) -> str:
        if not text:
            return ""
        return (f'<div><span class="sd-pill sd-warn">recent weeks only</span> '
                f'<span class="sd-muted">{esc(text)}</span></div>')

    def _figures_note(self, figures, as_of, message: str) -> str:
        if figures is None:  # (nothing while loading: the note above says so)
            return "" if not self.state.fund or self._loading() else empty_html(message or "No figures: no NAV history.")
        when = (f"the factsheet's figures are as of {as_of:%d %b %Y}, and the difference is taken at that date"
                if as_of is not None else "the factsheet publishes no fund returns for this class")
        return (f'<span class="sd-muted">Percent, to the last NAV on {figures.last_nav_date:%d %b %Y}; returns over '
                f'a year are a year\'s (annualised); total return: with distributions reinvested; {esc(when)}; '
                f'Sharpe ratio against {figures.risk_free_pct:g} % a year.</span>')

    def _details_html(self, class_name: str | None) -> str:
        nav = self.state.nav
        figures = nav.figures()
        items = []
        gaps = figures.gaps if figures is not None else ()
        if gaps:
            gap_items = "".join(f"<li>{esc(nav_charts.gap_text(g))}</li>" for g in gaps)
            items.append(f"<b>Gaps in the series</b> (left as gaps: nothing is drawn or computed across them)"
                         f"<ul>{gap_items}</ul>")
        else:
            items.append('<span class="sd-muted">No gaps of more than a week in the series.</span>')
        notes = [n for n in nav.notes if OLDER_SERVICE not in n]
        if notes:
            items.append("<b>What the fetch noticed</b><ul>" + "".join(f"<li>{esc(n)}</li>" for n in notes) + "</ul>")
        return f'<div class="sd-nav-details" style="font-size:.9em">{"".join(items)}</div>'
