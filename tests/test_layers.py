"""What each layer loads when imported, in a fresh interpreter: the behaviour behind the import contracts.

import-linter (scripts/check.sh) forbids the app's own upward imports and the named libraries; this checks what
actually arrives in sys.modules, whatever the import statements look like: core is torch (and the pretrained
model's two loaders), a lesson adds nothing but the standard library, and neither brings Streamlit or plotly.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

PROBE = """
import importlib, json, pkgutil, sys
def top(names):
    return {n.split(".")[0] for n in names}
def load(pkg):
    importlib.import_module(pkg)
    for m in pkgutil.walk_packages(sys.modules[pkg].__path__, pkg + "."):
        importlib.import_module(m.name)
import numpy, torch
base = set(sys.modules)
load("core")
after_core = set(sys.modules)
load("lessons")
print(json.dumps({"core": sorted(top(after_core - base)), "lessons": sorted(top(set(sys.modules) - after_core))}))
"""


def loaded() -> dict[str, list[str]]:
    out = subprocess.run([sys.executable, "-c", PROBE], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_core_and_the_lessons_load_only_torch_numpy_and_the_standard_library():
    new = loaded()
    allowed = set(sys.stdlib_module_names) | {"__future__", "numpy", "torch"}  # numpy's lazy submodules too
    # core.pretrained reads the shipped model: safetensors for the weights, tokenizers for the vocabulary
    assert set(new["core"]) - allowed <= {"core", "safetensors", "tokenizers"}, new["core"]
    assert set(new["lessons"]) - allowed <= {"lessons"}, new["lessons"]
    for layer in new.values():
        assert not {"streamlit", "plotly", "pandas", "i18n", "ui", "charts"} & set(layer), layer
