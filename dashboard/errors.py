"""Typed errors of the product (service, input, cache); every message says what happened and what to do."""

from __future__ import annotations

# How much of what someone typed an error message repeats (a 100,000-character id is not echoed whole).
ECHO_LIMIT = 80


def quoted(value: object, limit: int = ECHO_LIMIT) -> str:
    """`value` quoted as Python shows text, cut to `limit` characters with an ellipsis, for an error message."""
    text = str(value)
    if len(text) <= limit:
        return repr(text)
    return repr(text[:limit]) + f"… ({len(text):,} characters)"


class SecApiError(Exception):
    """Base of every error the API layer raises. `exit_code` is the command line's."""

    exit_code = 4

    def __init__(self, message: str, *, status_code: int | None = None, endpoint: str | None = None):
        super().__init__(message)
        self.message = message
        self.status_code = status_code
        self.endpoint = endpoint

    def __str__(self) -> str:
        return self.message


class BadInputError(SecApiError, ValueError):
    """The request was refused before it was sent: a wrong identifier, period or search text."""

    exit_code = 2


class AuthenticationError(SecApiError):
    """The key is missing, or the service rejected it (401/403)."""

    exit_code = 3


class NotFoundError(SecApiError):
    """404: the path does not exist at this base URL (the legacy paths may be gone)."""


class RateLimitError(SecApiError):
    """The service throttled the calls (429 or 421) and retries ran out."""

    def __init__(self, message: str, *, retry_after: float | None = None, **kw):
        super().__init__(message, **kw)
        self.retry_after = retry_after


class ServiceError(SecApiError):
    """The service failed (5xx, a timeout or no connection) and retries ran out."""


class MalformedResponseError(SecApiError):
    """The service answered something that is not the JSON the specification describes."""


class CacheUnavailableError(SecApiError):
    """The response cache's directory cannot be used (a file, not writable, a read-only or pseudo file system).

    The client then runs without the disk cache; `cache info` and `cache clear` report it in one line.
    """

    exit_code = 2
