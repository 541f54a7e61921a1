"""Serving the dashboard: the only package that knows Bokeh's server and Tornado.

`serve()` (in `dashboard.server.serve`) runs Panel's server with the dashboard's page. What Panel
and Bokeh do not do for us is patched here, one module per patch, each with its upstream report in
docs/upstream.md and a test that fails without it (tests/server/):

- `delivery`: layout changes made before the first draw reach the browser (Panel);
- `session_tokens`: a garbled or oversized session token is refused in one line (Bokeh);
- `notifications`: an ended session's notification area is let go (Panel);
- `spares`: the next plain visit's session is built before it comes (Bokeh's ApplicationContext);
- `resources`: /components only serves modules already loaded, static files get a cache lifetime
  (handler subclasses, no patch), and Panel's walk of its component resources is done once per
  process, not on every page (a patch: `cache_component_resources`).

`closed_clients` logs a client that closed mid-write as a debug line (an asyncio exception handler,
no patch; Panel's report in docs/upstream.md).
`heap` freezes the libraries out of the collector's reach and trims after sessions end.
"""
