"""Work too large for this machine is refused before it starts, with the memory it would need.

A count typed with a few digits too many (``--runs 1e9``) would otherwise make
numpy allocate gigabytes in one call that Ctrl-C cannot interrupt, or drive
the machine into swap.  :func:`refuse_unless_it_fits` compares an estimate
of the bytes a piece of work holds at once with :func:`memory_budget`: half of the physical memory, or less
where the process's address-space limit (``ulimit -v``) or the container's memory limit leaves less.
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


def _status_bytes(field: str) -> int | None:
    """A ``kB`` field of ``/proc/self/status`` (``VmSize``) in bytes; None where there is no such file."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def _cgroup_room() -> tuple[int, int] | None:
    """The cgroup v2 memory limit and what is left of it, where one is set (``memory.max``)."""
    try:
        with open("/sys/fs/cgroup/memory.max", encoding="ascii") as limit_file:
            limit_text = limit_file.read().strip()
        if limit_text == "max":
            return None
        with open("/sys/fs/cgroup/memory.current", encoding="ascii") as current_file:
            current = int(current_file.read())
        limit = int(limit_text)
    except (OSError, ValueError):
        return None
    return limit, limit - current


def memory_budget() -> tuple[int, str]:
    """The bytes this process may still take, and the limit that sets it, as :func:`refuse_unless_it_fits` says it.

    The smallest of: half of the physical memory; what is left under the process's address-space limit
    (``ulimit -v``, RLIMIT_AS) after what it maps already; what is left of the container's cgroup memory limit.
    """
    memory = physical_memory()
    budgets = [(memory // 2, f"half of this machine's {memory / 2**30:.0f} GiB")]
    try:
        import resource

        soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    except (ImportError, ValueError, OSError):  # not POSIX
        soft = -1
    mapped = _status_bytes("VmSize")
    if soft not in (-1, getattr(resource, "RLIM_INFINITY", -1)) and mapped is not None:
        budgets.append(
            (
                soft - mapped,
                f"the {(soft - mapped) / 2**30:,.1f} GiB left under this process's limit of "
                f"{soft / 2**30:,.1f} GiB (ulimit -v)",
            )
        )
    room = _cgroup_room()
    if room is not None:
        budgets.append((room[1], f"the {room[1] / 2**30:,.1f} GiB left of the container's {room[0] / 2**30:,.1f} GiB"))
    return min(budgets)


def refuse_unless_it_fits(need: float, what: str, error: type[GamelpError], advice: str) -> None:
    """Raise ``error`` if ``need`` bytes (for ``what``) exceed :func:`memory_budget`, saying so and ``advice``."""
    budget, limit = memory_budget()
    if need > budget:
        amount = f"{need / 2**30:,.1f} GiB" if need >= 2**30 / 10 else f"{need / 2**20:,.0f} MiB"
        raise error(f"{what} would need about {amount} of memory, more than {limit}; {advice}")
