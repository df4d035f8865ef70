#!/usr/bin/env bash
# Install (first time only) and run the whole test suite, browser tests included.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --test
mkdir -p test-results
exec .venv/bin/python -m pytest "$@"
