"""The determinism counts, the sweep's gap test and its bounds checked against brute force and exact values."""

import functools
import heapq
import itertools
import time
from dataclasses import replace

import numpy as np
import pytest
from scipy.optimize import linprog

from gamelp.errors import SolveError
from gamelp.game import SequenceFormGame, load_game
from gamelp.games import poker
from gamelp.models.determinism import (
    DETERMINISM_TOL,
    STATUSES,
    SweepPoint,
    _choice_lp,
    _greedy_step,
    _Sweep,
    bound_sources,
    determinism,
    deterministic_choices,
    deterministic_ilp,
    k_sweep,
    kdet_mip,
    solve_deterministic,
    solve_kdet,
)
from gamelp.models.kdet_search import MIXING, UNDECIDED, FaceLP, KdetSearch, _Node, mixed_points, search_sweep
from gamelp.models.nash import solve_nash
from gamelp.units import normalised


def point(value, bound, unit=1.0):
    return SweepPoint(k=0, value=value, bound=bound, solved=True, determinism=0, strategy={}, unit=unit)


def test_within_at_its_exact_boundary():
    # Relative: value -2 with rel_gap 0.1 allows a bound up to -1.8 (times 1 + 1e-9 for rounding).
    assert point(-2.0, -2.0 + 0.2).within(0.1)
    assert not point(-2.0, -2.0 + 0.2 * (1 + 3e-9)).within(0.1)
    assert point(-2.0, -2.0 + 0.2 * (1 - 1e-6)).within(0.1)
    # Exactly at the limit: the bound minus the value equals the allowance (value 0, so no rounding in the sum).
    assert point(0.0, 0.25 * (1 + 1e-9)).within(0.0, 0.25)
    assert not point(0.0, 0.25 * (1 + 3e-9)).within(0.0, 0.25)
    # Absolute: relative to the payoff range the sweep ran in.
    assert point(0.0, 1.0, unit=4.0).within(0.0, 0.25)
    assert not point(0.0, 1.0 + 1e-6, unit=4.0).within(0.0, 0.25)
    # The larger of the two allowances applies.
    assert point(10.0, 11.0, unit=1.0).within(0.1, 0.01)
    assert point(0.01, 1.0, unit=4.0).within(0.1, 0.25)
    assert not point(10.0, 11.5).within(0.1, 0.01)


def test_a_points_status_is_its_solved_and_proven_flags_together():
    statuses = {
        (solved, proven): replace(point(0.0, 0.0), solved=solved, proven=proven).status
        for solved in (True, False)
        for proven in (True, False)
    }
    assert statuses == {
        (True, True): "optimal",
        (False, True): "implied",
        (True, False): "time_limit",
        (False, False): "open",
    }
    assert set(statuses.values()) == set(STATUSES)
    shown = replace(point(-1.0, -0.5), solved=False, proven=True, source=3, seconds=0.0).to_dict()
    assert {key: shown[key] for key in ("status", "solved", "proven", "source", "seconds")} == {
        "status": "implied",
        "solved": False,
        "proven": True,
        "source": 3,
        "seconds": 0.0,
    }


def test_a_bound_comes_from_the_latest_k_with_the_least_bound_so_far():
    inf = np.inf
    assert bound_sources(np.array([inf, 3.0, 5.0, 2.0, 2.0, inf, 1.0])) == [None, 1, 1, 3, 4, 4, 6]
    assert bound_sources(np.array([0.5, inf])) == [0, 0]


def test_mip_gap_is_relative_to_the_value_or_the_payoff_range():
    assert point(-2.0, -1.5).mip_gap == pytest.approx(0.25, rel=1e-12)
    assert point(4.0, 5.0).mip_gap == pytest.approx(0.25, rel=1e-12)
    assert point(0.0, 1e-9, unit=2.0).mip_gap == pytest.approx(1e-9 / 2e-10, rel=1e-9)


def behavioural_mixtures(own, rng, count):
    """Strategies mixing at a random subset of points (pure elsewhere, some actions never reaching below)."""
    for _ in range(count):
        behaviour = {}
        for point_name in own.decision_points:
            actions = own.actions[point_name]
            kind = rng.integers(3)
            if kind == 0:  # pure
                probs = np.zeros(len(actions))
                probs[rng.integers(len(actions))] = 1.0
            elif kind == 1:  # mixed
                probs = rng.dirichlet(np.ones(len(actions)))
            else:  # mixed with one action at 0
                probs = rng.dirichlet(np.ones(len(actions)))
                probs[rng.integers(len(actions))] = 0.0
                probs /= probs.sum()
            behaviour[point_name] = dict(zip(actions, probs))
        yield own.from_behavioural(behaviour)


def brute_force_most_choices(own, x, tol=DETERMINISM_TOL):
    """The largest sum z over z in P(k)'s constraints for this x, by enumerating every choice vector."""
    per_point = [[None, *range(own.starts[j], own.ends[j])] for j in range(own.num_decision_points)]
    best = -1
    for pick in itertools.product(*per_point):
        chosen = [s for s in pick if s is not None]
        if all(x[s] >= x[own.parents[own.decision_point_of[s]]] - tol for s in chosen):
            best = max(best, len(chosen))
    return best


@pytest.mark.parametrize("name, player", [("kuhn", 1), ("kuhn", 2), ("rps", 1)])
def test_deterministic_choices_against_brute_force(name, player, request):
    own = request.getfixturevalue(name).player(player)
    n = own.num_sequences
    rng = np.random.default_rng(7)
    for x in behavioural_mixtures(own, rng, 25):
        z = deterministic_choices(own, x)
        assert z.shape == (n - 1,)
        assert set(np.unique(z)) <= {0.0, 1.0}
        # (x, z) satisfies P(k)'s constraints: x[ja] >= x[p_j] + z[ja] - 1, one action per point.
        seq = np.arange(1, n)
        parents = own.parents[own.decision_point_of[seq]]
        assert np.all(x[seq] >= x[parents] + z - 1 - 1e-12)
        assert np.all(x[seq][z == 1] >= x[parents][z == 1] - DETERMINISM_TOL)
        per_point = np.bincount(own.decision_point_of[seq], weights=z, minlength=own.num_decision_points)
        assert per_point.max() <= 1
        # ... and is the largest such z, so determinism counts what P(k) could claim.
        assert z.sum() == brute_force_most_choices(own, x) == determinism(own, x)
        # The first action played whenever reached is the one marked.
        for j in np.flatnonzero(per_point):
            played = [s for s in range(own.starts[j], own.ends[j]) if x[s] >= x[own.parents[j]] - DETERMINISM_TOL]
            assert z[played[0] - 1] == 1


def test_deterministic_choices_tolerance(kuhn):
    own = kuhn.pl1
    pure = own.best_response(np.ones(own.num_sequences))[1]
    j = 0
    s, e = own.starts[j], own.ends[j]
    shaved = pure.copy()
    played = s + int(np.argmax(pure[s:e]))
    for slack, counted in [(0.5 * DETERMINISM_TOL, True), (2 * DETERMINISM_TOL, False)]:
        shaved[s:e] = pure[s:e]
        shaved[played] -= slack
        shaved[s + (played - s + 1) % (e - s)] += slack
        assert determinism(own, shaved) == own.num_decision_points - (not counted)
        # A tolerance given explicitly is the one used.
        assert determinism(own, shaved, tol=10 * DETERMINISM_TOL) == own.num_decision_points


@pytest.mark.parametrize("player", [1, 2])
def test_time_limited_sweep_steps_report_a_bound_above_the_exact_value(kuhn, player):
    """A P(k) stopped by its time limit carries its start as incumbent and no bound: the curve stays honest."""
    results = [solve_kdet(kuhn, player, k) for k in range(kuhn.player(player).num_decision_points + 1)]
    assert [result.k for result in results] == list(range(len(results)))
    exact = [result.value for result in results]
    sweep = _Sweep(kuhn, player, "highs", (1e-6, None), True, {})
    total = sweep.total
    sweep.value_model.set_rhs("at_least_k", total)
    sweep.record(total, sweep.run(sweep.value_model))  # the deterministic ILP, solved to optimality
    sweep.options = {"time_limit": 0.0}  # every later MIP stops before its first node, at its start
    reached = sweep.level(0)
    assert reached == total  # the start (the pure strategy) is deterministic everywhere
    curve = sweep.result()
    assert sweep.mips == 2
    for p, value in zip(curve.points, exact):
        assert p.value <= value + 1e-9 <= p.bound + 2e-9  # an incumbent below, a bound above
    top = curve.points[-1]
    assert top.value == pytest.approx(exact[-1], abs=1e-9) and top.bound == pytest.approx(exact[-1], abs=1e-9)
    assert curve.points[0].value < exact[0] - 1e-3  # the time limit did bite: k = 0 is still open
    assert not curve.points[0].within(1e-3)


@pytest.mark.slow
@pytest.mark.parametrize("name, player", [("kuhn", 1), ("kuhn", 2), ("rps", 2)])
def test_sweep_against_exhaustive_choice_enumeration(name, player, request):
    """V(k) is the best over every choice vector with k or more choices of the Nash LP with those choices fixed."""
    game = request.getfixturevalue(name)
    own = game.player(player)
    sweep = k_sweep(game, player)
    per_point = [[None, *range(own.starts[j], own.ends[j])] for j in range(own.num_decision_points)]
    best = np.full(own.num_decision_points + 1, -np.inf)
    opponent = game.player(3 - player)
    for pick in itertools.product(*per_point):
        chosen = [s for s in pick if s is not None]
        value = _value_with_fixed_choices(game, player, own, opponent, chosen)
        best[: len(chosen) + 1] = np.maximum(best[: len(chosen) + 1], value)
    assert sweep.values == pytest.approx(best, abs=1e-7)
    for p in sweep.points:
        assert p.determinism >= p.k
        x = np.array([p.strategy[label] for label in own.labels])
        assert game.guaranteed_value(player, x) == pytest.approx(p.value, abs=1e-7)


def _value_with_fixed_choices(game, player, own, opponent, chosen):
    """max_x min_y x A y with x[s] = x[parent(s)] for the chosen sequences, by scipy's linprog (not the models)."""
    A = game.payoff_matrix(player).toarray()
    n, m = own.num_sequences, opponent.num_decision_points + 1
    F_opp, f_opp = opponent.F.toarray(), opponent.f
    # max f_opp . v  s.t.  F_opp^T v <= A^T x (every opponent sequence), F x = f, x >= 0, chosen fixed.
    c = np.concatenate([np.zeros(n), -f_opp])
    A_ub = np.hstack([-A.T, F_opp.T])
    b_ub = np.zeros(A.shape[1])
    rows = [np.concatenate([own.F.toarray()[i], np.zeros(m)]) for i in range(own.F.shape[0])]
    rhs = list(own.f)
    for s in chosen:
        row = np.zeros(n + m)
        row[s] += 1.0
        row[own.parents[own.decision_point_of[s]]] -= 1.0
        rows.append(row)
        rhs.append(0.0)
    bounds = [(0, None)] * n + [(None, None)] * m
    res = linprog(c, A_ub=A_ub, b_ub=b_ub, A_eq=np.array(rows), b_eq=np.array(rhs), bounds=bounds, method="highs")
    assert res.status == 0
    return -res.fun


def test_exactly_pure_counts_with_zero_tolerance(kuhn):
    own = kuhn.pl2
    pure = own.best_response(np.arange(own.num_sequences, dtype=float))[1]  # 0/1 exactly
    assert determinism(own, pure, tol=0.0) == own.num_decision_points
    assert determinism(own, own.uniform_strategy(), tol=0.0) == 0


@pytest.mark.parametrize("player", [1, 2])
def test_kdet_choices_are_one_action_per_point_played_whenever_reached(kuhn, player):
    own = kuhn.player(player)
    seq = np.arange(1, own.num_sequences)
    for k in range(own.num_decision_points + 1):
        result = solve_kdet(kuhn, player, k)
        z = np.round(result.solution.values["z"])
        assert z.sum() >= k
        per_point = np.bincount(own.decision_point_of[seq], weights=z, minlength=own.num_decision_points)
        assert per_point.max() <= 1  # one action per decision point, even where the point is never reached
        x = result.strategy
        parents = own.parents[own.decision_point_of[seq]]
        assert np.all(x[seq][z == 1] >= x[parents][z == 1] - 1e-7)
    assert solve_deterministic(kuhn).player == 1 and deterministic_ilp(kuhn).name == "kuhn_deterministic_pl1"
    assert solve_deterministic(kuhn).value == pytest.approx(solve_kdet(kuhn, 1, kuhn.pl1.num_decision_points).value)


def kdet_rows_hold(model, x, z):
    """Whether (x, z) satisfies P(k)'s determinism rows (the best-response rows are about v, not checked)."""
    full = np.zeros(sum(block.size for block in model.variables.values()))
    full[model.variables["x"].slice], full[model.variables["z"].slice] = x, z
    for name in ("determinism_link", "one_action", "at_least_k"):
        block = model.constraints[name]
        lhs = block.matrix @ full
        ok = lhs >= block.rhs - 1e-9 if block.sense == ">=" else lhs <= block.rhs + 1e-9
        if not ok.all():
            return False
    return True


def test_kdet_rows_accept_exactly_one_action_per_point_played_whenever_reached(kuhn):
    own = kuhn.pl1
    n = own.num_decision_points
    model = kdet_mip(kuhn, 1, n)
    # Betting with every card at the first point leaves the three "check, then bet" points unreached.
    pure = own.best_response(np.array([1.0 if label.endswith(":b") else 0.0 for label in own.labels]))[1]
    z = deterministic_choices(own, pure)
    assert z.sum() == n and kdet_rows_hold(model, pure, z)
    assert model.constraints["at_least_k"].size == 1 and model.constraints["one_action"].size == n
    unreached = [j for j in range(n) if pure[own.parents[j]] == 0]
    assert unreached
    j = unreached[0]
    double = z.copy()
    double[own.starts[j] - 1 : own.ends[j] - 1] = 1.0  # two actions at an unreached point
    assert not kdet_rows_hold(kdet_mip(kuhn, 1, 0), pure, double)
    # A mixed point cannot be marked: x[ja] >= x[p_j] + z[ja] - 1 fails.
    mixed = own.uniform_strategy()
    marked = np.zeros(own.num_sequences - 1)
    marked[0] = 1.0
    assert not kdet_rows_hold(kdet_mip(kuhn, 1, 1), mixed, marked)
    assert kdet_rows_hold(kdet_mip(kuhn, 1, 0), mixed, np.zeros(own.num_sequences - 1))
    assert not kdet_rows_hold(kdet_mip(kuhn, 1, 1), mixed, np.zeros(own.num_sequences - 1))  # sum z >= 1


def test_sweep_points_carry_the_payoff_range_they_ran_in(kuhn):
    unit = normalised(kuhn)[1]
    doubled = SequenceFormGame(kuhn.pl1, kuhn.pl2, kuhn.A * 3.0, "kuhn_x3")
    for game, expected in ((kuhn, unit), (doubled, 3.0 * unit)):
        points = k_sweep(game, 1).points
        assert all(p.unit == pytest.approx(expected, rel=1e-12) for p in points)
    # Built by hand, a point's payoff range is 1: an absolute gap is then in payoff units.
    bare = SweepPoint(k=0, value=0.0, bound=0.25, solved=True, determinism=0, strategy={})
    assert bare.within(0.0, 0.25) and not bare.within(0.0, 0.2)


def test_sweep_progress_counts_up_to_every_k(kuhn):
    assert k_sweep(load_game("rps")).player == search_sweep(load_game("rps")).player == 1  # player 1 by default
    calls = []
    total = kuhn.pl2.num_decision_points
    k_sweep(kuhn, 2, progress=lambda done, of: calls.append((done, of)))
    assert all(of == total + 1 for _, of in calls)
    # V(k) = 1/18 up to k = 4 and less from k = 5: the first level's MIP ends it at 4, so k = 0..4 are done at once.
    assert calls[0] == (5, total + 1)
    done = [d for d, _ in calls]
    assert done == sorted(done) and done[-1] == total + 1 and done[0] >= 1
    assert len(done) >= 2 and done[-2] <= total
    searched = []  # the search reports every k, one at a time
    search_sweep(kuhn, 2, progress=lambda done, of: searched.append((done, of)))
    assert searched == [(k + 1, total + 1) for k in range(total + 1)]


@pytest.mark.parametrize("name, player", [("kuhn", 1), ("kuhn", 2), ("rps", 1)])
def test_sweep_solves_at_most_two_mips_per_value_level(name, player, request):
    """The top ILP, then per value level P(k) at its first k and at most one MIP that finds where it ends."""
    sweep = k_sweep(request.getfixturevalue(name), player)
    levels = len(set(np.round(sweep.values, 9).tolist()))
    assert levels + 1 <= sweep.mips_solved <= 2 * levels + 1
    assert sweep.lps_solved > 0 if name == "kuhn" else sweep.lps_solved == 0  # greedy steps: Kuhn has mixed points
    first_of_level = [0] + [k for k in range(1, len(sweep.points)) if sweep.values[k] < sweep.values[k - 1] - 1e-9]
    assert all(sweep.points[k].solved for k in first_of_level)


@pytest.mark.parametrize("player", [1, 2])
def test_greedy_step_is_the_best_single_point_extension(kuhn, player):
    """The greedy heuristic against exhaustive search: every (mixed point, action) fixed in turn, by linprog."""
    own, opponent = kuhn.player(player), kuhn.player(3 - player)
    start = solve_nash(kuhn, player).strategy
    kept = [s for s in range(1, own.num_sequences) if deterministic_choices(own, start)[s - 1]]
    mixed = [j for j in range(own.num_decision_points) if not any(own.starts[j] <= s < own.ends[j] for s in kept)]
    assert mixed
    best = max(
        _value_with_fixed_choices(kuhn, player, own, opponent, [*kept, s])
        for j in mixed
        for s in range(own.starts[j], own.ends[j])
    )
    step = _greedy_step(_choice_lp(kuhn, player), own, start, lambda model: model.solve("highs"))
    assert step.objective == pytest.approx(best, abs=1e-8)
    assert determinism(own, step.values["x"]) >= len(kept) + 1
    pure = own.best_response(np.ones(own.num_sequences))[1]
    assert _greedy_step(_choice_lp(kuhn, player), own, pure, lambda model: model.solve("highs")) is None


# ---------------------------------------------------------------------- the search sweep (kdet_search)
@pytest.mark.parametrize("player", [1, 2])
def test_mixed_points_are_the_points_without_a_choice(kuhn, player):
    own = kuhn.player(player)
    seq = np.arange(1, own.num_sequences)
    for x in behavioural_mixtures(own, np.random.default_rng(3), 25):
        z = deterministic_choices(own, x)
        chosen = np.bincount(own.decision_point_of[seq], weights=z, minlength=own.num_decision_points)
        assert np.array_equal(mixed_points(own, x), chosen == 0)
        assert own.num_decision_points - mixed_points(own, x).sum() == determinism(own, x)


@pytest.mark.parametrize("player", [1, 2])
def test_face_lp_against_linprog(kuhn, player):
    own, opponent = kuhn.player(player), kuhn.player(3 - player)
    face = FaceLP(kuhn, player)
    rng = np.random.default_rng(8)
    for _ in range(6):
        choice = np.where(rng.random(own.num_decision_points) < 0.5, UNDECIDED, 0)
        choice[choice == 0] = rng.integers(2, size=(choice == 0).sum())
        upper = face.upper_bounds(choice)
        fixed = [own.starts[j] + choice[j] for j in np.flatnonzero(choice >= 0)]
        others = [s for s in range(1, own.num_sequences) if choice[own.decision_point_of[s]] >= 0 and s not in fixed]
        assert np.all(upper[others] == 0) and np.isinf(np.delete(upper, others)).all()
        value, x, _ = face.solve(choice)
        assert value == pytest.approx(_value_with_fixed_choices(kuhn, player, own, opponent, fixed), abs=1e-8)
        assert own.infeasibility(x) < 1e-8 and np.all(x[others] <= 1e-12)
    assert face.solves == 6


@pytest.mark.parametrize("player", [1, 2])
def test_the_search_dive_first_fixes_the_best_point_and_action(player):
    """The dive's first step against exhaustive search: every (mixed point, action) of the root fixed alone."""
    game = SequenceFormGame.from_dict(poker.leduc(ranks=3, suits=1, raise_sizes=(1, 2), max_raises=1), "leduc_3x1")
    own = game.player(player)
    search = KdetSearch(game, player)
    nash = search.solve_root()
    root = search.strategy[0]
    assert search.value[0] == pytest.approx(nash, abs=1e-12)
    mixed = np.flatnonzero(mixed_points(own, root))
    assert mixed.size >= 2
    face = FaceLP(game, player)
    values = []
    for j in mixed:
        for action in range(own.ends[j] - own.starts[j]):
            choice = np.full(own.num_decision_points, UNDECIDED)
            choice[j] = action
            values.append(face.solve(choice)[0])
    first = own.num_decision_points - mixed.size + 1  # the determinism the first step reaches at least
    assert search.value[first] == pytest.approx(max(values), abs=1e-9)
    assert max(values) > min(values) + 1e-6  # the choice matters here


def test_search_tolerances_and_incumbents(kuhn):
    search = KdetSearch(kuhn, 1)
    assert search.tolerance(2.0) == pytest.approx(0.02) and search.tolerance(-3.0) == pytest.approx(0.03)
    assert search.tolerance(0.001) == 1e-4  # the absolute floor
    strict = KdetSearch(kuhn, 1, rel_gap=0.0, abs_gap=0.0)
    pure = kuhn.pl1.best_response(np.ones(kuhn.pl1.num_sequences))[1]
    strict.offer(-0.5, kuhn.pl1.uniform_strategy())  # determinism 0: an incumbent for k = 0 only
    assert strict.value[0] == -0.5 and np.isinf(strict.value[1:]).all()
    strict.offer(-0.7, pure)  # fully pure, worse: improves every k but 0
    assert strict.value[0] == -0.5 and (strict.value[1:] == -0.7).all()
    assert strict.cutoff(0) == -0.5 and strict.strategy[3] is pure


def kuhn_cards(n):
    return SequenceFormGame.from_dict(poker.kuhn(n), f"kuhn{n}")


@pytest.mark.parametrize(
    "make, player",
    [
        (lambda: load_game("kuhn"), 1),
        (lambda: load_game("rps"), 1),
        (lambda: kuhn_cards(6), 1),  # 23 nodes
        (lambda: kuhn_cards(6), 2),
        (lambda: kuhn_cards(8), 1),
    ],
    ids=["kuhn-1", "rps-1", "kuhn6-1", "kuhn6-2", "kuhn8-1"],
)
def test_search_sweep_against_the_mip_sweep(make, player):
    game = make()
    own = game.player(player)
    exact = k_sweep(game, player).values
    sweep = search_sweep(game, player, rel_gap=0.0, abs_gap=1e-12)
    assert sweep.values == pytest.approx(exact, abs=1e-8)
    assert all(p.bound >= v - 1e-9 and p.within(0.0, 1e-9) for p, v in zip(sweep.points, exact))
    assert sweep.lps_solved > 0 and sweep.backend == "highs" and sweep.player == player
    for p in sweep.points:
        x = np.array([p.strategy[label] for label in own.labels])
        assert game.guaranteed_value(player, x) == pytest.approx(p.value, abs=1e-7) and p.determinism >= p.k


def test_a_search_stopped_by_its_clock_reports_a_valid_open_bound():
    """A counting clock stops the search after a fixed number of nodes: whatever is open bounds V(k) from above."""
    game = kuhn_cards(6)
    exact = k_sweep(game, 1).values
    stopped_open = 0
    for k in range(game.pl1.num_decision_points + 1):
        for budget in (1, 3, 6):
            search = KdetSearch(game, 1, rel_gap=0.0, abs_gap=1e-9)
            search.solve_root()
            bound = search.prove(k, deadline=budget, clock=itertools.count().__next__)
            assert search.value[k] <= exact[k] + 1e-9 <= bound + 2e-9
            stopped_open += bound > exact[k] + 1e-6
    assert stopped_open  # some searches were cut short with nodes open


@pytest.mark.parametrize("player", [1, 2])
def test_forcing_designates_exactly_the_points_no_pure_action_of_which_beats_the_cutoff(kuhn, player):
    """Brute force over every mixed point and action of the root: forced (mixing) iff every pure action's face LP is
    at or below the cutoff; the other points keep their trials, in action order, up to the first above it."""
    search = KdetSearch(kuhn, player, rel_gap=0.0, abs_gap=0.0)
    own = search.own
    choice = np.full(search.total, UNDECIDED)
    _, x, basis = search.lp.solve(choice)
    mixed = mixed_points(own, x)
    assert mixed.sum() >= 2
    pure = {}  # point -> LP value with it playing each action
    for j in np.flatnonzero(mixed):
        pure[j] = []
        for a in range(own.ends[j] - own.starts[j]):
            trial = choice.copy()
            trial[j] = a
            pure[j].append(search.lp.solve(trial)[0])
    best = sorted(max(values) for values in pure.values())
    assert best[0] < best[-1]
    search.value[0] = (best[0] + best[-1]) / 2  # a cutoff between the points' best pure values
    search.offer = lambda value, x: None  # the trials' strategies must not move the cutoff during the test
    node = _Node(choice.copy(), basis, np.inf, np.full(search.total, np.inf))
    forcing = search._forcing(0, node, mixed, basis)
    forced = {j for j, values in pure.items() if max(values) <= search.value[0]}
    assert forced and set(forcing) == set(pure) - forced
    assert set(np.flatnonzero(node.choice == MIXING)) == forced
    for j, trials in forcing.items():
        first_above = next(a for a, v in enumerate(pure[j]) if v > search.value[0])
        assert [a for _, a in trials] == list(range(first_above + 1))
        assert [v for v, _ in trials] == pytest.approx(pure[j][: first_above + 1], abs=1e-9)
    # With no room for a mixing point (k = every point), the first forced point prunes the node.
    full = _Node(choice.copy(), basis, np.inf, np.full(search.total, np.inf))
    search.value[search.total] = search.value[0]
    assert search._forcing(search.total, full, mixed, basis) is None


def test_a_k_that_the_nash_lp_solves_takes_one_node(kuhn):
    search = KdetSearch(kuhn, 1, rel_gap=0.0, abs_gap=1e-9)
    search.solve_root()
    assert search.prove(0) == pytest.approx(search.value[0] + 1e-9) and search.nodes == 1


@pytest.mark.parametrize("player", [1, 2])
def test_with_no_gap_a_node_exactly_at_the_incumbent_is_pruned_before_any_forcing_trial(kuhn, player):
    """rel_gap = abs_gap = 0 and the incumbent set to the root LP's own value: the cutoff is that value, so the root
    is pruned after its one LP (a root expanded at the tie would solve a forcing trial per mixed action)."""
    search = KdetSearch(kuhn, player, rel_gap=0.0, abs_gap=0.0)
    value, x, _ = search.lp.solve(np.full(search.total, UNDECIDED))
    assert mixed_points(search.own, x).any()  # there would be trials to solve
    search.offer = lambda value, x: None  # the incumbent stays the root's value
    search.value[0] = value
    assert search.prove(0) == value and search.nodes == 1 and search.lp.solves == 2


def test_branch_splits_the_point_whose_best_pure_action_costs_most(kuhn):
    """The split point is the one with the lowest best trial; "mixes" comes first (if room), on the same LP."""
    search = KdetSearch(kuhn, 1)
    own = search.own
    assert own.ends[2] - own.starts[2] == 2
    forcing = {0: [(0.5, 0)], 2: [(0.4, 0), (0.2, 1)], 3: [(0.9, 1)]}
    node = _Node(np.full(search.total, UNDECIDED), None, np.inf, np.arange(search.total, dtype=float))
    mixes, *pure = search._branch(0, node, 1.0, "basis", forcing)
    assert mixes.choice[2] == MIXING and (np.delete(mixes.choice, 2) == UNDECIDED).all()
    assert mixes.bound == 1.0 and mixes.basis == "basis"
    assert mixes.same_lp == (1.0, "basis", {0: forcing[0], 3: forcing[3]})
    assert [child.choice[2] for child in pure] == [1, 0]  # the cheaper action's child first
    assert [child.bound for child in pure] == [0.2, 0.4]
    assert all(child.same_lp is None and child.basis == "basis" for child in pure)
    assert all((child.hint == node.hint).all() and child.hint is not node.hint for child in [mixes, *pure])
    # An action without a trial keeps the parent's bound; with no room for a mixing point, only pure children.
    only_pure = search._branch(search.total, node, 1.0, "basis", {2: [(0.4, 0)]})
    assert [(child.choice[2], child.bound) for child in only_pure] == [(0, 0.4), (1, 1.0)]
    assert search._branch(0, node, 1.0, "basis", {}) == []


def test_sweep_asks_each_mip_of_p_k_for_the_absolute_gap(kuhn, monkeypatch):
    """``abs_gap`` ends the MIPs of P(k) (the gap that counts near a value of 0), not the level MIPs."""
    from gamelp.model import Model

    asked = set()
    solve = Model.solve

    def spy(self, *args, **options):
        if self.is_mip:
            asked.add(("level" in self.name, options.get("mip_abs_gap")))
        return solve(self, *args, **options)

    monkeypatch.setattr(Model, "solve", spy)
    k_sweep(kuhn, 1, abs_gap=1e-3)
    assert asked == {(False, 1e-3), (True, None)}
    asked.clear()
    k_sweep(kuhn, 1)
    assert asked == {(False, None), (True, None)}


def test_sweep_counts_and_times_are_those_of_its_solves(kuhn, monkeypatch):
    """A spy on every solve: the sweep's MIP and LP counts and its solver time are theirs, shared out over k."""
    from gamelp.model import Model

    solves = []
    solve = Model.solve

    def spy(self, *args, **options):
        solution = solve(self, *args, **options)
        solves.append((self.is_mip, solution.wall_time))
        gaps.add(options.get("mip_gap") if self.is_mip else None)
        persistence.add((self.is_mip, options.get("persistent")))
        return solution

    gaps: set = set()
    persistence: set = set()
    monkeypatch.setattr(Model, "solve", spy)
    sweep = k_sweep(kuhn, 1, mip_gap=2e-6)
    assert gaps == {2e-6, None}  # every MIP is asked for the sweep's gap
    assert persistence == {(True, False), (False, True)}  # the greedy step's LPs warm-start, the MIPs do not
    assert sweep.mips_solved == sum(mip for mip, _ in solves) > 0
    assert sweep.lps_solved == sum(not mip for mip, _ in solves) > 0
    assert sweep.wall_time == pytest.approx(sum(seconds for _, seconds in solves), rel=1e-12, abs=0)
    assert sum(p.seconds for p in sweep.points) == pytest.approx(sweep.wall_time, rel=1e-12, abs=0)
    assert sweep.nodes == 0  # no branch-and-bound of its own (search_sweep's)
    assert repr(sweep).startswith("KSweep(player=1, k=0..6, values=-0.0555556..-0.166667, mips_solved=")
    assert point(0.1, 0.2).seconds == 0.0  # a point no solve was spent on


@pytest.mark.parametrize("player", [1, 2])
def test_exact_search_sweep_searches_only_where_the_carried_bound_beats_the_incumbent(kuhn, player):
    """With no gap allowed, P(k) is searched exactly when the bound carried from k - 1 lies above V(k)'s incumbent."""
    sweep = search_sweep(kuhn, player, rel_gap=0.0, abs_gap=0.0)
    exact = k_sweep(kuhn, player).values
    assert sweep.values == pytest.approx(exact, abs=1e-12)
    points = sweep.points
    assert points[0].solved and points[0].source == 0  # the Nash LP solves P(0); its value is its own incumbent
    for before, here in itertools.pairwise(points[:-1]):  # k = |J| also has the top ILP's bound
        assert here.solved == (before.bound > here.value)


def test_a_sweep_shows_its_ends_its_nodes_and_its_values_by_k(rps, kuhn):
    """Rock-paper-superscissors: V(0) = 0, V(1) = -1; the search sweep on Kuhn counts its nodes."""
    sweep = k_sweep(rps, 1)
    assert repr(sweep).startswith("KSweep(player=1, k=0..1, values=0..-1, mips_solved=")
    caption, pairs = sweep._entries()
    assert caption == "value by k" and list(pairs) == [("k = 0", 0.0), ("k = 1", pytest.approx(-1.0, abs=1e-9))]
    assert "value by k" in sweep._repr_html_()
    searched = search_sweep(kuhn, 2)
    assert searched.nodes > 0 and f"nodes={searched.nodes}" in repr(searched)
    assert "nodes=" not in repr(sweep)  # the MIP sweep searches no nodes of its own


def test_a_sweep_refuses_a_solve_that_is_not_optimal_or_stopped(kuhn, monkeypatch):
    """An 'optimal_inaccurate' answer (a point off its rows) is neither an optimum nor a limit's incumbent."""
    from gamelp.model import Model
    from gamelp.solution import OPTIMAL_INACCURATE

    solve = Model.solve
    monkeypatch.setattr(Model, "solve", lambda self, *a, **o: replace(solve(self, *a, **o), status=OPTIMAL_INACCURATE))
    with pytest.raises(SolveError, match="optimal_inaccurate"):
        k_sweep(kuhn, 1)


def test_a_point_mixes_only_beyond_the_tolerance(kuhn):
    """Player 1's first point (the jack's check or bet, reached with probability 1): a bet of exactly 1 - 1e-7
    leaves it pure to the tolerance; any less and it mixes."""
    own = kuhn.player(1)
    j = 0
    bet = own.starts[j] + 1
    behaviour = {name: dict.fromkeys(own.actions[name], 0.0) for name in own.decision_points}
    for name in own.decision_points:
        behaviour[name][own.actions[name][-1]] = 1.0
    x = own.from_behavioural(behaviour)
    assert x[own.parents[j]] == 1.0 and x[bet] == 1.0
    x[bet], x[bet - 1] = 1.0 - DETERMINISM_TOL, DETERMINISM_TOL
    assert not mixed_points(own, x)[j]
    x[bet], x[bet - 1] = np.nextafter(1.0 - DETERMINISM_TOL, 0.0), 2 * DETERMINISM_TOL
    assert mixed_points(own, x)[j]


@pytest.mark.parametrize(("cards", "player"), [(4, 1), (4, 2), (6, 1), (6, 2)])
def test_the_search_alone_finds_every_v_k_from_a_poor_incumbent(cards, player):
    """No dive: the only incumbent is the deterministic optimum V(|J|), so at every k below it the search itself
    must find the better strategies, pruning and forcing against a real cutoff; the MIP sweep gives V(k)."""
    game = kuhn_cards(cards)
    exact = k_sweep(game, player).values
    search = KdetSearch(game, player, rel_gap=0.0, abs_gap=1e-12)
    pure = solve_deterministic(game, player).strategy
    search.offer(game.guaranteed_value(player, pure), pure)
    for k in reversed(range(len(exact))):
        bound = search.prove(k)
        assert search.value[k] == pytest.approx(exact[k], abs=1e-9), k
        assert exact[k] - 1e-9 <= bound <= exact[k] + 1e-9, k
    assert search.nodes > len(exact)


@pytest.mark.parametrize("player", [1, 2])
def test_a_search_stopped_at_any_node_returns_a_valid_bound(player):
    """Six-card Kuhn from the poor incumbent, stopped after 1, 2, ... nodes by a clock: the bound returned (the
    largest bound still open, best first) is never below V(k) nor above the Nash value."""
    game = kuhn_cards(6)
    exact = k_sweep(game, player).values
    pure = solve_deterministic(game, player).strategy
    k = int(np.argmax(exact < exact[0] - 1e-6)) - 1  # the last k that keeps the Nash value
    for stop_after in range(1, 25):
        search = KdetSearch(game, player, rel_gap=0.0, abs_gap=1e-12)
        search.offer(game.guaranteed_value(player, pure), pure)
        ticks = itertools.chain(itertools.repeat(0.0, stop_after), itertools.repeat(1.0))
        bound = search.prove(k + 1, deadline=0.5, clock=functools.partial(next, ticks))
        assert exact[k + 1] - 1e-9 <= bound <= exact[0] + 1e-9, stop_after


def test_a_generous_time_limit_changes_nothing_and_the_times_add_up():
    """Six-card Kuhn, player 2: with a minute per k the search sweep is the unlimited one; the seconds per k are
    each non-negative and together within the sweep's wall time, itself within the call's."""
    game = kuhn_cards(6)
    unlimited = search_sweep(game, 2, rel_gap=0.0, abs_gap=1e-12)
    began = time.perf_counter()
    limited = search_sweep(game, 2, rel_gap=0.0, abs_gap=1e-12, time_limit=60.0)
    elapsed = time.perf_counter() - began
    assert limited.values == pytest.approx(unlimited.values, abs=1e-12)
    assert [p.bound for p in limited.points] == pytest.approx([p.bound for p in unlimited.points], abs=1e-12)
    times = [p.seconds for p in limited.points]
    assert min(times) >= 0.0 and sum(times) <= limited.wall_time <= elapsed
    assert any(p.solved for p in limited.points)
    assert all(p.seconds > 0 for p in limited.points if p.solved)  # a k solved took time; one implied took none
    assert all(p.seconds == 0 for p in limited.points if not p.solved)


def test_a_search_stops_only_once_its_clock_has_passed_the_deadline():
    """On a clock that never moves, a time limit of 0 stops nothing: the sweep is the unlimited one."""
    game = kuhn_cards(6)
    unlimited = search_sweep(game, 2, rel_gap=0.0, abs_gap=1e-12)
    frozen = search_sweep(game, 2, rel_gap=0.0, abs_gap=1e-12, time_limit=0.0, clock=lambda: 0.0)
    assert [p.bound for p in frozen.points] == pytest.approx([p.bound for p in unlimited.points], abs=1e-12)
    assert frozen.nodes == unlimited.nodes > 0


@pytest.mark.parametrize(("name", "player"), [("kuhn", 1), ("kuhn", 2), ("kuhn6", 1), ("kuhn6", 2)])
def test_a_sweep_on_its_defaults_proves_every_k_within_one_percent(name, player):
    game = load_game("kuhn") if name == "kuhn" else kuhn_cards(6)
    exact = k_sweep(game, player, mip_gap=1e-9).values
    sweep = search_sweep(game, player)
    for point, value in zip(sweep.points, exact):
        assert point.value - 1e-9 <= value <= point.bound + 1e-9
        assert point.bound - point.value <= 0.01 * abs(point.value) + 1e-4 * point.unit + 1e-12, point.k


def test_patience_counts_only_searches_in_a_row_that_left_the_carried_bound_where_it_was(monkeypatch):
    """Patience 2 on scripted searches: one ended above the carried bound (fruitless), one lowered it (the count
    starts again), one ended exactly at it (fruitless), one more fruitless: the sweep stops after those four.

    The root is the Nash LP alone (no dive), so that the 3x1 Leduc's player 2 has six k to search."""
    game = SequenceFormGame.from_dict(poker.leduc(ranks=3, suits=1, raise_sizes=(1, 2), max_raises=1), "leduc_3x1")
    carried, searched = [], []  # the bounds carried from k - 1 (the Nash value first), the k searched

    def nash_lp_alone(self):
        carried.append(self._solve(np.full(self.total, UNDECIDED), None)[0])
        return carried[0]

    monkeypatch.setattr(KdetSearch, "solve_root", nash_lp_alone)
    ends = iter([np.inf, "lowered", "same", np.inf, np.inf, np.inf])

    def scripted(self, k, deadline=np.inf, clock=time.perf_counter):
        searched.append(k)
        end = next(ends)
        if end == "lowered":
            end = np.nextafter(min(carried), -np.inf)
        elif end == "same":
            end = min(carried)
        carried.append(end)
        return end

    monkeypatch.setattr(KdetSearch, "prove", scripted)
    sweep = search_sweep(game, 2, rel_gap=0.0, abs_gap=1e-12, patience=2)
    assert searched == [36, 37, 38, 39]
    total = game.pl2.num_decision_points
    # searched, and the ends: the Nash LP solves P(0), the deterministic ILP P(|J|)
    assert [p.k for p in sweep.points if p.solved] == sorted({0, *searched, total})
    assert [p.k for p in sweep.points if p.status == "open"] == list(range(max(searched) + 1, total))


def test_the_search_expands_the_best_bound_first_and_on_a_tie_the_node_with_more_points_decided(monkeypatch):
    """Six-card Kuhn from the poor incumbent: at every pop no open node has a larger bound, nor the same bound
    and more points decided (counted here from the nodes' choices); such ties do occur."""
    game = kuhn_cards(6)
    pure = solve_deterministic(game, 1).strategy
    search = KdetSearch(game, 1, rel_gap=0.0, abs_gap=1e-12)
    search.offer(game.guaranteed_value(1, pure), pure)
    pop, ties = heapq.heappop, []

    def checked_pop(heap):
        entry = pop(heap)
        node = entry[-1]
        for *_, other in heap:
            assert other.bound <= node.bound
            if other.bound == node.bound:
                decided = [int((n.choice != UNDECIDED).sum()) for n in (node, other)]
                assert decided[0] >= decided[1]
                ties.append(decided[0] > decided[1])
        return entry

    monkeypatch.setattr(heapq, "heappop", checked_pop)
    for k in range(game.player(1).num_decision_points + 1):
        search.prove(k)
    assert any(ties)
