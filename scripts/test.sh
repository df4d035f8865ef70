#!/usr/bin/env bash
# The whole suite (what .ci/run runs): install (first time only), the static checks (scripts/check.sh: ruff,
# import-linter, mypy), then every test tier, browser tests included. A failed check stops before pytest.
#   bash scripts/test.sh            the full suite
#   bash scripts/test.sh --fast     the checks, the unit tier and one AppTest run of each page (pytest -m "unit or smoke")
# Other arguments go to pytest (e.g. `bash scripts/test.sh -m browser`, `bash scripts/test.sh tests/test_heads.py`).
# The whole suite runs on two pytest-xdist workers (`--dist loadfile`: a test file runs on one worker, so a
# module-scoped fixture such as the fuzz run is built once): measured faster on 2 cores (benchmarks/README.md).
# `--no-loadscope-reorder` keeps the files in the order tests/conftest.py gives them (the longest tiers first);
# xdist's own order, the files with most tests first, left one-test browser files for the last minutes.
# --fast runs in one process (a second worker's start, collecting every test, costs more than it saves there).
# TEST_WORKERS=N overrides either (0: one process).
set -euo pipefail
cd "$(dirname "$0")/.."
fast=()
default_workers=2
if [ "${1:-}" = "--fast" ]; then
  shift
  fast=(-m "unit or smoke")
  default_workers=0
fi
bash scripts/setup.sh --test
# setup.sh compiles no bytecode: the first process to import a module writes its .pyc into .venv once. Where
# PYTHONDONTWRITEBYTECODE is set (as on this machine), every process would compile torch again instead.
unset PYTHONDONTWRITEBYTECODE
bash scripts/check.sh
mkdir -p test-results
workers=()
if [ "${TEST_WORKERS:-$default_workers}" != 0 ]; then
  workers=(-n "${TEST_WORKERS:-$default_workers}" --dist loadfile --no-loadscope-reorder)
fi
exec .venv/bin/python -m pytest "${workers[@]}" "${fast[@]}" "$@"
