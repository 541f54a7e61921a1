#!/usr/bin/env bash
# Set everything up and open the dashboard on the embedded demo data (no key, no network).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec .venv/bin/sec-dashboard --demo serve --show "$@"
