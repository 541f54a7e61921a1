"""The URL codec of the dashboard's state: which state values a link carries and under what names,
each read from its URL text (checked, or ignored and named) and written back as URL text.

A link's values for a model not set yet (the Market tab's screener and the NAV tab's model, set by the
view layer) wait in
the state's `url_waiting` until it is set (`give_waiting`).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Any

import param

from dashboard.api.endpoints import validate_path_param
from dashboard.errors import BadInputError
from dashboard.models.basket import parse_proj_ids
from dashboard.models.basket_amounts import parse_link
from dashboard.models.licensee import is_register_id

# State path (a parameter of the state, or of one of its models) -> its name in the URL.
# The Market tab's screener filters (a MarketScreen's parameters; `market` is set by the view layer).
MARKET_URL = {"market.company": "company", "market.status": "status", "market.risk": "risk",
              "market.policy": "policy", "market.tax": "tax", "market.retail_type": "retail",
              "market.max_fee": "max_fee", "market.min_return_1y": "min_return", "market.sort": "sort",
              # the figures from the NAV history (the command line's --min-return-3y ... options)
              "market.min_return_3y": "min_return_3y", "market.max_volatility": "max_volatility",
              "market.max_drawdown": "max_drawdown", "market.min_sharpe": "min_sharpe"}
MARKET_NUMBERS = ("market.max_fee", "market.min_return_1y", "market.min_return_3y", "market.max_volatility",
                  "market.max_drawdown", "market.min_sharpe")
# The NAV tab's unit class and range (a FundNav's parameters; `nav` is set by the view layer). A link
# carries them only when they differ from the defaults (every link would otherwise say range=1Y).
NAV_URL = {"nav.class_name": "nav_class", "nav.range": "range"}
# The basket's amounts: only when the link's holder opted in (BasketAmounts.in_link); empty otherwise.
AMOUNTS_URL = {"amounts.link_text": "amounts"}
URL_PARAMETERS = {"tab": "tab", "fund": "fund", "basket_ids": "basket", "query": "q", "theme": "theme",
                  "licence.person_id": "person", "licence.enforcement_id": "case_of", "licence.case_id": "case",
                  **MARKET_URL, **NAV_URL, **AMOUNTS_URL}
MAX_QUERY_LENGTH = 200


def url_text(raw: Any) -> str | None:
    """One URL argument's text (its first value, decoded, stripped), or None when absent."""
    if isinstance(raw, (list, tuple)):
        raw = raw[0] if raw else None
    if isinstance(raw, bytes):
        raw = raw.decode("utf-8", "replace")
    return None if raw is None else str(raw).strip()


def _register_id(label: str, text: str) -> str:
    """A licence-register identifier from a URL (upper case), or BadInputError."""
    value = validate_path_param(label, text).upper()
    if not is_register_id(value):
        raise BadInputError(f"{label} {text!r} is not an identifier")
    return value


def _shown(text: str, limit: int = 40) -> str:
    """A URL value as a person reads it in a notice: printable, and short."""
    text = "".join(c if c.isprintable() else "?" for c in text)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _url_form(value: Any) -> str:
    """A state value as the URL writes it: lists comma-separated, numbers short, nothing for none."""
    if value is None or value == "" or value == []:
        return ""
    if isinstance(value, (list, tuple)):
        return ",".join(str(v) for v in value)
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def _market_value(path: str, text: str) -> Any:
    """A screener filter from a URL value (the market checks it against its own choices when it gets it)."""
    if len(text) > MAX_QUERY_LENGTH or any(not c.isprintable() for c in text):
        raise BadInputError("the filter is too long or holds control characters")
    if path == "market.risk":
        return [part.strip() for part in text.split(",") if part.strip()]
    if path in MARKET_NUMBERS:
        if not text:
            return None
        try:
            number = float(text)
        except ValueError:
            raise BadInputError(f"{text!r} is not a number") from None
        if not math.isfinite(number):
            raise BadInputError(f"{text!r} is not a finite number")
        return number  # past its bounds, the market refuses it when it gets it (named, like any refused value)
    return text


def owner_of(state: param.Parameterized, path: str) -> tuple[param.Parameterized | None, str]:
    """The object and parameter name a URL_PARAMETERS path names ("licence.person_id"); None for
    a model not set (the market before the view layer sets it)."""
    owner: param.Parameterized | None = state
    *parts, name = path.split(".")
    for part in parts:
        owner = getattr(owner, part, None) if owner is not None else None
    return owner, name


def give_waiting(state: Any) -> None:
    """Give the market (or the NAV tab's model) the link's values that waited for it; a value it refuses
    is ignored (and said)."""
    waiting, state.url_waiting = state.url_waiting, {}
    ignored = []
    for path, value in waiting.items():
        owner, attr = owner_of(state, path)
        if owner is None:
            state.url_waiting[path] = value  # its model is not set yet either
            continue
        try:
            owner.param.update(**{attr: value})
        except ValueError:
            ignored.append(f"{URL_PARAMETERS[path]}={_shown(_url_form(value))}")
    if ignored:
        state.ignored_url = [*state.ignored_url, *ignored]


def watch(state: param.Parameterized, callback: Callable) -> None:
    """Call `callback` whenever a value kept in the URL changes (the view layer pushes the address)."""
    by_owner: dict[int, tuple[param.Parameterized, list[str]]] = {}
    for path in URL_PARAMETERS:
        owner, name = owner_of(state, path)
        if owner is None:
            continue
        by_owner.setdefault(id(owner), (owner, []))[1].append(name)
    for owner, names in by_owner.values():
        owner.param.watch(callback, names)


def encode(state: param.Parameterized) -> dict[str, str]:
    """The query-string form of the state (what a shared link carries)."""
    out = {}
    for path, name in URL_PARAMETERS.items():
        owner, attr = owner_of(state, path)
        value = getattr(owner, attr) if owner is not None else None
        if path in NAV_URL and owner is not None and value == owner.param[attr].default:
            value = None
        out[name] = _url_form(value)
    return out


def url_value(state: param.Parameterized, path: str, text: str) -> Any:
    """The state value of one URL value (tab, theme: one of the state's own choices), or BadInputError saying why it cannot be used."""
    if path == "tab":
        if text not in state.param["tab"].objects:
            raise BadInputError(f"no tab {text!r}")
        return text
    if path == "fund":
        ids = parse_proj_ids(text)
        if text and (len(ids) != 1 or ids[0] != text):
            raise BadInputError(f"{text!r} is not a fund's project id")
        return text
    if path == "basket_ids":
        return text  # each malformed id is reported by apply_url
    if path == "query":
        if len(text) > MAX_QUERY_LENGTH or any(not c.isprintable() for c in text):
            raise BadInputError("the search text is too long or holds control characters")
        return text
    if path == "theme":
        if text not in state.param["theme"].objects:
            raise BadInputError(f"no theme {text!r}")
        return text
    if path in MARKET_URL:
        return _market_value(path, text)
    if path in AMOUNTS_URL:
        parse_link(text)  # every part checked: one that is not fund:amount leaves the amounts as they were
        return text
    if path in NAV_URL:
        if len(text) > MAX_QUERY_LENGTH or any(not c.isprintable() for c in text):
            raise BadInputError("the unit class or range is too long or holds control characters")
        return text.upper() if path == "nav.range" else text
    return _register_id(URL_PARAMETERS[path], text) if text else ""


def apply(state: Any, args: dict[str, Any]) -> list[str]:
    """Set the state from query arguments ({"fund": "...", "tab": "...", ...}).

    A value that cannot be used leaves its part as it was; so does a parameter the dashboard
    does not know. Returns what was ignored ("name=value" texts, also in `ignored_url`), so the
    app can say so and clean the address.
    """
    known = {name: path for path, name in URL_PARAMETERS.items()}
    ignored = [f"{_shown(str(k))}" for k in args if k not in known]
    values: dict[str, dict[str, Any]] = {}
    for name, path in known.items():
        text = url_text(args.get(name))
        if text is None:
            continue
        try:
            value = url_value(state, path, text)
        except BadInputError:
            ignored.append(f"{name}={_shown(text)}")
            continue
        if path == "basket_ids":
            parts = [p for p in re.split(r"[\s,;]+", text) if p]
            ids = parse_proj_ids(parts)
            bad = [p for p in parts if p not in ids]
            if bad:
                ignored.append(f"{name}: {_shown(', '.join(bad))}")
            value = ",".join(ids)
        owner, attr = owner_of(state, path)
        if owner is None:
            state.url_waiting[path] = value
            continue
        values.setdefault(id(owner), {"_owner": owner})[attr] = value
    # The state's own values last: a page already built (a session built ahead of its visitor)
    # shows the link's tab once what that tab shows (the licence register's ids) is set.
    for update in sorted(values.values(), key=lambda u: u["_owner"] is state):
        owner = update.pop("_owner")
        try:
            owner.param.update(**update)
        except ValueError:  # a value its model refuses (a filter past its bounds): the others are set, it is named
            for attr, value in update.items():
                try:
                    owner.param.update(**{attr: value})
                except ValueError:
                    path = next(p for p in URL_PARAMETERS if owner_of(state, p) == (owner, attr))
                    ignored.append(f"{URL_PARAMETERS[path]}={_shown(url_text(args.get(URL_PARAMETERS[path])) or '')}")
    state.ignored_url = ignored
    return ignored
