"""Charts drawn the same for the screen and the reports."""

from __future__ import annotations

import holoviews as hv
import pandas as pd

from dashboard.present.charts import risk_spectrum_chart


def test_risk_spectrum_stacks_funds_of_one_level():
    risk = pd.DataFrame({"fund": list("ABCD"), "proj_id": list("ABCD"), "name_en": ["x"] * 4, "risk_level": ["6"] * 4,
                         "risk_rank": [6.0, 6.0, 6.0, 2.0], "risk_spectrum": ["RS6"] * 3 + ["RS2"]})
    plot = hv.render(risk_spectrum_chart(risk))
    assert isinstance(plot.height, int) and plot.height >= 370
