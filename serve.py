"""Attention Lab's server: `streamlit run serve.py` (scripts/start.sh does).

It runs app.py, the app itself, as a Streamlit `st.App` with one piece of ASGI middleware that puts
ui/seam/client_batching.js into the page, so a slider step is rendered once in the browser instead of once
per websocket message (ui/seam/__init__.py, entry 2: none when the seam is off). `streamlit run app.py` runs
the same app without it (just slower to redraw).
"""

import streamlit as st

from ui import seam

app = st.App("app.py", middleware=seam.middleware())
