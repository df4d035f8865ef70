"""The chart route's rendering (issue 18): a lessons.heatmap.Heatmap turned into what the browser draws.

Streamlit-free: imports core and lessons only (never pages or ui). `payload` writes the component's bytes,
`table` the table view's rows, `alt` the accessible name, `palettes` the colours of each role. The
Streamlit glue is ui/heatmaps.py; the renderer is static/heatmaps.js.
"""
