#!/usr/bin/env bash
# Install (first time only) and start Attention Lab on http://localhost:8501 (PORT=... to change).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec .venv/bin/python -m streamlit run serve.py --server.port "${PORT:-8501}" "$@"
