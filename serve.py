"""Attention Lab's server: `streamlit run serve.py` (scripts/start.sh does).

It runs app.py, the app itself, as a Streamlit `st.App` with two pieces of ASGI middleware: one puts
ui/client_batching.js into the page, so a slider step is rendered once in the browser instead of once
per websocket message; the other (ui/origin_guard.py) refuses a websocket from a foreign Origin at once,
without the external-IP lookup that froze the server on a network whose DNS never answers.
`streamlit run app.py` runs the same app without them (slower to redraw; and a foreign-Origin
websocket then waits for Streamlit's own lookup).
"""

import streamlit as st
from starlette.middleware import Middleware

from ui.client_batching import InjectClientScript
from ui.origin_guard import RefuseForeignOrigins

app = st.App("app.py", middleware=[Middleware(RefuseForeignOrigins), Middleware(InjectClientScript)])
