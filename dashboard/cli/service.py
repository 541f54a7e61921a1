"""What every command uses to reach the service: the settings its options give, the client its models
share, one endpoint's answer, and the service's identifiers checked before anything is sent."""

from __future__ import annotations

import argparse
from typing import Any

from dashboard.config import ApiSettings
from dashboard.errors import BadInputError, quoted
from dashboard.models.licensee import is_register_id
from dashboard.models.source import run

# What the service's identifiers look like: upper-case letters and digits (C0000000021), maybe - or _.


def identifier(value: str, what: str, finder: str) -> str:
    """An identifier in the service's upper case ("c0000000021" is C0000000021, as fund ids are read); text
    that cannot be one (a name) is refused with a hint before anything is sent."""
    text = value.strip()
    if is_register_id(text):
        return text.upper()
    raise BadInputError(f"{quoted(text)} is not a {what} id: ids are upper-case letters and digits such as C0000000021; "
                        f"{finder}")


PERSON_FINDER = ("to find a person by name use `licensee person-search NAME` (current service), "
                 "a company `licensee search NAME`")
COMPANY_FINDER = "to find a company by name use `licensee search NAME`, a fund `fund search NAME`"


def settings_from(args: argparse.Namespace) -> ApiSettings:
    """The settings from the environment, with what the command's options say over them."""
    return ApiSettings.from_env(
        base_url=args.base_url,
        demo=True if args.demo else None,
        cache_dir=args.cache_dir,
        use_cache=not args.no_cache,
        layout=args.layout,
    )


def shared_client(args: argparse.Namespace):
    """The client the models of this command share (built once per settings)."""
    from dashboard.models.source import default_client

    return default_client(settings_from(args))


def answer(args: argparse.Namespace, endpoint_id: str, **arguments: Any) -> Any:
    """What one endpoint answers, through the thin model of the raw commands."""
    from dashboard.models.endpoint import EndpointAnswer

    return run(EndpointAnswer(client=shared_client(args)).fetch(endpoint_id, **arguments))
