"""Attention Lab's server: `streamlit run serve.py` (scripts/start.sh does).

It runs app.py, the app itself, as a Streamlit `st.App` with one piece of ASGI middleware that puts
ui/client_batching.js into the page, so a slider step is rendered once in the browser instead of once
per websocket message. `streamlit run app.py` runs the same app without it (just slower to redraw).
"""

import streamlit as st
from starlette.middleware import Middleware

from ui.client_batching import InjectClientScript

app = st.App("app.py", middleware=[Middleware(InjectClientScript)])
