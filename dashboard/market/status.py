"""The market store's state: what it holds per dataset (`market status`) and what the dashboard says
about the snapshot (how old, whether whole, whether a sync is running in any process)."""

from __future__ import annotations

import datetime as dt
import time

from dashboard.market.datasets import DATASET_NAMES
from dashboard.market.store import MarketStore


def snapshot_state(store: MarketStore, *, now: float | None = None) -> dict:
    """What the dashboard says about the snapshot: how old it is, whether it is whole, whether a sync runs.

    {"has_snapshot", "fetched_at" (the newest dataset swap, ISO), "oldest_fetched_at", "age_s",
    "complete" (every dataset complete), "sync": None, or while a sync runs (in any process)
    {"running", "done", "total" (dataset keys: one per holdings quarter), "dataset" (the one under
    way), "under_way", "calls", "rows", "eta_s", "started_at", "updated_at"}}. Cheap enough to poll.
    """
    now = time.time() if now is None else now
    meta = store.meta()
    stamps = [m["fetched_at"] for m in meta.values() if m["complete"] and m["fetched_at"] is not None]
    newest = max(stamps, default=None)
    complete = bool(meta)
    for name in DATASET_NAMES:
        if name == "holdings":
            parts = [m for key, m in meta.items() if key.startswith("holdings:")]
            complete = complete and bool(parts) and all(m["complete"] for m in parts)
        else:
            complete = complete and bool(meta.get(name) and meta[name]["complete"])
    progress = store.progress(now)
    sync = None
    if progress is not None:
        sync = {"running": True, **{k: progress.get(k) for k in ("done", "total", "dataset", "calls", "rows", "eta_s")},
                "under_way": list(progress.get("under_way") or []),
                "started_at": _iso(progress.get("started_at")), "updated_at": _iso(progress.get("updated_at"))}
    return {"has_snapshot": store.has_snapshot(), "fetched_at": _iso(newest),
            "oldest_fetched_at": _iso(min(stamps, default=None)),
            "age_s": (now - newest) if newest is not None else None, "complete": complete, "sync": sync}


def _iso(stamp: float | None) -> str | None:
    if stamp is None:
        return None
    return dt.datetime.fromtimestamp(stamp, dt.timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z")


def status(store: MarketStore) -> dict:
    """{"funds", "classes", "datasets": {NAME: {"rows", "fetched_at", "complete"}}, "calls"}."""
    meta = store.meta()
    datasets: dict[str, dict] = {}
    for name in DATASET_NAMES:
        if name == "holdings":
            parts = [m for key, m in meta.items() if key.startswith("holdings:")]
            datasets[name] = {
                "rows": store.count("holdings"),
                "fetched_at": _iso(min((m["fetched_at"] for m in parts if m["fetched_at"] is not None), default=None)),
                "complete": bool(parts) and all(m["complete"] for m in parts),
            }
            continue
        m = meta.get(name)
        datasets[name] = {
            "rows": store.count(name),
            "fetched_at": _iso(m["fetched_at"]) if m else None,
            "complete": bool(m and m["complete"]),
        }
    nav = meta.get("nav")  # every class's daily NAV (`market sync --nav-days`), when a sync asked for it
    if nav is not None:
        datasets["nav"] = {"rows": store.query("SELECT count(*) AS n FROM nav")[0]["n"],
                           "fetched_at": _iso(nav["fetched_at"]), "complete": bool(nav["complete"])}
    calls = store.info("last_sync_calls")
    return {"funds": store.count("funds"), "classes": store.count("classes"), "datasets": datasets,
            "calls": int(calls) if calls is not None else 0}
