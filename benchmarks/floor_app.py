"""The floor: the smallest Streamlit app with a slider (run with the app's .streamlit/config.toml).

bench_browser.py measures it beside Attention Lab in the same run; every target is a ratio to it,
so the machine's load cancels. Nothing here may grow: it stands for "Streamlit itself".
"""

import streamlit as st

value = st.slider("value", 0, 100, 50, key="floor")
st.write(f"floor value = {value}")
