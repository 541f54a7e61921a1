"""Building clients: demo settings get the embedded simulator, real settings a plain client."""

from __future__ import annotations

import httpx
import pytest

from dashboard.api.client import AsyncSecClient
from dashboard.config import ApiSettings
from dashboard.demo.connect import open_async_client, open_client
from dashboard.errors import AuthenticationError
from tests.conftest import KEY, TODAY, run


def test_demo_settings_open_the_simulator_on_the_current_layout_without_key_or_disk_cache():
    settings = ApiSettings.from_env(demo=True, environ={})
    assert settings.layout == "auto"
    with open_client(settings, today=lambda: TODAY) as client:
        assert client.async_client.layout_name == "successor"  # the demo plays the current service
        assert client.cache is None and not client.async_client.require_keys
        assert client.fetch("E16")  # answered in-process, with no key configured


def test_a_chosen_layout_and_a_chosen_transport_are_kept_in_demo_mode():
    calls = []

    def answer(request: httpx.Request) -> httpx.Response:
        calls.append(request.url.path)
        return httpx.Response(204)

    settings = ApiSettings.from_env(demo=True, layout="legacy", environ={})
    with open_client(settings, transport=httpx.MockTransport(answer), today=lambda: TODAY) as client:
        assert client.layout() == "legacy"
        assert client.fetch("E16") == []  # 204: no data
    assert len(calls) == 1 and calls[0].endswith("/company")  # the legacy path, through the given transport


def test_real_settings_build_the_plain_client(tmp_path):
    settings = ApiSettings.from_env(base_url="http://127.0.0.1:9", api_key=KEY, cache_dir=tmp_path, environ={})
    with open_client(settings) as client:
        assert client.async_client.require_keys and client.async_client.layout_name is None
        assert client.cache is not None  # the disk cache, as SecClient(settings) has it


def test_the_client_itself_knows_no_demo_mode():
    """Demo settings handed to the client directly reach for the (unresolvable) demo host, and
    without a key the call is refused: only `open_client` turns the simulator on."""

    async def call() -> None:
        async with AsyncSecClient(ApiSettings.from_env(demo=True, environ={}), layout="legacy") as client:
            await client.request("E16")

    with pytest.raises(AuthenticationError):
        run(call())


def test_the_async_builder_answers_from_the_simulator_too():
    async def call():
        async with open_async_client(ApiSettings.from_env(demo=True, environ={}), today=lambda: TODAY) as client:
            return await client.fetch("E16")

    assert run(call())
