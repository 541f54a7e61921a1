"""Charts in a static file: HoloViews elements drawn as Bokeh models, embedded with Bokeh's JavaScript inline.

A report must not fail because one chart cannot be drawn: the tables still carry the data, so
every failure here degrades to a short note chart.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

log = logging.getLogger("dashboard.reports")

CHART_FAILED = "This chart could not be drawn; the table below has the figures."


@dataclass(frozen=True)
class Embedded:
    """What the document template needs from the charts: Bokeh's code, styles and one div per chart.

    All of it is made by Bokeh from our own chart models (service text inside travels as JSON
    data in the script, escaped by Bokeh), so the template may insert it as markup.
    """

    script: str
    divs: Sequence[str]
    js: Sequence[str]
    css: Sequence[str]


def embed(elements: Sequence[Any]) -> Embedded:
    """Draw the elements and collect the inline Bokeh bundle (nothing is fetched when the file opens)."""
    from bokeh.embed import components
    from bokeh.embed.bundle import bundle_for_objs_and_resources
    from bokeh.resources import INLINE

    models = [_render_or_note(element) for element in elements]
    if not models:
        return Embedded("", (), (), ())
    _one_document(models)
    script, divs = components(models)
    bundle = bundle_for_objs_and_resources(models, INLINE)
    # Only the inline bundles: an extension's URL (panel registers some) would be a fetch.
    return Embedded(script, divs, tuple(bundle.js_raw), tuple(bundle.css_raw))


def _one_document(models: Sequence[Any]) -> None:
    """The charts as the roots of one new document, added with its model graph frozen: `components` adds them one
    by one otherwise, and each addition walked every model of the charts added before (a fifth of a report's CPU).
    `components` then serialises this document as it is (all its roots, nothing else in it)."""
    from bokeh.document import Document

    doc = Document()
    with doc.models.freeze():
        for model in models:
            doc.add_root(model)


def safe_chart(builder: Callable[..., Any], *args: Any, **kwargs: Any):
    """A chart element from a shared builder; a short note element when the builder fails."""
    from dashboard.present.charts import empty_chart

    try:
        return builder(*args, **kwargs)
    except Exception as exc:  # noqa: BLE001 - any chart failure degrades to a note, never a failed report
        log.warning("report chart %s failed (%s: %s); a note replaces it", getattr(builder, "__name__", "chart"),
                    type(exc).__name__, exc)
        return empty_chart(CHART_FAILED)


def _render(element) -> Any:
    import holoviews as hv
    from bokeh.models import Plot

    model = hv.render(element, backend="bokeh")
    # A static file draws on a 2D canvas: WebGL is not always available (headless browsers,
    # remote desktops) and would add the bokeh-gl bundle for nothing.
    for plot in model.select({"type": Plot}):
        plot.output_backend = "canvas"
    return model


def _render_or_note(element: Any) -> Any:
    """A Bokeh model for the element; a note chart when the element cannot be drawn.

    Some failures only show when HoloViews draws (an option of the wrong type, say), after the
    builder returned; the report still must not fail because of one chart.
    """
    from dashboard.present.charts import empty_chart

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
        return _render(empty_chart(CHART_FAILED))


def _integer_sizes(element: Any) -> Any | None:
    """The element with whole-pixel width and height when a builder computed them as floats."""
    import holoviews as hv

    sizes = {k: v for k, v in hv.Store.lookup_options("bokeh", element, "plot").kwargs.items()
             if k in ("width", "height", "frame_width", "frame_height") and isinstance(v, float)}
    if not sizes:
        return None
    return element.opts(clone=True, **{k: int(round(v)) for k, v in sizes.items()})
