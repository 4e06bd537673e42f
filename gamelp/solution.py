"""The result of solving a :class:`gamelp.model.Model` on any backend."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

OPTIMAL = "optimal"
INFEASIBLE = "infeasible"
UNBOUNDED = "unbounded"
INFEASIBLE_OR_UNBOUNDED = "infeasible_or_unbounded"
TIME_LIMIT = "time_limit"
ERROR = "error"


@dataclass
class Solution:
    """Status, objective, values by variable block, duals by constraint block, and the solver log.

    ``duals[block]`` is the derivative of the optimal objective with respect to
    that block's right-hand sides (LPs only; empty for MIPs and cone models
    where the backend gives none).  ``mip_gap`` is the relative gap the solver
    reported (0 for an LP).
    """

    status: str
    objective: float | None
    values: dict[str, np.ndarray] = field(default_factory=dict)
    duals: dict[str, np.ndarray] = field(default_factory=dict)
    mip_gap: float | None = None
    wall_time: float = 0.0
    log: str = ""
    backend: str = ""

    @property
    def optimal(self) -> bool:
        return self.status == OPTIMAL

    def __getitem__(self, block: str) -> np.ndarray:
        return self.values[block]
