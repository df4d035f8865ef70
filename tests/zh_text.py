"""What a reader sees of an AppTest run, and the Latin words and bare numbers in it (tests/test_zh_text.py).

`visible(at)` walks the element tree as the browser would draw it: text elements, widget labels (unless
collapsed), help texts and options, tabs and expanders, tables, HTML diagrams, the heatmaps' worded header
(titles, axis titles, panel titles, states, marks, alt) and the line charts' titles, axes and series. Blocks
that ui/choice.py hides (the URL carriers of translated choices) are skipped: nobody sees them.

`latin_words(text)` finds what a Chinese reader would read as English: Latin words outside code spans and
code blocks, and the `\\text{...}` names inside formulas.
"""

from __future__ import annotations

import html
import json
import re

from streamlit.testing.v1.element_tree import Block

from charts.payload import unpack
from ui.choice import HIDDEN_SUFFIX

HEATMAPS = "attention_lab.heatmaps"
TEXT_TYPES = (
    "title",
    "header",
    "subheader",
    "markdown",
    "caption",
    "latex",
    "text",
    "info",
    "warning",
    "error",
    "success",
    "toast",
    "exception",
)
HIDDEN_LABELS = (1, 2)  # LabelVisibilityMessage: HIDDEN, COLLAPSED


def visible(at) -> list[tuple[str, str]]:
    """(where, text) for every string the run shows, in page order."""
    out: list[tuple[str, str]] = []
    _walk(at._tree, out)
    return out


def _walk(node, out: list[tuple[str, str]]) -> None:
    if isinstance(node, Block):
        proto = getattr(node, "proto", None)
        if proto is not None and str(getattr(proto, "id", "")).endswith(HIDDEN_SUFFIX):
            return  # a URL carrier (ui/choice.py): display:none
        if node.type in ("expander", "tab", "popover") and getattr(node, "label", ""):
            out.append((node.type, str(node.label)))
        for child in node.children.values():
            _walk(child, out)
        return
    _element(node, out)


def _element(node, out: list[tuple[str, str]]) -> None:
    kind, proto = node.type, node.proto
    if kind in ("code", "empty", "image", "progress"):
        return  # code is code; an image has no text
    if kind in TEXT_TYPES:
        value = getattr(node, "value", None)
        out.append((kind, str(value if value is not None else getattr(proto, "body", getattr(proto, "message", "")))))
        return
    if kind == "html":
        body = re.sub(r"<(style|script)\b.*?</\1>", " ", proto.body, flags=re.S)
        text = html.unescape(re.sub(r"<[^>]+>", " ", body))
        out.append(("html", text))
        for attr in re.findall(r'(?:aria-label|title)="([^"]*)"', body):
            out.append(("html.label", html.unescape(attr)))
        return
    if kind == "table" or kind == "arrow_data_frame":
        frame = node.value
        out.extend(("table.column", str(c)) for c in frame.columns)
        for row in frame.itertuples(index=False):
            out.extend(("table.cell", v) for v in row if isinstance(v, str))
        return
    if kind == "bidi_component":
        if proto.component_name == HEATMAPS:
            h, _ = unpack(proto.bytes)
            for field in ("title", "row_axis", "col_axis", "thinned", "blocked_word", "download", "alt"):
                if h.get(field):
                    out.append((f"heatmap.{field}", h[field]))
            out.extend(("heatmap.panel", p["title"]) for p in h["panels"] if p.get("title"))
            out.extend(("heatmap.state", s) for s in h.get("states", []))
            out.extend(("heatmap.mark", m["hover"]) for m in h.get("marks", []))
        return
    if kind == "plotly_chart":
        out.extend(("plotly", s) for s in _plotly_texts(json.loads(proto.spec)))
        return
    if kind == "vega_lite_chart":
        out.extend(("vega", s) for s in _vega_texts(json.loads(proto.spec)))
        return
    if kind == "metric":
        out.extend((f"metric.{f}", str(getattr(proto, f))) for f in ("label", "body", "delta") if getattr(proto, f, ""))
        return
    label = getattr(proto, "label", "")
    vis = getattr(getattr(proto, "label_visibility", None), "value", 0)
    if label and vis not in HIDDEN_LABELS:
        out.append((f"{kind}.label", label))
    for field in ("help", "placeholder"):
        if getattr(proto, field, ""):
            out.append((f"{kind}.{field}", getattr(proto, field)))
    for opt in getattr(proto, "options", ()) or ():
        out.append((f"{kind}.option", opt if isinstance(opt, str) else getattr(opt, "content", str(opt))))


def _plotly_texts(spec: dict) -> list[str]:
    out = []

    def walk(node, key=""):
        if isinstance(node, dict):
            for k, v in node.items():
                if k in ("data", "customdata", "x", "y", "z", "hovertemplate", "meta"):
                    if k == "data":
                        walk(v, k)
                    continue
                walk(v, k)
        elif isinstance(node, list):
            for v in node:
                walk(v, key)
        elif isinstance(node, str) and key in ("text", "title", "name"):
            out.append(node)

    walk(spec)
    return out


def _vega_texts(spec) -> list[str]:
    out = []

    def walk(node, key=""):
        if isinstance(node, dict):
            for k, v in node.items():
                if k in ("datasets", "data", "values"):
                    continue
                walk(v, k)
        elif isinstance(node, list):
            for v in node:
                walk(v, key)
        elif isinstance(node, str) and key in ("title", "text", "description", "legend"):
            out.append(node)

    walk(spec)
    return out


# ------------------------------------------------------------------ what reads as English
CODE_BLOCK = re.compile(r"```.*?```", re.S)
CODE_SPAN = re.compile(r"`[^`]*`")
DISPLAY_MATH = re.compile(r"\$\$(.+?)\$\$", re.S)
INLINE_MATH = re.compile(r"(?<![\\$])\$(?!\$)(.+?)(?<![\\$])\$")
MATH_NAMES = re.compile(r"\\(?:text|operatorname|mathrm|textbf|textit)\{([^{}]*)\}")
DIRECTIVE = re.compile(r":(?:material/[a-z_]+:|[a-z]+(?:-[a-z]+)*\[)")  # Streamlit's :small[...], :material/x:
LINK_TARGET = re.compile(r"\]\([^)]*\)")
TAG = re.compile(r"<[^>]+>|&[a-z]+;")
TITLE = re.compile(r"《[^》]*》")  # a cited title, as Chinese writes it
PATH = re.compile(r"[\w.-]+(?:/[\w.-]+)+")  # a file path, a Hugging Face id, K/V
HEX = re.compile(r"\b[0-9a-f]{4,}…[0-9a-f]{4,}\b|\b[0-9a-f]{12,}\b")  # a shortened hash
NUMBER = re.compile(r"(?<![A-Za-z_\d])(?<![A-Za-z\d]-)\d+(?:[.,]\d+)*(?:[eE][-+\u2011]?\d+)?")
WORD = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:[-_.'’][A-Za-z0-9]+)*")
BARE_NUMBER = re.compile(r"(?<![\d.,eE+\-\u2011])\d{5,}(?![\d.,])")  # 131072, not 131,072 or 1e-05


def split_text(text: str, *, latex: bool = False) -> tuple[str, list[str]]:
    """(the prose, the formulas) of a markdown string; a latex element is one formula."""
    if latex:
        return "", [text]
    text = CODE_SPAN.sub(" ", CODE_BLOCK.sub(" ", text))
    formulas = DISPLAY_MATH.findall(text)
    text = DISPLAY_MATH.sub(" ", text)
    formulas += INLINE_MATH.findall(text)
    text = INLINE_MATH.sub(" ", text)
    text = LINK_TARGET.sub("]", DIRECTIVE.sub(" ", TAG.sub(" ", text)))
    return text, formulas


def latin(text: str, *, latex: bool = False, phrases: tuple[str, ...] = ()) -> tuple[list[str], list[str], list[str]]:
    """(Latin words of the prose, names written in the formulas (\\text{...}), numbers of 5 or more digits without
    separators). Not looked at: code spans and blocks, cited 《titles》, paths, hashes, numbers, `phrases`."""
    prose, formulas = split_text(text, latex=latex)
    names = [w for f in formulas for inner in MATH_NAMES.findall(f) for w in WORD.findall(inner)]
    prose = HEX.sub(" ", PATH.sub(" ", TITLE.sub(" ", prose)))
    for phrase in phrases:
        prose = prose.replace(phrase, " ")
    numbers = BARE_NUMBER.findall(prose)
    return WORD.findall(NUMBER.sub(" ", prose)), names, numbers
