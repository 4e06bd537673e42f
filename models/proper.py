"""Normal-form proper equilibria of zero-sum sequence-form games, exactly: Dresher's procedure on the sequence form.

A proper equilibrium (Myerson 1978) is the limit of profiles in which every
pure strategy is played, a costlier mistake infinitely less often than a
cheaper one.  In a zero-sum game the proper strategies of a player are
exactly those found by Dresher's procedure (Dresher 1961; van Damme 1991,
"Stability and Perfection of Nash Equilibria", Section 3.5): among the
optimal strategies, keep those that do best against the opponent's cheapest
mistakes, then among them those that do best against the next ones, and so
on.  Where a quasi-perfect equilibrium (:mod:`gamelp.models.refine`) treats
all of the opponent's mistakes at one depth as equally likely, a proper one
weighs them by their cost.  This module computes a normal-form proper
strategy of each player, exactly, and the pair (a proper equilibrium, since
in a zero-sum game the proper strategies are interchangeable).

Dresher's procedure (van Damme 1991, Section 3.5), for player 1 with the
opponent's pure strategies ``q``: ``X_0`` all strategies, ``J_0`` all ``q``;
stage ``k`` finds ``v_k = max_{x in X_k} min_{q in J_k} x^T A q``, ``X_{k+1}``
the maximisers and ``J_{k+1}`` what is left of ``J_k`` once the ``q`` paid
exactly ``v_k`` by every maximiser are taken out; it stops when ``J`` is
empty.  Its strategies are those that maximise, lexicographically, the
sorted payoffs against the opponent's pure strategies.

On the sequence form (the approach of Miltersen and Sørensen 2008, "Fast
algorithms for finding proper strategies in game trees", SODA, Sections 3-4:
Dresher's procedure with the opponent's mistakes taken sequence by sequence,
a polynomial number of LPs).  The opponent's pure strategies are the vertices
of its polytope ``{y >= 0 : F y = f}``, exponentially many; they are taken
through its sequences instead.  For each opponent sequence ``s``,
``BR_s(x)`` is the least the opponent can pay with a pure strategy that plays
``s``: the payoff along ``s`` and a best response everywhere else.  With the
best-response values ``v`` of von Stengel's (1996, Section 4) dual and the
slacks ``g = A^T x - F^T v >= 0`` (one per opponent sequence, zero on the
best responses), ``BR_s(x) = v_root + sum_{s' <= s} g_s'``, the sum over
``s`` and its ancestors: the values of the sets hanging off ``s``'s path
enter with a positive sign, so any feasible ``v`` bounds ``BR_s`` from below
and the best-response ``v`` attains it.  Stage ``k`` is the LP::

    max  t
    s.t. F_1 x = f_1,  x >= 0
         A^T x - F_2^T v - g = 0,  g >= 0,  v free     (block best_response)
         v_root + P_s g - t >= 0   for s still open      (block levels)
         v_root + P_s g     >= l_s for s closed at level l_s

(``P_s`` the indicator of ``s`` and its ancestors).  Its optimum is
``v_k``; a sequence whose row has a nonzero dual in an optimal basis is paid
exactly ``v_k`` by every optimal ``x`` (complementary slackness), so it is
closed at level ``v_k``; the duals of the open rows sum to 1, so at least
one closes each stage and at most one LP per opponent sequence is solved.
The first stage is the Nash LP (``BR_empty`` is the best response).  A
sequence's row is the least of the opponent's pure strategies through it, so
``min_{s open} BR_s`` is the minimum over the opponent's pure strategies that
play an open sequence: the stages are Dresher's.  The tests compare the
resulting payoffs against every pure strategy with Dresher's procedure run on
the enumerated normal form of small games.

Exactly.  Each stage is solved on HiGHS and its basis checked in rational
arithmetic by the exact simplex of :mod:`gamelp.models.refine` (an LP with no
``eps``: its basic solution and duals solved exactly, primal and dual
feasibility checked without tolerance, exact primal simplex steps where the
basis is not optimal and exact dual simplex steps where it is optimal but
feasible only within HiGHS's tolerance, as happens at degenerate later stages
of OpenSpiel's Leduc), with the closed levels as fractions; the levels, and so the
value and the strategies, are exact.  The pair found for the two players is
verified once more as a Nash equilibrium
(:func:`gamelp.models.exact.verify_equilibrium`), which gives the value.

Behavioural strategies everywhere.  Where a player's own strategy reaches a
decision point, its behaviour is the ratio of the realisation weights.  A
normal-form proper strategy says nothing at a point its own play never
reaches (the reduced normal form has no choice there); there the behaviour
is a best response to the opponent's proper strategy, found by one bottom-up
pass in rational arithmetic, split equally among the actions that tie.

Payoffs are read as rationals by :data:`gamelp.models.exact.PAYOFF_RULE`.
"""

from __future__ import annotations

import logging
import time
from fractions import Fraction

import numpy as np
import scipy.sparse as sp

from gamelp.errors import SolveError
from gamelp.game import SequenceFormGame
from gamelp.model import Model
from gamelp.models.exact import CertificateError, OptimalBasis
from gamelp.models.refine import MAX_PIVOTS, ExactLP, RefinedEquilibrium, symbolic_solution, verified_pair
from gamelp.treeplex import Treeplex

log = logging.getLogger(__name__)


def _fractions(values) -> np.ndarray:
    return np.array([Fraction(v) for v in values] + [None], dtype=object)[:-1]


def ancestry(treeplex: Treeplex) -> sp.csr_array:
    """``P[s, s'] = 1`` when ``s'`` is ``s`` or one of its ancestors (the empty sequence included)."""
    parent = np.zeros(treeplex.num_sequences, dtype=np.int64)
    for j in range(treeplex.num_decision_points):
        parent[treeplex.starts[j] : treeplex.ends[j]] = treeplex.parents[j]
    rows, columns = [], []
    for s in range(treeplex.num_sequences):
        ancestor = s
        while True:
            rows.append(s)
            columns.append(ancestor)
            if ancestor == 0:
                break
            ancestor = int(parent[ancestor])
    n = treeplex.num_sequences
    return sp.csr_array((np.ones(len(rows)), (rows, columns)), shape=(n, n))


def dresher_lp(game: SequenceFormGame, player: int, levels: np.ndarray) -> ExactLP:
    """Stage LP of Dresher's procedure for ``player`` (the module docstring), with its exact data.

    ``levels`` holds, per opponent sequence, the level (a Fraction) at which it was closed, or None if open.
    """
    own, opp = game.player(player), game.player(3 - player)
    n = opp.num_sequences
    model = Model(f"{game.name}_proper_pl{player}")
    x = model.add_variables("x", own.num_sequences, lb=0.0, labels=own.labels)
    v = model.add_variables("v", opp.num_decision_points + 1, lb=-np.inf, labels=("root",) + opp.decision_points)
    g = model.add_variables("g", n, lb=0.0, labels=opp.labels)
    t = model.add_variables("t", 1, lb=-np.inf)
    model.add_constraints(
        "best_response", {x: game.payoff_matrix(player).T, v: -opp.F.T, g: -sp.identity(n)}, "==", 0.0
    )
    model.add_constraints("polytope", {x: own.F}, "==", own.f)
    is_open = np.array([level is None for level in levels])
    root = sp.csr_array((np.ones(n), (np.arange(n), np.zeros(n, dtype=np.int64))), shape=(n, v.size))
    right = [Fraction(0) if level is None else level for level in levels]
    model.add_constraints(
        "levels",
        {v: root, g: ancestry(opp), t: -is_open.astype(float)[:, None]},
        ">=",
        np.array([float(q) for q in right]),
        labels=opp.labels,
    )
    model.set_objective({t: [1.0]}, sense="max")
    form = model.matrix_form()
    columns = form.A.shape[1]
    bounded = np.zeros(columns, dtype=bool)
    bounded[form.variable_slices["x"]] = bounded[form.variable_slices["g"]] = True
    costs = _fractions([0] * columns)
    costs[form.variable_slices["t"]] = Fraction(1)
    rhs = _fractions([0] * form.A.shape[0])
    rhs[form.row_slices["polytope"]] = _fractions(own.f.astype(int).tolist())
    rhs[form.row_slices["levels"]] = _fractions(right)
    return ExactLP(model, [_fractions([0] * columns)], bounded, [costs], rhs)


def dresher(game: SequenceFormGame, player: int, **options) -> tuple[np.ndarray, np.ndarray, dict]:
    """A normal-form proper strategy of ``player`` by Dresher's procedure on the sequence form (module docstring).

    Returns the strategy (sequence form, fractions), the levels (one Fraction per opponent sequence: the stage
    value at which it closed) and counts (``lps``, ``pivots``, ``wall``: HiGHS's seconds, ``solution``: the last
    stage's).
    """
    opp = game.player(3 - player)
    levels = np.array([None] * opp.num_sequences, dtype=object)
    counts: dict = {"lps": 0, "pivots": 0, "wall": 0.0, "solution": None}
    while any(level is None for level in levels):
        lp = dresher_lp(game, player, levels)
        counts["lps"] += 1
        solution = lp.model.solve("highs", persistent=True, **options)
        counts["wall"] += solution.wall_time
        counts["solution"] = solution
        if not solution.optimal:
            raise SolveError(f"{lp.model.name}, stage {counts['lps']}: no optimum on highs ({solution.status})")
        try:
            symbolic = symbolic_solution(lp, OptimalBasis.of(lp.model), MAX_PIVOTS, dual_steps=True)
        except CertificateError as error:
            raise SolveError(f"stage {counts['lps']} of Dresher's procedure: {error}") from None
        counts["pivots"] += symbolic.pivots
        form = lp.model.matrix_form()
        value = symbolic.values[0][form.variable_slices["t"]][0]
        duals = symbolic.duals[0][form.row_slices["levels"]]
        closing = [s for s, level in enumerate(levels) if level is None and duals[s] != 0]
        if not closing:
            raise SolveError(f"{lp.model.name}, stage {counts['lps']}: no open sequence has a nonzero dual")
        log.info("player %d, stage %d: level %s closes %d sequences", player, counts["lps"], value, len(closing))
        levels[closing] = value
        strategy = symbolic.values[0][form.variable_slices["x"]]
    return strategy, levels, counts


def completed_behaviour(treeplex: Treeplex, strategy: np.ndarray, payoffs: np.ndarray) -> dict:
    """The behavioural form of ``strategy``, exact, with behaviour at every decision point.

    Where the strategy's own play never reaches a point, a best response to the sequence payoffs ``payoffs``
    (the opponent's strategy as seen by this player), split equally among the actions that tie.
    """
    best = list(payoffs)  # each sequence's payoff with the best continuation below it, filled bottom-up
    for j in range(treeplex.num_decision_points - 1, -1, -1):
        best[treeplex.parents[j]] += max(best[treeplex.starts[j] : treeplex.ends[j]])
    out = {}
    for j, point in enumerate(treeplex.decision_points):
        local = strategy[treeplex.starts[j] : treeplex.ends[j]]
        reach = strategy[treeplex.parents[j]]
        if reach:
            out[point] = {a: q / reach for a, q in zip(treeplex.actions[point], local)}
            continue
        values = best[treeplex.starts[j] : treeplex.ends[j]]
        top = max(values)
        ties = sum(1 for value in values if value == top)
        out[point] = {a: Fraction(int(value == top), ties) for a, value in zip(treeplex.actions[point], values)}
    return out


def solve_proper(game: SequenceFormGame, **options) -> RefinedEquilibrium:
    """A normal-form proper equilibrium of ``game``, exactly, with behaviour at every decision point.

    Both players' strategies by Dresher's procedure on the sequence form (:func:`dresher`), verified as a Nash
    equilibrium in rational arithmetic; ``options`` go to HiGHS (``time_limit``, ``verbose``, ...).
    """
    start = time.perf_counter()
    x, _, first = dresher(game, 1, **options)
    y, _, second = dresher(game, 2, **options)
    certificate, payoffs = verified_pair(
        game, x, y, "Dresher's procedure on the sequence form, every stage's basis verified optimal exactly"
    )
    behaviour = (
        completed_behaviour(game.pl1, x, payoffs.matvec(y)),
        completed_behaviour(game.pl2, y, -payoffs.T.matvec(x)),
    )
    wall = first["wall"] + second["wall"]
    log.info("proper: %d + %d LPs in %.2f s", first["lps"], second["lps"], time.perf_counter() - start)
    return RefinedEquilibrium(
        game,
        "proper",
        certificate,
        behaviour,
        None,
        None,
        first["lps"] + second["lps"],
        first["pivots"] + second["pivots"],
        second["solution"],
        wall,
    )
