"""floor_page.py without its sidebar (only the step's slider) and with its navigation hidden: what the sidebar of a
page the walkthrough's size costs a step. benchmarks/step_profile.py --variant; issue 31."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from floor_page import draw

draw(sidebar=False)
