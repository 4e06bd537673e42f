"""Stopping HiGHS runs on Ctrl-C: its interrupt callbacks (simplex, IPM, MIP) checked against a flag.

The ``highs`` backend runs its own ``highspy.Highs`` inside :func:`checking`; the HiGHS that cvxpy and Pyomo
make and run themselves (``cvxpy:HIGHS``, ``pyomo:highs``, ``pyomo:appsi_highs``) are reached by
:func:`every_run_stops`, which wraps ``highspy.Highs.run`` for a block.  A module of its own, as
:mod:`gamelp.backends.highs_threads`, so that those backends need not import the ``highs`` backend;
highspy is imported only when called.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from gamelp.backends.base import wrapped_on_main_thread

if TYPE_CHECKING:
    import highspy


@contextlib.contextmanager
def checking(h: highspy.Highs, stop: threading.Event) -> Iterator[None]:
    """Inside the block, HiGHS's interrupt callbacks of ``h`` (simplex, IPM, MIP) stop its run once ``stop`` is set."""

    def check(event) -> None:
        if stop.is_set():
            event.interrupt()

    callbacks = (h.cbSimplexInterrupt, h.cbIpmInterrupt, h.cbMipInterrupt)
    for callback in callbacks:
        callback.subscribe(check)
    try:
        yield
    finally:
        for callback in callbacks:
            callback.unsubscribe(check)


def every_run_stops(stop: threading.Event) -> contextlib.AbstractContextManager[None]:
    """Inside the block, every ``highspy.Highs`` run on the main thread stops, as ``interrupted``, once ``stop`` is set.

    For the HiGHS a library makes and runs itself (cvxpy:HIGHS, pyomo:highs, pyomo:appsi_highs), out of gamelp's
    reach: ``highspy.Highs.run`` is wrapped for the block (:func:`~gamelp.backends.base.wrapped_on_main_thread`)
    so that each run subscribes the same interrupt callbacks as the ``highs`` backend's.
    """
    import highspy

    def wrap(run: Callable[[highspy.Highs], highspy.HighsStatus]) -> Callable[[highspy.Highs], highspy.HighsStatus]:
        def checked_run(h: highspy.Highs) -> highspy.HighsStatus:
            with checking(h, stop):
                return run(h)

        return checked_run

    return wrapped_on_main_thread(highspy.Highs, "run", wrap)
