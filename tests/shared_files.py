"""Where the tests find the shared reference files: <repo>/../shared (a read-only copy beside the clone in CI).

Missing there, a test fails in CI (CI=true) and is skipped elsewhere with the reason.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared"
CAPTURES = SHARED / "real-captures" / "successor-v2"
SPEC = SHARED / "spec"


def in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() in ("true", "1", "yes")


def require(path: Path) -> Path:
    """The path when it exists; else a failure in CI and a skip elsewhere, naming what is missing."""
    if path.exists():
        return path
    reason = f"{path} is missing: the shared reference files are expected beside the repository ({SHARED})"
    if in_ci():
        pytest.fail(reason)
    pytest.skip(reason)
    raise AssertionError("unreachable")
