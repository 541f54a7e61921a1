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

    def report_request(self) -> dict:
        """What the "Download report" button makes while the Plan tab is shown: the plan report of what each section
        shows ({"kind": "plan", "filename", "tax", "funds", ..., "dca", ...}; `reports.plan.plan_report_html`)."""
        request: dict = {"kind": "plan"}
        for section in self.sections:
            parts = getattr(section, "report_parts", None)
            if parts is not None:
                request.update(parts())
        tax = request.get("tax")
        request["filename"] = f"tax-plan-{tax.rules.year}.html" if tax is not None else "investing-plan.html"
        return request

    def __panel__(self):
        return self._layout
