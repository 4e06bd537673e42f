"""Work too large for this machine is refused before it starts, with the memory it would need.

A count typed with a few digits too many (``--runs 1e9``) would otherwise make
numpy allocate gigabytes in one call that Ctrl-C cannot interrupt, or drive
the machine into swap.  :func:`refuse_unless_it_fits` compares an estimate
of the bytes a piece of work holds at once with half of the physical memory.
"""

from __future__ import annotations

import os

from gamelp.errors import GamelpError


def physical_memory() -> int:
    """This machine's physical memory in bytes (8 GiB where the system does not say)."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):  # not POSIX: assume a small machine
        return 8 * 2**30


def refuse_unless_it_fits(need: float, what: str, error: type[GamelpError], advice: str) -> None:
    """Raise ``error`` if ``need`` bytes (for ``what``) exceed half of the physical memory, saying so and ``advice``."""
    memory = physical_memory()
    if need > memory // 2:
        raise error(
            f"{what} would need about {need / 2**30:,.1f} GiB of memory, more than half of this machine's "
            f"{memory / 2**30:.0f} GiB; {advice}"
        )
