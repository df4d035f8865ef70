"""The floor with its slider bound to the URL (bind="query-params", as app.py's settings). benchmarks/step_profile.py
--variant."""

import streamlit as st

value = st.slider("value", 0, 100, 50, key="floor", bind="query-params")
st.write(f"floor value = {value}")
