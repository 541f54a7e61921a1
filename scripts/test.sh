#!/usr/bin/env bash
# Set everything up and run the whole test suite (unit, simulator, browser, notebook tests).
# With no arguments: three runs at once (below): the unit, simulator and notebook tests on two workers, the
# browser tests on two workers, the serving layer's tests in a process of their own.
# With arguments: pytest with exactly those arguments.
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --test || exit 1
# Let Python and pytest keep compiled and assertion-rewritten modules (__pycache__, ignored by git): with
# PYTHONDONTWRITEBYTECODE set (as on this machine), each of the run's processes rewrote every test module
# again (collecting the suite: 12 s of CPU a process, 5 s with the cache), and each subprocess compiled the package.
unset PYTHONDONTWRITEBYTECODE
mkdir -p test-artifacts

run() {  # run [--nice] PYTEST-ARGS...: pytest; "no tests" is a failure
  local prefix=()
  if [ "${1:-}" = "--nice" ]; then
    prefix=(nice -n 10)
    shift
  fi
  "${prefix[@]}" .venv/bin/python -m pytest "$@"
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
# Three runs at once: everything but the browser and serving-layer tests on two workers (CPU-bound), the
# browser tests on two workers beside them (they wait on pages and a server as much as they compute: alone
# they left half the machine idle), and the serving layer's tests in a process of their own (they patch
# Bokeh's server and keep process-wide spare pools, which another file's in-process server in the same
# worker could share). The CPU-bound two run niced, so the browser tests, which wait on pages drawn in
# time, get the CPU when they need it and the rest take what they leave. The two side runs' output is
# printed after the main one's.
server_log=test-artifacts/server-tests.log
browser_log=test-artifacts/browser-tests.log
run --nice -m "not browser" tests/server >"$server_log" 2>&1 &
server_tests=$!
run -n 2 --dist loadfile tests/browser >"$browser_log" 2>&1 &  # (every test there is marked browser: tests/browser/conftest.py)
browser_tests=$!
run --nice -n 2 --dist loadfile -m "not browser" --ignore=tests/server --ignore=tests/browser
first=$?
wait "$server_tests"
second=$?
wait "$browser_tests"
third=$?
echo "---- the serving layer's tests (tests/server) ----"
cat "$server_log"
echo "---- the browser tests (tests/browser) ----"
cat "$browser_log"
[ "$first" -eq 0 ] && [ "$second" -eq 0 ] && [ "$third" -eq 0 ]
