"""Serving the dashboard: the only package that knows Bokeh's server and Tornado.

`serve()` (in `dashboard.server.serve`) runs Panel's server with the dashboard's page, plus what
Panel and Bokeh do not do for us, each with its upstream report in docs/upstream.md and a test:

`session_tokens` (a patch: bad tokens refused in one line), `notifications` (a session hook: the
notification area let go), `resources` (handler subclasses: /components and static files'
lifetimes), `closed_clients` (a logging filter: a client gone is a debug line), `heap`.
"""
