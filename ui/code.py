"""A static code listing inside a markdown element, drawn like a code element with its lines wrapped.

Why: a code element of its own costs the browser a render on every step even when its source never changes; the
same listing as a fenced block inside a markdown element that no setting changes is left as it was (the browser's
markdown draws a fenced block with the same highlighter and copy button). Markdown's block does not wrap its lines,
so WRAP_CSS (app.py, once) wraps them inside our own class, as `st.code(..., wrap_lines=True)` does.
"""

from __future__ import annotations

import re

CLASS = "al-code"
# Our class, then the block's own <pre> and <code> (the highlighter's inline `white-space: pre` needs !important).
WRAP_CSS = f".{CLASS} pre,.{CLASS} code{{white-space:pre-wrap !important;overflow-wrap:anywhere}}"


def fenced(code: str, language: str = "python") -> str:
    """`code` as a fenced block, in a div of our class (markdown with unsafe_allow_html): a fence longer than any
    run of backticks in the code, blank lines around it so the markdown inside the div is still markdown."""
    fence = "`" * max(3, 1 + max((len(run) for run in re.findall("`+", code)), default=0))
    return f"<div class='{CLASS}'>\n\n{fence}{language}\n{code}\n{fence}\n\n</div>"
