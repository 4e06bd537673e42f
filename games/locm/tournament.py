"""Round-robin LOCM 1.2 drafter tournaments with one fixed battler, and their outputs (Vieira (2020), Section 5.4).

Every pair of drafters (i < j) plays S sets of M matches on
``gamelp.games.runner``: match m of a pair belongs to set s = m // M;
drafter i takes the first seat (seat 0, plays first) in the even sets and
drafter j in the odd ones, so with an even S each is first in half of the
sets (S must be even).  Both seats use the same battler.

Common random numbers: match m's seed is derived from (seed, m) alone, not
from the pair, and fixes the referee's draft offers and both deck shuffles
(``match.play_match``).  The m-th match of every pair therefore shows the
same offers and applies the same shuffles, so the pairs differ only by the
drafters' choices (and the randomness the agents draw from the match's
generator).

The store (``DIR/matches.sqlite``) keeps per match the winning seat, the
battle turns and both seats' 30 draft choices (positions 0..2 packed as a
base-3 number).  ``summarise`` derives from it:

* the win-rate matrix: c_ij = drafter i's win rate against j, both seats
  pooled (the mean over the S sets of the per-set rates), c_ji = 1 - c_ij,
  0.5 on the diagonal; its deviation is the standard deviation (ddof=1) of
  the per-set rates (``gamelp.games.runner.rates_by_group``).  Note that
  consecutive sets alternate the seats, so that deviation includes the seat
  advantage; the standard error of a pooled cell from its independent
  matches is ``seat_pooled_se``.
* win rates per seat: for each ordered pair, the row drafter's rate from the
  first and from the second seat;
* mana curves: each drafter's mean number of cards of cost 0..12 per deck
  over all its decks of the tournament (Figure 5.3), beside the card list's
  own distribution scaled to 30 cards;
* choice similarity: for each pair, the fraction of their draft turns on
  which both drafters took the same card of the same offer (Figure 5.4,
  "the draft turns they played against each other"); 1 on the diagonal.

``run_tournament`` writes, in ``out``: ``winrates.csv`` and ``std.csv``
(gamelp's matrix CSV, ready for ``gamelp matrix solve``), ``seats.csv``,
``mana_curves.csv`` and ``.png``, ``similarity.csv`` and ``.png``, each
atomically.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from gamelp.deps import require
from gamelp.display import Raw, Summarised, shape_text
from gamelp.games.errors import LocmError
from gamelp.games.locm.analysis import MAX_COST, mana_curve, reference_mana_curve
from gamelp.games.locm.battlers import make_battler
from gamelp.games.locm.draft import DRAFT_TURNS, RefereeSeeds, draft_offers
from gamelp.games.locm.drafters import drafter_file, make_drafter, make_seated_drafter
from gamelp.games.locm.match import play_match
from gamelp.games.runner import (
    Batch,
    Column,
    Execution,
    Experiment,
    derive_seed,
    open_store,
    rate_matrix,
    rates_by_group,
    round_robin,
    run_matches,
)
from gamelp.io import atomic_write
from gamelp.matrix import MatrixGame

STORE_NAME = "matches.sqlite"
_PICKS_LIMIT = 3**DRAFT_TURNS - 1
_POWERS = 3 ** np.arange(DRAFT_TURNS, dtype=np.int64)


def pack_choices(choices: Sequence[int]) -> int:
    """30 draft choices (0..2) as one base-3 number, turn t's choice the t-th digit."""
    return int(np.dot(np.asarray(choices, dtype=np.int64), _POWERS))


def unpack_choices(packed: np.ndarray) -> np.ndarray:
    """The inverse of ``pack_choices`` for an array of packed numbers: shape (n, 30)."""
    return (np.asarray(packed, dtype=np.int64)[:, None] // _POWERS) % 3


class _Recording:
    """Wraps a drafter and records the positions it picks (cleared for every match)."""

    def __init__(self, drafter):
        self.drafter = drafter
        self.choices: list[int] = []

    def pick(self, offer, chosen, seat, rng) -> int:
        choice = self.drafter.pick(offer, chosen, seat, rng)
        self.choices.append(choice)
        return choice


class DrafterTournament(Experiment):
    """The runner's view of a tournament: pairs of drafters, S * M matches per pair, seeds by match index."""

    columns = (
        Column("winner", 0, 1),
        Column("turns", 0, 10_000),
        Column("choices0", 0, _PICKS_LIMIT),
        Column("choices1", 0, _PICKS_LIMIT),
    )

    def __init__(self, drafters: Sequence[str], battler: str, matches: int, sets: int, seed: int):
        drafters = list(drafters)
        if len(drafters) < 2 or len(set(drafters)) != len(drafters):
            raise LocmError(f"a tournament needs at least two distinct drafters, got {','.join(drafters)}")
        for name, value in (("matches per set", matches), ("sets", sets)):
            if value < 1:
                raise LocmError(f"{name} must be at least 1, got {value}")
        if sets % 2:
            raise LocmError(
                f"the number of sets must be even, so that each drafter is first in half of them; got {sets}"
            )
        if seed < 0:
            raise LocmError(f"the seed must be non-negative, got {seed}")
        for name in drafters:  # refuses an unknown drafter, a bad file or a one-seat policy now, not in a worker
            make_seated_drafter(name)
        make_battler(battler)
        self.drafters, self.battler = drafters, battler
        self.matches, self.sets, self.seed = matches, sets, seed
        self.pairs = round_robin(len(drafters))
        self.n_pairs, self.n_matches = len(self.pairs), matches * sets
        self.params = {
            "game": "locm-1.2 drafter tournament",
            "drafters": drafters,
            "drafter_files": _drafter_file_digests(drafters),
            "battler": battler,
            "matches": matches,
            "sets": sets,
            "seed": seed,
        }

    def match_seed(self, pair: int, match: int) -> int:
        """The match's seed: the same for every pair, so all pairs see the same deals."""
        return derive_seed(self.seed, match)

    def expected_seeds(self, pair: np.ndarray, match: np.ndarray) -> np.ndarray:
        """The seeds of the matches ``(pair[i], match[i])``: one derivation per match index, whatever the pair."""
        matches, where = np.unique(match, return_inverse=True)
        return np.array([derive_seed(self.seed, int(m)) for m in matches], dtype=np.int64)[where].reshape(-1)

    def seated(self, pair: int, match: int) -> tuple[int, int]:
        """The drafters (indices) in seat 0 and seat 1 of one match."""
        i, j = self.pairs[pair]
        return (i, j) if (match // self.matches) % 2 == 0 else (j, i)

    def play_batch(self, batch: Batch) -> list[tuple[int, ...]]:
        """Play a batch with agents made for it (so threads of one Dask worker never share them)."""
        drafters = {name: _Recording(make_drafter(name)) for name in self.drafters}
        battler = make_battler(self.battler)
        return [self._play(drafters, battler, batch.pair, m) for m in batch.matches]

    def play(self, pair: int, match: int) -> tuple[int, ...]:
        """Play one match: the winner, the turns and both seats' packed draft choices."""
        return self.play_batch(Batch(pair, (match,)))[0]

    def _play(self, drafters: dict[str, _Recording], battler, pair: int, match: int) -> tuple[int, ...]:
        first, second = (drafters[self.drafters[k]] for k in self.seated(pair, match))
        first.choices, second.choices = [], []
        result = play_match(first, second, battler, battler, seed=self.match_seed(pair, match))
        return (result.winner, result.turns, pack_choices(first.choices), pack_choices(second.choices))


def _drafter_file_digests(drafters: Sequence[str]) -> dict[str, str]:
    """SHA-256 of each ``scores:PATH``, ``file:PATH`` or shipped learned drafter's file.

    Kept so a resume with an edited table or a retrained policy is refused.
    """
    files = {name: drafter_file(name) for name in drafters}
    return {name: hashlib.sha256(path.read_bytes()).hexdigest() for name, path in files.items() if path is not None}


# ----------------------------------------------------------------------------- summarising


@dataclass(frozen=True, repr=False)
class TournamentResult(Summarised):
    """A finished tournament's tables (see the module docstring)."""

    drafters: tuple[str, ...]
    battler: str
    matrix: MatrixGame  # pooled win rates with their deviation across sets
    seat_wins: np.ndarray  # (n, n, 2): wins of row drafter against column drafter from seat 0, 1
    seat_matches: np.ndarray  # (n, n, 2): matches played so
    mana_curves: np.ndarray  # (n, 13): mean cards per deck at each cost
    similarity: np.ndarray  # (n, n): fraction of equal choices, 1 on the diagonal
    matches: int  # matches played in all

    def _summary(self) -> dict:
        return {
            "drafters": Raw(shape_text(self.matrix.shape)),
            "battler": self.battler,
            "matches": self.matches,
            "names": Raw(", ".join(self.drafters)),
        }

    def to_frame(self):
        """The pooled win rates as a pandas DataFrame: row, col, rate, std and se.

        ``std`` is the rate's deviation across sets, ``se`` its standard error from the two seats' binomial
        errors (:attr:`seat_pooled_se`).
        """
        table = self.matrix.to_frame().rename(columns={"payoff": "rate"})
        table["se"] = self.seat_pooled_se.ravel()
        return table

    @property
    def seat_rates(self) -> np.ndarray:
        """Wins over matches per seat cell (NaN where no match was played)."""
        with np.errstate(invalid="ignore", divide="ignore"):
            return self.seat_wins / self.seat_matches

    @property
    def seat_pooled_se(self) -> np.ndarray:
        """Standard error of each pooled cell, (p0 + p1) / 2, from the binomial errors of its two seats."""
        p, n = self.seat_rates, self.seat_matches
        with np.errstate(invalid="ignore", divide="ignore"):
            se = 0.5 * np.sqrt((p * (1 - p) / n).sum(axis=2))
        np.fill_diagonal(se, 0.0)
        return se


def summarise(rows: np.ndarray, tournament: DrafterTournament) -> TournamentResult:
    """The tournament's tables from its stored rows (``MatchStore.table()``)."""
    n, t = len(tournament.drafters), tournament
    pair, match = rows[:, 0], rows[:, 1]
    winner, choices0, choices1 = (t.column(rows, name) for name in ("winner", "choices0", "choices1"))
    pairs = np.array(t.pairs, dtype=np.int64).reshape(-1, 2)
    swapped = (match // t.matches) % 2 == 1  # the pair's second drafter sits in seat 0
    first_won = (winner == 1) == swapped
    rate, std, _ = rates_by_group(pair, match // t.matches, np.where(first_won, 0, 1), t.n_pairs, t.sets)
    matrix = rate_matrix(t.drafters, t.pairs, rate, std)

    seat0 = np.where(swapped, pairs[pair, 1], pairs[pair, 0])
    seat1 = np.where(swapped, pairs[pair, 0], pairs[pair, 1])
    seat_wins, seat_matches = np.zeros((n, n, 2), dtype=np.int64), np.zeros((n, n, 2), dtype=np.int64)
    np.add.at(seat_matches, (seat0, seat1, 0), 1)
    np.add.at(seat_matches, (seat1, seat0, 1), 1)
    np.add.at(seat_wins, (seat0, seat1, 0), (winner == 0).astype(np.int64))
    np.add.at(seat_wins, (seat1, seat0, 1), (winner == 1).astype(np.int64))

    picks0, picks1 = unpack_choices(choices0), unpack_choices(choices1)
    same = np.zeros((n, n)), np.zeros((n, n))
    np.add.at(same[0], (seat0, seat1), (picks0 == picks1).mean(axis=1))
    np.add.at(same[1], (seat0, seat1), 1)
    together = same[0] + same[0].T
    played = same[1] + same[1].T
    with np.errstate(invalid="ignore", divide="ignore"):
        similarity = np.where(played > 0, together / played, np.nan)
    np.fill_diagonal(similarity, 1.0)
    return TournamentResult(
        tuple(t.drafters),
        t.battler,
        matrix,
        seat_wins,
        seat_matches,
        _mana_curves(t, match, seat0, seat1, picks0, picks1),
        similarity,
        len(rows),
    )


def _mana_curves(
    t: DrafterTournament,
    match: np.ndarray,
    seat0: np.ndarray,
    seat1: np.ndarray,
    picks0: np.ndarray,
    picks1: np.ndarray,
) -> np.ndarray:
    """Each drafter's mean mana curve over its decks; the decks are rebuilt from the offers and the choices."""
    offers = {m: draft_offers(RefereeSeeds.from_seed(t.match_seed(0, m)).draft) for m in np.unique(match).tolist()}
    turns = np.arange(DRAFT_TURNS)
    totals = np.zeros((len(t.drafters), MAX_COST + 1))
    decks = np.zeros(len(t.drafters))
    for m, drafter0, drafter1, p0, p1 in zip(match.tolist(), seat0, seat1, picks0, picks1):
        totals[drafter0] += mana_curve(offers[m][turns, p0])
        totals[drafter1] += mana_curve(offers[m][turns, p1])
        decks[[drafter0, drafter1]] += 1
    return totals / np.maximum(decks, 1)[:, None]


# ----------------------------------------------------------------------------- running and writing


def run_tournament(
    drafters: Sequence[str],
    battler: str = "max-attack",
    *,
    matches: int = 1000,
    sets: int = 2,
    seed: int = 0,
    out: str | os.PathLike | None = None,
    figures: bool = True,
    execution: Execution = Execution(),
) -> TournamentResult:
    """Play (or resume) the tournament and return its tables; with ``out``, store it there and write the outputs.

    An ``out`` that already holds a tournament store is continued, or refused
    with ``execution.resume=False``.  ``figures=False`` skips the two PNG files.
    ``execution`` says where the matches are played (workers or a Dask cluster) and in what batches.
    """
    tournament = DrafterTournament(drafters, battler, matches, sets, seed)
    out, store = open_store(out, STORE_NAME, tournament, execution.resume)
    try:
        run_matches(store, execution)
        result = summarise(store.table(), tournament)
    finally:
        store.close()
    if out is not None:
        write_outputs(result, out, figures)
    return result


def write_outputs(result: TournamentResult, out: Path, figures: bool = True) -> None:
    """The CSV files and the two figures listed in the module docstring, each written atomically."""
    names = list(result.drafters)
    result.matrix.to_csv(out / "winrates.csv", std_path=out / "std.csv")
    with atomic_write(out / "seats.csv") as handle:
        handle.write("row,col,row_seat,matches,wins,win_rate\n")
        for i, a in enumerate(names):
            for j, b in enumerate(names):
                for seat in (0, 1):
                    if result.seat_matches[i, j, seat]:
                        handle.write(
                            f"{a},{b},{seat},{result.seat_matches[i, j, seat]},"
                            f"{result.seat_wins[i, j, seat]},{float(result.seat_rates[i, j, seat])!r}\n"
                        )
    with atomic_write(out / "mana_curves.csv") as handle:
        handle.write("drafter," + ",".join(f"cost_{c}" for c in range(MAX_COST + 1)) + "\n")
        for name, curve in [*zip(names, result.mana_curves), ("all cards", reference_mana_curve())]:
            handle.write(name + "," + ",".join(repr(float(x)) for x in curve) + "\n")
    MatrixGame(result.similarity, names, names).to_csv(out / "similarity.csv")
    if figures:
        plot_mana_curves(result, out / "mana_curves.png")
        plot_similarity(result, out / "similarity.png")


def plot_mana_curves(result: TournamentResult, path: Path) -> None:
    """Figure 5.3's kind: each drafter's mean mana curve, the card list's distribution dashed."""
    require("matplotlib", "plotting")
    from matplotlib.figure import Figure

    from gamelp.plots import literal, save_figure

    costs = np.arange(MAX_COST + 1)
    fig = Figure(figsize=(7, 4))
    ax = fig.subplots()
    for name, curve in zip(result.drafters, result.mana_curves):
        ax.plot(costs, curve, marker="o", label=literal(name))
    ax.plot(costs, reference_mana_curve(), "k--", label="all cards")
    ax.set_xticks(costs)
    ax.set_xlabel("mana cost")
    ax.set_ylabel("cards per 30-card deck")
    ax.set_title(literal(f"mean mana curves ({result.battler} battler)"))
    ax.grid(alpha=0.3)
    ax.legend()
    save_figure(fig, path)


def plot_similarity(result: TournamentResult, path: Path) -> None:
    """Figure 5.4's kind: the lower triangle of the choice-similarity matrix, in %."""
    require("matplotlib", "plotting")
    from matplotlib.figure import Figure

    from gamelp.plots import literal, save_figure

    n = len(result.drafters)
    shown = np.where(np.tril(np.ones((n, n), dtype=bool)), 100 * result.similarity, np.nan)
    fig = Figure(figsize=(1.2 * n + 2, 1.0 * n + 1.5))
    ax = fig.subplots()
    image = ax.imshow(shown, cmap="viridis", vmin=0, vmax=100)
    for i in range(n):
        for j in range(i + 1):
            ax.text(
                j, i, f"{shown[i, j]:.1f}", ha="center", va="center", color="white" if shown[i, j] < 60 else "black"
            )
    names = [literal(name) for name in result.drafters]
    ax.set_xticks(range(n), names, rotation=45, ha="right")
    ax.set_yticks(range(n), names)
    ax.set_title("same choice on the same offers, %")
    fig.colorbar(image, ax=ax)
    save_figure(fig, path)


def report_table(result: TournamentResult) -> str:
    """A short text report: the pooled win rates with their standard errors, % (the CLI prints it)."""
    names = list(result.drafters)
    width = max(15, *(len(x) + 2 for x in names))
    se = result.seat_pooled_se
    lines = [
        f"win rate of row vs column, % (standard error), {result.battler} battler, {result.matches} matches",
        " " * width + "".join(f"{x:>{width}}" for x in names),
    ]
    for i, row in enumerate(names):
        cells = [
            "-" if i == j else f"{100 * result.matrix.payoffs[i, j]:.2f} ({100 * se[i, j]:.2f})"
            for j in range(len(names))
        ]
        lines.append(f"{row:<{width}}" + "".join(f"{c:>{width}}" for c in cells))
    return "\n".join(lines)
