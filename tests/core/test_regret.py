"""Regret minimisers and self-play (gamelp.regret): bounds, convergence, LP agreement, vectorisation."""

import numpy as np
import pytest
from scipy.optimize import linprog

from gamelp.game import load_game
from gamelp.models.nash import solve_nash
from gamelp.regret import (
    CFR,
    MWU,
    OMWU,
    DiscountedRegretMatching,
    DiscountedRegretMatchingPlus,
    PredictiveCFR,
    PredictiveDiscountedRegretMatchingPlus,
    PredictiveRegretMatchingPlus,
    RegretError,
    RegretMatching,
    RegretMatchingPlus,
    Segments,
    TreeplexLevels,
    local_minimiser,
    self_play_matrix,
    solve_regret,
)
from gamelp.units import payoff_range

RPSS = np.array([[0.0, -1.0, 1.0], [1.0, 0.0, -2.0], [-1.0, 2.0, 0.0]])


def matrix_game_value(M):
    """max_x min_j (x^T M)_j by LP (variables x, v)."""
    m, n = M.shape
    res = linprog(
        np.r_[np.zeros(m), -1.0],
        A_ub=np.c_[-M.T, np.ones(n)],
        b_ub=np.zeros(n),
        A_eq=np.r_[np.ones(m), 0.0][None, :],
        b_eq=[1.0],
        bounds=[(0, None)] * m + [(None, None)],
        method="highs",
    )
    return -res.fun


# ---------------------------------------------------------------------------------------- MWU / OMWU
def run_online(minimiser, utilities):
    """Play ``minimiser`` against a fixed utility sequence; returns the strategies (T x n)."""
    strategies = []
    for u in utilities:
        strategies.append(minimiser.next_strategy())
        minimiser.observe_utility(u)
    return np.array(strategies)


def problem_1_8_sides(strategies, utilities, predictions, eta):
    """Regret R^t and the right-hand side of Problem 1.8 after every t."""
    n = utilities.shape[1]
    regret = np.cumsum(utilities, axis=0).max(axis=1) - np.cumsum((strategies * utilities).sum(axis=1))
    error = np.cumsum(np.abs(utilities - predictions).max(axis=1) ** 2)
    moves = np.r_[0.0, np.cumsum(np.abs(np.diff(strategies, axis=0)).sum(axis=1) ** 2)]
    return regret, np.log(n) / eta + eta * error - moves / (4 * eta)


@pytest.mark.parametrize("optimistic", [False, True])
@pytest.mark.parametrize("n, eta, drift", [(3, 0.05, 0.0), (3, 0.5, 0.0), (8, 0.2, 0.0), (5, 0.3, 0.1)])
def test_problem_1_8_regret_bound_holds_every_iteration(optimistic, n, eta, drift):
    rng = np.random.default_rng(8 * n + int(100 * eta))
    T = 400
    if drift:  # slowly varying utilities: where optimism pays off
        utilities = np.cumsum(rng.uniform(-drift, drift, (T, n)), axis=0) + rng.uniform(-1, 1, n)
    else:
        utilities = rng.uniform(-1, 1, (T, n))
    strategies = run_online(OMWU(n, eta=eta) if optimistic else MWU(n, eta=eta), utilities)
    predictions = np.vstack([np.zeros(n), utilities[:-1]]) if optimistic else np.zeros_like(utilities)
    regret, bound = problem_1_8_sides(strategies, utilities, predictions, eta)
    assert np.all(regret <= bound + 1e-9), (regret - bound).max()
    assert np.allclose(strategies.sum(axis=1), 1.0) and strategies.min() > 0


def adversarial_run(minimiser, n, T):
    """An adaptive adversary: utility 1 on the action the minimiser plays least, 0 elsewhere."""
    strategies, utilities = [], []
    for _ in range(T):
        x = minimiser.next_strategy()
        u = np.zeros(n)
        u[np.argmin(x)] = 1.0
        minimiser.observe_utility(u)
        strategies.append(x)
        utilities.append(u)
    return np.array(strategies), np.array(utilities)


@pytest.mark.parametrize("n, eta", [(2, 0.05), (3, 0.5)])
def test_problem_1_8_bound_is_tight_enough_to_catch_a_wrong_step_size(n, eta):
    def sides(step):
        strategies, utilities = adversarial_run(OMWU(n, eta=step), n, 400)
        return problem_1_8_sides(strategies, utilities, np.vstack([np.zeros(n), utilities[:-1]]), eta)

    regret, bound = sides(eta)
    assert np.all(regret <= bound + 1e-9)
    regret, bound = sides(2 * eta)  # OMWU run with twice the step size the bound is stated for
    assert np.any(regret > bound)


def test_omwu_follows_the_closed_form_update_of_problem_1_6():
    rng = np.random.default_rng(16)
    eta, utilities = 0.3, rng.normal(size=(50, 4))
    strategies = run_online(OMWU(4, eta=eta), utilities)
    predictions = np.vstack([np.zeros(4), utilities[:-1]])
    for t in range(1, 50):
        expected = strategies[t - 1] * np.exp(eta * (utilities[t - 1] - predictions[t - 1] + predictions[t]))
        assert np.allclose(strategies[t], expected / expected.sum(), atol=1e-12)


def test_optimism_lowers_regret_on_slowly_varying_utilities():
    rng = np.random.default_rng(3)
    utilities = np.cumsum(rng.uniform(-0.05, 0.05, (2000, 4)), axis=0) + np.sin(np.arange(2000) / 50)[
        :, None
    ] * np.array([1.0, -1.0, 0.5, 0.0])
    regrets = {}
    for name, cls in (("mwu", MWU), ("omwu", OMWU)):
        strategies = run_online(cls(4, eta=2.0), utilities)
        regrets[name], _ = problem_1_8_sides(strategies, utilities, np.zeros_like(utilities), 2.0)
    assert regrets["omwu"][-1] < 0.5 * regrets["mwu"][-1]


def test_regret_matching_plays_positive_regrets_proportionally():
    rm, rmp = RegretMatching(3), RegretMatchingPlus(3)
    for minimiser in (rm, rmp):
        assert np.allclose(minimiser.next_strategy(), 1 / 3)
        minimiser.observe_utility(np.array([3.0, 0.0, 0.0]))  # regrets (2, -1, -1)
    assert np.allclose(rm.regrets, [2, -1, -1]) and np.allclose(rmp.regrets, [2, 0, 0])
    for minimiser in (rm, rmp):
        assert np.allclose(minimiser.next_strategy(), [1, 0, 0])
        minimiser.observe_utility(np.array([0.0, 3.0, 3.0]))  # regrets += (0, 3, 3) - 0
    assert np.allclose(rm.regrets, [2, 2, 2]) and np.allclose(rmp.regrets, [2, 3, 3])
    assert np.allclose(rmp.next_strategy(), [0.25, 0.375, 0.375])


def test_segments_softmax_positive_part_and_regret_work_per_segment():
    seg = Segments([0, 2, 5], [2, 5, 6])
    weights = np.array([1.0, 3.0, 0.0, -2.0, 0.0, 7.0])
    assert seg.positive_part(weights).tolist() == [0.25, 0.75, 1 / 3, 1 / 3, 1 / 3, 1.0]
    assert seg.positive_part(np.array([-1.0, 2.0, 0.5, -4.0, 1.5, -7.0])).tolist() == [0, 1, 0.25, 0, 0.75, 1]
    assert seg.positive_part(np.array([np.nan, 1.0, 0.5, 0.0, 1.5, -7.0])).tolist() == [0.5, 0.5, 0.25, 0, 0.75, 1]
    x, u = np.array([0.25, 0.75, 0.5, 0.0, 0.5, 1.0]), np.array([4.0, 8.0, 1.0, 9.0, 3.0, -2.0])
    assert seg.regret(x, u).tolist() == [-3.0, 1.0, -1.0, 7.0, 1.0, 0.0]  # u - <x, u>: 7, 2 and -2
    logits = np.array([0.0, np.log(3), 1000.0, 1000.0, 1000.0 + np.log(2), -5.0])
    assert np.allclose(seg.softmax(logits), [0.25, 0.75, 0.25, 0.25, 0.5, 1.0])
    with pytest.raises(RegretError):
        Segments([0, 3], [2, 5])


@pytest.mark.parametrize("dtype", [np.float64, np.uint8, np.int32])
def test_segments_take_their_bounds_in_any_numeric_array(dtype):
    """Bounds read from a file or computed in floats index like integers: the same segments as from a list."""
    seg = Segments(np.array([0, 2, 5], dtype=dtype), np.array([2, 5, 6], dtype=dtype))
    assert seg.size == 6 and seg.owner.tolist() == [0, 0, 1, 1, 1, 2]
    assert seg.sums(np.arange(6.0)).tolist() == [1.0, 9.0, 5.0]


@pytest.mark.parametrize("name", ["prm+", "omwu"])
def test_a_predictive_minimiser_keeps_its_own_copy_of_the_last_utility(name):
    """The caller may reuse its utility buffer: the prediction is the utility observed, not the buffer's later
    contents."""
    kept, reused = local_minimiser(name, 3), local_minimiser(name, 3)
    buffer = np.array([1.0, 0.0, 0.5])
    kept.observe_utility(buffer.copy())
    reused.observe_utility(buffer)
    buffer[:] = [0.0, 9.0, 0.0]
    assert reused.next_strategy() == pytest.approx(kept.next_strategy(), abs=1e-15)


# ---------------------------------------------------------------------------------------- self-play, matrix
def test_omwu_last_iterate_converges_on_rock_paper_superscissors_while_mwu_cycles():
    omwu = self_play_matrix(RPSS, "omwu", 3000, eta=0.2)
    assert np.allclose(omwu.last_x, [0.5, 0.25, 0.25], atol=1e-3)
    assert np.allclose(omwu.last_y, [0.5, 0.25, 0.25], atol=1e-3)
    assert omwu.last_gaps[-1] < 1e-2
    mwu = self_play_matrix(RPSS, "mwu", 3000, eta=0.2)
    assert mwu.last_gaps[-500:].min() > 0.5  # the last iterate keeps cycling ...
    assert np.allclose(mwu.x, [0.5, 0.25, 0.25], atol=0.02)  # ... while the average converges
    assert mwu.xs.shape == (3000, 3) and mwu.avg_ys.shape == (3000, 3)


def test_matrix_rm_plus_matches_the_lp_value_within_the_gap():
    M = np.random.default_rng(11).normal(size=(7, 9))
    result = solve_regret(M, "rm+", 3000, averaging="linear", alternating=True)
    value = matrix_game_value(M)
    assert result.gap < 5e-3
    assert abs(result.value - value) <= result.gap + 1e-12
    # The reported gap is the matrix gap of the returned averages.
    assert np.isclose(result.gap, (M @ result.y).max() - (result.x @ M).min())


def test_averaging_weights_and_history_agree():
    result = self_play_matrix(RPSS, "rm", 40, averaging="quadratic")
    weights = np.arange(1, 41) ** 2.0
    assert np.allclose(result.x, weights @ result.xs / weights.sum())
    assert np.allclose(result.avg_xs[-1], result.x) and np.allclose(result.xs[-1], result.last_x)
    gaps = [(RPSS @ y).max() - (x @ RPSS).min() for x, y in zip(result.avg_xs, result.avg_ys)]
    assert np.allclose(result.gaps, gaps)


def test_target_gap_stops_early():
    result = solve_regret(RPSS, "cfr+", 100000, target_gap=1e-2)
    target = 1e-2 * payoff_range(RPSS)  # the target gap is relative to the payoff range
    assert result.converged and result.gap <= target and result.iterations < 100000
    assert result.gaps[:-1].min() > target


@pytest.mark.parametrize(
    "bad",
    [
        dict(method="nope"),
        dict(iterations=0),
        dict(method="mwu", eta=-1.0),
        dict(averaging="cubic"),
        dict(averaging=-1.0),
        dict(target_gap=-0.1),
        dict(target_gap="small"),
    ],
)
def test_bad_options_raise_regret_error(bad):
    options = dict(method="cfr+", iterations=10) | bad
    with pytest.raises(RegretError):
        solve_regret(RPSS, **options)


def test_bad_matrix_raises_regret_error():
    with pytest.raises(RegretError):
        self_play_matrix(np.array([1.0, 2.0]), "rm", 5)
    with pytest.raises(RegretError):
        self_play_matrix(np.array([[1.0, np.nan]]), "rm", 5)


# ---------------------------------------------------------------------------------------- self-play, sequence form
@pytest.fixture(scope="module")
def kuhn():
    return load_game("kuhn")


@pytest.mark.parametrize("name", ["kuhn", "leduc"])
def test_cfr_plus_reaches_gap_1e3_and_agrees_with_the_lp(name):
    game = load_game(name)
    result = solve_regret(game, "cfr+", 5000, target_gap=1e-3, track_last=False)
    assert result.converged and result.gap <= 1e-3 and result.last_gaps is None
    assert np.isclose(result.gap, game.saddle_point_gap(result.x, result.y))
    assert max(game.pl1.infeasibility(result.x), game.pl2.infeasibility(result.y)) < 1e-12
    lp_value = solve_nash(game, 1).value
    assert abs(result.value - lp_value) <= result.gap


@pytest.mark.parametrize("method", ["cfr", "rm", "rm+", "mwu", "omwu"])
def test_other_methods_decrease_the_gap_on_kuhn(kuhn, method):
    result = solve_regret(kuhn, method, 1000, eta=0.5)
    assert result.checked[0] == 10 and result.gaps[-1] < 0.2 * result.gaps[0]
    assert result.gap < 0.03
    assert abs(result.value - (-1 / 18)) <= result.gap


def test_to_dict_reports_either_players_labelled_strategy(kuhn):
    result = solve_regret(kuhn, "cfr+", 50)
    first, second = result.to_dict(), result.to_dict(2)
    assert first["iterations"] == second["iterations"] == 50 and first["status"] == "iteration_limit"
    assert first["backend"] == "cfr+" and (first["player"], second["player"]) == (1, 2)
    assert first["value"] == result.value == -second["value"] and first["gap"] == second["gap"] == result.gap
    assert list(first["strategy"]) == list(kuhn.pl1.labels) and list(second["strategy"]) == list(kuhn.pl2.labels)
    np.testing.assert_allclose(list(second["strategy"].values()), result.y, atol=1e-12)
    with pytest.raises(RegretError):
        result.to_dict(0)


# ---------------------------------------------------------------------------------------- vectorised = reference
class ReferenceCFR:
    """Per-decision-point CFR with regret matching (+), written out one node at a time."""

    def __init__(self, treeplex, plus):
        self.tp, self.plus = treeplex, plus
        self.regrets = [np.zeros(e - s) for s, e in zip(treeplex.starts, treeplex.ends)]

    def local(self, j):
        positive = np.maximum(self.regrets[j], 0.0)
        return positive / positive.sum() if positive.sum() > 0 else np.full(positive.size, 1 / positive.size)

    def next_strategy(self):
        x = np.zeros(self.tp.num_sequences)
        x[0] = 1.0
        for j, (s, e) in enumerate(zip(self.tp.starts, self.tp.ends)):
            x[s:e] = self.local(j) * x[self.tp.parents[j]]
        return x

    def observe_utility(self, g):
        q = np.array(g, dtype=float)
        for j in reversed(range(self.tp.num_decision_points)):
            s, e = self.tp.starts[j], self.tp.ends[j]
            b = self.local(j)
            value = b @ q[s:e]
            self.regrets[j] = self.regrets[j] + q[s:e] - value
            if self.plus:
                self.regrets[j] = np.maximum(self.regrets[j], 0.0)
            q[self.tp.parents[j]] += value


@pytest.mark.parametrize("name", ["kuhn", "leduc"])
@pytest.mark.parametrize("local", ["rm", "rm+"])
def test_vectorised_cfr_equals_per_decision_point_reference(name, local):
    game = load_game(name)
    rng = np.random.default_rng(5)
    for tp in (game.pl1, game.pl2):
        fast, slow = CFR(tp, local), ReferenceCFR(tp, plus=local == "rm+")
        for _ in range(8):
            assert np.allclose(fast.next_strategy(), slow.next_strategy(), atol=1e-12)
            g = rng.normal(size=tp.num_sequences)
            fast.observe_utility(g)
            slow.observe_utility(g)
        regrets = fast.regrets
        for j, (s, e) in enumerate(zip(tp.starts, tp.ends)):
            assert np.allclose(regrets[s:e], slow.regrets[j], atol=1e-9)


@pytest.mark.parametrize("name", ["kuhn", "leduc"])
def test_vectorised_best_response_equals_treeplex_best_response(name):
    game = load_game(name)
    rng = np.random.default_rng(9)
    for tp in (game.pl1, game.pl2):
        levels = TreeplexLevels(tp)
        for _ in range(5):
            g = rng.normal(size=tp.num_sequences)
            assert np.isclose(levels.best_response_value(levels.to_levels(g)), tp.best_response(g)[0])
        b = levels.segments.positive_part(rng.uniform(size=tp.num_sequences))
        x = levels.to_original(levels.sequence_form(b))
        assert tp.infeasibility(x) < 1e-12 and np.allclose(levels.to_levels(x), levels.sequence_form(b))


# ---------------------------------------------------------------------------------------- DCFR and PCFR+
def test_discounted_regret_matching_scales_positive_and_negative_regrets():
    drm = DiscountedRegretMatching(3, alpha=1.5, beta=0.0)
    drm.next_strategy()
    drm.observe_utility(np.array([3.0, 0.0, 0.0]))  # regrets (2, -1, -1), t = 1: x 1/2 and x 1/2
    assert np.allclose(drm.regrets, [1.0, -0.5, -0.5])
    assert np.allclose(drm.next_strategy(), [1, 0, 0])
    drm.observe_utility(np.array([0.0, 3.0, 0.0]))  # regrets (1, 2.5, -0.5), t = 2
    keep = 2**1.5 / (2**1.5 + 1)
    assert np.allclose(drm.regrets, [keep, 2.5 * keep, -0.25])


def test_predictive_rm_plus_adds_the_last_regret_to_the_cumulative_one():
    prm = PredictiveRegretMatchingPlus(3)
    assert np.allclose(prm.next_strategy(), 1 / 3)
    u1 = np.array([3.0, 0.0, 0.0])
    prm.observe_utility(u1)  # R = [u1 - 1]^+ = (2, 0, 0)
    x = prm.next_strategy()  # [R + u1 - <u1, x0>]^+ = (4, 0, 0)
    assert np.allclose(prm.regrets, [2, 0, 0]) and np.allclose(x, [1, 0, 0])
    u2 = np.array([0.0, 3.0, 1.0])
    prm.observe_utility(u2)  # R = [(2, 0, 0) + u2 - 0]^+ = (2, 3, 1)
    expected = np.maximum(np.array([2.0, 3.0, 1.0]) + u2 - u2 @ x, 0)
    assert np.allclose(prm.next_strategy(), expected / expected.sum())


def reference_sequence_form(tp, local):
    """The sequence-form strategy of one local strategy per decision point, top-down."""
    x = np.zeros(tp.num_sequences)
    x[0] = 1.0
    for j, (s, e) in enumerate(zip(tp.starts, tp.ends)):
        x[s:e] = local[j] * x[tp.parents[j]]
    return x


def reference_bottom_up(tp, local, g):
    """Counterfactual values one decision point at a time, deepest first: ``j``, ``q[s:e]`` and its value."""
    q = np.array(g, dtype=float)
    for j in reversed(range(tp.num_decision_points)):
        s, e = tp.starts[j], tp.ends[j]
        value = local[j] @ q[s:e]
        yield j, q[s:e].copy(), value
        q[tp.parents[j]] += value


class ReferencePCFR:
    """PCFR+ one decision point at a time: local strategies chosen bottom-up from the predicted utility."""

    def __init__(self, treeplex):
        self.tp = treeplex
        self.regrets = [np.zeros(e - s) for s, e in zip(treeplex.starts, treeplex.ends)]
        self.local = [np.full(e - s, 1 / (e - s)) for s, e in zip(treeplex.starts, treeplex.ends)]
        self.prediction = np.zeros(treeplex.num_sequences)

    def next_strategy(self):
        q = self.prediction.copy()
        for j in reversed(range(self.tp.num_decision_points)):
            s, e = self.tp.starts[j], self.tp.ends[j]
            weights = np.maximum(self.regrets[j] + q[s:e] - self.local[j] @ q[s:e], 0.0)
            self.local[j] = weights / weights.sum() if weights.sum() > 0 else np.full(e - s, 1 / (e - s))
            q[self.tp.parents[j]] += self.local[j] @ q[s:e]
        return reference_sequence_form(self.tp, self.local)

    def observe_utility(self, g):
        for j, values, value in reference_bottom_up(self.tp, self.local, g):
            self.regrets[j] = np.maximum(self.regrets[j] + values - value, 0.0)
        self.prediction = np.array(g, dtype=float)


@pytest.mark.parametrize("name", ["kuhn", "leduc"])
def test_vectorised_pcfr_plus_equals_per_decision_point_reference(name):
    game = load_game(name)
    rng = np.random.default_rng(7)
    for tp in (game.pl1, game.pl2):
        fast, slow = PredictiveCFR(tp), ReferencePCFR(tp)
        for _ in range(8):
            assert np.allclose(fast.next_strategy(), slow.next_strategy(), atol=1e-12)
            g = rng.normal(size=tp.num_sequences)
            fast.observe_utility(g)
            slow.observe_utility(g)


@pytest.mark.parametrize(
    "name, method, target",
    [
        ("kuhn", "pcfr+", 1e-6),
        ("kuhn", "dcfr", 1e-4),
        ("leduc", "dcfr", 1e-4),
        ("leduc", "pcfr+", 1e-3),
        ("kuhn", "pdcfr+", 1e-8),
        ("kuhn", "dcfr+", 1e-4),
        ("leduc", "pdcfr+", 1e-4),
        ("leduc", "dcfr+", 1e-4),
    ],
)
def test_dcfr_and_pcfr_plus_reach_the_gap_and_agree_with_the_lp(name, method, target):
    game = load_game(name)
    result = solve_regret(game, method, 20000, target_gap=target, track_last=False)
    assert result.converged and result.gap <= target
    assert np.isclose(result.gap, game.saddle_point_gap(result.x, result.y))
    assert max(game.pl1.infeasibility(result.x), game.pl2.infeasibility(result.y)) < 1e-12
    assert abs(result.value - solve_nash(game, 1).value) <= result.gap


def test_pcfr_plus_beats_cfr_plus_on_kuhn_and_dcfr_beats_it_on_leduc():
    """The new methods earn their place: far fewer iterations than CFR+ where each shines."""
    kuhn = load_game("kuhn")
    iterations = {
        m: solve_regret(kuhn, m, 5000, target_gap=1e-5, track_last=False).iterations for m in ("cfr+", "pcfr+")
    }
    assert iterations["pcfr+"] * 10 < iterations["cfr+"]
    leduc = load_game("leduc")
    iterations = {
        m: solve_regret(leduc, m, 5000, target_gap=1e-4, track_last=False).iterations for m in ("cfr+", "dcfr")
    }
    assert iterations["dcfr"] < iterations["cfr+"]


def test_discounted_rm_plus_discounts_before_adding_and_clips():
    drm = DiscountedRegretMatchingPlus(3, alpha=1.5)
    drm.next_strategy()
    drm.observe_utility(np.array([3.0, 0.0, 0.0]))  # d(0) = 0: R = [(2, -1, -1)]^+
    assert np.allclose(drm.regrets, [2, 0, 0]) and np.allclose(drm.next_strategy(), [1, 0, 0])
    drm.observe_utility(np.array([0.0, 3.0, 0.0]))  # R = [d(1) (2, 0, 0) + (0, 3, 0) - 0]^+, d(1) = 1/2
    assert np.allclose(drm.regrets, [1, 3, 0]) and np.allclose(drm.next_strategy(), [0.25, 0.75, 0])


def test_predictive_discounted_rm_plus_adds_the_last_instantaneous_regret():
    pdrm = PredictiveDiscountedRegretMatchingPlus(3, alpha=2.0)
    assert np.allclose(pdrm.next_strategy(), 1 / 3)
    pdrm.observe_utility(np.array([3.0, 0.0, 0.0]))  # r = (2, -1, -1), R = (2, 0, 0)
    x = pdrm.next_strategy()  # [d(1) R + r]^+ = [(1, 0, 0) + (2, -1, -1)]^+
    assert np.allclose(pdrm.regrets, [2, 0, 0]) and np.allclose(x, [1, 0, 0])
    pdrm.observe_utility(np.array([0.0, 4.0, 2.0]))  # r = (0, 4, 2), R = [d(1) (2, 0, 0) + r]^+ = (1, 4, 2)
    assert np.allclose(pdrm.regrets, [1, 4, 2])
    weights = 0.8 * np.array([1.0, 4.0, 2.0]) + np.array([0.0, 4.0, 2.0])  # d(2) = 4/5
    assert np.allclose(pdrm.next_strategy(), weights / weights.sum())


class ReferencePDCFR:
    """PDCFR+ one decision point at a time (Xu et al. 2024), alpha = 2.3."""

    def __init__(self, treeplex, alpha=2.3):
        self.tp, self.alpha, self.t = treeplex, alpha, 0
        self.regrets = [np.zeros(e - s) for s, e in zip(treeplex.starts, treeplex.ends)]
        self.last = [np.zeros(e - s) for s, e in zip(treeplex.starts, treeplex.ends)]
        self.local = None

    def discount(self, t):
        return t**self.alpha / (t**self.alpha + 1)

    def next_strategy(self):
        self.local = []
        for j in range(self.tp.num_decision_points):
            w = np.maximum(self.discount(self.t) * self.regrets[j] + self.last[j], 0.0)
            self.local.append(w / w.sum() if w.sum() > 0 else np.full(w.size, 1 / w.size))
        return reference_sequence_form(self.tp, self.local)

    def observe_utility(self, g):
        for j, values, value in reference_bottom_up(self.tp, self.local, g):
            self.last[j] = values - value
            self.regrets[j] = np.maximum(self.discount(self.t) * self.regrets[j] + self.last[j], 0.0)
        self.t += 1


@pytest.mark.parametrize("name", ["kuhn", "leduc"])
def test_vectorised_pdcfr_plus_equals_per_decision_point_reference(name):
    game = load_game(name)
    rng = np.random.default_rng(3)
    for tp in (game.pl1, game.pl2):
        fast, slow = CFR(tp, "pdrm+"), ReferencePDCFR(tp)
        for _ in range(8):
            assert np.allclose(fast.next_strategy(), slow.next_strategy(), atol=1e-12)
            g = rng.normal(size=tp.num_sequences)
            fast.observe_utility(g)
            slow.observe_utility(g)
        for j, (s, e) in enumerate(zip(tp.starts, tp.ends)):
            assert np.allclose(fast.regrets[s:e], slow.regrets[j], atol=1e-9)


def test_level_order_is_a_permutation_with_each_depth_one_slice():
    levels = TreeplexLevels(load_game("leduc").pl2)
    v = np.arange(levels.num_sequences, dtype=float)
    assert np.array_equal(levels.to_original(levels.to_levels(v)), v) and levels.order[0] == 0
    assert [level.here.start for level in levels.levels[1:]] == [level.here.stop for level in levels.levels[:-1]]
    assert [level.above for level in levels.levels[1:]] == [level.here for level in levels.levels[:-1]]
    assert levels.levels[0].here.start == 1 and levels.levels[-1].here.stop == levels.num_sequences


def test_positive_part_is_regret_matching_per_segment():
    segments = Segments([0, 2, 5], [2, 5, 6])
    b = segments.positive_part(np.array([3.0, 1.0, -1.0, 0.0, -2.0, 0.0]))
    assert np.array_equal(b, [0.75, 0.25, 1 / 3, 1 / 3, 1 / 3, 1.0])
    assert np.array_equal(
        segments.positive_part(np.array([1e-300, 0.0, 2.0, 0.0, 2.0, 5.0])), [1.0, 0.0, 0.5, 0.0, 0.5, 1.0]
    )


def test_gaps_measured_every_k_iterations_follow_the_same_run():
    leduc = load_game("leduc")
    every = solve_regret(leduc, "pdcfr+", 95, check_every=1)
    sparse = solve_regret(leduc, "pdcfr+", 95, check_every=7)
    assert list(sparse.checked) == list(range(7, 95, 7)) + [95] and sparse.iterations == 95
    assert np.allclose(sparse.gaps, every.gaps[sparse.checked - 1], rtol=1e-12)
    assert np.allclose(sparse.last_gaps, every.last_gaps[sparse.checked - 1], rtol=1e-12)
    assert np.array_equal(sparse.x, every.x) and sparse.gap == every.gap
    stopped = solve_regret(leduc, "cfr+", 10000, target_gap=1e-3, check_every=25)
    target = 1e-3 * payoff_range(leduc.A)  # the target gap is relative to the payoff range
    assert stopped.converged and stopped.iterations % 25 == 0 and stopped.gaps[:-1].min() > target


def test_progress_callback_sees_every_hundredth_iteration_and_the_end():
    seen = []
    result = solve_regret(RPSS, "pcfr+", 250, progress=lambda t, gap: seen.append((t, gap)))
    assert [t for t, _ in seen] == [100, 200, 250]
    assert seen[-1][1] == result.gap


def test_cli_text_run_says_it_stopped_at_the_iteration_limit(capsys):
    from gamelp.cli import main

    assert main(["solve", "kuhn", "--method", "dcfr", "--iterations", "30", "--target-gap", "1e-9"]) == 0
    out = capsys.readouterr().out
    assert "stopped at the iteration limit (30 iterations) before reaching the target gap 1e-09" in out
    assert main(["solve", "kuhn", "--method", "pcfr+", "--iterations", "5000", "--target-gap", "1e-6"]) == 0
    assert "stopped at the iteration limit" not in capsys.readouterr().out


def test_recording_more_iterations_than_memory_holds_is_refused_before_allocating():
    from gamelp.errors import RegretError
    from gamelp.regret import self_play_matrix

    with pytest.raises(RegretError, match=r"recording 10,000,000,000 iterations would need about .* GiB"):
        # target_gap=1.0: a run that fails to refuse stops at its first check instead of running 10^10 iterations
        self_play_matrix(np.eye(3), "omwu", iterations=10**10, target_gap=1.0)


def test_pdcfr_plus_averages_with_t20_on_a_game_and_t5_on_a_matrix(kuhn):
    on_game = solve_regret(kuhn, "pdcfr+", 200)
    assert np.array_equal(on_game.x, solve_regret(kuhn, "pdcfr+", 200, averaging=20.0).x)
    assert not np.array_equal(on_game.x, solve_regret(kuhn, "pdcfr+", 200, averaging=5.0).x)
    M = np.array([[0.0, 1.0, -2.0], [-1.0, 0.0, 3.0], [2.0, -3.0, 0.0]])
    on_matrix = solve_regret(M, "pdcfr+", 200)
    assert np.array_equal(on_matrix.x, solve_regret(M, "pdcfr+", 200, averaging=5.0).x)
    assert not np.array_equal(on_matrix.x, solve_regret(M, "pdcfr+", 200, averaging=20.0).x)


@pytest.mark.parametrize(
    ("cls", "documented"),
    [
        (DiscountedRegretMatching, {"alpha": 1.5, "beta": 0.0}),  # DCFR (Brown & Sandholm 2019)
        (DiscountedRegretMatchingPlus, {"alpha": 1.5}),  # DCFR+ (Xu et al. 2024)
        (PredictiveDiscountedRegretMatchingPlus, {"alpha": 2.3}),  # PDCFR+ (Xu et al. 2024)
    ],
)
def test_discounted_rules_default_to_their_papers_parameters(cls, documented):
    """Four updates whose regrets change sign, so both discounts show: the defaults play as the papers' values."""
    default, told = cls(3), cls(3, **documented)
    for utility in ([3.0, 0.0, 0.0], [0.0, 0.2, 0.0], [0.0, 1.0, -1.0], [0.5, 0.0, 2.0]):
        assert default.next_strategy() == pytest.approx(told.next_strategy(), abs=0)
        for minimiser in (default, told):
            minimiser.observe_utility(np.array(utility))
    assert default.regrets == pytest.approx(told.regrets, abs=0)
    changed = cls(3, **{name: value + 0.5 for name, value in documented.items()})
    for utility in ([3.0, 0.0, 0.0], [0.0, 0.2, 0.0], [0.0, 1.0, -1.0], [0.5, 0.0, 2.0]):
        changed.next_strategy()
        changed.observe_utility(np.array(utility))
    assert np.abs(changed.regrets - default.regrets).max() > 1e-3
