"""The whole market in one local store (DuckDB): sync from the service, and the questions it answers."""
