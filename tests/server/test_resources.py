"""The server's routes ahead of Panel's: /components serves only modules already loaded, static
files get a cache lifetime. Panel's handler, without the route, imports whatever module is named."""

from __future__ import annotations

import sys
import urllib.error
import urllib.request

import pytest

from dashboard.server.resources import UNVERSIONED_MAX_AGE, VERSIONED_MAX_AGE, routes, static_max_age
from tests.helpers import free_port, wait_until_live

#: A standard-library module nothing here imports: a request naming it must not import it.
UNLOADED = "tabnanny"


def status_of(port: int, path: str) -> int:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=60) as answer:
            return answer.status
    except urllib.error.HTTPError as error:
        return error.code


def component_request(components: bool) -> tuple[int, bool]:
    """Serve a page with or without the /components route; ask for a resource of a module nobody
    loaded: (status, whether the module got imported)."""
    import panel as pn

    sys.modules.pop(UNLOADED, None)
    port = free_port()
    pn.serve({"/": lambda: pn.pane.Markdown("page")}, port=port, address="127.0.0.1", threaded=True, show=False,
             liveness=True, websocket_origin=[f"127.0.0.1:{port}"], extra_patterns=routes(components=components))
    try:
        wait_until_live(f"http://127.0.0.1:{port}/", 60)
        status = status_of(port, f"/components/{UNLOADED}/Check/__css__/x.css")
        return status, UNLOADED in sys.modules
    finally:
        pn.state.kill_all_servers()
        sys.modules.pop(UNLOADED, None)


def test_a_component_resource_of_a_module_not_loaded_is_not_found_and_not_imported():
    assert component_request(components=True) == (404, False)


@pytest.mark.xfail(strict=True, raises=AssertionError,
                   reason="Panel imports any module named under /components (docs/upstream.md)")
def test_without_the_route_panel_does_not_import_a_module_named_in_an_address():
    assert component_request(components=False)[1] is False


def test_the_handler_the_route_subclasses_resolves_through_parse_url_path():
    """Fails when Panel's handler stops resolving its path where the subclass checks it."""
    from panel.io.server import ComponentResourceHandler

    assert "parse_url_path" in vars(ComponentResourceHandler)


@pytest.mark.parametrize(("path", "query", "age"), [
    ("js/bokeh.min.js", "v=6acf7fa1", VERSIONED_MAX_AGE),
    ("panel-material-ui/panel-material-ui.bundle.js", "a9a9cc4f19fadba2c108149eeaf498f3", VERSIONED_MAX_AGE),
    ("panel-material-ui/roboto-latin-400-normal-LOX3CHMS.woff2", "", VERSIONED_MAX_AGE),
    ("panel/bundled/datatabulator/luxon/build/global/luxon.min.js", "", UNVERSIONED_MAX_AGE),
    ("panel/images/favicon.ico", "", UNVERSIONED_MAX_AGE),
])
def test_static_cache_lifetimes(path, query, age):
    assert static_max_age(path, query) == age


def test_component_resources_are_worked_out_once_and_stay_what_panel_lists():
    """`cache_component_resources` (installed by `serve()`): the page's style sheets are the ones
    Panel lists, in its order; a component class defined later is listed too. Run in a child
    process: the cache and the class it defines would otherwise stay in this one."""
    import subprocess
    import textwrap

    script = textwrap.dedent("""
        from panel.custom import JSComponent
        from panel.io.resources import Resources
        import panel_material_ui  # noqa: F401 - its components are most of what Panel walks
        from dashboard.server import resources

        def sheets():
            return Resources(mode="server").css_files

        panels_own = sheets()
        resources.cache_component_resources()
        resources.cache_component_resources()  # installing twice wraps once
        assert getattr(Resources.extra_resources, "cached_by_dashboard", False)
        first, again = sheets(), sheets()
        assert first == panels_own and again == panels_own, (first, panels_own)
        assert any("panel-material-ui.bundle.css" in s for s in panels_own), panels_own

        class Later(JSComponent):
            __css__ = ["https://example.invalid/later.css"]
            _esm = "export function render() {}"

        listed = sheets()
        assert "https://example.invalid/later.css" in listed, listed
        assert [s for s in listed if "later.css" not in s] == panels_own
        resources.uncache_component_resources()
        assert not getattr(Resources.extra_resources, "cached_by_dashboard", False)
        print("ok")
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout.strip().endswith("ok"), done.stderr[-3000:]


def test_the_walk_the_cache_keys_on_is_where_it_expects_it():
    """Fails when Panel changes what the cache's key is made of (the patch is then to be checked)."""
    from panel.io.resources import Resources
    from panel.io.state import state
    from panel.reactive import ReactiveCustomBase, ReactiveMetaBase
    from panel.util import _descendents

    assert callable(Resources.extra_resources) and callable(_descendents)
    assert isinstance(ReactiveMetaBase._loaded_extensions, set) and hasattr(state, "_extensions")
    assert list(_descendents(ReactiveCustomBase, concrete=True))
