"""Regret matching's first iterates on C = [[3, -1], [-2, 1]] worked out by hand, and the averaging weights."""

import numpy as np
import pytest

from gamelp.errors import RegretError
from gamelp.regret import solve_regret

C = np.array([[3.0, -1.0], [-2.0, 1.0]])


def test_regret_matching_first_iterates_by_hand():
    run = solve_regret(C, "rm", 3, record=True)
    # t = 1: uniform. Row utilities C y = (1, -1/2), earned 1/4: regrets (3/4, -3/4) -> x = (1, 0).
    # Column utilities -x C = (-1/2, 0), earned -1/4: regrets (-1/4, 1/4) -> y = (0, 1).
    assert run.xs[0] == pytest.approx([0.5, 0.5]) and run.ys[0] == pytest.approx([0.5, 0.5])
    assert run.xs[1] == pytest.approx([1.0, 0.0]) and run.ys[1] == pytest.approx([0.0, 1.0])
    # t = 2: C y = (-1, 1), x earned -1: regrets (0, 2), cumulative (3/4, 5/4) -> x = (3/8, 5/8).
    # -x C = (-3, 1), y earned 1: regrets (-4, 0), cumulative (-17/4, 1/4) -> y = (0, 1).
    assert run.xs[2] == pytest.approx([3 / 8, 5 / 8]) and run.ys[2] == pytest.approx([0.0, 1.0])
    # Uniform averaging: the mean of the iterates.
    assert run.avg_xs[2] == pytest.approx(np.mean(run.xs[:3], axis=0))
    assert run.avg_ys[1] == pytest.approx([0.25, 0.75])


@pytest.mark.parametrize("name, exponent", [("uniform", 0), ("linear", 1), ("quadratic", 2.0)])
def test_averaging_by_name_or_exponent(name, exponent):
    by_name = solve_regret(C, "rm+", 30, averaging=name, record=True)
    by_exponent = solve_regret(C, "rm+", 30, averaging=exponent, record=True)
    assert by_exponent.x == pytest.approx(by_name.x, abs=1e-15) and by_exponent.gap == pytest.approx(by_name.gap)
    weights = np.arange(1, 31, dtype=float) ** exponent
    assert by_name.x == pytest.approx(weights @ by_name.xs / weights.sum(), abs=1e-12)


@pytest.mark.parametrize("bad", [-0.5, float("nan"), float("inf"), True, "cubic"])
def test_averaging_refusals(bad):
    with pytest.raises(RegretError, match="averaging"):
        solve_regret(C, "rm", 5, averaging=bad)


def test_a_single_action_is_a_simplex():
    from gamelp.regret.simplex import Segments

    one = Segments.simplex(1)
    assert one.size == 1 and one.positive_part(np.zeros(1)).tolist() == [1.0]
    with pytest.raises(RegretError, match="at least one action"):
        Segments.simplex(0)
    run = solve_regret(np.array([[2.0, -1.0]]), "rm", 4)  # the row player has one action
    # The column player: uniform once, then column 2 (regrets (-3/2, 3/2) after t = 1): mean (1/8, 7/8).
    assert run.x.tolist() == [1.0] and run.y == pytest.approx([0.125, 0.875], abs=1e-12)


def test_mwu_default_step_by_hand():
    from gamelp.regret.simplex import MWU

    mwu = MWU(3)  # eta 0.1 by default
    assert mwu.next_strategy() == pytest.approx([1 / 3] * 3)
    mwu.observe_utility(np.array([1.0, 0.0, -1.0]))
    weights = np.exp(0.1 * np.array([1.0, 0.0, -1.0]))
    assert mwu.next_strategy() == pytest.approx(weights / weights.sum(), abs=1e-15)
    with pytest.raises(RegretError, match="step size eta must be a positive number"):
        MWU(3, eta=0.0)


def test_cfr_default_local_step(kuhn):
    from gamelp.regret.cfr import CFR

    by_default = CFR(kuhn.pl1, "mwu")
    explicit = CFR(kuhn.pl1, "mwu", eta=0.1)
    u = np.random.default_rng(4).normal(size=kuhn.pl1.num_sequences)
    for cfr in (by_default, explicit):
        cfr.next_strategy()
        cfr.observe_utility(u)
    assert by_default.next_strategy() == pytest.approx(explicit.next_strategy(), abs=1e-15)
    assert not np.allclose(explicit.next_strategy(), kuhn.pl1.uniform_strategy())


def test_summary_rounds_strategies_to_twelve_digits():
    run = solve_regret(np.array([[1.0, -1.0, 0.0], [-1.0, 1.0, 0.0], [0.0, 0.0, 0.0]]), "rm", 1)
    assert list(run.to_dict()["strategy"].values()) == [0.333333333333] * 3  # uniform at t = 1, 12 digits


def test_recorded_histories_stay_out_of_the_repr():
    run = solve_regret(C, "rm", 3, record=True)
    text = repr(run)
    assert all(f"{name}=" not in text for name in ("xs", "ys", "avg_xs", "avg_ys")) and "iterations=3" in text
    assert run.xs.shape == (3, 2) and len(text) < 500  # the histories are kept, one attribute away


@pytest.mark.parametrize("bad", [-1.0, float("nan"), True, "0.1"])
def test_a_target_gap_that_is_not_a_non_negative_number_is_refused_naming_it(bad):
    with pytest.raises(RegretError, match=rf"target_gap must be a non-negative number, got {bad!r}"):
        solve_regret(np.array([[3.0, -1.0], [-2.0, 1.0]]), "rm", 10, target_gap=bad)


def test_self_play_on_a_matrix_steps_by_the_documented_default_eta():
    from gamelp.regret.selfplay import self_play_matrix

    M = np.array([[3.0, -1.0], [-2.0, 1.0]])
    default = self_play_matrix(M, "mwu", 5)
    assert default.xs == pytest.approx(self_play_matrix(M, "mwu", 5, eta=0.1).xs, abs=0)
    assert np.abs(default.xs - self_play_matrix(M, "mwu", 5, eta=0.2).xs).max() > 1e-3


def test_omwu_default_step_is_mwus():
    from gamelp.regret.simplex import MWU, OMWU

    default, explicit = OMWU(3), OMWU(3, eta=0.1)
    for utility in ([1.0, 0.0, -1.0], [0.0, 2.0, 0.5]):
        for minimiser in (default, explicit):
            minimiser.observe_utility(np.array(utility))
        assert default.next_strategy() == pytest.approx(explicit.next_strategy(), abs=0)
    assert MWU(3).eta == OMWU(3).eta == 0.1


def test_alternation_is_what_the_caller_asks_for():
    """rm updates both players at once by default; asked to alternate, player 2 answers player 1's new strategy."""
    M = np.array([[3.0, -1.0], [-2.0, 1.0]])
    default = solve_regret(M, "rm", 10)
    simultaneous = solve_regret(M, "rm", 10, alternating=False)
    alternating = solve_regret(M, "rm", 10, alternating=True)
    assert default.x == pytest.approx(simultaneous.x, abs=0) and default.y == pytest.approx(simultaneous.y, abs=0)
    assert np.abs(alternating.y - simultaneous.y).max() > 1e-3


@pytest.mark.parametrize(("option", "bad"), [("iterations", 0), ("check_every", -1)])
def test_counts_that_are_not_positive_integers_are_refused_naming_them(option, bad):
    with pytest.raises(RegretError, match=rf"^{option} must be a positive integer, got {bad}$"):
        solve_regret(np.eye(2), "rm", **{"iterations": 10, option: bad})


# Each named method as documented: (local rule's method, alternating updates, averaging weights t^gamma).
DOCUMENTED = {
    "mwu": (False, "uniform"),
    "omwu": (False, "uniform"),
    "rm": (False, "uniform"),
    "rm+": (False, "uniform"),
    "cfr": (False, "uniform"),
    "cfr+": (True, "linear"),
    "dcfr": (True, "quadratic"),
    "pcfr+": (True, "quadratic"),
    "dcfr+": (True, 4.0),
    "pdcfr+": (True, 5.0),
}


@pytest.mark.parametrize("method", sorted(DOCUMENTED))
def test_every_method_alternates_and_averages_as_documented(method):
    """On a 3 x 3 matrix: the method on its defaults is the method told its documented alternation and averaging,
    and telling it otherwise changes the average (so both choices are seen)."""
    M = np.array([[3.0, -1.0, 0.5], [-2.0, 1.0, 0.0], [0.0, 0.5, -1.0]])
    alternating, averaging = DOCUMENTED[method]
    default = solve_regret(M, method, 12)
    told = solve_regret(M, method, 12, alternating=alternating, averaging=averaging)
    assert default.x == pytest.approx(told.x, abs=0) and default.y == pytest.approx(told.y, abs=0)
    flipped = solve_regret(M, method, 12, alternating=not alternating, averaging=averaging)
    other = solve_regret(M, method, 12, alternating=alternating, averaging=3.0 if averaging == "uniform" else "uniform")
    for changed in (flipped, other):
        assert max(np.abs(changed.x - default.x).max(), np.abs(changed.y - default.y).max()) > 1e-6


def test_pdcfr_plus_averages_by_t_to_the_20_on_a_game_tree(kuhn):
    default = solve_regret(kuhn, "pdcfr+", 30)
    assert default.x == pytest.approx(solve_regret(kuhn, "pdcfr+", 30, averaging=20.0).x, abs=0)
    assert np.abs(default.x - solve_regret(kuhn, "pdcfr+", 30, averaging=5.0).x).max() > 1e-9


def test_the_method_table_cannot_be_changed_by_accident():
    import dataclasses

    from gamelp.regret.selfplay import METHODS

    with pytest.raises(dataclasses.FrozenInstanceError):
        METHODS["cfr+"].alternating = False


def test_solve_regret_defaults_run_1000_iterations_without_a_target_or_a_record():
    from gamelp.regret.selfplay import self_play_matrix

    M = np.array([[3.0, -1.0], [-2.0, 1.0]])
    run = solve_regret(M, "rm")
    assert run.iterations == 1000 and not run.converged and run.xs is None and run.avg_xs is None
    assert self_play_matrix(M).iterations == 1000
    exact = solve_regret(np.array([[1.0]]), "rm", 50, target_gap=0.0)  # one action each: every iterate is exact
    assert exact.converged and exact.gap == 0.0  # a target of exactly 0 is allowed, and reachable


@pytest.mark.parametrize("method", ["mwu", "omwu"])
def test_the_step_size_is_relative_to_the_payoff_range(method):
    """MWU's eta is divided by the payoff range: a game in other units plays the same iterates, for both players."""
    M = np.array([[3.0, -1.0, 0.5], [-2.0, 1.0, 0.0]])
    plain = solve_regret(M, method, 30, record=True)
    for scale in (1e-3, 40.0):
        scaled = solve_regret(M * scale, method, 30, record=True)
        assert scaled.xs == pytest.approx(plain.xs, abs=1e-12) and scaled.ys == pytest.approx(plain.ys, abs=1e-12)


def test_a_step_size_that_overflows_on_the_payoff_range_is_refused():
    """eta / range = 1e300 / 1e-10 is infinite, though eta * range (1e290) is not."""
    with pytest.raises(RegretError, match=r"the step size eta = 1e\+300 overflows"):
        solve_regret(np.array([[3.0, -1.0], [-2.0, 1.0]]) * 2e-11, "mwu", 5, eta=1e300)


def test_two_iterations_of_cfr_plus_by_hand():
    """C = [[3, -1], [-2, 1]], RM+ alternating, linear averaging.  x1 = y1 = uniform; player 1's regrets against
    y1 (utilities 1, -1/2) are (3/4, -3/4), so x2 = (1, 0); player 2 answers x2 (utilities -3, 1; regrets -2, 2),
    so y2 = (0, 1).  The averages weight iterate t by t: (1 x1 + 2 x2) / 3."""
    run = solve_regret(np.array([[3.0, -1.0], [-2.0, 1.0]]), "cfr+", 2, record=True)
    assert run.xs.tolist() == [[0.5, 0.5], [1.0, 0.0]] and run.ys.tolist() == [[0.5, 0.5], [0.0, 1.0]]
    assert run.avg_xs[1] == pytest.approx([5 / 6, 1 / 6], abs=1e-15)
    assert run.avg_ys[1] == pytest.approx([1 / 6, 5 / 6], abs=1e-15)
    assert run.x == pytest.approx([5 / 6, 1 / 6], abs=1e-15) and run.iterations == 2


def test_a_record_asks_for_exactly_the_memory_it_takes(monkeypatch):
    import gamelp.regret.selfplay as selfplay

    asked, refuse = [], selfplay.refuse_unless_it_fits
    monkeypatch.setattr(
        selfplay, "refuse_unless_it_fits", lambda needed, *a: (asked.append(needed), refuse(needed, *a))
    )
    run = solve_regret(np.array([[3.0, -1.0, 0.0], [-2.0, 1.0, 0.5]]), "rm", 7, record=True)
    assert asked == [sum(a.nbytes for a in (run.xs, run.ys, run.avg_xs, run.avg_ys))] == [16 * 7 * 5]


def test_a_run_stops_at_the_first_iteration_where_either_strategy_overflows():
    """One row against two columns, eta 5e307: player 2's weights overflow first, at iteration 5; player 1's
    single action stays finite until the iteration after."""
    M = np.array([[0.0, -1.0]])
    fine = solve_regret(M, "mwu", 4, eta=5e307, check_every=1, record=True)
    assert np.isfinite(fine.xs).all() and np.isfinite(fine.ys).all()
    with pytest.raises(RegretError, match=r"^mwu diverged: the strategies became non-finite by iteration 5 "):
        solve_regret(M, "mwu", 10, eta=5e307, check_every=1)


def test_a_gap_exactly_at_the_target_stops_the_run():
    """Largest payoff 1, so the target is the gap itself: the run stops at the first iteration measured at it."""
    M = np.array([[1.0, -0.5], [-0.25, 0.5]])
    free = solve_regret(M, "rm", 40, check_every=1)
    k = 25
    target = float(free.gaps[k])
    assert np.all(free.gaps[:k] > target)  # no earlier iteration was within it
    stopped = solve_regret(M, "rm", 40, check_every=1, target_gap=target)
    assert stopped.converged and stopped.iterations == free.checked[k] and stopped.gap == target


@pytest.mark.parametrize(
    ("iterations", "check_every", "expected"),
    [(450, 7, [105, 203, 301, 406, 450]), (400, 1, [100, 200, 300, 400]), (40, 10, [40])],
)
def test_progress_comes_at_the_first_check_past_each_hundred_and_once_at_the_end(iterations, check_every, expected):
    seen = []
    M = np.array([[3.0, -1.0], [-2.0, 1.0]])
    run = solve_regret(M, "rm", iterations, check_every=check_every, progress=lambda t, gap: seen.append((t, gap)))
    assert [t for t, _ in seen] == expected
    assert seen[-1][1] == run.gap


def test_cfr_runs_rm_plus_at_each_point_unless_told_otherwise(kuhn):
    from gamelp.regret import CFR

    default, told = CFR(kuhn.pl1), CFR(kuhn.pl1, "rm+")
    utility = np.linspace(-1.0, 1.0, kuhn.pl1.num_sequences)
    for _ in range(3):
        assert default.next_strategy() == pytest.approx(told.next_strategy(), abs=0)
        default.observe_utility(utility)
        told.observe_utility(utility)
        utility = -utility[::-1]


def test_a_regret_run_reads_as_its_method_gap_and_sizes():
    run = solve_regret(np.array([[3.0, -1.0, 0.0], [-2.0, 1.0, 0.5]]), "rm", 10)
    assert "sizes=2/3" in repr(run) and run._summary()["sizes"] == "2/3"


def test_a_payoff_matrix_that_is_not_numeric_is_refused_in_words():
    with pytest.raises(RegretError, match=r"^the payoff matrix must be numeric$"):
        solve_regret([["a", "b"], ["c", "d"]], "rm", 5)
