"""The floor inside one fragment (its slider reruns only the fragment). benchmarks/step_profile.py --variant."""

import streamlit as st


@st.fragment(key="page")
def page():
    st.slider("value", 0, 100, 50, key="floor")
    st.write(f"floor value = {st.session_state.floor}")


page()
