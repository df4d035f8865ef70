"""What each lesson computes, as plain data: no Streamlit, no plotly, no wording.

A lesson module takes settings (numbers, language-neutral choices) and returns frozen dataclasses of
numpy arrays, numbers and text *keys*; the page words the keys (core/strings) and draws the arrays.
Lessons import only `core` (the attention library) and `lessons.*`. The older lessons (heads, masks lab,
real heads, why heads, quiz) still live in core/ and move here with the chart-route redesign; the
walkthrough's is the lessons/walkthrough/ package (the source lookup it shares with Real heads: lessons/source.py).
"""
