"""Every notebook runs top to bottom on the demo data, and is stored clean (no outputs, no key)."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))


def test_there_are_at_least_four_walkthroughs():
    assert len(NOTEBOOKS) >= 4, [p.name for p in NOTEBOOKS]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_stored_without_outputs_and_explained(path):
    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None, f"{path.name} is stored with outputs"
    assert sum(c.cell_type == "markdown" for c in nb.cells) >= 3, "each walk-through explains what it shows"
    source = "\n".join(c.source for c in nb.cells)
    assert "pn.extension(" in source
    assert "ApiSettings.from_env()" in source, "keys come from the environment through the package's settings"
    assert not re.search(r"[0-9a-fA-F]{32}", source), "nothing that looks like a key is stored in a notebook"
    assert "os.environ[" not in source


class Kernel:
    """One Jupyter kernel that runs notebook after notebook, each in a namespace of its own (`%reset -f`), a cache
    directory of its own and the SEC_ variables of its run (the demo's or the keyed service's, set in the kernel's
    environment before the notebook's first cell): a kernel's start and the imports of Panel, HoloViews and the
    package took about 4 s of each run's 6 to 9 (measured): one kernel serves the demo runs and the keyed runs."""

    def __init__(self):
        from jupyter_client import KernelManager

        environ = {k: v for k, v in os.environ.items() if not k.startswith("SEC_")}
        environ["PYTHONPATH"] = str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")
        self.manager = KernelManager(kernel_name="python3")
        self.manager.start_kernel(env=environ, cwd=str(ROOT / "notebooks"))

    def run(self, nb: nbformat.NotebookNode, cache_dir: Path, env: dict[str, str]) -> None:
        settings = {**env, "SEC_DASHBOARD_CACHE_DIR": str(cache_dir)}
        fresh = nbformat.v4.new_code_cell(
            "%reset -f\nimport os\n[os.environ.pop(n) for n in list(os.environ) if n.startswith('SEC_')]\n"
            f"os.environ.update({settings!r})")
        nb.cells.insert(0, fresh)
        client = NotebookClient(nb, km=self.manager, timeout=180, kernel_name="python3",
                                resources={"metadata": {"path": str(ROOT / "notebooks")}})
        try:
            client.execute()  # raises CellExecutionError on the first failing cell
        finally:
            nb.cells.remove(fresh)
            if client.kc is not None:
                client.kc.stop_channels()

    def close(self) -> None:
        self.manager.shutdown_kernel(now=True)


@pytest.fixture(scope="module")
def kernel():
    kernel = Kernel()
    yield kernel
    kernel.close()


DEMO = {"SEC_DASHBOARD_DEMO": "1"}


@pytest.fixture
def keyed(simulator_server) -> dict[str, str]:
    """The variables of a run against the keyed service's stand-in."""
    from tests.conftest import KEY

    return {"SEC_API_KEY": KEY, "SEC_API_BASE_URL": simulator_server.base_url}


def execute(path: Path, kernel: Kernel, env: dict[str, str], tmp_path: Path, parameters: str = "") -> tuple[list, str]:
    nb = nbformat.read(path, as_version=4)
    if parameters:  # as papermill does: the given values go right after the cell tagged "parameters"
        at = next(i for i, c in enumerate(nb.cells) if "parameters" in c.metadata.get("tags", []))
        nb.cells.insert(at + 1, nbformat.v4.new_code_cell(parameters))
    kernel.run(nb, tmp_path / "cache", env)
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]
    assert not [o for o in outputs if o.get("output_type") == "error"]
    executed[path.stem] = nb
    return outputs, json.dumps(outputs)


executed: dict[str, nbformat.NotebookNode] = {}


def cell_output(name: str, marker: str) -> str:
    """The outputs (as JSON text) of the first code cell of notebook `name`'s last run whose source holds `marker`."""
    cell = next(c for c in executed[name].cells if c.cell_type == "code" and marker in c.source)
    return json.dumps(cell.get("outputs", []))


#: What a walk-through is given in its demo run (the licence check is given a company and no person or
#: case: it must look up that company, and say which identifiers it needs for the rest).
DEMO_PARAMETERS = {"04_licence_check": 'QUERY = "Mekong"'}


@pytest.mark.notebook
@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_runs_top_to_bottom_on_demo_data(path, kernel, tmp_path):
    _, text = execute(path, kernel, DEMO, tmp_path, DEMO_PARAMETERS.get(path.stem, ""))
    assert "DEMO DATA" in text or "demo data" in text, "demo data is labelled as such"
    # something interactive was displayed (Panel/Bokeh output), not just text
    assert "application/vnd.holoviews_exec.v0+json" in text or "application/vnd.bokehjs_exec.v0+json" in text
    if path.stem == "04_licence_check":
        found = cell_output(path.stem, "search_companies(QUERY)")  # the company search's own table
        assert "Demo Mekong Asset Management" in found, "it looks up the company it is given"
        assert "Demo Chao Phraya Asset Management" not in found
        assert "PERSON_ID" in text, "it names the input it needs for a person's approvals"
    if path.stem == "07_plans":
        worked = cell_output(path.stem, "result = plan(YEAR, INCOME")
        assert "Taxable income 980,000" in worked and "income tax 111,000" in worked and "65500" in worked
        assert "not tax or investment advice" in worked
        assert "no tax rules for 2030" in cell_output(path.stem, "plan(2030, INCOME)")
        assert "Money-weighted return" in cell_output(path.stem, "present.plan_text(dca")
        assert "Wrote plan-2025.html" in cell_output(path.stem, "write_report(")


def keyed_parameters(dataset) -> dict[str, str]:
    """What each walk-through is given when it runs against a keyed service: the values a user would type into
    its `parameters` cell (the stand-in serves the demo data, so the names and identifiers are the demo's).
    The NAV windows are short here (a month of daily NAV, a year of history): this run is about the service and
    its key, and the demo run goes through the walk-throughs' whole default windows (08's year of every class's
    daily NAV was 18 of its 21 s of CPU, each run)."""
    (case_uid, case_id), _ = next(iter(dataset.enforcement.items()))
    person = next(p for p in dataset.approvals if dataset.duties.get(p))
    return {
        "01_fund_factsheet": 'QUERY = "Demo"',
        "02_compare_basket": 'QUERY = "Demo"',
        "03_holdings_by_quarter": 'QUERY = "Demo"',
        "04_licence_check": (f'QUERY = "Mekong"\nPERSON_ID = "{person}"\nCASE_UID = "{case_uid}"\nCASE_ID = "{case_id}"\n'
                             f'ALERT_ID = "{next(iter(dataset.alerts))}"'),
        "05_market": 'QUERY = "Equity"',
        "06_nav_history": 'QUERY = "Demo"\nYEARS = 1',
        "07_plans": 'QUERY = "RMF"',
        "08_feeders_and_costs": 'QUERY = ""\nNAV_DAYS = 31',
    }


def test_every_notebook_is_given_its_parameters_in_the_keyed_run(dataset):
    assert set(keyed_parameters(dataset)) == {p.stem for p in NOTEBOOKS}


@pytest.mark.notebook
@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_every_notebook_runs_against_the_real_format_service_with_a_key(path, simulator, dataset, kernel, keyed,
                                                                       tmp_path):
    """The current service's stand-in (the simulator on loopback, current-service paths only, a key required),
    not demo mode: each notebook runs top to bottom on what its parameters cell is given, and never shows the key."""
    from tests.conftest import KEY

    simulator.app.layout = "successor"
    _, text = execute(path, kernel, keyed, tmp_path, keyed_parameters(dataset)[path.stem])
    assert simulator.app.request_count > 0, "the notebook used the service, not the embedded demo"
    assert KEY not in text and KEY[:12] not in text
    assert "DEMO DATA" not in text
    if path.stem == "01_fund_factsheet":
        assert simulator.app.request_count > 10
        assert simulator.base_url in text  # the data source is named


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_every_notebook_has_a_query_parameter_cell_that_it_uses(path):
    """The README promises a `QUERY` cell in each walk-through, tagged as papermill and nbclient runs expect."""
    nb = nbformat.read(path, as_version=4)
    tagged = [i for i, c in enumerate(nb.cells) if "parameters" in c.metadata.get("tags", [])]
    assert len(tagged) == 1, f"{path.name} needs one cell tagged 'parameters'"
    assert re.search(r"^QUERY\s*=", nb.cells[tagged[0]].source, re.M), f"{path.name}'s parameters cell sets no QUERY"
    later = "\n".join(c.source for c in nb.cells[tagged[0] + 1:] if c.cell_type == "code")
    assert re.search(r"\bQUERY\b", later), f"{path.name} never uses its QUERY"
