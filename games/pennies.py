"""Matching pennies, and the repeated win/lose matrix-game experiments of Giotta (2020).

W. Giotta, *Approximating the Optimal Strategy in a Two-Player Game of
Incomplete Information with Application to Yu-Gi-Oh* (UCF, 2020), section 2
and appendices A-B, plays matching pennies and rock-paper-scissors over and
over between two mixed strategies.  :class:`WinLossGame` holds the win
matrix ``W`` (``W[i, j] = +1`` when A's action ``i`` beats B's ``j``,
``-1`` when it loses, ``0`` for a tie) and runs the three experiments on
any such game (``games/rps.py`` uses it for rock-paper-scissors):

* step adjustment (section 2.1.2): both players start at given mixed
  strategies; after every ``window`` plays, a player who lost that window by
  ``cutoff`` or more shifts ``step`` probability from its worst to its best
  response against the opponent's most frequent action of the window (ties
  between actions broken at random).  In matching pennies, starting pure
  and opposite, this drifts to (1/2, 1/2) within about 1000 plays.  Each
  window is one multinomial draw of the joint action counts, vectorised
  over independent runs.
* fixed-weight score distributions (section 2.2.2): per game A wins with
  probability ``a^T [W > 0] b``, B with ``a^T [W < 0] b``; the scores of
  ``n_games`` games, repeated ``n_reps`` times, are one multinomial draw per
  repetition.  Only at the equilibrium do the two distributions coincide.
* no-regret self-play: the same game under multiplicative weights (MWU) and
  optimistic MWU from :mod:`gamelp.regret`, warm-started at the same mixed
  strategies, for comparison with the step rule (MWU's last iterate cycles
  away from the equilibrium, OMWU's converges to it).

:func:`run_experiments` runs the three on one game from one pair of starting
strategies, the pipeline of the scripts ``scripts/giotta/giotta_pennies.py``
and ``giotta_rps.py``, and :meth:`Experiments.plot` draws their figures.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from gamelp.deps import require
from gamelp.games.errors import MatrixGameSimError
from gamelp.memory import refuse_unless_it_fits
from gamelp.regret.simplex import DEFAULT_ETA, LOCAL_MINIMISERS, MWU


@dataclass
class StepRun:
    """Weights over time of :meth:`WinLossGame.step_adjustment`.

    ``plays[t]`` is the number of plays before ``weights_a[:, t]`` and
    ``weights_b[:, t]`` (shape ``(n_runs, n_windows + 1, n_actions)``) were in force.
    """

    plays: np.ndarray
    weights_a: np.ndarray
    weights_b: np.ndarray


@dataclass(frozen=True)
class WinLossGame:
    """A symmetric-role two-player game given by its win matrix and action labels."""

    name: str
    win: np.ndarray
    labels: tuple[str, ...]

    def __post_init__(self):
        W = np.asarray(self.win)
        if W.ndim != 2 or W.shape != (len(self.labels), len(self.labels)) or not np.isin(W, (-1, 0, 1)).all():
            raise MatrixGameSimError(f"{self.name}: the win matrix must be square in -1/0/+1 with one label per action")

    @property
    def n_actions(self) -> int:
        """The number of actions of each player."""
        return len(self.labels)

    def mixed(self, weights, who: str) -> np.ndarray:
        """Validate a mixed strategy (non-negative, sums to one, one entry per action)."""
        w = np.asarray(weights, dtype=float)
        if w.shape != (self.n_actions,) or np.any(w < 0) or not np.isclose(w.sum(), 1.0):
            raise MatrixGameSimError(
                f"{self.name}: {who}'s weights {weights!r} are not a probability vector over {self.labels}"
            )
        return w / w.sum()

    def expected_scores(self, weights_a, weights_b) -> tuple[float, float]:
        """Probability per game that A wins and that B wins."""
        a, b = self.mixed(weights_a, "A"), self.mixed(weights_b, "B")
        W = np.asarray(self.win)
        return float(a @ (W > 0) @ b), float(a @ (W < 0) @ b)

    def score_distributions(
        self, weights_a, weights_b, n_games: int = 1000, n_reps: int = 1000, seed: int = 0
    ) -> tuple[np.ndarray, np.ndarray]:
        """Scores (games won) of A and of B in each of ``n_reps`` matches of ``n_games`` games."""
        if n_games < 1 or n_reps < 1:
            raise MatrixGameSimError(f"n_games = {n_games} and n_reps = {n_reps} must be positive")
        refuse_unless_it_fits(24 * n_reps, f"{n_reps:,} matches", MatrixGameSimError, "play fewer matches")
        p_a, p_b = self.expected_scores(weights_a, weights_b)
        p_tie = max(1.0 - p_a - p_b, 0.0)
        counts = np.random.default_rng(seed).multinomial(n_games, [p_a, p_b, p_tie], size=n_reps)
        return counts[:, 0], counts[:, 1]

    def step_adjustment(
        self,
        weights_a,
        weights_b,
        n_plays: int = 1000,
        window: int = 20,
        cutoff: int = 4,
        step: float = 0.05,
        n_runs: int = 1,
        seed: int = 0,
    ) -> StepRun:
        """The paper's step-adjustment dynamics, ``n_runs`` independent runs at once."""
        if window < 1 or n_plays < window or n_runs < 1 or not 0 < step <= 1:
            raise MatrixGameSimError(
                f"{self.name}: need 1 <= window <= n_plays, n_runs >= 1 and "
                f"0 < step <= 1 (got window={window}, n_plays={n_plays}, "
                f"n_runs={n_runs}, step={step})"
            )
        k = self.n_actions
        n_windows = n_plays // window
        refuse_unless_it_fits(  # both players' weights after every window, in every run
            16.0 * (n_windows + 1) * n_runs * k,
            f"{n_runs:,} runs of {n_windows + 1:,} windows",
            MatrixGameSimError,
            "ask for fewer runs or plays, or a longer window",
        )
        W = np.asarray(self.win, dtype=float)
        rng = np.random.default_rng(seed)
        wa = np.tile(self.mixed(weights_a, "A"), (n_runs, 1))
        wb = np.tile(self.mixed(weights_b, "B"), (n_runs, 1))
        hist_a, hist_b = [wa.copy()], [wb.copy()]
        runs = np.arange(n_runs)
        for _ in range(n_windows):
            joint = (wa[:, :, None] * wb[:, None, :]).reshape(n_runs, k * k)
            counts = rng.multinomial(window, joint / joint.sum(axis=1, keepdims=True)).reshape(n_runs, k, k)
            margin = np.einsum("rij,ij->r", counts, W)
            # Random tie-break: the counts are integers, noise below 1 never reorders them.
            modal_a = np.argmax(counts.sum(axis=2) + rng.random((n_runs, k)) * 0.5, axis=1)
            modal_b = np.argmax(counts.sum(axis=1) + rng.random((n_runs, k)) * 0.5, axis=1)
            a_lost = margin <= -cutoff
            b_lost = margin >= cutoff
            # A's payoff against B's modal action j is W[:, j]; B's against A's modal i is -W[i, :].
            self._shift(wa, a_lost, runs, W[:, modal_b].T, step)
            self._shift(wb, b_lost, runs, -W[modal_a, :], step)
            hist_a.append(wa.copy())
            hist_b.append(wb.copy())
        plays = np.arange(n_windows + 1) * window
        return StepRun(plays, np.stack(hist_a, axis=1), np.stack(hist_b, axis=1))

    @staticmethod
    def _shift(weights, mask, runs, payoff, step) -> None:
        """In the rows ``mask``, move ``step`` from the worst to the best action of ``payoff``."""
        best, worst = np.argmax(payoff, axis=1), np.argmin(payoff, axis=1)
        moved = np.where(mask, np.minimum(step, weights[runs, worst]), 0.0)
        weights[runs, worst] -= moved
        weights[runs, best] += moved

    def regret_dynamics(
        self,
        weights_a,
        weights_b,
        method: str = "mwu",
        iterations: int = 1000,
        eta: float = DEFAULT_ETA,
        mix: float = 0.02,
    ) -> tuple[np.ndarray, np.ndarray]:
        """Self-play of MWU or OMWU (from :mod:`gamelp.regret`) on ``W`` (A's utility ``a^T W b``).

        Both minimisers are warm-started at the given strategies mixed with
        the uniform one, ``x0 = (1 - mix) x + mix / n`` (so the logits of
        pure strategies stay finite), by setting their cumulative utility to
        ``log(x0) / eta``.  Returns the iterates of A and of B, shape
        ``(iterations, n_actions)``.
        """
        if not 0 < mix <= 1 or iterations < 1:
            raise MatrixGameSimError(f"need 0 < mix <= 1 and iterations >= 1, got mix={mix}, iterations={iterations}")
        refuse_unless_it_fits(
            16.0 * iterations * self.n_actions, f"{iterations:,} iterations", MatrixGameSimError, "ask for fewer"
        )

        kinds = {name: rule for name, rule in LOCAL_MINIMISERS.items() if rule.entropy}  # MWU and its optimistic form
        if method not in kinds:
            raise MatrixGameSimError(f"unknown method {method!r} (choose from {sorted(kinds)})")
        W = np.asarray(self.win, dtype=float)
        players = []
        for weights, who in ((weights_a, "A"), (weights_b, "B")):
            start = (1 - mix) * self.mixed(weights, who) + mix / self.n_actions
            player = MWU(self.n_actions, eta=eta, optimistic=kinds[method].predictive)
            player.cumulative = np.log(start) / eta
            players.append(player)
        xs, ys = np.empty((iterations, self.n_actions)), np.empty((iterations, self.n_actions))
        for t in range(iterations):
            xs[t], ys[t] = players[0].next_strategy(), players[1].next_strategy()
            players[0].observe_utility(W @ ys[t])
            players[1].observe_utility(-W.T @ xs[t])
        return xs, ys


PENNIES = WinLossGame("matching pennies", np.array([[1, -1], [-1, 1]]), ("H", "T"))
"""A wins when the coins match, B when they differ."""

PAPER_START_A = (0.0, 1.0)
PAPER_START_B = (1.0, 0.0)
"""The paper's starting strategies: A always tails, B always heads."""


def plot_weights(
    series: dict[str, tuple[np.ndarray, np.ndarray]], path, ylabel: str, title: str, equilibrium: float | None = None
) -> Path:
    """Line plot of weights over plays, one line per label (``label -> (plays, weights)``)."""
    require("matplotlib", "plotting")
    from matplotlib.figure import Figure

    from gamelp.plots import save_figure

    fig = Figure(figsize=(8, 4))
    ax = fig.subplots()
    for label, (x, y) in series.items():
        ax.plot(x, y, label=label, lw=1.2)
    if equilibrium is not None:
        ax.axhline(equilibrium, color="k", ls=":", lw=1, label="equilibrium")
    ax.set_xlabel("plays")
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.set_ylim(-0.02, 1.02)
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    return save_figure(fig, path)


def plot_score_histograms(panels: list[tuple[str, np.ndarray, np.ndarray]], path, title: str) -> Path:
    """One panel per ``(caption, scores of A, scores of B)``: overlaid histograms of the scores."""
    require("matplotlib", "plotting")
    from matplotlib.figure import Figure

    from gamelp.plots import save_figure

    fig = Figure(figsize=(4.5 * len(panels), 3.6))
    axes = fig.subplots(1, len(panels), squeeze=False)
    for ax, (caption, a, b) in zip(axes[0], panels):
        low, high = min(a.min(), b.min()), max(a.max(), b.max())
        bins = np.arange(low, high + 2) - 0.5 if high - low < 80 else 60  # a bin per score, or 60 for wide ranges
        ax.hist(a, bins=bins, alpha=0.6, label="A")
        ax.hist(b, bins=bins, alpha=0.6, label="B")
        ax.set_title(caption, fontsize=9)
        ax.set_xlabel("games won")
        ax.legend(fontsize=8)
    fig.suptitle(title)
    return save_figure(fig, path)


@dataclass
class Experiments:
    """The three experiments of one game, as :func:`run_experiments` ran them.

    ``step`` holds the step rule's runs; ``mwu`` and ``omwu`` the self-play iterates of A and of B (each of
    shape ``(plays, n_actions)``); ``matches`` per weight pair its weights ``A`` and ``B``, the expected
    scores ``expected_A`` and ``expected_B`` over a match's ``games`` games, and the scores' means and
    standard deviations over the ``reps`` matches (``mean_A``, ``sd_A``, ``mean_B``, ``sd_B``);
    ``scores`` per pair the scores of A and of B in every match.
    """

    game: WinLossGame
    games: int
    reps: int
    eta: float
    step: StepRun
    mwu: tuple[np.ndarray, np.ndarray]
    omwu: tuple[np.ndarray, np.ndarray]
    matches: dict[str, dict]
    scores: dict[str, tuple[np.ndarray, np.ndarray]]

    def plot(
        self,
        out: Path,
        prefix: str,
        *,
        ylabel: str,
        step_title: str,
        step_series: dict[str, tuple[np.ndarray, np.ndarray]],
        regret_series: dict[str, tuple[np.ndarray, np.ndarray]],
    ) -> None:
        """Write ``PREFIX_weights.png``, ``PREFIX_regret.png`` and ``PREFIX_scores.png`` into ``out``.

        The step rule's ``step_series`` and the self-play's ``regret_series`` (:func:`plot_weights`: the
        weights a game's figures show, ``ylabel``, against the equilibrium's uniform weight), and a
        histogram panel per fixed-weight match (:func:`plot_score_histograms`).
        """
        title, equilibrium = self.game.name.capitalize(), 1 / self.game.n_actions
        plot_weights(
            step_series, out / f"{prefix}_weights.png", ylabel, f"{title}, step rule: {step_title}", equilibrium
        )
        plot_weights(
            regret_series,
            out / f"{prefix}_regret.png",
            ylabel,
            f"{title}, MWU / OMWU self-play (eta = {self.eta}), same start",
            equilibrium,
        )
        panels = [
            (f"{label}: A {np.round(match['A'], 2).tolist()} vs B {np.round(match['B'], 2).tolist()}", a, b)
            for (label, match), (a, b) in zip(self.matches.items(), self.scores.values())
        ]
        plot_score_histograms(
            panels, out / f"{prefix}_scores.png", f"{title}: games won out of {self.games}, {self.reps} matches"
        )


def run_experiments(
    game: WinLossGame,
    start_a,
    start_b,
    pairs: dict[str, tuple],
    *,
    plays: int,
    runs: int,
    eta: float,
    games: int,
    reps: int,
    seed: int = 0,
    match_seed: int | None = None,
    **step_options,
) -> Experiments:
    """Giotta's (2020) pipeline on ``game``, as the scripts of ``scripts/giotta/`` run it on pennies and RPS.

    From the starting strategies ``start_a`` and ``start_b``: ``runs`` runs of the step rule over ``plays``
    plays (seeded ``seed``; ``step_options``: its ``window``, ``cutoff`` and ``step``), and MWU and OMWU
    self-play for ``plays`` iterations at step size ``eta``.  Then per weight pair of ``pairs``
    (label -> (A's weights, B's weights)), ``reps`` matches of ``games`` games, the ``i``-th pair's
    seeded ``match_seed + i`` (``match_seed`` defaults to ``seed``).
    """
    step = game.step_adjustment(start_a, start_b, n_plays=plays, n_runs=runs, seed=seed, **step_options)
    mwu = game.regret_dynamics(start_a, start_b, "mwu", plays, eta=eta)
    omwu = game.regret_dynamics(start_a, start_b, "omwu", plays, eta=eta)
    first = seed if match_seed is None else match_seed
    matches, scores = {}, {}
    for i, (label, (wa, wb)) in enumerate(pairs.items()):
        a, b = scores[label] = game.score_distributions(wa, wb, games, reps, seed=first + i)
        p_a, p_b = game.expected_scores(wa, wb)
        matches[label] = {
            "A": list(wa),
            "B": list(wb),
            "expected_A": games * p_a,
            "expected_B": games * p_b,
            "mean_A": float(a.mean()),
            "sd_A": float(a.std()),
            "mean_B": float(b.mean()),
            "sd_B": float(b.std()),
        }
    return Experiments(game, games, reps, eta, step, mwu, omwu, matches, scores)
