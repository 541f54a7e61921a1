#!/usr/bin/env bash
# Create .venv and install the project (and, with --test, what the test suite needs: the test
# extras, Debian's Chromium, Thai fonts, redis-server and jemalloc). Safe to run again: it only installs what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

want_test=0
[ "${1:-}" = "--test" ] && want_test=1

PYTHON=${PYTHON:-python3}
if ! "$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
  echo "setup: Python 3.11 or newer is needed (found: $("$PYTHON" --version 2>&1))" >&2
  exit 1
fi

if [ ! -x .venv/bin/python ]; then
  echo "setup: creating .venv"
  "$PYTHON" -m venv .venv
fi

extras=""
[ "$want_test" = 1 ] && extras="[test]"
stamp=".venv/.installed${extras}"
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ]; then
  echo "setup: installing the package${extras:+ with test extras}"
  .venv/bin/python -m pip install --quiet --upgrade pip
  .venv/bin/python -m pip install --quiet -e ".${extras}"
  touch "$stamp"
fi

if [ "$want_test" = 1 ]; then
  need=()
  [ -x /usr/bin/chromium ] || need+=(chromium)
  dpkg -s fonts-thai-tlwg >/dev/null 2>&1 || need+=(fonts-thai-tlwg)
  [ -x /usr/bin/redis-server ] || need+=(redis-server)  # the scale-out tests start their own on loopback
  # the allocator the benchmarks run the server on, as docs/deploy.md deploys it
  ls /usr/lib/*-linux-gnu/libjemalloc.so.2 >/dev/null 2>&1 || need+=(libjemalloc2)
  if [ ${#need[@]} -gt 0 ]; then
    sudo=""
    [ "$(id -u)" = 0 ] || sudo="sudo"
    if [ -n "$sudo" ] && ! command -v sudo >/dev/null; then
      echo "setup: the tests need ${need[*]} (apt-get install -y ${need[*]}), and this user is not root" >&2
      exit 1
    fi
    echo "setup: installing ${need[*]} from Debian"
    export DEBIAN_FRONTEND=noninteractive
    $sudo apt-get update -qq
    $sudo apt-get install -y -qq "${need[@]}" >/dev/null
  fi
fi
