#!/usr/bin/env bash
# Set everything up and run the whole test suite (unit, simulator, browser, notebook tests).
# With no arguments: everything but the browser tests on two workers, beside them the serving layer's
# tests in a process of their own, then the browser tests on two workers.
# With arguments: pytest with exactly those arguments.
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --test || exit 1
# Let Python and pytest keep compiled and assertion-rewritten modules (__pycache__, ignored by git): with
# PYTHONDONTWRITEBYTECODE set (as on this machine), each of the run's processes rewrote every test module
# again (collecting the suite: 12 s of CPU a process, 5 s with the cache), and each subprocess compiled the package.
unset PYTHONDONTWRITEBYTECODE
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
# Compile the package and rewrite the test modules once, before the runs start their processes: on a
# fresh clone every worker and every subprocess did it for itself (the run but the browser tests took 5:04
# from a fresh clone and 4:08 after this step, which takes 10 s). Whether collection works is the runs' to say.
.venv/bin/python -m compileall -q -j 2 dashboard tests benchmarks >/dev/null
.venv/bin/python -m pytest --collect-only -q >/dev/null 2>&1
# The serving layer's own tests run in a process of their own (they patch Bokeh's server and keep
# process-wide spare pools, which another file's in-process server in the same worker could share),
# beside the rest on two workers; then the browser tests on two workers, on their own: they wait on
# pages drawn in time, and a third process beside them slowed them by half a minute (measured).
server_log=test-artifacts/server-tests.log
run -m "not browser" tests/server >"$server_log" 2>&1 &
server_tests=$!
run -n 2 --dist loadfile -m "not browser" --ignore=tests/server --ignore=tests/browser
first=$?
wait "$server_tests"
second=$?
echo "---- the serving layer's tests (tests/server) ----"
cat "$server_log"
run -n 2 --dist loadfile tests/browser  # (every test there is marked browser: tests/browser/conftest.py)
third=$?
[ "$first" -eq 0 ] && [ "$second" -eq 0 ] && [ "$third" -eq 0 ]
