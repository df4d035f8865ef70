"""(under construction)"""

import streamlit as st

from ui.shell import page_context

ctx = page_context()
st.title(ctx.t("page.heads"))
