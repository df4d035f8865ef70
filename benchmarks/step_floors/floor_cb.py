"""The floor with the app's step shape: the slider in a "settings" fragment whose callback reruns only a "page"
fragment (st.rerun("page"): two script runs a step, as app.py's seq_len and seed).
benchmarks/step_profile.py --variant."""

import streamlit as st


@st.fragment(key="settings")
def settings():
    st.slider("value", 0, 100, 50, key="floor", on_change=lambda: st.rerun("page"))


@st.fragment(key="page")
def page():
    st.write(f"floor value = {st.session_state.floor}")


with st.sidebar:
    settings()
page()
