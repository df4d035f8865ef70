"""Streamlit glue shared by app.py and the pages (no maths here: that lives in core/)."""
