"""HiGHS's thread scheduler: one per process, restarted when a solve asks for another number of threads.

Every ``highspy.Highs`` instance of a process runs on one global scheduler,
started with the ``threads`` option of the first run.  Since highspy 1.16 a
later run that asks for another count fails (``HighsStatus.kError``).
:func:`use_threads` restarts the scheduler with the count asked for, once per
change, for every backend that runs HiGHS (``highs``, ``cvxpy:HIGHS``,
``pyomo:highs``, ``pyomo:appsi_highs``).  highspy is imported only here, when called.
"""

from __future__ import annotations

import threading

_lock = threading.Lock()
_started_with: list[int | None] = [None]  # the count the scheduler was last restarted with, None before


def use_threads(threads) -> None:
    """Restart the scheduler with ``threads`` threads (0: HiGHS's choice) unless it has just that.

    The restart waits for runs in progress (``resetGlobalScheduler(blocking=True)``).
    Raises ``ValueError`` for anything but a count of threads.
    """
    if not isinstance(threads, int) or isinstance(threads, bool) or threads < 0:
        raise ValueError(f"threads={threads!r}: a count of threads, or 0 for HiGHS's choice")
    import highspy

    with _lock:
        if _started_with[0] != threads:
            highspy.Highs.resetGlobalScheduler(True)
            _started_with[0] = threads
