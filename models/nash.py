"""Nash-equilibrium linear programs.

Sequence form (von Stengel 1996; the P1 / P2 of the
homework on sequence-form games, CMU 15-888 Homework 2 (Fall 2021), part 2).
For player ``p`` with polytope ``F_p x = f_p``, the opponent's polytope
``F_o y = f_o`` and ``M`` player p's payoff matrix (``A`` for player 1,
``-A^T`` for player 2, own sequences as rows)::

    max  f_o^T v
    s.t. M^T x - F_o^T v >= 0        (best_response: one row per opponent sequence)
         F_p x = f_p                 (polytope)
         x >= 0,  v free

The optimum is the value player ``p`` can guarantee; the two players' values
sum to zero.  The LP's dual is the opponent's Nash LP, and the duals of the
best-response rows are minus the opponent's equilibrium strategy, so one solve
gives both players' strategies (:func:`solve_equilibrium`).  With ``x`` binary the same model is the deterministic ILP
(:mod:`gamelp.models.determinism`).

With ``select="min-norm"`` (:mod:`gamelp.models.select`) the strategies
returned are not the solver's optimum but the minimum-norm point of the
optimal face, the same on every backend (a QP, then an exact step on its active set).

Matrix games (second half of the module): von Neumann's general LP for any
payoffs and the deck-game thesis's form ``min e^T x s.t. C^T x >= e, x >= 0``
(Esche 2018, Section 2.3), for the row and the column player.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

import numpy as np

from gamelp.backends import DEFAULT_BACKEND
from gamelp.display import Raw, Summarised, matrix_strategy_frame, result_summary, shape_text, strategy_frame
from gamelp.errors import ModelError, SolveError
from gamelp.game import SequenceFormGame
from gamelp.matrix import MatrixGame
from gamelp.model import Model
from gamelp.models.select import (
    Selection,
    check_rule,
    exact_strategy,
    matrix_values,
    qp_backends,
    select_on_face,
    selection_section,
    sequence_values,
)
from gamelp.players import MATRIX_PLAYERS, opponent_of
from gamelp.solution import INFEASIBLE, INFEASIBLE_OR_UNBOUNDED, UNBOUNDED, Solution

if TYPE_CHECKING:  # the exact certificate is imported where exact=True asks for it
    from gamelp.models.exact import Certificate


def sequence_form_lp(game: SequenceFormGame, player: int = 1, *, deterministic: bool = False) -> Model:
    """The Nash LP of ``player`` (binary ``x`` when ``deterministic``: the deterministic ILP).

    Player 1's LP is ``max f2^T v`` s.t. ``A^T x - F2^T v >= 0`` (block ``best_response``), ``F1 x = f1`` (block
    ``polytope``), ``x >= 0``, ``v`` free (von Stengel 1996); player 2's exchanges the roles.

    Parameters
    ----------
    game : SequenceFormGame
        The game.
    player : {1, 2}
        Whose strategy ``x`` is.
    deterministic : bool
        Make ``x`` binary: the best strategy that never mixes.

    Returns
    -------
    Model
        Variable blocks ``x`` (labelled by sequence) and ``v`` (by the opponent's decision point).
    """
    own, opp = game.player(player), game.player(opponent_of(player))
    M = game.payoff_matrix(player)
    kind = "deterministic" if deterministic else "nash"
    model = Model(f"{game.name}_{kind}_pl{player}")
    x = model.add_variables(
        "x", own.num_sequences, lb=0.0, kind="binary" if deterministic else "continuous", labels=own.labels
    )
    v = model.add_variables("v", opp.num_decision_points + 1, lb=-np.inf, labels=("root",) + opp.decision_points)
    model.add_constraints("best_response", {x: M.T, v: -opp.F.T}, ">=", 0.0, labels=opp.labels)
    model.add_constraints("polytope", {x: own.F}, "==", own.f, labels=("root",) + own.decision_points)
    model.set_objective({v: opp.f}, sense="max")
    return model


def _exact_section(certificate: Certificate | None, own: int, *, own_value: bool = True) -> dict:
    """``{"exact": ...}``, the certificate's JSON (:meth:`~gamelp.models.exact.Certificate.to_dict`), or nothing."""
    return {} if certificate is None else {"exact": certificate.to_dict(own, own_value=own_value)}


@dataclass(repr=False)
class NashResult(Summarised):
    """A solved Nash (or determinism) model of one player, with its strategy and a solver-free check."""

    game: SequenceFormGame
    player: int
    value: float
    strategy: np.ndarray
    solution: Solution
    model: Model
    certificate: Certificate | None = field(default=None, kw_only=True)  # the exact certificate (exact=True)
    # The selection rule that chose ``strategy`` on the optimal face (None: the LP's own) and its selections
    # (``solution`` stays the LP's).
    select: str | None = field(default=None, kw_only=True)
    selections: tuple[Selection, ...] = field(default=(), kw_only=True)

    @property
    def wall_time(self) -> float:
        """Seconds the solver took: the LP and, with a selection rule, its QPs."""
        return self.solution.wall_time + sum(qp.wall_time for qp in self.selections)

    @property
    def labels(self) -> tuple[str, ...]:
        """The solved player's sequence labels."""
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

    @property
    def opponent_strategy(self) -> np.ndarray | None:
        """The opponent's sequence-form strategy read off the ``best_response`` duals (None without duals).

        Each dual of ``M^T x - F_o^T v >= 0`` is minus the opponent's
        realisation weight of that row's sequence (the LP dual is the
        opponent's Nash LP); the empty sequence's weight is 1.  With a
        selection rule these are still the LP's duals (an optimal strategy,
        not the selected one of the opponent: :func:`solve_equilibrium` selects both).
        """
        duals = self.solution.duals.get("best_response")
        if duals is None:
            return None
        opponent = np.clip(-duals, 0.0, None)
        opponent[0] = 1.0
        return opponent

    @property
    def gap(self) -> float:
        """Saddle-point gap of the strategy and the opponent strategy from the duals, 0 at an equilibrium.

        Without duals (a MIP), the gap between the solver's value and what
        the strategy guarantees against a best response.
        """
        opponent = self.opponent_strategy
        if opponent is None:
            return abs(self.value - self.guaranteed_value)
        x, y = (self.strategy, opponent) if self.player == 1 else (opponent, self.strategy)
        return self.game.saddle_point_gap(x, y)

    def _summary(self) -> dict:
        own = self.game.player(self.player)
        return result_summary(self, self.gap, game=self.game.name, player=self.player, sequences=own.num_sequences)

    def _entries(self):
        return "strategy (sequence form)", self.strategy_dict().items()

    def to_frame(self):
        """The strategy as a pandas DataFrame: information set, action, probability, reach probability."""
        return strategy_frame(self.game.player(self.player), self.strategy)

    def to_dict(self) -> dict:
        """JSON-ready summary: value, status, backend, player, gap and sequence label -> probability."""
        return {
            "value": self.value,
            "status": self.solution.status,
            "backend": self.solution.backend,
            "solver_version": self.solution.solver_version,
            "player": self.player,
            "deterministic": self.model.variables["x"].kind == "binary",
            "select": self.select,
            **selection_section(self.selections),
            "guaranteed_value": self.guaranteed_value,
            "gap": self.gap,
            "wall_time": self.wall_time,
            "strategy": dict(zip(self.labels, np.round(self.strategy, 12).tolist())),
            **_exact_section(self.certificate, self.player - 1),
        }


def _sequence_strategy(game: SequenceFormGame, player: int, solution: Solution, what: str) -> np.ndarray:
    """The block ``x`` of ``solution`` as ``player``'s sequence-form strategy, refused if it is not one."""
    if "x" not in solution.values:
        raise SolveError(f"{what}: no solution ({solution.status})")
    own = game.player(player)
    strategy = np.clip(solution.values["x"], 0.0, None)
    strategy[0] = 1.0
    if own.infeasibility(strategy) > 1e-6:
        raise SolveError(
            f"{what}: the returned x is not a sequence-form strategy (violation {own.infeasibility(strategy):.2e})"
        )
    return strategy


def solve_model(game: SequenceFormGame, player: int, model: Model, backend: str, **options) -> NashResult:
    """Solve a model with a strategy block ``x`` of ``player`` and wrap the result."""
    solution = model.solve(backend, **options)
    strategy = _sequence_strategy(game, player, solution, f"{model.name} on {backend}")
    return NashResult(game, player, float(solution.objective), strategy, solution, model)


def _selected_strategy(
    game: SequenceFormGame, player: int, value: float, backend: str, select: str, **options
) -> tuple[np.ndarray, Selection]:
    """``player``'s strategy that ``select`` picks on the optimal face of value ``value`` (player ``player``'s)."""
    model = sequence_form_lp(game, player)
    selection = select_on_face(model, value, backend, select, sequence_values(game, player), **options)
    solution = replace(selection.solution, values={"x": selection.strategy})
    return _sequence_strategy(game, player, solution, f"{model.name} on {backend}"), selection


def solve_nash(
    game: SequenceFormGame,
    player: int = 1,
    backend: str = DEFAULT_BACKEND,
    *,
    select: str | None = None,
    exact: bool = False,
    **options,
) -> NashResult:
    """Solve player ``player``'s Nash LP on ``backend``; with ``select``, the rule's point of the optimal face.

    Parameters
    ----------
    game : SequenceFormGame
        The game.
    player : {1, 2}
        Whose equilibrium strategy to find.
    backend : str
        A backend string (:meth:`gamelp.Model.solve`).
    select : {None, "min-norm"}
        None: the LP's optimum as the solver returns it.  ``"min-norm"``: the optimal strategy of least
        Euclidean norm, the same on every backend (:mod:`gamelp.models.select`; a QP and an exact step more).
    exact : bool
        Also certify the answer exactly (:mod:`gamelp.models.exact`): both players' strategies as fractions,
        checked in rational arithmetic, in ``certificate``; a pair that fails a check raises
        :class:`~gamelp.models.exact.CertificateError` naming it.  Needs the duals (player ``3 - player``'s strategy).
    **options
        Solver options (``time_limit``, ``verbose``, ...).

    Returns
    -------
    NashResult
        The value, the sequence-form strategy, the strategy's saddle-point gap checked without the solver, the
        model and its solution (the LP's; a selection's QP and exact step are in ``selections``).
    """
    if exact:
        return _with_certificate(solve_nash(game, player, backend, select=select, **{"persistent": True, **options}))
    model = sequence_form_lp(game, player)
    if check_rule(select) is not None:
        qp_backends(model, backend)
    result = solve_model(game, player, model, backend, **options)
    if select is None:
        return result
    strategy, qp = _selected_strategy(game, player, result.value, backend, select, **options)
    return replace(result, strategy=strategy, select=select, selections=(qp,))


def _with_certificate(result: NashResult) -> NashResult:
    """``result`` with its exact certificate (:func:`gamelp.models.exact.certify_equilibrium`)."""
    from gamelp.models.exact import certify_equilibrium

    opponent = result.opponent_strategy
    if opponent is None:
        raise SolveError(
            f"{result.model.name} on {result.solution.backend}: exact=True needs the duals, none came back"
        )
    x, y = (result.strategy, opponent) if result.player == 1 else (opponent, result.strategy)

    def selected_pair() -> tuple[np.ndarray, np.ndarray]:
        """The selected strategy in rationals, beside the opponent's from the LP's basis (its duals)."""
        from gamelp.models.exact import exact_basic_solution

        own, other = exact_strategy(result.selections[0]), -exact_basic_solution(result.model)[1]["best_response"]
        return (own, other) if result.player == 1 else (other, own)

    result.certificate = certify_equilibrium(
        result.game,
        x,
        y,
        model=result.model,
        player=result.player,
        exact_pair=selected_pair if result.select is not None else None,
    )
    return result


@dataclass(repr=False)
class Equilibrium(Summarised):
    """Both players' equilibrium strategies from one solve of player 1's Nash LP.

    Player 1's strategy ``x`` is the LP's primal solution, player 2's ``y``
    the duals of its best-response rows (the LP dual is player 2's Nash LP,
    von Stengel 1996, Section 4), so one solve serves both players.
    """

    result: NashResult  # player 1's solved LP (its strategy the selected one, with a selection rule)
    y: np.ndarray
    y_selection: Selection | None = field(default=None, kw_only=True)  # how y was selected (None: the duals)

    @property
    def game(self) -> SequenceFormGame:
        """The solved game."""
        return self.result.game

    @property
    def value(self) -> float:
        """Player 1's value (player 2's is its negative)."""
        return self.result.value

    @property
    def select(self) -> str | None:
        """The selection rule both strategies were chosen by (None: the plain LPs' points)."""
        return self.result.select

    @property
    def x(self) -> np.ndarray:
        """Player 1's equilibrium strategy (sequence form)."""
        return self.result.strategy

    @property
    def strategy(self) -> np.ndarray:
        """Player 1's equilibrium strategy (``value`` is player 1's)."""
        return self.x

    def strategy_of(self, player: int) -> np.ndarray:
        """Player ``player``'s equilibrium strategy (sequence form)."""
        return self.x if self.game.player(player) is self.game.pl1 else self.y

    def strategy_dict(self, player: int) -> dict[str, float]:
        """Sequence label -> probability of ``player``'s strategy (the empty sequence included)."""
        return dict(zip(self.game.player(player).labels, np.round(self.strategy_of(player), 12).tolist()))

    @property
    def gap(self) -> float:
        """The saddle-point gap of ``(x, y)``, computed without the solver: 0 at an equilibrium."""
        return self.game.saddle_point_gap(self.x, self.y)

    @property
    def solution(self):
        """The solver's answer to player 1's Nash LP (status, backend, duals)."""
        return self.result.solution

    def _summary(self) -> dict:
        return result_summary(
            self,
            self.gap,
            game=self.game.name,
            player="both",
            sequences=Raw(f"{self.game.pl1.num_sequences} + {self.game.pl2.num_sequences}"),
        )

    def _entries(self):
        return "player 1's strategy (sequence form)", self.strategy_dict(1).items()

    def to_frame(self):
        """Both strategies as one pandas DataFrame: ``player`` (1, 2), then :meth:`NashResult.to_frame`'s columns.

        One row per information set and action of each player, player 1's first: ``probability`` is the
        behavioural strategy, ``reach probability`` the sequence-form weight.
        """
        tables = [strategy_frame(self.game.player(p), self.strategy_of(p), "an equilibrium table") for p in (1, 2)]
        import pandas as pd  # strategy_frame has refused already when pandas is missing

        for player, table in zip((1, 2), tables):
            table.insert(0, "player", player)
        return pd.concat(tables, ignore_index=True)

    def to_dict(self) -> dict:
        """JSON-ready summary: player 1's value, status, backend, the gap and both strategies by label.

        ``strategy`` is player 1's and ``opponent_strategy`` player 2's, as in
        the matrix-game results.
        """
        solution = self.result.solution
        return {
            "value": self.value,
            "status": solution.status,
            "backend": solution.backend,
            "solver_version": solution.solver_version,
            "player": "both",
            "select": self.result.select,
            **selection_section(self.result.selections + ((self.y_selection,) if self.y_selection else ())),
            "gap": self.gap,
            "wall_time": self.result.wall_time + (0.0 if self.y_selection is None else self.y_selection.wall_time),
            "strategy": self.strategy_dict(1),
            "opponent_strategy": self.strategy_dict(2),
            **_exact_section(self.certificate, 0),
        }

    @property
    def certificate(self) -> Certificate | None:
        """The exact certificate of player 1's LP (``exact=True``), else None."""
        return self.result.certificate


def solve_equilibrium(
    game: SequenceFormGame,
    backend: str = DEFAULT_BACKEND,
    *,
    select: str | None = None,
    exact: bool = False,
    **options,
) -> Equilibrium:
    """Both players' equilibrium strategies from one LP: player 1's Nash LP and its duals.

    A backend that returns no duals is refused (``SolveError``); so is a
    dual solution that is not a sequence-form strategy of player 2.  With
    ``select``, each player's strategy is the rule's point of its optimal
    face instead (one QP per player after the LP, on the same backend).

    Parameters
    ----------
    game : SequenceFormGame
        The game.
    backend : str
        A backend that returns duals.
    select : {None, "min-norm"}
        A selection rule (:mod:`gamelp.models.select`), or None for the LP's optimum and its duals.
    exact : bool
        Also certify the pair exactly (:func:`solve_nash`; the certificate is player 1's LP's).
    **options
        Solver options.

    Returns
    -------
    Equilibrium
        ``x``, ``y``, the value and the pair's saddle-point gap.
    """
    if check_rule(select) is not None:
        qp_backends(sequence_form_lp(game, 2), backend)
    result = solve_nash(game, 1, backend, select=select, exact=exact and select is None, **options)
    if select is not None:
        selected, qp = _selected_strategy(game, 2, -result.value, backend, select, **options)
        if exact:  # the selected pair's certificate (player 1's alone would pair it with the LP's duals)
            from gamelp.models.exact import certify_equilibrium

            result.certificate = certify_equilibrium(
                game,
                result.strategy,
                selected,
                exact_pair=lambda: (exact_strategy(result.selections[0]), exact_strategy(qp)),
            )
        return Equilibrium(result, selected, y_selection=qp)
    y = result.opponent_strategy
    model = result.model.name
    if y is None:
        raise SolveError(f"{model} on {backend}: the backend returned no duals to read player 2's strategy from")
    if game.pl2.infeasibility(y) > 1e-6:
        raise SolveError(
            f"{model} on {backend}: the best-response duals are not a sequence-form strategy of player 2 "
            f"(violation {game.pl2.infeasibility(y):.2e})"
        )
    return Equilibrium(result, y)


# =====================================================================================================
# Matrix games
# =====================================================================================================
#
# A zero-sum matrix game C (row player maximises, column player minimises c_ij), two LP forms:
#
#   general (any payoffs; von Neumann's LP, Fryer 1978):
#       row:     max v  s.t.  C^T p - v e >= 0,  e^T p = 1,  p >= 0,  v free
#       column:  min w  s.t.  C q - w e <= 0,    e^T q = 1,  q >= 0,  w free
#   thesis (Esche 2018, Section 2.3; needs the value V > 0):
#       row:     min e^T x  s.t.  C^T x >= e,  x >= 0;   p = x / e^T x,  V = 1 / e^T x
#       column:  max e^T y  s.t.  C y <= e,    y >= 0;   q = y / e^T y,  V = 1 / e^T y
#
# The thesis form is exactly the general form when V > 0: the row LP is feasible iff some mix p earns
# more than 0 against every column (V > 0), and the column LP is bounded iff V > 0.  Every LP's
# "payoff" block duals are (up to sign and scale) the other player's optimal strategy.

MATRIX_FORMS = ("general", "thesis")
PLAYERS = MATRIX_PLAYERS
# One name per role in every matrix model (both players, both forms, robust or not): the solved player's
# strategy (p, q, or the thesis form's scaled x, y above) and the value (v, w).
STRATEGY_BLOCK, VALUE_BLOCK = "x", "v"


def player_labels(game: MatrixGame, player: str) -> tuple[str, ...]:
    """The labels of ``player``'s ("row" or "col") pure strategies."""
    _check_player_form(player, "general")
    return game.row_labels if player == "row" else game.col_labels


def _check_player_form(player: str, form: str) -> None:
    if player not in PLAYERS:
        raise ModelError(f"player must be one of {PLAYERS}, got {player!r}")
    if form not in MATRIX_FORMS:
        raise ModelError(f"form must be one of {MATRIX_FORMS}, got {form!r}")


def _check_value_positive(game: MatrixGame) -> None:
    """Refuse before solving a game whose value is certainly <= 0 (a column with no positive payoff)."""
    hopeless = np.flatnonzero((game.payoffs <= 0).all(axis=0))
    if hopeless.size:
        label = game.col_labels[hopeless[0]]
        raise ModelError(
            f"thesis LP form needs a positive game value, but column {label!r} pays the row "
            "player nothing positive in any row, so the value is <= 0; use form='general' "
            "or shift the payoffs by a constant"
        )


def matrix_nash_lp(game: MatrixGame, player: str = "row", form: str = "general") -> Model:
    """The Nash LP of ``player`` ("row" or "col") in the ``general`` or the ``thesis`` form (see above)."""
    _check_player_form(player, form)
    C = game.payoffs
    m, n = C.shape
    model = Model(f"matrix_{form}_{player}")
    if form == "thesis":
        _check_value_positive(game)
        if player == "row":
            x = model.add_variables(STRATEGY_BLOCK, m, lb=0.0, labels=game.row_labels)
            model.add_constraints("payoff", {x: C.T}, ">=", 1.0, labels=game.col_labels)
            model.set_objective({x: np.ones(m)}, sense="min")
        else:
            y = model.add_variables(STRATEGY_BLOCK, n, lb=0.0, labels=game.col_labels)
            model.add_constraints("payoff", {y: C}, "<=", 1.0, labels=game.row_labels)
            model.set_objective({y: np.ones(n)}, sense="max")
        return model
    if player == "row":
        p = model.add_variables(STRATEGY_BLOCK, m, lb=0.0, labels=game.row_labels)
        v = model.add_variables(VALUE_BLOCK, 1, lb=-np.inf, labels=("value",))
        model.add_constraints("payoff", {p: C.T, v: -np.ones((n, 1))}, ">=", 0.0, labels=game.col_labels)
        model.add_constraints("simplex", {p: np.ones((1, m))}, "==", 1.0)
        model.set_objective({v: [1.0]}, sense="max")
    else:
        q = model.add_variables(STRATEGY_BLOCK, n, lb=0.0, labels=game.col_labels)
        w = model.add_variables(VALUE_BLOCK, 1, lb=-np.inf, labels=("value",))
        model.add_constraints("payoff", {q: C, w: -np.ones((m, 1))}, "<=", 0.0, labels=game.row_labels)
        model.add_constraints("simplex", {q: np.ones((1, n))}, "==", 1.0)
        model.set_objective({w: [1.0]}, sense="min")
    return model


def _normalised(weights: np.ndarray, what: str) -> np.ndarray:
    weights = np.clip(np.asarray(weights, dtype=float), 0.0, None)
    total = weights.sum()
    if not total > 0:
        raise SolveError(f"{what}: all weights are zero, no strategy can be read from them")
    return weights / total


@dataclass(repr=False)
class MatrixNashResult(Summarised):
    """A solved matrix-game Nash LP: the value (the row player's payoff) and both players' strategies.

    ``player`` is whose LP was solved; the other strategy was read from the
    duals of its ``payoff`` block.
    """

    game: MatrixGame
    player: str
    form: str
    value: float
    row_strategy: np.ndarray
    col_strategy: np.ndarray
    solution: Solution
    model: Model
    certificate: Certificate | None = field(default=None, kw_only=True)  # the exact certificate (exact=True)
    # The selection rule that chose both strategies (None: the LP's and its duals), its selections row's first.
    select: str | None = field(default=None, kw_only=True)
    selections: tuple[Selection, ...] = field(default=(), kw_only=True)

    def strategy_of(self, player: str) -> np.ndarray:
        """The strategy of ``player`` ("row" or "col")."""
        _check_player_form(player, "general")
        return self.row_strategy if player == "row" else self.col_strategy

    @property
    def strategy(self) -> np.ndarray:
        """The solved player's strategy."""
        return self.strategy_of(self.player)

    @property
    def opponent_strategy(self) -> np.ndarray:
        """The other player's strategy, read from the duals."""
        return self.strategy_of(opponent_of(self.player))

    @property
    def labels(self) -> tuple[str, ...]:
        """The solved player's action labels."""
        return player_labels(self.game, self.player)

    def strategy_dict(self, player: str | None = None) -> dict[str, float]:
        """Label -> probability for ``player`` (default: the solved one), zeros included."""
        player = player or self.player
        return dict(zip(player_labels(self.game, player), self.strategy_of(player).tolist()))

    @property
    def guaranteed_value(self) -> float:
        """What the solved player's strategy secures against a best response (no solver involved)."""
        if self.player == "row":
            return float((self.game.payoffs.T @ self.row_strategy).min())
        return float((self.game.payoffs @ self.col_strategy).max())

    @property
    def saddle_gap(self) -> float:
        """Best-response gap of the strategy pair: max_i (C q)_i - min_j (C^T p)_j, 0 at an equilibrium."""
        C = self.game.payoffs
        return float((C @ self.col_strategy).max() - (C.T @ self.row_strategy).min())

    def _summary(self) -> dict:
        return result_summary(
            self, self.saddle_gap, game=Raw(shape_text(self.game.shape)), player=self.player, form=self.form
        )

    def _entries(self):
        return f"{self.player} strategy", self.strategy_dict().items()

    def to_frame(self):
        """Both strategies by label as a pandas DataFrame: player, action, probability."""
        return matrix_strategy_frame(self.game, self.row_strategy, self.col_strategy)

    def to_dict(self) -> dict:
        """JSON-ready summary: value, status, backend, player, form, gap and both strategies by label."""
        return {
            "value": self.value,
            "status": self.solution.status,
            "backend": self.solution.backend,
            "solver_version": self.solution.solver_version,
            "player": self.player,
            "form": self.form,
            "select": self.select,
            **selection_section(self.selections),
            "guaranteed_value": self.guaranteed_value,
            "gap": self.saddle_gap,
            "strategy": self.strategy_dict(),
            "opponent_strategy": self.strategy_dict(opponent_of(self.player)),
            **_exact_section(self.certificate, PLAYERS.index(self.player), own_value=False),
        }


def solve_matrix_nash(
    game: MatrixGame,
    player: str = "row",
    backend: str = DEFAULT_BACKEND,
    *,
    form: str = "general",
    select: str | None = None,
    exact: bool = False,
    **options,
) -> MatrixNashResult:
    """Solve ``player``'s Nash LP of ``game`` in ``form`` on ``backend``; both strategies and the value.

    The thesis form refuses (``ModelError`` before solving, ``SolveError``
    after) a game whose value is not positive, saying why.  With ``select``,
    both strategies are the rule's points of the players' optimal faces,
    each selected by a QP in the general form's variables after the LP.

    Parameters
    ----------
    game : MatrixGame
        The payoffs of the row player.
    player : {"row", "col"}
        Whose LP to solve; the other's strategy is read from its duals.
    backend : str
        A backend that returns duals.
    form : {"general", "thesis"}
        ``max v`` s.t. ``C^T p >= v e``, ``e^T p = 1``, ``p >= 0``; or Esche's (2018, Section 2.3)
        ``min e^T x`` s.t. ``C^T x >= e``, ``x >= 0``, which needs a positive value.
    exact : bool
        Also certify the answer exactly (:mod:`gamelp.models.exact`; the value is the row player's): both
        strategies as fractions, checked in rational arithmetic, in ``certificate``; a pair that fails a check
        raises :class:`~gamelp.models.exact.CertificateError` naming it.
    select : {None, "min-norm"}
        A selection rule (:mod:`gamelp.models.select`): the optimal mix of least Euclidean norm (the nearest
        to uniform), the same on every backend; None: the LP's optimum and its duals.
    **options
        Solver options.

    Returns
    -------
    MatrixNashResult
        The value, both players' mixed strategies, the model and its solution.
    """
    if exact:
        result = solve_matrix_nash(game, player, backend, form=form, select=select, **{"persistent": True, **options})
        return _with_matrix_certificate(result)
    model = matrix_nash_lp(game, player, form)
    if check_rule(select) is not None:
        for whose in PLAYERS:
            qp_backends(matrix_nash_lp(game, whose, "general"), backend)
    solution = model.solve(backend, **options)
    if not solution.optimal:
        if form == "thesis" and solution.status in (INFEASIBLE, UNBOUNDED, INFEASIBLE_OR_UNBOUNDED):
            raise SolveError(
                f"{model.name} on {backend}: the LP is {solution.status}, so the game's value is "
                "not positive (no row mix earns more than 0 against every column); the thesis "
                "form needs V > 0: use form='general'"
            )
        raise SolveError(f"{model.name} on {backend}: no optimum ({solution.status})")
    if "payoff" not in solution.duals:
        raise SolveError(
            f"{model.name} on {backend}: the backend returned no duals to read the other player's strategy from"
        )
    dual = solution.duals["payoff"]
    if form == "general":
        value = float(solution.objective)
        own = _normalised(solution.values[STRATEGY_BLOCK], f"{model.name} strategy")
        other = _normalised(-dual, f"{model.name} payoff duals")
    else:
        scaled = solution.values[STRATEGY_BLOCK]
        value = 1.0 / float(solution.objective)  # positive: C^T x >= 1 keeps x from 0
        own = _normalised(scaled, f"{model.name} strategy")
        other = _normalised(dual, f"{model.name} payoff duals")
    row, col = (own, other) if player == "row" else (other, own)
    result = MatrixNashResult(game, player, form, value, row, col, solution, model)
    if select is None:
        return result
    selections = tuple(
        select_on_face(
            matrix_nash_lp(game, whose, "general"), value, backend, select, matrix_values(game, whose), **options
        )
        for whose in PLAYERS
    )
    row, col = (_normalised(selection.strategy, f"{model.name} selected strategy") for selection in selections)
    return replace(result, row_strategy=row, col_strategy=col, select=select, selections=selections)


def _with_matrix_certificate(result: MatrixNashResult) -> MatrixNashResult:
    """``result`` with its exact certificate (:func:`gamelp.models.exact.certify_matrix_equilibrium`)."""
    from gamelp.models.exact import certify_matrix_equilibrium

    general = result.model if result.form == "general" else None  # the thesis form's basis is another LP's
    result.certificate = certify_matrix_equilibrium(
        result.game,
        result.row_strategy,
        result.col_strategy,
        model=general,
        player=result.player,
        exact_pair=(
            (lambda: (exact_strategy(result.selections[0]), exact_strategy(result.selections[1])))
            if result.select is not None
            else None
        ),
    )
    return result
