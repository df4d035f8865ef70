"""What each lesson computes, as plain data: no Streamlit, no plotly, no wording.

A lesson module takes settings (numbers, language-neutral choices) and returns frozen dataclasses of
numpy arrays, numbers and text *keys*; the page words the keys (i18n/strings) and draws the arrays.
Lessons import only `core` (the attention library) and `lessons.*`. Each page's lesson is a module here, or,
once it grew past a sitting's reading, a package split by meaning whose `__init__.py` maps its files and re-exports
the names pages and tests use (walkthrough, heads, masks_lab, why_heads, quiz, kv_cache, softmax, positions).
"""
