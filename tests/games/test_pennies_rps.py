"""Tests of the repeated matching-pennies and rock-paper-scissors experiments."""

import numpy as np
import pytest

from gamelp import GamelpError
from gamelp.games import pennies, rps
from gamelp.games.pennies import PENNIES
from gamelp.games.rps import RPS


def test_first_window_moves_the_loser_one_step_toward_its_goal():
    # A (matcher) plays tails, B heads: A loses all 20 and moves 0.05 toward heads.
    run = PENNIES.step_adjustment(pennies.PAPER_START_A, pennies.PAPER_START_B, n_plays=40, seed=0)
    np.testing.assert_array_equal(run.plays, [0, 20, 40])
    np.testing.assert_allclose(run.weights_a[0, 1], [0.05, 0.95])
    np.testing.assert_allclose(run.weights_b[0, 1], [1.0, 0.0])


def test_pennies_step_adjustment_converges_near_one_half():
    run = PENNIES.step_adjustment(pennies.PAPER_START_A, pennies.PAPER_START_B, n_plays=2000, n_runs=400, seed=1)
    heads_a, heads_b = run.weights_a[..., 0], run.weights_b[..., 0]
    late = run.plays >= 1000
    # Starts 0.5 away from the equilibrium; after 1000 plays the runs sit near it.
    assert np.abs(heads_a[:, late] - 0.5).mean() < 0.12
    assert np.abs(heads_b[:, late] - 0.5).mean() < 0.12
    assert abs(heads_a[:, -1].mean() - 0.5) < 0.05 and abs(heads_b[:, -1].mean() - 0.5) < 0.05
    # ... and not before: at 200 plays B has barely moved from pure heads.
    assert heads_b[:, run.plays == 200].mean() > 0.9
    np.testing.assert_allclose(run.weights_a.sum(axis=2), 1.0)
    assert run.weights_a.min() >= 0 and run.weights_b.min() >= 0


def test_rps_step_adjustment_approaches_the_uniform_strategy():
    run = RPS.step_adjustment(rps.PAPER_START_A, rps.PAPER_START_B, n_plays=4000, n_runs=200, seed=2)
    start, end = np.abs(run.weights_a[:, 0] - 1 / 3).mean(), np.abs(run.weights_a[:, -1] - 1 / 3).mean()
    assert start == pytest.approx(4 / 9) and end < 0.12


def test_rps_expected_scores_by_hand():
    # A wins: rock-scissors 0.2*0.1 + paper-rock 0.6*0.4 + scissors-paper 0.2*0.5 = 0.36;
    # B wins: 0.4*0.2 (rock-scissors) + 0.5*0.2 (paper-rock) + 0.1*0.6 (scissors-paper) = 0.24.
    p_a, p_b = RPS.expected_scores(rps.PAPER_WEIGHTS_A, rps.PAPER_WEIGHTS_B)
    assert (p_a, p_b) == pytest.approx((0.36, 0.24))
    assert RPS.expected_scores(rps.EQUILIBRIUM, [0.9, 0.05, 0.05]) == pytest.approx((1 / 3, 1 / 3))


@pytest.mark.parametrize("label", list(rps.FIGURE2_PAIRS))
def test_rps_fixed_weight_score_distributions(label):
    wa, wb = rps.FIGURE2_PAIRS[label]
    a, b = RPS.score_distributions(wa, wb, n_games=1000, n_reps=1000, seed=3)
    p_a, p_b = RPS.expected_scores(wa, wb)
    assert a.shape == b.shape == (1000,) and (a + b <= 1000).all()
    # Means within 4 standard errors of the analytic 1000 p; spread binomial.
    for scores, p in ((a, p_a), (b, p_b)):
        assert abs(scores.mean() - 1000 * p) < 4 * np.sqrt(1000 * p * (1 - p) / 1000)
        assert scores.std() == pytest.approx(np.sqrt(1000 * p * (1 - p)), rel=0.1)
    # The histograms overlap only at the equilibrium.
    overlap = np.minimum(np.bincount(a, minlength=1001), np.bincount(b, minlength=1001)).sum() / 1000
    assert (overlap > 0.8) if label == "equilibrium" else (overlap < 0.01)


def test_score_distributions_are_seeded():
    first = PENNIES.score_distributions([0.3, 0.7], [0.5, 0.5], n_games=50, n_reps=20, seed=9)
    again = PENNIES.score_distributions([0.3, 0.7], [0.5, 0.5], n_games=50, n_reps=20, seed=9)
    other = PENNIES.score_distributions([0.3, 0.7], [0.5, 0.5], n_games=50, n_reps=20, seed=10)
    np.testing.assert_array_equal(first[0], again[0])
    assert not np.array_equal(first[0], other[0])
    # No ties in pennies: every game is won by someone.
    np.testing.assert_array_equal(first[0] + first[1], 50)


def test_omwu_last_iterate_converges_and_mwu_cycles():
    xs, ys = PENNIES.regret_dynamics(pennies.PAPER_START_A, pennies.PAPER_START_B, "omwu", 2000, eta=0.1)
    assert xs[0, 0] == pytest.approx(0.01) and ys[0, 0] == pytest.approx(0.99)
    assert np.abs(xs[-1] - 0.5).max() < 0.02 and np.abs(ys[-1] - 0.5).max() < 0.02
    xs, ys = PENNIES.regret_dynamics(pennies.PAPER_START_A, pennies.PAPER_START_B, "mwu", 2000, eta=0.1)
    assert np.abs(xs[-200:, 0] - 0.5).max() > 0.4  # the last iterate keeps cycling
    assert abs(xs[:, 0].mean() - 0.5) < 0.1  # while its average is near the equilibrium


def test_bad_input_is_refused():
    with pytest.raises(GamelpError, match="weights"):
        RPS.expected_scores([0.5, 0.5], rps.EQUILIBRIUM)
    with pytest.raises(GamelpError, match="window"):
        PENNIES.step_adjustment([0.5, 0.5], [0.5, 0.5], n_plays=10, window=20)
    with pytest.raises(GamelpError, match="method"):
        PENNIES.regret_dynamics([0.5, 0.5], [0.5, 0.5], method="cfr")
    with pytest.raises(GamelpError, match="win matrix"):
        pennies.WinLossGame("bad", np.array([[2, 0], [0, 1]]), ("a", "b"))


def test_plots_are_written(tmp_path):
    run = PENNIES.step_adjustment(pennies.PAPER_START_A, pennies.PAPER_START_B, n_plays=200, seed=0)
    path = pennies.plot_weights(
        {"A": (run.plays, run.weights_a[0, :, 0])}, tmp_path / "w.png", "P(heads)", "test", equilibrium=0.5
    )
    a, b = PENNIES.score_distributions([0.5, 0.5], [0.5, 0.5], n_games=100, n_reps=50)
    hist = pennies.plot_score_histograms([("eq", a, b)], tmp_path / "h.png", "test")
    assert path.stat().st_size > 1000 and hist.stat().st_size > 1000


@pytest.mark.parametrize(
    "call, what",
    [
        (lambda: RPS.step_adjustment([1, 0, 0], [0, 1, 0], n_plays=100, n_runs=10**9), "1,000,000,000 runs"),
        (lambda: RPS.score_distributions([1, 0, 0], [0, 1, 0], n_games=10, n_reps=10**9), "1,000,000,000 matches"),
        (lambda: PENNIES.regret_dynamics([1, 0], [0, 1], iterations=10**10), "10,000,000,000 iterations"),
    ],
)
def test_simulations_larger_than_memory_are_refused_before_allocating(call, what):
    with pytest.raises(GamelpError, match=f"{what}.* GiB of memory, more than half of this machine's"):
        call()


def test_score_histograms_of_long_matches_use_sixty_bins(tmp_path):
    """Scores spread over 10^8 games drew a bin per score (a 1 GB array) before."""
    a = np.array([360_000_000, 360_010_000])
    b = np.array([240_000_000, 240_010_000])
    path = pennies.plot_score_histograms([("wide", a, b)], tmp_path / "h.png", "wide")
    assert path.stat().st_size > 0


def test_run_experiments_runs_each_experiment_as_called_alone(tmp_path):
    """The pipeline both Giotta scripts run: each experiment seeded as if called alone, the matches' figures from
    their scores, and three figures written under the prefix."""
    pairs = {"favours A": ((0.7, 0.3), (0.6, 0.4)), "equilibrium": ((0.5, 0.5), (0.5, 0.5))}
    start_a, start_b = pennies.PAPER_START_A, pennies.PAPER_START_B
    run = pennies.run_experiments(
        PENNIES, start_a, start_b, pairs, plays=200, runs=5, eta=0.2, games=50, reps=30, seed=3, match_seed=7, window=10
    )
    alone = PENNIES.step_adjustment(start_a, start_b, n_plays=200, n_runs=5, seed=3, window=10)
    np.testing.assert_array_equal(run.step.weights_a, alone.weights_a)
    np.testing.assert_array_equal(run.omwu[1], PENNIES.regret_dynamics(start_a, start_b, "omwu", 200, eta=0.2)[1])
    for i, (label, (wa, wb)) in enumerate(pairs.items()):
        a, b = PENNIES.score_distributions(wa, wb, 50, 30, seed=7 + i)
        np.testing.assert_array_equal(run.scores[label][0], a)
        match = run.matches[label]
        assert (match["A"], match["B"]) == (list(wa), list(wb))
        assert match["expected_A"] == pytest.approx(50 * PENNIES.expected_scores(wa, wb)[0])
        assert (match["mean_B"], match["sd_B"]) == (pytest.approx(b.mean()), pytest.approx(b.std()))
    series = {"A": (run.step.plays, run.step.weights_a[0, :, 0])}
    run.plot(tmp_path, "p", ylabel="P(heads)", step_title="t", step_series=series, regret_series=series)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["p_regret.png", "p_scores.png", "p_weights.png"]
