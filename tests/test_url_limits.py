"""One rule for every value that comes from a link (lessons/url_keys.plan_link, applied by ui/url_state.gate):
bounded before it is parsed, kept or echoed; a key the page does not own is dropped from the address bar; the
server's reply never grows with the size of a bad link.

Measured at the protocol level against a real server (tests/wire.py: the bytes of every ForwardMsg of one run).
Before: `/?mask=none&masks_grid=<200,032 chars>` was written back (211 KB sent), a 0.52 MB /masks link with 23
bad short keys made the server send 11.7 MB (the whole query string once per corrected key), and 10,000-char
real_from / real_to / real_off stayed in the link.
"""

from __future__ import annotations

from urllib.parse import parse_qs, urlencode

import pytest
from wire import open_link

from lessons import url_keys as U
from lessons.url_keys import LinkPlan, max_chars, plan_link

SLACK = 16 * 1024  # what a bad link may add to a clean one's reply: its notices, never its text
PAGES = ("", *(p for p in U.PAGE_KEYS if p))


# ---------------------------------------------------------------- the rule (no server)
def test_the_plan_drops_unknown_and_foreign_keys_and_too_long_values():
    plan = plan_link(
        {"mask": ["none"], "masks_grid": ["1" * 200_032], "zz": ["1"], "seed": ["1"] * 20, "walk_step": ["3"]},
        "heads",
        "none",
    )
    assert set(plan.drop) == {"masks_grid", "zz", "walk_step"} and plan.unknown == ("zz",)
    assert plan.cut == (("seed", ("1",) * U.MAX_REPEATS),)
    assert plan_link({"seq_len": ["9" * 65]}, "heads", None).too_long == (("seq_len", U.MAX_VALUE_CHARS),)
    assert plan_link({"seq_len": ["9" * 64], "walk_step": ["3"]}, "walkthrough", None) == LinkPlan()


@pytest.mark.parametrize("url", PAGES)
def test_the_grid_travels_with_the_link_while_the_mask_is_custom_and_is_bounded(url):
    grid = "10.11"
    assert not plan_link({"mask": ["custom"], "masks_grid": [grid]}, url, "custom")
    assert plan_link({"masks_grid": [grid]}, url, "none").drop == (() if url == "masks" else ("masks_grid",))
    too_long = "1" * (max_chars("masks_grid") + 1)
    assert plan_link({"masks_grid": [too_long]}, url, "custom").drop == ("masks_grid",)


def test_every_key_has_a_bound_and_no_page_value_the_app_writes_reaches_it():
    from lessons.settings import Settings
    from lessons.url import as_url, parse

    env = {"settings": Settings(512, 16, 32, "custom", 99_999, "zh")}
    for page, keys in U.DECLARED.items():
        scope = {**env, **parse(keys, {}, env)[0]}
        for key in keys:
            for option in key.resolved(scope)["choices"] or ():
                assert len(as_url(option)) <= max_chars(key.name), (page, key.name, option)
    assert all(max_chars(k) >= 1 for k in U.all_keys())


# ---------------------------------------------------------------- against a real server
def _values(reply) -> dict[str, list[str]]:
    """The address bar after the run: the last query string the server sent, else the link as it was opened."""
    return parse_qs(reply.query_string if reply.query_strings else reply.sent, keep_blank_values=True)


def _bounded(reply) -> list[str]:
    """Every way the reply breaks the rule (empty when it keeps it)."""
    out = [f"exception: {e[:200]}" for e in reply.exceptions]
    for key, values in _values(reply).items():
        if key not in U.ALL_KEYS:
            out.append(f"{key[:30]} kept in the address bar")
        elif any(len(v) > max_chars(key) for v in values):
            out.append(f"{key}: {max(map(len, values))} chars kept in the address bar")
    return out


@pytest.fixture(scope="module")
def clean(server):
    """Each page's reply to a clean link: what a bad link's reply is compared with."""
    return {url: open_link(server.url, url, "").bytes for url in PAGES}


def test_a_grid_of_200_kb_is_not_written_back(server, clean):
    reply = open_link(server.url, "", urlencode({"mask": "none", "masks_grid": "1" * 200_032}))
    assert not _bounded(reply) and "masks_grid" not in _values(reply)
    assert reply.bytes <= clean[""] + SLACK, reply.bytes


def test_a_custom_mask_keeps_its_grid_on_every_page_but_not_a_huge_one(server):
    kept = open_link(server.url, "heads", urlencode({"mask": "custom", "masks_grid": "10.11"}))
    assert not kept.exceptions and _values(kept)["masks_grid"] == ["10.11"]
    huge = open_link(server.url, "heads", urlencode({"mask": "custom", "masks_grid": "1" * 200_032}))
    assert not _bounded(huge) and "masks_grid" not in _values(huge)
    assert any(str(max_chars("masks_grid")) in a for a in huge.alerts)  # said, never quoted


def test_a_half_megabyte_link_with_many_bad_keys_gets_a_small_reply(server, clean):
    bad = {k: "zz" for k in U.keys_of("masks") if k != "masks_grid"}
    reply = open_link(server.url, "masks", urlencode({"masks_grid": "1" * 520_000, **bad}))
    assert not _bounded(reply)
    assert reply.bytes <= clean["masks"] + SLACK, reply.bytes  # was 11.7 MB


def test_long_real_model_values_are_dropped(server, clean):
    query = {"real_tab": "link", "real_from": "1" * 10_000, "real_to": "2" * 10_000, "real_off": "3" * 10_000}
    reply = open_link(server.url, "real-model", urlencode(query))
    assert not _bounded(reply) and not {"real_from", "real_to", "real_off"} & set(_values(reply))
    assert reply.bytes <= clean["real-model"] + SLACK


def test_unknown_keys_are_dropped_in_one_message(server, clean):
    query = {f"zz{i}": "x" * 500 for i in range(1000)}  # 0.5 MB of keys no page reads
    reply = open_link(server.url, "heads", urlencode(query))
    assert not _bounded(reply) and reply.bytes <= clean["heads"] + SLACK, reply.bytes
    assert any("1000" in a for a in reply.alerts)


@pytest.mark.parametrize("url", PAGES)
@pytest.mark.parametrize("size", [10_000, 100_000])
def test_every_key_of_a_page_at_once_with_a_long_value(server, clean, url, size):
    keys = U.keys_of(url)
    reply = open_link(server.url, url, urlencode({k: "1" * size for k in keys}))
    assert not _bounded(reply)
    assert reply.bytes <= clean[url] + SLACK, (reply.bytes, clean[url])


@pytest.mark.parametrize("key", sorted(set(U.all_keys())))
def test_each_key_with_a_megabyte_value(server, clean, key):
    url = next(p for p in PAGES if key in U.keys_of(p))
    reply = open_link(server.url, url, urlencode({"mask": "custom", key: "9" * 1_000_000}))
    assert not _bounded(reply) and all("9" * 100 not in v for v in _values(reply).get(key, []))
    assert reply.bytes <= clean[url] + SLACK, (reply.bytes, clean[url])
