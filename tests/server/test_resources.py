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
