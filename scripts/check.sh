#!/usr/bin/env bash
# The static checks, configured in pyproject.toml (docs/DEVELOPING.md, "Checks"). scripts/test.sh runs them before
# pytest; run alone: `bash scripts/check.sh` (after `bash scripts/setup.sh --test`). Every check runs, each prints
# its own findings (file:line), and the command fails if any of them failed.
set -uo pipefail
cd "$(dirname "$0")/.."
bin=.venv/bin
failed=()
check() {
  local name=$1; shift
  echo "== $name: $*"
  if ! "$@"; then failed+=("$name"); fi
}
check "ruff lint" "$bin/ruff" check .
check "ruff format" "$bin/ruff" format --check .
check "import contracts" "$bin/lint-imports" --no-logo
check "types (core, lessons)" "$bin/python" -m mypy
check "source rules" "$bin/python" scripts/check_source.py
if [ ${#failed[@]} -gt 0 ]; then
  printf 'checks failed: %s\n' "${failed[*]}" >&2
  exit 1
fi
echo "checks passed: ruff lint, ruff format, import contracts, types, source rules"
