"""The app's pages, in menu order: app.py draws the navigation from this table, and tests and benchmarks read
it (an importable table, so nobody parses app.py to find the pages)."""

PAGES = (  # (file, url_path, icon); the file name equals the url_path so deep links resolve
    ("pages/home.py", "", ":material/home:"),
    ("pages/walkthrough.py", "walkthrough", ":material/stairs:"),
    ("pages/heads.py", "heads", ":material/view_column:"),
    ("pages/masks.py", "masks", ":material/grid_on:"),
    ("pages/real-model.py", "real-model", ":material/psychology:"),
    ("pages/why-heads.py", "why-heads", ":material/model_training:"),
    ("pages/softmax.py", "softmax", ":material/functions:"),
    ("pages/positions.py", "positions", ":material/format_list_numbered:"),
    ("pages/kv-cache.py", "kv-cache", ":material/memory:"),
    ("pages/quiz.py", "quiz", ":material/quiz:"),
    ("pages/class.py", "class", ":material/co_present:"),
)


# Pages that run as the whole app, not inside the live fragment: a click during a fragment's run waits
# for it to end (Streamlit never preempts a running script for a fragment rerun), and Why many heads'
# Stop button must interrupt a training run. (Its slider steps cost the same either way: measured.)
WHOLE_RUN_PAGES = ("why-heads",)
# Pages that read none of the shared settings (why-heads trains its own small model): a step of a setting there
# reruns the settings' fragment alone and writes the link; the page is not run or sent again (app.py).
SETTINGS_FREE_PAGES = ("why-heads",)
