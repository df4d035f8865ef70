#!/usr/bin/env bash
# Install (first time only) and start Attention Lab on http://localhost:8501 (PORT=... to change).
# SETUP=0 skips the install check (e.g. on a machine without internet, where .venv is already complete).
set -euo pipefail
cd "$(dirname "$0")/.."
[ "${SETUP:-1}" = 0 ] || bash scripts/setup.sh
# setup.sh compiles no bytecode: the first process to import a module writes its .pyc into .venv once. Where
# PYTHONDONTWRITEBYTECODE is set (as on this machine), every process would compile torch again instead.
unset PYTHONDONTWRITEBYTECODE
# The address students open (this machine's LAN address), for Streamlit's startup banner. Given, so
# Streamlit does not look up an external IP on the internet (it froze startup where DNS never answers).
# Finding it sends no packet (a UDP socket's own address after connect); without a network: localhost.
ADDR=$(.venv/bin/python -c '
import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
try:
    s.connect(("10.255.255.255", 1)); a = s.getsockname()[0]
except OSError:
    a = "localhost"
print("localhost" if a.startswith("127.") else a)')
exec .venv/bin/python -m streamlit run serve.py --server.port "${PORT:-8501}" --browser.serverAddress "$ADDR" "$@"
