"""What holds the server's memory, on request: a diagnosis hook, off unless ATTENTION_LAB_MEMDEBUG is set.

    ATTENTION_LAB_MEMDEBUG=/tmp/memdebug .venv/bin/python -m streamlit run serve.py ...

A diagnosis tool, not part of the app: app.py imports it (as benchmarks.memdebug, the repository root being on
Streamlit's path) only when ATTENTION_LAB_MEMDEBUG is set.
    touch /tmp/memdebug/ask        # a report appears as /tmp/memdebug/report-<n>.json, `ask` is removed

(benchmarks/bench_memory.py --report DIR does this at the warm, after-the-load and later points.)
A report, after one full collection: RSS and glibc's heap (mallinfo2: bytes in use vs. free but kept);
Streamlit's sessions (active, and disconnected ones kept for reconnecting) with the bytes each one's
state refers to; the app's shared cache; gc-tracked objects by type; and the bytes of every live torch
tensor storage / NumPy buffer, grouped by the chain of what refers to them (gc.get_referents, one pass
over every tracked object per level), and the tensor MB reachable from each place the server keeps things.
Slow (seconds) and for diagnosis only: nothing starts it in a class.
"""

from __future__ import annotations

import ctypes
import dataclasses
import gc
import json
import os
import threading
import time
import types
import warnings
from collections import Counter, defaultdict
from pathlib import Path

ENV = "ATTENTION_LAB_MEMDEBUG"
_started = False
_lock = threading.Lock()


class _MallInfo2(ctypes.Structure):
    _fields_ = [
        (name, ctypes.c_size_t)
        for name in (
            "arena",
            "ordblks",
            "smblks",
            "hblks",
            "hblkhd",
            "usmblks",
            "fsmblks",
            "uordblks",
            "fordblks",
            "keepcost",
        )
    ]


def heap() -> dict:
    """glibc's own account of its heap, all arenas (MB); {} elsewhere."""
    try:
        fn = ctypes.CDLL(None).mallinfo2  # no ctypes.util.find_library: it runs /sbin/ldconfig (ui/reclaim.py)
    except (OSError, AttributeError):
        return {}
    fn.restype = _MallInfo2
    m = fn()
    mb = 1 << 20
    return {
        "arena_MB": m.arena / mb,
        "in_use_MB": m.uordblks / mb,
        "free_kept_MB": m.fordblks / mb,
        "mmapped_MB": m.hblkhd / mb,
    }


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return -1.0


def _stored_sessions() -> list:
    """The AppSessions Streamlit keeps for a reconnect (its private session storage: a diagnostic only)."""
    from streamlit.runtime import Runtime

    if not Runtime.exists():
        return []
    storage = getattr(Runtime.instance()._session_mgr, "_session_storage", None)
    cache = getattr(storage, "_cache", None)
    return [info.session for _, info in cache.lru_items()] if cache is not None else []


def _active_sessions() -> list:
    from streamlit.runtime import Runtime

    if not Runtime.exists():
        return []
    return [info.session for info in Runtime.instance()._session_mgr.list_active_sessions()]


def sessions() -> dict:
    """Streamlit's sessions: active ones and disconnected ones still stored for a reconnect."""
    return {"active": len(_active_sessions()), "stored_for_reconnect": len(_stored_sessions())}


def _describe(obj) -> str:
    t = type(obj)
    return f"{t.__module__}.{t.__qualname__}"


_CONTAINERS = (dict, list, tuple, set, frozenset, types.CellType, types.MappingProxyType)


def _owners(objs: list, targets: list, skip: set[int], levels: int = 12) -> list[str]:
    """For each target, who refers to it: the chain of plain containers up to the first object that is
    not one (its type), found with one pass over every gc-tracked object per level (not per target)."""
    import torch

    chains = [[_describe(t)] for t in targets]
    tops = list(targets)
    done = [False] * len(targets)
    for _ in range(levels):
        want = {id(t) for t, d in zip(tops, done) if not d}
        if not want:
            break
        parents: dict[int, list] = defaultdict(list)
        for o in objs:
            if id(o) in skip or isinstance(o, types.FrameType):
                continue
            for r in gc.get_referents(o):
                if id(r) in want:
                    parents[id(r)].append(o)
        for i, top in enumerate(tops):
            if done[i]:
                continue
            ps = parents.get(id(top), [])
            if not ps:
                chains[i].append("(no tracked referrer)")
                done[i] = True
                continue
            # A module or tensor is not who holds it: go on up to what holds the outermost module.
            owners = [
                p
                for p in ps
                if not isinstance(p, _CONTAINERS + (torch.nn.Module, torch.Tensor))
                and not dataclasses.is_dataclass(p)
                and not isinstance(p, types.FunctionType)
            ]
            # (a run's dataclass, or a function whose globals are a page script's namespace, does not keep it either)
            if owners:
                chains[i].append(" | ".join(sorted({_describe(p) for p in owners})[:3]))
                done[i] = True
            else:
                tops[i] = ps[0]
                chains[i].append(
                    (type(ps[0]).__name__ if isinstance(ps[0], _CONTAINERS) else type(ps[0]).__qualname__)
                    + (f"[{len(ps)} refs]" if len(ps) > 1 else "")
                )
    return [" <- ".join(c[1:]) for c in chains]


def reach_mb(root, limit: int = 3_000_000) -> float:
    """MB of tensor storages and NumPy buffers reachable from `root` through gc.get_referents (closures,
    partials and C objects included, unlike core/sizes.nbytes), not crossing modules, classes or functions'
    globals (so a root is what it holds, not the whole program)."""
    import sys

    import numpy as np
    import torch

    seen: set[int] = set()
    storages: set[int] = set()
    mb = 0.0
    stack = [root]
    # A function whose globals are a module's namespace (shared by the whole program) is not followed there;
    # one whose globals are a page script's own namespace (run by exec) is. (By the namespace itself, not by
    # __module__: functools.wraps copies a page's "__main__" onto a wrapper defined in ui/cache.py.)
    modules = {id(vars(m)) for m in list(sys.modules.values()) if m is not None}
    while stack and len(seen) < limit:
        o = stack.pop()
        if id(o) in seen or isinstance(o, (types.ModuleType, type)):
            continue
        seen.add(id(o))
        if isinstance(o, torch.Tensor):
            try:
                st = o.untyped_storage()
                if st.data_ptr() not in storages:
                    storages.add(st.data_ptr())
                    mb += st.nbytes() / (1 << 20)
            except Exception:  # noqa: BLE001  (a tensor without storage: nothing to count)
                pass
        elif isinstance(o, np.ndarray) and o.base is None and o.ctypes.data not in storages:
            storages.add(o.ctypes.data)
            mb += o.nbytes / (1 << 20)
        if isinstance(o, types.FunctionType):
            stack.extend(c for c in (o.__closure__ or ()))
            stack.extend(o.__defaults__ or ())
            if id(o.__globals__) not in modules:
                stack.append(o.__globals__)
            continue
        stack.extend(gc.get_referents(o))
    return mb


def roots() -> dict:
    """Tensor MB reachable from each place the server keeps things (each root counted on its own)."""
    import sys

    out: dict = {}
    try:
        from ui.cache import CACHE

        out["ui.cache.CACHE"] = reach_mb(CACHE._entries)
    except Exception as e:  # noqa: BLE001
        out["ui.cache.CACHE"] = repr(e)
    stored = _stored_sessions()
    out["stored sessions"] = reach_mb(stored)
    out["active sessions"] = reach_mb(_active_sessions())
    out["stored sessions' session_state"] = reach_mb([s.session_state for s in stored])
    out["threads' frames"] = reach_mb(list(sys._current_frames().values()))
    for name, mod in list(sys.modules.items()):
        if mod is not None:
            mb = reach_mb([v for v in vars(mod).values() if not isinstance(v, (types.ModuleType, type))])
            if mb >= 1:
                out[f"module {name}"] = mb
    return out


def buffers(top: int = 120, min_bytes: int = 1 << 16) -> dict:
    """Live tensor storages and NumPy buffers (each once), in all and grouped by who refers to them."""
    import numpy as np
    import torch

    objs = gc.get_objects()
    # NumPy arrays are not tracked by gc (no gc.get_objects()): found as what tracked objects refer to.
    arrays = {id(a): a for o in objs for a in gc.get_referents(o) if isinstance(a, np.ndarray)}
    objs.extend(arrays.values())
    del arrays
    seen: set[int] = set()
    items = []
    total: dict = {"torch_MB": 0.0, "numpy_MB": 0.0}
    # A view's base (core/frozen's as_subclass makes one per frozen tensor) is held by the view in C++, with
    # no Python referrer: look at the views first, so a storage is attributed through the object code holds.
    tensors = [o for o in objs if isinstance(o, torch.Tensor)]
    with torch._C.DisableTorchFunctionSubclass():  # else ReadOnlyTensor hands out a new object for _base
        bases = {id(o._base) for o in tensors}
    tensors.sort(key=lambda o: id(o) in bases)
    ordered = tensors + [o for o in objs if isinstance(o, np.ndarray)]
    del tensors
    for o in ordered:
        if isinstance(o, torch.Tensor):
            try:
                st = o.untyped_storage()
                key, n = st.data_ptr(), st.nbytes()
            except Exception:  # noqa: BLE001  (meta tensors, etc.)
                continue
            kind = "torch_MB"
        elif isinstance(o, np.ndarray):
            if o.base is not None:
                continue
            key, n, kind = o.ctypes.data, o.nbytes, "numpy_MB"
        else:
            continue
        if key in seen or n == 0:
            continue
        seen.add(key)
        total[kind] += n / (1 << 20)
        if n >= min_bytes:
            items.append((n, o))
    items.sort(key=lambda x: -x[0])
    sizes = [n for n, _ in items[:top]]
    chosen = [o for _, o in items[:top]]
    total["large_buffers"] = len(items)
    items.clear()
    skip = {id(objs), id(sizes), id(chosen), id(items), id(ordered)}
    groups: dict[str, float] = defaultdict(float)
    counts: Counter = Counter()
    for n, who in zip(sizes, _owners(objs, chosen, skip)):
        groups[who] += n / (1 << 20)
        counts[who] += 1
    total["by_owner_MB"] = {k: [round(v, 2), counts[k]] for k, v in sorted(groups.items(), key=lambda kv: -kv[1])[:40]}
    del objs, chosen, ordered
    return total


def report() -> dict:
    gc.collect()
    out: dict = {"time": time.time(), "rss_MB": rss_mb(), "heap": heap()}
    try:
        out["sessions"] = sessions()
    except Exception as e:  # noqa: BLE001
        out["sessions"] = repr(e)
    try:
        from ui.cache import CACHE, process_wide_builds

        out["shared_cache"] = {"entries": len(CACHE), "MB": CACHE.total / (1 << 20)}
        out["process_wide_builds"] = process_wide_builds()  # each 1: nothing was built twice (issue 30.1)
    except Exception as e:  # noqa: BLE001
        out["shared_cache"] = repr(e)
    try:
        out["roots_MB"] = roots()
    except Exception as e:  # noqa: BLE001
        out["roots_MB"] = repr(e)
    out["gc_objects"] = len(gc.get_objects())
    out["types"] = dict(Counter(_describe(o) for o in gc.get_objects()).most_common(40))
    try:
        out["buffers"] = buffers()
    except Exception as e:  # noqa: BLE001
        out["buffers"] = repr(e)
    out["threads"] = threading.active_count()
    return out


def _loop(folder: Path) -> None:
    n = 0
    while True:
        time.sleep(0.5)
        ask = folder / "ask"
        if not ask.exists():
            continue
        try:
            with warnings.catch_warnings():  # isinstance() on every object touches deprecated module proxies
                warnings.simplefilter("ignore")
                data = report()
        except Exception as e:  # noqa: BLE001
            data = {"error": repr(e)}
        n += 1
        (folder / f"report-{n}.json").write_text(json.dumps(data, indent=1, default=str))
        ask.unlink(missing_ok=True)


def start() -> None:
    """Start the hook once per process if ATTENTION_LAB_MEMDEBUG names a folder; else nothing."""
    global _started
    folder = os.environ.get(ENV)
    if not folder:
        return
    with _lock:
        if _started:
            return
        _started = True
    Path(folder).mkdir(parents=True, exist_ok=True)
    threading.Thread(target=_loop, args=(Path(folder),), name="memdebug", daemon=True).start()
