"""Nash-equilibrium linear programs.

Sequence form (von Stengel 1996; the homework's P1 / P2, seed 004 part 2).
For player ``p`` with polytope ``F_p x = f_p``, the opponent's polytope
``F_o y = f_o`` and ``M`` player p's payoff matrix (``A`` for player 1,
``-A^T`` for player 2, own sequences as rows)::

    max  f_o^T v
    s.t. M^T x - F_o^T v >= 0        (best_response: one row per opponent sequence)
         F_p x = f_p                 (polytope)
         x >= 0,  v free

The optimum is the value player ``p`` can guarantee; the two players' values
sum to zero.  With ``x`` binary the same model is the deterministic ILP
(:mod:`gamelp.models.determinism`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from gamelp.backends import DEFAULT_BACKEND
from gamelp.errors import SolveError
from gamelp.game import SequenceFormGame
from gamelp.model import Model
from gamelp.solution import Solution


def sequence_form_lp(game: SequenceFormGame, player: int = 1, *, deterministic: bool = False) -> Model:
    """The Nash LP of ``player`` (binary ``x`` when ``deterministic``: the deterministic ILP)."""
    own, opp = game.player(player), game.player(3 - player)
    M = game.payoff_matrix(player)
    kind = "deterministic" if deterministic else "nash"
    model = Model(f"{game.name}_{kind}_pl{player}")
    x = model.add_variables("x", own.num_sequences, lb=0.0, kind="binary" if deterministic else "continuous",
                            labels=own.labels)
    v = model.add_variables("v", opp.num_decision_points + 1, lb=-np.inf,
                            labels=("root",) + opp.decision_points)
    model.add_constraints("best_response", {x: M.T, v: -opp.F.T}, ">=", 0.0, labels=opp.labels)
    model.add_constraints("polytope", {x: own.F}, "==", own.f, labels=("root",) + own.decision_points)
    model.set_objective({v: opp.f}, sense="max")
    return model


@dataclass
class NashResult:
    """A solved Nash (or determinism) model of one player, with its strategy and a solver-free check."""

    game: SequenceFormGame
    player: int
    value: float
    strategy: np.ndarray
    solution: Solution
    model: Model

    @property
    def labels(self) -> tuple[str, ...]:
        return self.game.player(self.player).labels

    def strategy_dict(self) -> dict[str, float]:
        """Sequence label -> probability (the empty sequence included)."""
        return dict(zip(self.labels, self.strategy.tolist()))

    @property
    def guaranteed_value(self) -> float:
        """What the strategy secures against a best response, computed without the solver."""
        return self.game.guaranteed_value(self.player, self.strategy)

    @property
    def exploitability(self) -> float:
        """Solver's value minus the guaranteed value: 0 (to tolerance) for a correct optimum."""
        return self.value - self.guaranteed_value


def solve_model(game: SequenceFormGame, player: int, model: Model, backend: str, **options) -> NashResult:
    """Solve a model with a strategy block ``x`` of ``player`` and wrap the result."""
    solution = model.solve(backend, **options)
    if "x" not in solution.values:
        raise SolveError(f"{model.name} on {backend}: no solution ({solution.status})")
    own = game.player(player)
    strategy = np.clip(solution.values["x"], 0.0, None)
    strategy[0] = 1.0
    if own.infeasibility(strategy) > 1e-6:
        raise SolveError(f"{model.name} on {backend}: the returned x is not a sequence-form strategy "
                         f"(violation {own.infeasibility(strategy):.2e})")
    return NashResult(game, player, float(solution.objective), strategy, solution, model)


def solve_nash(game: SequenceFormGame, player: int = 1, backend: str = DEFAULT_BACKEND, **options) -> NashResult:
    """Solve player ``player``'s Nash LP on ``backend``."""
    return solve_model(game, player, sequence_form_lp(game, player), backend, **options)
