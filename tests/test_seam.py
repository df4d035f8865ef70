"""ui/seam: every private name it touches still exists, the registry stays small with a behaviour canary for each
entry, the URL behaviours it relies on, its one switch, and every page with the seam off.

(That nothing outside ui/seam touches private Streamlit is a source rule: scripts/check_source.py.)
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import re
from pathlib import Path

import pytest
import streamlit
import test_app as smoke  # the page smoke tests, run again below with the seam off
from conftest import ROOT, in_both_languages, run_app, run_async

import i18n
from ui import seam
from ui.cache import forget_process_wide

STATIC_JS = Path(streamlit.__file__).parent / "static" / "static" / "js"


def _resolve(dotted: str):
    """A module, or a class inside one, from its dotted name."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for attr in parts[cut:]:
            obj = getattr(obj, attr)
        return obj
    raise ImportError(dotted)


def _has(where: str, name: str) -> bool:
    """Does the installed Streamlit still have `name` where the seam reads it?"""
    if where.startswith("streamlit/static"):
        bundles = sorted(STATIC_JS.glob("index.*.js" if "index" in where else "*.js"))
        if name.startswith("websocket.addEventListener"):  # the client's own socket listener, any quotes
            pattern = re.compile(r"this\.websocket\.addEventListener\(\W?message\W?,")
            return any(pattern.search(p.read_text(errors="ignore")) for p in bundles)
        return any(name in p.read_text(errors="ignore") for p in bundles)
    owner = _resolve(where)
    if name.startswith("self."):  # an instance attribute: set in __init__
        return re.search(rf"\b{re.escape(name)}\s*(:[^=]*)?=", inspect.getsource(owner.__init__)) is not None
    if dataclasses.is_dataclass(owner) and name in {f.name for f in dataclasses.fields(owner)}:
        return True
    if hasattr(owner, name):
        return True
    # An attribute Streamlit sets on each instance (Page._can_be_called): read and written by its own code.
    source = inspect.getsource(owner)
    return f"self.{name} = " in source and f"self.{name}" in inspect.getsource(owner.run)


def test_the_pinned_streamlit_is_the_checked_one():
    """requirements.txt pins the version the seam was read from; an upgrade must re-check the seam."""
    pins = dict(
        line.split("==")
        for line in (ROOT / "requirements.txt").read_text().splitlines()
        if "==" in line and not line.startswith("#")
    )
    assert pins["streamlit"] == seam.CHECKED_STREAMLIT == streamlit.__version__
    assert seam.enabled()


@pytest.mark.parametrize("where,name", seam.PRIVATE_NAMES, ids=[f"{w}:{n}" for w, n in seam.PRIVATE_NAMES])
def test_every_private_name_the_seam_touches_exists(where, name):
    assert _has(where, name), (
        f"Streamlit {streamlit.__version__} has no {name} in {where}: ui/seam/__init__.py "
        f"relies on it (checked against Streamlit {seam.CHECKED_STREAMLIT}); fix the seam before upgrading"
    )


def test_every_back_message_type_is_let_through_or_refused_on_purpose():
    """Entry `backmsg_guard`: a BackMsg type Streamlit adds (or drops) is looked at, then let through or refused."""
    from streamlit.proto.BackMsg_pb2 import BackendOperationRequest, BackMsg

    from ui.seam import backmsg_guard as g

    types = {f.name for f in BackMsg.DESCRIPTOR.oneofs_by_name["type"].fields}
    assert types == g.ALLOWED | g.REFUSED and not g.ALLOWED & g.REFUSED
    operations = {f.name for f in BackendOperationRequest.DESCRIPTOR.oneofs_by_name["payload"].fields}
    assert g.ALLOWED_OPERATIONS < operations and {"install_skills"} <= operations - g.ALLOWED_OPERATIONS


def test_a_session_speaks_over_the_websocket_the_back_message_guard_reads(server):
    """Entry `backmsg_guard`: a real server runs a page for a client on STREAM_PATH, so every back message of a
    session passes the guard (tests/test_server_safety.py sends the refused ones there)."""
    from wire import Tab

    from ui.seam import backmsg_guard as g

    async def go():
        async with Tab(server.url, path=g.STREAM_PATH) as tab:
            return await tab.rerun("", "lang=en")

    reply = run_async(go())
    assert not reply.exceptions and reply.widgets


def test_the_registry_is_small_and_every_entry_names_a_behaviour_canary_that_exists():
    """At most 13 behaviours, each entry with its gain in one line and a test of the behaviour (not of a name); at
    most 13 private names, half of the 26 the seam once had (benchmarks/README.md, "Seam entries")."""
    assert len(seam.ENTRIES) <= 13 and len(seam.PRIVATE_NAMES) <= 13
    assert len({e.name for e in seam.ENTRIES}) == len(seam.ENTRIES)
    for entry in seam.ENTRIES:
        assert entry.gain and "\n" not in entry.gain and entry.checked == seam.CHECKED_STREAMLIT, entry.name
        file, _, test = entry.canary.partition("::")
        module = importlib.import_module(Path(file).stem)
        assert callable(getattr(module, test, None)), f"{entry.name}: no canary {entry.canary}"


def _url_app(script: str, url: dict):
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_string(f"import sys\nsys.path.insert(0, {str(ROOT)!r})\n" + script, default_timeout=30)
    at.query_params.update(url)
    return at.run()


NUMBER_IN_URL = """
import streamlit as st
from ui import seam
if FORGET:
    seam.forget_initial_url_value("n")
st.number_input("n", key="n", bind="query-params", value=3)
"""


@pytest.mark.app
def test_a_forgotten_url_value_no_longer_seeds_its_widget():
    """Behaviour canary (entry `url_values`): Streamlit seeds a bound widget from the URL the page was loaded
    with and its parser raises on n=1e400; after forget_initial_url_value the widget keeps the code's value."""
    at = _url_app("FORGET = False\n" + NUMBER_IN_URL, {"n": "1e400"})
    assert at.exception, "Streamlit no longer crashes on n=1e400: is forget_initial_url_value still needed?"
    at = _url_app("FORGET = True\n" + NUMBER_IN_URL, {"n": "1e400"})
    assert not at.exception and [n.value for n in at.number_input] == [3]


LABELLED = """
import streamlit as st
st.segmented_control("m", ["causal", "none"], format_func=lambda v: "shown " + v, key="m", bind="query-params",
                     default="causal")
"""


@pytest.mark.app
def test_streamlit_writes_a_bound_widgets_displayed_label_into_the_url():
    """Behaviour canary (entry `label_in_url`): the URL carries a bound widget's *formatted* option, so a
    translated label would put the language into the link (ui/choice.py's hidden twin exists for this). If the
    raw value starts to select, the twin can go."""
    assert _url_app(LABELLED, {"m": "shown none"}).session_state["m"] == "none"
    assert _url_app(LABELLED, {"m": "none"}).session_state["m"] == "causal"


KEYED = """
import streamlit as st
st.number_input("n", key="seed")
st.selectbox("m", ["a", "b"], key="mask-shown")
st.slider("s")
"""


@pytest.mark.app
def test_a_keyed_widgets_id_carries_its_key():
    """Behaviour canary (entry `held_values`): widget_guard reads a widget's key out of the id in a message (the
    browser sends ids, not keys). If the id's form changes, nothing is noted as held and every run writes every
    shared setting again, which can undo a key press made meanwhile (tests/test_settling_browser.py)."""
    from streamlit.testing.v1 import AppTest

    from ui.seam import widget_guard

    at = AppTest.from_string(KEYED).run()
    ids = [at.number_input[0].id, at.selectbox[0].id, at.slider[0].id]
    assert [widget_guard.user_key(i) for i in ids] == ["seed", "mask-shown", None], ids


def test_the_canary_can_fail():
    assert not _has("streamlit.runtime.app_session.AppSession", "self._no_such_state")
    assert not _has("streamlit.navigation.page.StreamlitPage", "_no_such_flag")
    assert not _has("streamlit/static *.js", "stNoSuchTestId")


def test_one_switch_turns_it_all_off(monkeypatch):
    # origin guard, back-message guard, client script
    assert seam.enabled() and seam.fragment_reruns_page() and len(seam.middleware()) == 4
    monkeypatch.setenv(seam.SWITCH_ENV, "off")
    assert not seam.enabled() and not seam.fragment_reruns_page()
    assert seam.middleware() == [] and seam.install() is False
    monkeypatch.delenv(seam.SWITCH_ENV)
    monkeypatch.setattr(streamlit, "__version__", "1.68.0")  # any other Streamlit: off as well
    assert not seam.enabled() and seam.middleware() == [] and seam.install() is False
    monkeypatch.setattr(streamlit, "__version__", seam.CHECKED_STREAMLIT)
    assert seam.enabled()


def test_the_deep_link_guard_knows_a_page_run_from_app_py():
    assert seam.shell_guard()  # a page file run alone (Streamlit's pages-folder mode)
    with seam.page_run():
        assert not seam.shell_guard()
        with seam.page_run():  # app.py run again by that lone page: still inside
            assert not seam.shell_guard()
        assert not seam.shell_guard()
    assert seam.shell_guard()


# ---------------------------------------------------------------- every page with the seam off
@pytest.fixture
def seam_off(monkeypatch):
    # app.py's once-per-process set-up (_tune_process, ui.cache.process_wide) must run with the seam off here,
    # and again with it on afterwards: a later test relies on what it installs (the number-box guard).
    forget_process_wide("app.tune_process")
    monkeypatch.setenv(seam.SWITCH_ENV, "off")
    assert not seam.enabled()
    yield
    forget_process_wide("app.tune_process")


def _shown(at, page, lang):
    """The page's title and the sidebar's d_k line are on the screen."""
    d, h = at.session_state["d_model"], at.session_state["num_heads"]
    assert i18n.t("settings.d_k", lang, d_model=d, h=h, d_k=d // h) in [c.value for c in at.sidebar.caption]
    # The page's one title: an st.title, or the heading of the page's first markdown (the walkthrough's one unchanging
    # element that holds its title, intro and hints).
    headings = [t.value for t in at.title] + [
        m.value.split("\n", 1)[0][2:] for m in at.main.markdown if m.value.startswith("# ")
    ]
    assert headings == [i18n.t("app.title" if page is None else f"page.{page}", lang)]


SEAM_OFF_RUNS = in_both_languages(smoke.PAGES, [smoke.SMALLEST, smoke.LARGEST])


@pytest.mark.app
@pytest.mark.parametrize(
    "page,settings,lang",
    SEAM_OFF_RUNS,
    ids=[f"{p or 'home'}-{'smallest' if s is smoke.SMALLEST else 'largest'}-{lang}" for p, s, lang in SEAM_OFF_RUNS],
)
def test_every_page_runs_at_the_extremes_in_both_languages_with_the_seam_off(seam_off, page, settings, lang):
    """test_app's default and extreme runs of every page, with the seam off: each page at both extremes, each in
    one language (the other extreme in the other), and what it shows."""
    at = run_app(page, lang=lang, **settings)
    assert not at.exception, at.exception
    assert at.session_state["lang"] == lang
    assert smoke.sidebar_values(at)["num_heads"] == settings["num_heads"]
    _shown(at, page, lang)


@pytest.mark.app
@pytest.mark.parametrize("params", smoke.BAD_URLS, ids=lambda p: "&".join(f"{k}={str(v)[:8]}" for k, v in p.items()))
def test_bad_urls_are_corrected_with_the_seam_off(seam_off, params):
    smoke.test_bad_url_values_are_corrected_with_a_notice(None, params)
