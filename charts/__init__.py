"""The chart routes' rendering: a lessons.heatmap.Heatmap turned into what the browser draws.

Streamlit-free: imports core and lessons only (never pages or ui). `payload` writes the component's bytes,
`table` the table view's rows, `alt` the accessible name, `palettes` the colours of each role; `lines` every
line and bar chart (the live training curve too), `diagrams` the HTML/SVG diagrams. The Streamlit glue is
ui/heatmaps.py and ui/linecharts.py; the renderers are static/heatmaps.js and static/plots.js.
"""
