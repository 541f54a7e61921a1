"""Serving the dashboard: the only package that knows Bokeh's server and Tornado.

`serve()` (in `dashboard.server.serve`) runs Panel's server with the dashboard's page, plus what
Panel and Bokeh do not do for us, each with its upstream report in docs/upstream.md and a test:

- `session_tokens`: a garbled or oversized session token is refused in one line (Bokeh; a patch);
- `notifications`: an ended session's notification area is let go (Panel; a session hook);
- `resources`: /components only serves modules already loaded, static files get a cache lifetime
  (handler subclasses, no patch);
- `closed_clients`: a client gone mid-write is a debug line (an asyncio exception handler, no patch);
- `heap`: the libraries frozen out of the collector's reach, the heap trimmed after sessions end.
"""
