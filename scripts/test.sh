#!/usr/bin/env bash
# Set everything up and run the whole test suite (unit, simulator, browser, notebook tests).
# With no arguments: the browser tests in one process beside everything else on two workers, then the
# serving layer's tests in a process of their own.
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
# The browser tests (one process: they start servers and a browser each, and spend most of their time
# waiting for pages) run beside the rest (two workers), then the serving layer's own tests in a process
# of their own (they patch Bokeh's server and keep process-wide spare pools, which another file's
# in-process server in the same worker could share). The browser tests' output follows the others'.
browser_log=test-artifacts/browser-tests.log
run -m browser >"$browser_log" 2>&1 &
browser_tests=$!
run -n 2 --dist loadfile -m "not browser" --ignore=tests/server
first=$?
run -m "not browser" tests/server
second=$?
wait "$browser_tests"
third=$?
echo "---- the browser tests (-m browser) ----"
cat "$browser_log"
[ "$first" -eq 0 ] && [ "$second" -eq 0 ] && [ "$third" -eq 0 ]
