"""The API layer: endpoint table, HTTP client, retries, rate limiting, cache and errors."""
