"""The server's own routes for component resources and static files, ahead of Panel's.

Both are subclasses of Panel's and Bokeh's handlers, given to the server with `extra_patterns`
(Tornado tries routes in order, so these take precedence): no private attribute is touched.
"""

from __future__ import annotations

import re
import sys

# A module path as Python spells it: dotted identifiers, nothing else (no "..", no slashes).
_MODULE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*")
#: A year: what a browser may keep a versioned static file without asking again.
VERSIONED_MAX_AGE = 365 * 24 * 3600
#: A day: files whose address does not change when their content does (a library's unversioned
#: bundle); after that the browser revalidates them with their ETag (a 304, no body).
UNVERSIONED_MAX_AGE = 24 * 3600
# esbuild's content hash in a file name, as panel-material-ui's fonts carry it ("...-LA5HL3OG.woff2").
_HASHED_NAME = re.compile(r"-[A-Z0-9]{8}\.[a-z0-9]+$")


def component_resource_handler():
    """Panel's handler of /components/<module>/..., answering 404 to what is not a resource of a component
    already loaded (docs/upstream.md #2: Panel imports the module named in the address; `..` was a 500)."""
    from panel.io.server import ComponentResourceHandler
    from tornado.web import HTTPError

    class LoadedComponentResourceHandler(ComponentResourceHandler):
        def parse_url_path(self, path: str) -> str:
            module = path.split("/", 1)[0]
            if not _MODULE_NAME.fullmatch(module) or module not in sys.modules:
                raise HTTPError(404, "Component not found")
            try:
                return super().parse_url_path(path)
            except HTTPError:
                raise
            except Exception:  # noqa: BLE001 - an address the handler cannot resolve is not found, not a server fault
                raise HTTPError(404, "Component not found") from None

    return LoadedComponentResourceHandler


def static_max_age(path: str, query: str) -> int:
    """How long a browser may keep a static file: long when its address names its version (a `?v=`
    or hash query, as Panel and Bokeh write them, or a content hash in the name), a day otherwise."""
    return VERSIONED_MAX_AGE if query or _HASHED_NAME.search(path) else UNVERSIONED_MAX_AGE


def cached_static_handler():
    """Bokeh's handler of /static/extensions/... with a cache lifetime (Tornado gives one only to `?v=`)."""
    from bokeh.server.views.multi_root_static_handler import MultiRootStaticHandler

    class CachedStaticHandler(MultiRootStaticHandler):
        def get_cache_time(self, path, modified, mime_type) -> int:
            return static_max_age(path, self.request.query)

        def set_extra_headers(self, path) -> None:
            if static_max_age(path, self.request.query) == VERSIONED_MAX_AGE:
                self.set_header("Cache-Control", f"max-age={VERSIONED_MAX_AGE}, immutable")

    return CachedStaticHandler


def routes(components: bool = True) -> list[tuple]:
    """The routes to put ahead of Panel's (`pn.serve(extra_patterns=...)`); `components=False`
    leaves Panel's /components handler as it is (tests)."""
    from bokeh.embed.bundle import extension_dirs
    from panel.io.resources import COMPONENT_PATH

    out = [(f"/{COMPONENT_PATH}(.*)", component_resource_handler(), {})] if components else []
    return out + [(r"/static/extensions/(.*)", cached_static_handler(), {"root": extension_dirs})]
