"""Running a block of torch work on one intra-op thread, safely from several sessions at once."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

import torch

_threads_lock = threading.Lock()
_threads_users = 0  # blocks running right now (several sessions may train or time at once)
_threads_before = 1


@contextmanager
def single_thread() -> Iterator[None]:
    """Run the block on one torch intra-op thread, then give the process its threads back.

    The app's tensors are tiny: a second thread buys nothing, and on a busy machine (a class on
    one server, or a laptop doing other work) the threads wait for each other and a run takes
    several times longer; timings are far steadier too. One thread also makes training numbers
    independent of the machine's core count. The first block to start saves the thread count
    and the last one to finish restores it, so overlapping sessions never leave the process on
    one thread by accident.
    """
    global _threads_users, _threads_before
    with _threads_lock:
        if _threads_users == 0:
            _threads_before = torch.get_num_threads()
        _threads_users += 1
        torch.set_num_threads(1)
    try:
        yield
    finally:
        with _threads_lock:
            _threads_users -= 1
            if _threads_users == 0:
                torch.set_num_threads(_threads_before)
