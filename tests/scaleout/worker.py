"""One client process of the scale-out tests: fetches some answers through the real client, prints what happened.

    python tests/scaleout/worker.py BASE_URL CACHE_DIR START_AT PREFIX COUNT [--no-cache] [--concurrency N]

Settings come from the environment as in any process (SEC_API_KEY, SEC_API_RATE_LIMIT,
SEC_DASHBOARD_REDIS_URL, SEC_DASHBOARD_NUM_PROCS). It waits until the wall-clock time START_AT so
that the processes start together, asks E2 for COUNT company ids made from PREFIX (all at once, or
N at a time), and prints
one JSON line: calls sent, cache hits, failures and the warnings logged.
"""

from __future__ import annotations

import json
import logging
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from dashboard.config import ApiSettings  # noqa: E402
from dashboard.demo.connect import open_client  # noqa: E402


class Warnings(logging.Handler):
    def __init__(self):
        super().__init__(logging.WARNING)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(f"{record.name}: {record.getMessage()}")


def company_ids(prefix: str, count: int) -> list[str]:
    return [f"{prefix}{i:09d}" for i in range(count)]


def main(argv: list[str]) -> int:
    base_url, cache_dir, start_at, prefix, count = argv[:5]
    warnings = Warnings()
    logging.getLogger().addHandler(warnings)
    settings = ApiSettings.from_env(base_url=base_url, cache_dir=cache_dir, use_cache="--no-cache" not in argv,
                                    layout="legacy")
    client = open_client(settings, backoff_base=0.05, backoff_max=0.2, max_attempts=3)
    try:
        time.sleep(max(0.0, float(start_at) - time.time()))
        started = time.time()
        calls = [("E2", {"unique_id": uid}) for uid in company_ids(prefix, int(count))]
        step = int(argv[argv.index("--concurrency") + 1]) if "--concurrency" in argv else len(calls)
        results = [r for i in range(0, len(calls), step) for r in client.fetch_many(calls[i:i + step])]
        failures = [f"{type(r).__name__}: {r}" for r in results if isinstance(r, BaseException)]
        print(json.dumps({"sent": client.stats.requests_sent, "cache_hits": client.stats.cache_hits,
                          "retries": client.stats.retries, "failures": failures, "warnings": warnings.lines,
                          "elapsed_s": time.time() - started}))
    finally:
        client.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
