"""EndpointAnswer: one endpoint's answer as the service sent it, for the command line's raw commands."""

from __future__ import annotations

from typing import Any

import param

from dashboard.models.source import ServiceModel


class EndpointAnswer(ServiceModel):
    """The normalised answer of one endpoint (E1 to E20, S1 to S6), nothing derived from it.

    The command line's raw commands (`fund search`, `licensee alert`, ...) print what one endpoint
    says; they read it here rather than from the client.
    """

    endpoint = param.String(default="", doc="The endpoint asked last (E1 ... E20, S1 ... S6).")
    arguments = param.Dict(default={}, doc="The path and query values it was asked with.")
    data = param.Parameter(default=None, doc="Its normalised answer: a list of records, one record, or None for no data.")

    async def _fetch(self, endpoint_id: str, arguments: dict) -> dict:
        data = await self.api.async_client.fetch(endpoint_id, **arguments)
        return {"endpoint": endpoint_id, "arguments": arguments, "data": data}

    async def fetch(self, endpoint_id: str, **arguments: Any) -> Any:
        """Ask one endpoint; its normalised answer (also kept in `data`)."""
        await self._apply(self._fetch(endpoint_id, arguments))
        return self.data
