"""The chart components' loader: a components.v2 component whose code only imports its renderer from static/.

Streamlit sends a component's code with every element it draws, so that code stays a few lines: the browser
fetches the renderer (static/heatmaps.js, static/plots.js, each importing static/chartkit.js) once and keeps the
module; the hash in the URL makes a changed renderer load anew.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import streamlit as st

STATIC = Path(__file__).resolve().parent.parent / "static"  # served at app/static/ (.streamlit/config.toml)
SHARED = "chartkit.js"  # imported by each renderer with the same ?v= query


def renderer_component(name: str, renderer: str):
    """The components.v2 component `name` whose code imports static/`renderer` and calls its render()."""
    version = hashlib.sha256((STATIC / renderer).read_bytes() + (STATIC / SHARED).read_bytes()).hexdigest()[:12]
    loader = (
        "export default async function (component) {\n"
        f"  const url = new URL('app/static/{renderer}?v={version}', document.baseURI).href;\n"
        "  const renderer = await import(url);\n"
        "  return renderer.render(component);\n"
        "}\n"
    )
    return st.components.v2.component(name, js=loader)
