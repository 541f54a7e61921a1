"""The Plan tab: tax-saving and regular-investing plans, one section under another."""

from __future__ import annotations

import panel as pn
import param


class PlanView(pn.viewable.Viewer):
    """A column of plan sections: the tax-saving planner, then the regular-investing plan."""

    sections = param.List(default=[], doc="The sections shown, top to bottom (each a Viewer).")

    def __init__(self, **params):
        super().__init__(**params)
        self._layout = pn.Column(*self.sections, sizing_mode="stretch_width", name="plan")

    async def refresh(self) -> None:
        """Read what each section shows (the regular-investing plan's NAV history) before the tab is shown."""
        for section in self.sections:
            refresh = getattr(section, "refresh", None)
            if refresh is not None:
                await refresh()

    def __panel__(self):
        return self._layout
