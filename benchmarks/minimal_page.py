"""The reference the benchmarks hold the dashboard against: a minimal panel-material-ui page with a
20-row Tabulator, served by `pn.serve`.

    python benchmarks/minimal_page.py PORT [--release-sessions]

As shipped (no flag), it is the page `bench_first_paint.py` measures first paint against. It is also
the stack's floor for memory after many sessions, with two changes (`--release-sessions`), so that
it gets what the dashboard's served process gets:

- Its `Page.busy` is bound to the page's own table, not to `pn.state.busy`. panel-material-ui
  (0.16) binds every Page to that process-wide flag and never unbinds it, so each page, with its
  session's whole document, stays alive for as long as the process (`dashboard.views.shell`
  rebinds it the same way).
- A few seconds after sessions end it gives memory back with the dashboard's own
  `dashboard.server.heap.trim_heap_soon` (collect garbage, trim the heap).

Run it in `deployment.deployment_environment()` for the allocator docs/deploy.md sets.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.browser.dashboard_server import DashboardProcess  # noqa: E402

PAGE = Path(__file__).resolve()


def page(release_sessions: bool):
    import numpy as np
    import pandas as pd
    import panel as pn
    import panel_material_ui as pmui

    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"fund": [f"FUND-{i:02d}" for i in range(20)], "name": [f"Fund number {i}" for i in range(20)],
                          "nav": rng.normal(10, 2, 20).round(4), "status": ["Active"] * 20})
    table = pn.widgets.Tabulator(frame, sizing_mode="stretch_width")
    main = pmui.Page(title="Minimal", main=[table])
    if release_sessions:
        from panel.util import edit_readonly

        with edit_readonly(main):
            main.busy = pn.bind(lambda loading: loading, table.param.loading)
    return main


class MinimalProcess(DashboardProcess):
    """The minimal page in a child process on a free loopback port: `with MinimalProcess() as minimal:`.
    `env`: set in the child's environment (`deployment_environment()`, the allocator docs/deploy.md sets)."""

    what = "the minimal page"

    def __init__(self, release_sessions: bool = False, env: dict[str, str] | None = None):
        super().__init__(demo=False, env=env, startup_timeout=60)
        self.release_sessions = release_sessions

    def command(self) -> list[str]:
        return [sys.executable, str(PAGE), str(self.port), *(["--release-sessions"] if self.release_sessions else [])]


def main() -> None:
    import panel as pn

    from dashboard.server.heap import trim_heap_soon

    port, release = int(sys.argv[1]), "--release-sessions" in sys.argv[2:]
    pn.extension("tabulator")

    def served():
        if release:
            pn.state.on_session_destroyed(trim_heap_soon)
        return page(release)

    pn.serve({"/": served}, port=port, address="127.0.0.1", show=False, liveness=True,
             websocket_origin=[f"127.0.0.1:{port}"])


if __name__ == "__main__":
    main()
