#!/usr/bin/env bash
# Set everything up and run the whole test suite (unit, simulator, browser, notebook tests).
# With no arguments: everything but the browser tests on two workers, the serving layer's tests in a
# process of their own, then the browser tests in one
# process (they start servers and a browser each; two at once on two cores only slows them down).
# With arguments: pytest with exactly those arguments.
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --test || exit 1
mkdir -p test-artifacts

run() {
  .venv/bin/python -m pytest "$@"
  local status=$?
  if [ "$status" -eq 5 ]; then
    echo "test: pytest collected no tests; that is a failure" >&2
    return 1
  fi
  return "$status"
}

if [ "$#" -gt 0 ]; then
  run "$@"
  exit $?
fi
run -n 2 --dist loadfile -m "not browser" --ignore=tests/server
first=$?
# The serving layer's own tests in a process of their own: they patch Bokeh's server and keep
# process-wide spare pools, which another file's in-process server in the same worker could share.
run -m "not browser" tests/server
second=$?
run -m browser
third=$?
[ "$first" -eq 0 ] && [ "$second" -eq 0 ] && [ "$third" -eq 0 ]
