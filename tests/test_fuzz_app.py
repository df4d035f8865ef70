"""Fuzz every page with mangled links: no traceback, settings always valid, work always bounded.

Pages come from ui/navigation's PAGES and each page's URL keys from the one table of them,
lessons/url_keys.py; every fuzzed run checks that each widget the page drew bound to the URL has its key in
that table, so a new URL key cannot be left unfuzzed. Each page gets N_QUERIES generated query strings (seeded, so a
failure reproduces): wrong types, out-of-range and negative numbers, empty values, repeated keys,
unicode, very long strings, HTML. Every query is a fresh AppTest session (a fresh browser tab),
which is what a student with a mangled link gets.
"""

from __future__ import annotations

import os
import random
import time
from pathlib import Path

import pytest

import i18n
from core import limits
from core.masks import MASK_KINDS
from lessons import url_keys as URL_KEYS
from lessons.settings import SETTING_KEYS, Settings, sanitize
from ui import navigation

ROOT = Path(__file__).resolve().parent.parent
APP = ROOT / "app.py"
# 40 fresh sessions a page (440 in all): each mangles a random subset of every key the page reads, so a few hundred
# held-out links cover what 3,000 did; FUZZ_QUERIES=300 for a long local run.
N_QUERIES = int(os.environ.get("FUZZ_QUERIES", "40"))
pytestmark = pytest.mark.usefixtures("one_torch_thread")


# ---------------------------------------------------------------- discovery
def app_pages() -> list[tuple[str, str]]:
    """(file, url_path) of every page of the app's navigation."""
    return [(file, url) for file, url, *_ in navigation.PAGES]


def _tab_ids() -> dict[str, tuple[str, ...]]:
    """A page's section tabs (ui/sections.lazy_tabs): URL key -> the valid ids, from the keys' declarations."""
    from lessons.masks_lab.choices import SECTIONS as MASK_SECTIONS

    tabs = {"masks_tab": tuple(MASK_SECTIONS)}
    for keys in URL_KEYS.DECLARED.values():
        tabs.update({k.name: tuple(k.resolved({})["choices"]) for k in keys if k.name.endswith("_tab")})
    return tabs


TAB_IDS: dict[str, tuple[str, ...]] = _tab_ids()


def url_bound_keys(at) -> set[str]:
    """The URL key of every widget the run drew bound to the link (bind="query-params": its proto names the key)."""

    def walk(node):
        yield node
        for child in getattr(node, "children", {}).values():
            yield from walk(child)

    keys = set()
    for node in walk(at._tree):
        proto = getattr(node, "proto", None)
        fields = proto.DESCRIPTOR.fields_by_name if proto is not None else {}
        if "query_param_key" in fields and proto.HasField("query_param_key"):
            keys.add(proto.query_param_key)
    return keys


PAGES = app_pages()
SHARED_KEYS = tuple(SETTING_KEYS)


def test_the_url_key_table_has_every_page_and_every_setting():
    """lessons/url_keys.py is the one table of URL keys (ui/url_state.gate drops from a link any key it does not
    give the open page, so a page can read no other): every page of the navigation and every setting is in it."""
    from ui.display import KEYS as DISPLAY_KEYS

    assert {u for _, u in PAGES} == set(URL_KEYS.PAGE_KEYS)
    assert set(URL_KEYS.SETTINGS) == set(SHARED_KEYS)
    assert set(URL_KEYS.DISPLAY) == set(DISPLAY_KEYS)
    assert {"masks_grid", "masks_tk", "masks_len0", "masks_tab"} <= set(URL_KEYS.keys_of("masks"))
    assert {"real_text", "real_off", "real_tab"} <= set(URL_KEYS.keys_of("real-model"))
    assert "cost" in TAB_IDS["heads_tab"]


@pytest.mark.app
def test_a_widget_bound_to_the_link_has_its_key_in_the_table():
    """What the page draws, not what its source says: a widget bound to the URL under a key the table does not
    give its page would write a value the next link drops. (The fuzz below checks the same on every section.)"""
    at = run_page("pages/masks.py", {})
    assert not at.exception
    bound = url_bound_keys(at)
    assert {"d_model", "palette", "masks_head"} <= bound  # the check sees the sidebar's and the page's widgets
    assert bound <= set(URL_KEYS.keys_of("masks"))


# ---------------------------------------------------------------- generation
PAYLOADS = [
    "<script>window.__xss=1</script>",
    '<img src=x onerror="window.__xss=1">',
    "**bold** [link](javascript:alert(1))",
    "$\\href{javascript:alert(1)}{x}$",
    ":red[x]",
]
WEIRD = [
    "",
    " ",
    "-",
    "+",
    "0",
    "-0",
    "00",
    "1.5",
    "-3.7",
    "nan",
    "NaN",
    "inf",
    "-inf",
    "1e30",
    "-1e30",
    "1e400",
    "0x10",
    "1_000",
    "１２",
    "٣",
    "true",
    "None",
    "null",
    "[]",
    "{}",
    "[1,2]",
    "'1'",
    "\x00",
    "\t7\n",
    "注意力",
    "😀",
    "\u202e123",
    "a" * 300,
    "9" * 400,
    "-" + "9" * 400,
    "1." * 600,
    "1" * 5000,
    "é" * 1200,
]


def valid_values(key: str) -> list[str]:
    table = {
        "d_model": [str(d) for d in limits.D_MODEL_CHOICES],
        "num_heads": ["1", "2", "4", "8", "16", "64"],
        "seq_len": ["2", "8", "32"],
        "mask": list(MASK_KINDS),
        "seed": ["0", "42", "99999"],
        "lang": list(i18n.LANGS),
        "masks_grid": ["10.11", "1" * 8, ".".join(["1" * 8] * 8)],
        "real_text": ["The animal didn't cross the street because it was too tired.", "注意力"],
        "walk_step": ["scores", "softmax", "3"],
        "walk_view": ["step", "all", "present"],
        "walk_cellcharts": ["true", "false"],
        "walk_drill": ["true", "false"],
        "masks_fill": ["-1e9", "-inf"],
        "masks_polarity": ["keep", "block"],
        "masks_extra": ["causal", "padding"],
        "real_off": ["0", "11"],
        "why_steps": ["100", "1600"],
    }
    if key in TAB_IDS:
        return list(TAB_IDS[key])
    return table.get(key, ["0", "1", "2", "true", "false"])


def one_value(rng: random.Random, key: str) -> str:
    kind = rng.random()
    if kind < 0.25:
        return rng.choice(valid_values(key))
    if kind < 0.50:  # numbers around and far outside every limit
        return str(
            rng.choice(
                [
                    -1,
                    -2,
                    -(10 ** rng.randint(1, 30)),
                    10 ** rng.randint(1, 30),
                    3,
                    7,
                    33,
                    65,
                    100,
                    511,
                    513,
                    1024,
                    99_999,
                    100_000,
                    2**63,
                    -(2**63),
                ]
            )
        )
    if kind < 0.85:
        return rng.choice(WEIRD)
    if kind < 0.93:
        return rng.choice(PAYLOADS)
    return "".join(rng.choice("01.-<>&\"' 注😀") for _ in range(rng.randint(1, 60)))


def make_query(rng: random.Random, page_keys: list[str]) -> dict:
    """Some shared keys and some of the page's own, each once or repeated."""
    keys = [k for k in SHARED_KEYS + tuple(page_keys) if rng.random() < 0.5]
    query = {}
    for key in keys:
        if rng.random() < 0.15:
            query[key] = [one_value(rng, key) for _ in range(rng.randint(2, 3))]  # ?k=a&k=b
        else:
            query[key] = one_value(rng, key)
    return query


def last(value):
    """The value Streamlit's st.query_params.get gives for a (possibly repeated) key: the last one."""
    return value[-1] if isinstance(value, list) else value


def short(query: dict) -> str:
    """The query for a failure message, long values cut (the seed reproduces the full one)."""
    cut = lambda v: v if len(v) <= 40 else f"{v[:20]}...({len(v)} chars)"  # noqa: E731
    return repr({k: [cut(x) for x in v] if isinstance(v, list) else cut(v) for k, v in query.items()})


# ---------------------------------------------------------------- one run and its checks
def run_page(file: str, query: dict):
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(APP), default_timeout=60)  # a hang fails the run, never the whole suite
    at.query_params.update(query)
    if file != PAGES[0][0]:
        at.switch_page(file)
    at.run()
    return at


def problems(at, query: dict, url: str) -> list[str]:
    out = [f"exception: {e.message[:200]} {''.join(e.stack_trace)[-700:]}" for e in at.exception]
    unlisted = url_bound_keys(at) - set(URL_KEYS.keys_of(url))
    if unlisted:  # its value would go into the link, and the next link drop it (ui/url_state.gate)
        out.append(f"widgets bound to URL keys lessons/url_keys.py does not give the page: {sorted(unlisted)}")
    state = {k: at.session_state[k] for k in SHARED_KEYS if k in at.session_state}
    if set(state) != set(SHARED_KEYS):
        return out + [f"settings missing from the session: {sorted(set(SHARED_KEYS) - set(state))}"]
    try:  # the settings the pages used are within core/limits.py (Settings refuses anything else)
        used = Settings(**state)
    except (TypeError, ValueError) as e:
        return out + [f"settings outside the limits: {state} ({e})"]

    # A value longer than its key can hold never reaches a parser (lessons/url_keys.plan_link): as if missing.
    def fits(k: str) -> bool:
        values = query[k] if isinstance(query[k], list) else [query[k]]
        return all(len(v) <= URL_KEYS.max_chars(k) for v in values)

    raw = {k: last(query[k]) for k in SHARED_KEYS if k in query and fits(k)}
    expected, fixes = sanitize(raw, default_lang=used.lang if raw.get("lang") not in i18n.LANGS else raw["lang"])
    if expected != used:
        out.append(f"the URL asked for {raw}, sanitize() gives {expected}, the page used {used}")
    shown = [w.value for w in at.main.warning]  # at the top of the main area (a phone hides the sidebar)
    for fix in fixes:  # every correction is said, in the main area
        if not any(fix.used in text for text in shown):
            out.append(f"no message for the correction {fix}")
    # Page-local values that size the work stay within their limits too.
    ss = at.session_state
    bounds = {
        "masks_tk": (limits.T_K_MIN, limits.T_K_MAX),
        "masks_len0": (0, limits.T_K_MAX),
        "masks_len1": (0, limits.T_K_MAX),
        "masks_pad": (0, limits.T_K_MAX),
        "masks_head": (0, used.num_heads - 1),
        "masks_row": (0, used.seq_len - 1),
        "walk_head": (0, used.num_heads - 1),
        "walk_i": (0, used.seq_len - 1),
        "walk_j": (0, used.seq_len - 1),
        "why_seed": (limits.WHY_SEED_MIN, limits.WHY_SEED_MAX),
        "why_steps": (limits.WHY_STEP_CHOICES[0], limits.WHY_STEP_CHOICES[-1]),
    }
    for key, (lo, hi) in bounds.items():
        if key in ss and ss[key] is not None and not lo <= int(ss[key]) <= hi:
            out.append(f"{key}={ss[key]!r} is outside {lo}..{hi}")
    for key, ids in TAB_IDS.items():  # an open section is always a real one; a bad one is said on the page
        if key in ss and ss[key] not in ids:
            out.append(f"{key}={ss[key]!r} is not a section ({ids})")
        given = query.get(key)
        if key in ss and given is not None and (isinstance(given, list) or given not in ids):
            if not any(key in w.value for w in at.main.warning):
                out.append(f"no message for the section {key}={short({key: given})}")
    return out


def fuzz_chunk(file: str, queries: list[tuple[int, dict]]) -> list[tuple[int, list[str], float]]:
    """Run some queries on one page (in a worker process): (query number, problems, seconds) each."""
    import torch
    from conftest import _scan_installed_components_once

    _scan_installed_components_once()  # a spawned worker imports this module, not conftest: once per process too
    torch.set_num_threads(1)
    out = []
    for n, query in queries:
        start = time.perf_counter()
        at = run_page(file, query)
        seconds = time.perf_counter() - start
        out.append((n, problems(at, query, dict(PAGES)[file]), seconds))
    return out


def page_queries(file: str) -> list[tuple[int, dict]]:
    url = dict(PAGES)[file]
    page_keys = sorted(set(URL_KEYS.keys_of(url)) - set(SHARED_KEYS))
    rng = random.Random(f"fuzz:{file}")  # seeded: a failure reproduces with the same query number
    return [(n, make_query(rng, page_keys)) for n in range(N_QUERIES)]


@pytest.fixture(scope="module")
def fuzz_results():
    """Every page's queries, in this process (each query is still its own fresh session); FUZZ_WORKERS=N spreads
    them over N processes for a long local run (FUZZ_QUERIES=300).

    One process by default: the suite's other pytest-xdist worker has the other core, and a process started here
    imports torch, Streamlit and the app again and warms its own caches, for the same queries (benchmarks/README.md,
    "The test suite's time").
    """
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    import torch

    workers = max(1, min(int(os.environ.get("FUZZ_WORKERS", "1")), 4))
    chunk = 25
    jobs = [
        (file, qs[i : i + chunk]) for file, _ in PAGES for qs in [page_queries(file)] for i in range(0, len(qs), chunk)
    ]
    results: dict[str, list] = {file: [] for file, _ in PAGES}
    started = time.perf_counter()
    if workers == 1:
        threads = torch.get_num_threads()
        try:
            for file, qs in jobs:
                results[file].extend(fuzz_chunk(file, qs))
        finally:
            torch.set_num_threads(threads)
    else:
        with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn")) as pool:
            futures = [(file, pool.submit(fuzz_chunk, file, qs)) for file, qs in jobs]
            for file, future in futures:
                results[file].extend(future.result())
    results["_wall"] = time.perf_counter() - started
    results["_workers"] = workers
    return results


@pytest.mark.slow  # 40 fresh sessions a page
@pytest.mark.parametrize("file,url", PAGES, ids=[u or "home" for _, u in PAGES])
def test_fuzzed_links_never_break_a_page(file, url, fuzz_results, record_property):
    queries = dict(page_queries(file))
    done = fuzz_results[file]
    assert len(done) == N_QUERIES >= 40 or "FUZZ_QUERIES" in os.environ
    failures = [f"query #{n} {short(queries[n])}:\n  " + "\n  ".join(found) for n, found, _ in done if found]
    seconds = sorted(sec for _, _, sec in done)
    summary = (
        f"{url or 'home'}: {len(done)} fresh sessions, {sum(seconds):.1f} s summed, "
        f"median {seconds[len(seconds) // 2] * 1000:.0f} ms, max {seconds[-1] * 1000:.0f} ms "
        f"(all pages: {fuzz_results['_wall']:.0f} s wall on {fuzz_results['_workers']} workers)"
    )
    record_property("fuzz", summary)
    print(summary)
    assert not failures, f"{len(failures)} of {len(done)} queries broke {file}:\n" + "\n".join(failures[:5])
