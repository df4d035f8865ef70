"""floor_page.py re-sending what the app's walkthrough step re-sends: the step's heading, formula and code inside the
page fragment (unchanged, re-sent every step) and the app's own text of the step (its directives and icon): what
the app's step content costs Streamlit, without the app's computation.
benchmarks/step_profile.py --variant; issue 31."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from floor_page import draw

draw(listing_in_page=True)
