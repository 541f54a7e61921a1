#!/usr/bin/env bash
# Set everything up and run the whole test suite (unit, simulator, browser, notebook tests).
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --test || exit 1
mkdir -p test-artifacts
.venv/bin/python -m pytest "$@"
status=$?
if [ "$status" -eq 5 ]; then
  echo "test: pytest collected no tests; that is a failure" >&2
  exit 1
fi
exit "$status"
