"""Which implementation runs CFR's inner loops: the C extension ``_kernels`` where pip built it, else numpy.

The extension (``_kernels.c``: the treeplex passes and segment reductions of an iteration) is optional: pip
installs gamelp without it where no C compiler is found. :func:`implementation` then hands out the numpy twins of
:mod:`gamelp.regret._kernels_numpy` (same functions, same answers) and says once per process, in one line on stderr
(:func:`gamelp.notices.say_once`), what is missing and what it costs. ``COMPILED`` tells which one runs.
"""

from __future__ import annotations

from types import ModuleType

import gamelp.regret._kernels_numpy as _kernels_numpy
from gamelp.notices import say_once

try:
    import gamelp.regret._kernels as _c_kernels

    compiled: ModuleType | None = _c_kernels
    """The C extension, None where it is not built."""
    _why = ""
except ImportError as error:
    compiled = None
    _why = f" ({error})"

COMPILED = compiled is not None
"""True when the C kernels run, False when their numpy twins do."""

NUMPY_SLOWDOWN = 2.6
"""How many times longer PDCFR+ takes on Leduc to a gap of 1e-6 on the numpy twins than in C (CPU time, measured
as the regret guide says)."""

MISSING = (
    f"the C regret kernels (gamelp.regret._kernels) are not available{_why}; pip builds them only where it "
    f"finds a C compiler. CFR and regret matching run on numpy instead, about {NUMPY_SLOWDOWN:g}x slower on Leduc"
)
"""The notice, said once per process, when the numpy twins run."""


def implementation() -> ModuleType:
    """The module whose functions run the passes: the C extension, else the numpy twins (saying so the first time)."""
    if compiled is not None:
        return compiled
    say_once(MISSING)
    return _kernels_numpy
