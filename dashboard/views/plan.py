"""The Plan tab: tax-saving and regular-investing plans, one section under another."""

from __future__ import annotations

import panel as pn
import param


class PlanView(pn.viewable.Viewer):
    """A column of plan sections (the tax-saving planner; a regular-investing plan goes beside it as a second)."""

    sections = param.List(default=[], doc="The sections shown, top to bottom (each a Viewer).")

    def __init__(self, **params):
        super().__init__(**params)
        self._layout = pn.Column(*self.sections, sizing_mode="stretch_width", name="plan")

    def __panel__(self):
        return self._layout
