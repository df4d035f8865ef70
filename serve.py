"""Attention Lab's server: `streamlit run serve.py` (scripts/start.sh does).

It runs app.py, the app itself, as a Streamlit `st.App` with two pieces of ASGI middleware (ui/seam): one
puts ui/seam/client_batching.js into the page, so a slider step is rendered once in the browser instead of
once per websocket message (entry `client_batching`); the other refuses a websocket from a foreign Origin at
once, without the external-IP lookup that froze the server on a network whose DNS never answers
(ui/seam/origin_guard.py, entry `origin_guard`). None when the seam is off. `streamlit run app.py` runs the
same app without them (slower to redraw; and a foreign-Origin websocket then waits for Streamlit's own lookup).
"""

import streamlit as st

from ui import seam

seam.before_sessions()  # entry `deep_links`: the first visitor's session starts like every other one
app = st.App("app.py", middleware=seam.middleware())
