"""The Market tab in words: its notes (the snapshot's line, how to make one, where a fund's fee sits among
its peers), who may buy a fund, the company filter's choices, and the filter boxes' numbers as text.

Plain functions of the model (`MarketScreen`) and of values; the view (dashboard.views.market) binds them.
"""

from __future__ import annotations

from dashboard.market.screen import MarketScreen
from dashboard.present.text import empty_html, esc, fmt_datetime, fmt_percent, policy_type_text, typed_number
from dashboard.records.labels import PROJ_RETAIL_TYPE



def sync_command(demo: bool, *options: str) -> str:
    """The command that makes the snapshot this dashboard reads, `options` after `market sync`. On the demo data it
    says `--demo` (a global option): without it a sync where a key or base URL is set fills the real market's
    store from the service, not the demo market's store the dashboard reads."""
    return " ".join(["sec-dashboard", *(["--demo"] if demo else []), "market", "sync", *options])


def retail_text(code) -> str:
    """Who may buy a fund, in words with its code beside it ("fund for general investors (R)"); an unknown code as sent."""
    label = PROJ_RETAIL_TYPE.get(code) if isinstance(code, str) else None
    return f"{label[1]} ({code})" if label else ("" if code is None or code != code else str(code))

def snapshot_html(market: MarketScreen) -> str:
    """One line on the snapshot: when it was fetched and how many funds, and a sync running; nothing when there is
    none and none is being made (the empty state says how to make one)."""
    running = ""
    if market.syncing:  # a snapshot is incomplete while a sync fills it: that is not a sync that stopped
        count = f": {market.sync_done:,} of {market.sync_total:,} datasets" if market.sync_total else ""
        running = f'<span class="sd-pill">a sync is running{count}</span>'
    if not market.has_store:
        # the first snapshot being made: the progress bar moves below, and this line says what it is
        return f'<div class="sd-stat">Making the market snapshot. {running}</div>' if running else ""
    when = f"{fmt_datetime(market.snapshot_at)} UTC" if market.snapshot_at else "an unknown time"
    age = f" ({age_text(market.age_s)} old)" if market.age_s is not None else ""
    if running:
        note = f" {running}"
    else:
        note = "" if market.complete else ' <span class="sd-pill sd-warn">incomplete: a sync stopped part way</span>'
    return (f'<div class="sd-stat">Market snapshot from {esc(when)}{esc(age)}; {market.fund_count:,} funds. '
            f'{len(market.results):,} match the filters.{note}</div>')


def age_text(seconds: float) -> str:
    """"5 minutes", "3 hours", "2 days"."""
    seconds = max(0.0, float(seconds))
    for unit, size in (("day", 86400), ("hour", 3600), ("minute", 60)):
        if seconds >= size:
            n = int(seconds // size)
            return f"{n} {unit}{'s' if n != 1 else ''}"
    return "less than a minute"


def fee_position_html(position: dict | None, fund: str) -> str:
    """Where the selected fund's fee (as charged) sits among the funds of its policy type."""
    if not fund:
        return '<div class="sd-muted">Select a fund in the Fund explorer to see where its fee sits among its peers.</div>'
    if position is None:
        return empty_html(f"The selected fund ({fund}) is not in the market snapshot.")
    name = position.get("proj_abbr_name") or position.get("proj_id") or fund
    policy = policy_type_text(position.get("policy_type")) or "funds with no policy type published"
    if position.get("total_fee_actual") is None or position.get("percentile") is None:
        return empty_html(f"{name} has no charged fee in the snapshot, so it cannot be placed among its peers.")
    pct = round(float(position["percentile"]))
    cheaper = int(position.get("cheaper") or 0)
    peers = int(position.get("peers") or 0)
    return (f'<div class="sd-stat"><b>{esc(name)}</b> charges {esc(fmt_percent(position["total_fee_actual"]))} a year: '
            f"{esc(ordinal(pct))} percentile among the {peers:,} funds of its policy type "
            f"({esc(policy)}); {cheaper:,} of them charge less. Low is cheap. "
            '<span class="sd-muted">Fees as actually charged, never prospectus ceilings.</span></div>')


def ordinal(n: int) -> str:
    """1st, 2nd, 3rd, 11th, 22nd."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def no_store_html(market: MarketScreen, demo: bool) -> str:
    # (the server's directories are not a web visitor's business: the page names none)
    text = (f"There is no market snapshot yet. Make one with <code>{esc(sync_command(demo))}</code> on the server (it "
            "keeps every fund of the market in its cache directory); the tab then screens the whole market, with no "
            "call to the service.")
    if demo:
        text += (" On the demo data, the button below makes one from the built-in simulator (about a minute: "
                 "it keeps to the service's rate limit).")
    return f'<div class="sd-empty" role="note">{text}</div>'


ANY_COMPANY = "Any company"


def company_options(market: MarketScreen) -> dict[str, str]:
    """The company filter's choices: each company of the snapshot by its name (the id beside a name two share),
    and the company a link asks for even when the snapshot does not hold it."""
    names = market.companies
    counts: dict[str, int] = {}
    for name in names.values():
        counts[name] = counts.get(name, 0) + 1
    options = {ANY_COMPANY: ""}
    for uid, name in names.items():
        options[name if counts[name] == 1 and name not in options else f"{name} ({uid})"] = uid
    if market.company and market.company not in names:
        options[f"{market.company} (not in the snapshot)"] = market.company
    return options


def number_or_none(text: str) -> float | None:
    """A number typed in a box ("1.5", "1,234.5", " -3 %"): `present.text.typed_number`, the command
    line's reading too; None when empty; ValueError when it is not a number."""
    return typed_number(text)


def number_text(value: float | None) -> str:
    """A number box's text for a filter's value: "" for none, "1.5", "-3"."""
    return "" if value is None else f"{value:g}"
