#!/usr/bin/env bash
# Install (first time only), run the static checks (scripts/check.sh: ruff, import-linter, mypy), then the whole
# test suite, browser tests included. A failed check stops here, before the ~12 minutes of pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --test
bash scripts/check.sh
mkdir -p test-results
exec .venv/bin/python -m pytest "$@"
