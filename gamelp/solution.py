"""The result of solving a :class:`gamelp.model.Model` on any backend: a status and what it vouches for."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

import numpy as np

from gamelp.display import Raw, Summarised


class Status(StrEnum):
    """How a solve ended; compares equal to its string value (``Status.OPTIMAL == "optimal"``)."""

    OPTIMAL = "optimal"
    OPTIMAL_INACCURATE = "optimal_inaccurate"  # a solver's optimum that misses its own tolerances
    INFEASIBLE = "infeasible"
    UNBOUNDED = "unbounded"
    INFEASIBLE_OR_UNBOUNDED = "infeasible_or_unbounded"
    TIME_LIMIT = "time_limit"
    ITERATION_LIMIT = "iteration_limit"
    INTERRUPTED = "interrupted"  # stopped by Ctrl-C (SIGINT)
    ERROR = "error"

    @property
    def stopped_early(self) -> bool:
        """A limit or an interrupt ended the solve: any values are an incumbent, not an optimum."""
        return self in (Status.TIME_LIMIT, Status.ITERATION_LIMIT, Status.INTERRUPTED)


OPTIMAL = Status.OPTIMAL
OPTIMAL_INACCURATE = Status.OPTIMAL_INACCURATE
INFEASIBLE = Status.INFEASIBLE
UNBOUNDED = Status.UNBOUNDED
INFEASIBLE_OR_UNBOUNDED = Status.INFEASIBLE_OR_UNBOUNDED
TIME_LIMIT = Status.TIME_LIMIT
ITERATION_LIMIT = Status.ITERATION_LIMIT
INTERRUPTED = Status.INTERRUPTED
ERROR = Status.ERROR


@dataclass(repr=False)
class Solution(Summarised):
    """Status, objective, values by variable block, duals by constraint block, and the solver log.

    ``values`` is empty unless the solver returned a point that satisfies the
    constraints: an optimum (``optimal`` or ``optimal_inaccurate``), or the
    incumbent of a MIP stopped by a limit or an interrupt.  ``duals[block]``
    is the derivative of the optimal objective with respect to that block's
    right-hand sides and ``reduced_costs[block]`` the derivative with respect
    to the variables' bounds, ``c - A^T y`` (LPs at an optimum only; empty
    otherwise).  ``objective_bound`` is the best bound the solver proved
    (the objective itself for an LP optimum) and ``mip_gap`` the relative gap
    between the two (0 for an LP).  ``violation`` is the largest constraint
    violation of the solver's point relative to ``1 + |rhs|``, measured in
    the scaled model the solver saw (None when it returned no point).
    ``backend`` names the backend that solved and ``solver_version`` the
    solver package and version behind it (``"highspy 1.16.0"``,
    ``"cvxpy 1.9.3 / CLARABEL 0.11.1"``).
    """

    status: Status
    objective: float | None
    values: dict[str, np.ndarray] = field(default_factory=dict)
    duals: dict[str, np.ndarray] = field(default_factory=dict)
    mip_gap: float | None = None
    wall_time: float = 0.0
    log: str = ""
    backend: str = ""
    objective_bound: float | None = None
    reduced_costs: dict[str, np.ndarray] = field(default_factory=dict)
    violation: float | None = None
    iterations: int | None = None  # simplex iterations, where the backend counts them
    solver_version: str = ""
    reason: str = ""  # why the status is ``error`` when gamelp, not the solver, judged it so

    @property
    def optimal(self) -> bool:
        """Whether the solver proved the solution optimal."""
        return self.status == Status.OPTIMAL

    def __getitem__(self, block: str) -> np.ndarray:
        return self.values[block]

    def _summary(self) -> dict:
        return {
            "status": str(self.status),
            "objective": self.objective,
            "objective_bound": None if self.objective_bound == self.objective else self.objective_bound,
            "mip_gap": Raw(f"{self.mip_gap:.3g}") if self.mip_gap else None,
            "backend": self.backend,
            "solver_version": self.solver_version,
            "reason": self.reason or None,
            "wall_time": Raw(f"{self.wall_time:.3g}"),
            "values": Raw(", ".join(f"{name}[{v.size}]" for name, v in self.values.items())),
        }
