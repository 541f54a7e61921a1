"""Checks of the command line: `doctor`, the sizes `cache info` shows, and which commands --csv can write."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from dashboard.cli.terminal import err, json_text, out
from dashboard.config import ApiSettings
from dashboard.errors import BadInputError


def doctor(args: argparse.Namespace, settings: ApiSettings) -> int:
    """`sec-dashboard doctor`: the layout answering and each key's state, in words; exit 0, 3 or 4."""
    import asyncio

    from dashboard.api.doctor import diagnose, exit_code
    from dashboard.demo.connect import open_async_client

    report = asyncio.run(diagnose(settings, connect=open_async_client))
    code = exit_code(report)
    if args.json:
        sys.stdout.write(json_text({k: report.get(k) for k in ("base_url", "layout", "fund_key", "licence_key", "latency_ms")})
                         + "\n")
    else:
        latency = f"{report['latency_ms']:.0f} ms" if report.get("latency_ms") is not None else "-"
        out(f"service      {report['base_url']}")
        out(f"layout       {report.get('layout_label') or 'could not be reached'}")
        out(f"fund key     {KEY_STATES.get(report.get('fund_key'), report.get('fund_key') or '-')}")
        out(f"licence key  {KEY_STATES.get(report.get('licence_key'), report.get('licence_key') or '-')}")
        out(f"round trip   {latency}")
    for note in report.get("notes", []):
        err(f"note: {note}")
    states = (report.get("fund_key"), report.get("licence_key"))
    if "missing" in states:
        err("set SEC_API_KEY (or SEC_FUND_API_KEY / SEC_LICENSE_API_KEY) to a key from the SEC open-data portal")
    elif "rejected" in states:
        err("a key is set but the service rejected it: check that it is the key of an active subscription")
    return code


# What `doctor` says of each key, in words.
KEY_STATES = {"ok": "ok (the service accepted it)", "demo": "not needed: this is the demo, no key is used",
              "rejected": "rejected by the service (the key set is wrong or expired)", "missing": "not set",
              "failed": "not checked: the service failed"}


def size_text(size: Any) -> str:
    """A size in bytes for people: "32 kB", "1.5 MB"."""
    if not isinstance(size, (int, float)):
        return str(size)
    for unit, step in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if size >= step:
            return f"{size / step:.1f} {unit}".replace(".0 ", " ")
    return f"{int(size)} bytes"



# Commands whose answer is a table, which --csv writes.
CSV_COMMANDS = {("fund", "search"), ("fund", "amc"), ("fund", "classes"), ("fund", "holdings"), ("fund", "nav"),
                ("licensee", "search"), ("licensee", "former"), ("licensee", "person-search"), ("licensee", "cases"), ("licensee", "alerts"),
                ("licensee", "enforcement"), ("licensee", "alert"), ("market", "screen"), ("market", "holders"),
                ("plan", "dca")}


def check_csv(args: argparse.Namespace) -> None:
    if not args.csv:
        return
    if args.json:
        raise BadInputError("give --csv or --json, not both")
    action = next((getattr(args, a) for a in ("fund_command", "licensee_command", "market_command", "plan_command") if getattr(args, a, None)), None)
    if (args.command, action) not in CSV_COMMANDS:
        raise BadInputError(f"--csv writes tables; `{args.command} {action or ''}`".rstrip() + " prints several parts: use --json")
