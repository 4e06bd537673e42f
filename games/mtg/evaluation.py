"""Evaluation functions for the search cut-off: life difference, layered score, random forest.

Each evaluation maps ``(game, state)`` to a value in [-1, 1] for player 0 (its
sign is the predicted winner, 0 a draw):

* ``life``: the life difference, scaled into (-1, 1).
* ``layered``: the lexicographic score of the "Min-Max Evaluation Function For
  Magic" post (seed 002, 2009): sub-scores Limits > Wins > Creatures > Life >
  Library > InPlay > InHand > Misc, each player 0's minus player 1's, compared
  from the most significant layer down. Each layer is clamped into its own
  range of bits of one integer, so comparing the packed numbers is exactly the
  layer-by-layer comparison; the integer is then scaled into (-1, 1).
* ``forest``: a random forest classifier (Esche 2018, ch. 1.3 and 3.1: 9 trees,
  ``max_features="sqrt"`` of 60 state features) trained on positions where a
  player first reached the life threshold, labelled with the winner found by
  full minimax from there; compiled to plain Python comparisons for speed and
  cached on disk (joblib).
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

import numpy as np

from gamelp.errors import GamelpError
from gamelp.games.mtg.engine import (
    ACTIVE, ATTACKERS, HAND_C, HAND_L, HAND_M, LAND_PLAYED, LANDS, LIB, LIFE, MANA, PHASE,
    PLAYER_BASE, READY, SICK, TAPPED, TURN, Game, decider,
)

EVALUATIONS = ("forest", "layered", "life")

logger = logging.getLogger(__name__)

_B0, _B1 = PLAYER_BASE


def life_evaluation(game: Game, s) -> float:
    """Life difference of player 0 over player 1, divided by 41 (so |value| < 1)."""
    return (s[_B0 + LIFE] - s[_B1 + LIFE]) / 41.0


# (name, bits) from the most significant layer down; a layer of b bits holds
# values in [-(2**(b-1)) + 1, 2**(b-1) - 1].
LAYERS = (
    ("limits", 2), ("wins", 2), ("creatures", 7), ("life", 8),
    ("library", 8), ("in_play", 7), ("in_hand", 6), ("misc", 6),
)
_TOTAL_BITS = sum(bits for _, bits in LAYERS)


def _player_layers(game: Game, s, p: int) -> tuple[int, ...]:
    """Player p's raw sub-scores, most significant first."""
    b = PLAYER_BASE[p]
    o = PLAYER_BASE[1 - p]
    library = len(game.libraries[p]) - s[b + LIB]
    creature_count = s[b + READY] + s[b + SICK] + s[b + TAPPED] + (s[ATTACKERS] if s[ACTIVE] == p else 0)
    hand = s[b + HAND_M] + s[b + HAND_L] + s[b + HAND_C]
    burn = 3 * min(s[b + HAND_L], s[b + LANDS])
    return (
        -1 if library == 0 else 0,                      # Limits: decked at the next draw
        1 if burn >= s[o + LIFE] else 0,                # Wins: lethal burn in hand and lands
        creature_count,                                 # Creatures
        s[b + LIFE],                                    # Life
        library,                                        # Library
        s[b + LANDS],                                   # InPlay (creatures have their own layer)
        min(hand, game.rules.max_hand),                 # InHand
        s[b + HAND_L] + s[b + MANA],                    # Misc: bolts and open mana
    )


def layered_layers(game: Game, s) -> tuple[int, ...]:
    """Sub-scores of player 0 minus player 1, most significant first."""
    mine, theirs = _player_layers(game, s, 0), _player_layers(game, s, 1)
    return tuple(x - y for x, y in zip(mine, theirs))


def layered_score(game: Game, s) -> int:
    """The layers packed into one integer whose order is the lexicographic order of the layers."""
    score = 0
    for (_, bits), value in zip(LAYERS, layered_layers(game, s)):
        half = (1 << (bits - 1)) - 1
        score = (score << bits) + max(-half, min(half, value))
    return score


def layered_evaluation(game: Game, s) -> float:
    """The packed layered score scaled into (-1, 1)."""
    return layered_score(game, s) / float(1 << _TOTAL_BITS)


def get_evaluation(name: str, **forest_options):
    """The evaluation called ``name`` ("forest", "layered" or "life"); the options
    (``threshold``, ``path``, ...) go to :func:`forest_evaluation` and are ignored otherwise."""
    if name == "life":
        return life_evaluation
    if name == "layered":
        return layered_evaluation
    if name == "forest":
        return forest_evaluation(**forest_options)
    raise ValueError(f"unknown evaluation {name!r}; expected one of {EVALUATIONS}")


# ---- the random forest ------------------------------------------------------
# Features of a state (60): per player, the public and private counts of the
# state and its library (size, composition, the next 3 and next 7 cards, the
# distance to the next card of each type); the decision point; a few differences.
_PLAYER_FIELDS = ("life", "hand_m", "hand_l", "hand_c", "lands", "mana", "ready", "sick", "tapped")
_LIBRARY_FIELDS = ("lib_size", "lib_m", "lib_l", "lib_c", "top3_m", "top3_l", "top3_c",
                   "top7_m", "top7_l", "top7_c", "next_m", "next_l", "next_c")
FEATURE_NAMES = tuple(
    f"p{p + 1}_{name}" for p in (0, 1) for name in _PLAYER_FIELDS + _LIBRARY_FIELDS
) + ("phase", "active", "decider", "turn", "land_played", "attackers",
     "life_diff", "creature_diff", "land_diff", "hand_bolt_diff", "library_bolt_diff",
     "p1_burn", "p2_burn", "p1_damage", "p2_damage", "hand_diff")


def _library_rows(game: Game) -> tuple:
    """Per player and library position, the 13 library features (cached on the game)."""
    rows = game.derived.get("library_rows")
    if rows is None:
        rows = []
        for library, remaining in zip(game.libraries, game.remaining):
            n = len(library)
            following = [n + 1 - i for i in range(n + 1)]  # distance past the end when none is left
            nxt = [list(following) for _ in range(3)]
            for i in range(n - 1, -1, -1):
                for card in range(3):
                    nxt[card][i] = 1 if library[i] == card else nxt[card][i + 1] + 1
            player_rows = []
            for i in range(n + 1):
                here, after3, after7 = remaining[i], remaining[min(i + 3, n)], remaining[min(i + 7, n)]
                player_rows.append(
                    (n - i,) + here
                    + tuple(x - y for x, y in zip(here, after3))
                    + tuple(x - y for x, y in zip(here, after7))
                    + (nxt[0][i], nxt[1][i], nxt[2][i])
                )
            rows.append(tuple(player_rows))
        rows = game.derived["library_rows"] = tuple(rows)
    return rows


def features(game: Game, s) -> list:
    """The 60 features of ``state`` named in :data:`FEATURE_NAMES`."""
    rows = _library_rows(game)
    out = []
    creature_counts, burns = [], []
    for p in (0, 1):
        b = PLAYER_BASE[p]
        out.extend(s[b + LIFE:b + LIFE + 1])
        out.extend(s[b + HAND_M:b + TAPPED + 1])
        out.extend(rows[p][s[b + LIB]])
        creature_counts.append(s[b + READY] + s[b + SICK] + s[b + TAPPED] + (s[ATTACKERS] if s[ACTIVE] == p else 0))
        burns.append(3 * min(s[b + HAND_L], s[b + LANDS]))
    out.extend((s[PHASE], s[ACTIVE], decider(s), s[TURN], s[LAND_PLAYED], s[ATTACKERS]))
    b0, b1 = _B0, _B1
    out.extend((
        s[b0 + LIFE] - s[b1 + LIFE],
        creature_counts[0] - creature_counts[1],
        s[b0 + LANDS] - s[b1 + LANDS],
        s[b0 + HAND_L] - s[b1 + HAND_L],
        rows[0][s[b0 + LIB]][2] - rows[1][s[b1 + LIB]][2],
        burns[0], burns[1],
        4 * creature_counts[0] + burns[0], 4 * creature_counts[1] + burns[1],
        (s[b0 + HAND_M] + s[b0 + HAND_L] + s[b0 + HAND_C]) - (s[b1 + HAND_M] + s[b1 + HAND_L] + s[b1 + HAND_C]),
    ))
    return out


def collect_positions(games: int, threshold: int = 12, seed: int = 0, label_cap: int = 100_000,
                      max_creatures: int = 8, rules=None):
    """Training data: the first position of each game at or below ``threshold`` life and its winner.

    Each game deals two random decks (creature and bolt counts multiples of 4,
    at most ``max_creatures`` creatures) to two players drawn from the
    aggressive, defensive and random players, plays until a player is at or
    below ``threshold``, and labels that position with the winner of a full
    minimax search from it. Games that end first, or whose label search scores
    more than ``label_cap`` positions, give no example. Returns ``(X, y)`` with
    ``y = 1`` when player 0 wins.
    """
    from gamelp.games.mtg.deck import thesis_decks
    from gamelp.games.mtg.engine import LIFE as _LIFE, Rules, is_over
    from gamelp.games.mtg.players import Table, make_player
    from gamelp.games.mtg.search import CapReached, Searcher

    rng = np.random.default_rng(seed)
    decks = thesis_decks(max_creatures)
    kinds = ("aggressive", "defensive", "random")
    X, y = [], []
    for _ in range(games):
        pair = [decks[i] for i in rng.integers(len(decks), size=2)]
        game, state = Game.deal(pair[0], pair[1], rng, int(rng.integers(2)), rules or Rules())
        seats = [make_player(kinds[k], rng) for k in rng.integers(len(kinds), size=2)]
        table = Table(tuple(pair))
        while not is_over(state) and min(state[_B0 + _LIFE], state[_B1 + _LIFE]) > threshold:
            mover = decider(state)
            move = seats[mover].choose(game, state, game.legal_moves(state), table)
            table.record(mover, move)
            state = game.step(state, move)
        if is_over(state):
            continue
        try:
            value = Searcher(game, None, threshold=0, cap=label_cap).value(state)
        except CapReached:
            continue
        X.append(features(game, state))
        y.append(1 if value > 0 else 0)
    return np.array(X, dtype=np.float64).reshape(-1, len(FEATURE_NAMES)), np.array(y, dtype=np.int64)


def train_forest(X, y, trees: int = 9, seed: int = 0, max_depth: int = 40):
    """A scikit-learn random forest with the thesis's settings (``max_features="sqrt"``)."""
    from sklearn.ensemble import RandomForestClassifier

    model = RandomForestClassifier(n_estimators=trees, max_features="sqrt", max_depth=max_depth,
                                   random_state=seed)
    return model.fit(X, y)


def _tree_source(tree, name: str, positive: int) -> str:
    """Python source of one fitted tree: nested comparisons returning P(player 0 wins)."""
    t = tree.tree_
    lines = [f"def {name}(f):"]

    def emit(node: int, depth: int) -> None:
        pad = "    " * depth
        if t.children_left[node] == -1:
            counts = t.value[node][0]
            share = float(counts[positive] / counts.sum()) if positive >= 0 else 0.0
            lines.append(f"{pad}return {share!r}")
            return
        lines.append(f"{pad}if f[{int(t.feature[node])}] <= {float(t.threshold[node])!r}:")
        emit(int(t.children_left[node]), depth + 1)
        lines.append(f"{pad}else:")
        emit(int(t.children_right[node]), depth + 1)

    emit(0, 1)
    return "\n".join(lines)


def compile_forest(model):
    """The fitted forest as one Python function of a feature list returning the summed tree votes.

    Plain nested comparisons run far faster than ``model.predict`` on one row,
    which matters at hundreds of thousands of evaluations per game.
    """
    classes = list(model.classes_)
    positive = classes.index(1) if 1 in classes else -1
    names = [f"_tree{i}" for i in range(len(model.estimators_))]
    source = "\n\n".join(_tree_source(tree, name, positive) for tree, name in zip(model.estimators_, names))
    source += "\n\ndef forest(f):\n    return " + " + ".join(f"{n}(f)" for n in names) + "\n"
    namespace: dict = {}
    exec(compile(source, "<random forest>", "exec"), namespace)
    return namespace["forest"]


class ForestEvaluation:
    """A trained forest as an evaluation: +1 when most trees predict player 0 wins, -1 when
    most predict player 1 (the classifier's winner, as in the thesis), 0 on a tie."""

    def __init__(self, model, threshold: int = 12):
        self.model = model
        self.threshold = threshold
        self._votes = compile_forest(model)
        self._half = len(model.estimators_) / 2.0

    def __call__(self, game: Game, s) -> float:
        votes = self._votes(features(game, s))
        return 1.0 if votes > self._half else -1.0 if votes < self._half else 0.0

    def predict(self, X) -> np.ndarray:
        """Predicted labels (1: player 0 wins) of feature rows, through the compiled trees."""
        half = self._half
        return np.array([1 if self._votes(list(row)) > half else 0 for row in np.asarray(X)], dtype=np.int64)

    def save(self, path) -> None:
        import joblib

        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        joblib.dump({"model": self.model, "threshold": self.threshold, "features": FEATURE_NAMES}, path)

    @classmethod
    def load(cls, path) -> ForestEvaluation:
        import joblib

        try:
            stored = joblib.load(path)
            model, threshold, names = stored["model"], stored["threshold"], tuple(stored["features"])
        except Exception as exc:  # a corrupt or foreign file
            raise ForestFileError(f"{path}: not a saved mtg forest ({exc})") from exc
        if names != FEATURE_NAMES:
            raise ForestFileError(f"{path}: forest was trained on different features; retrain it")
        return cls(model, threshold)


class ForestFileError(GamelpError):
    """A saved forest file cannot be read or does not fit this version's features."""


def default_cache_dir() -> Path:
    """Where trained forests are cached: ``$GAMELP_CACHE`` or ``~/.cache/gamelp``, under ``mtg/``."""
    root = os.environ.get("GAMELP_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "gamelp")
    return Path(root) / "mtg"


_FORESTS: dict = {}


def forest_evaluation(threshold: int = 12, path=None, games: int = 400, seed: int = 0,
                      trees: int = 9) -> ForestEvaluation:
    """The forest for cut-off ``threshold``: loaded from ``path`` (default: the cache directory),
    else trained on ``games`` self-played games, saved there, and kept in memory."""
    path = Path(path) if path is not None else default_cache_dir() / f"forest_t{threshold}.joblib"
    key = (threshold, str(path))
    if key not in _FORESTS:
        if path.exists():
            _FORESTS[key] = ForestEvaluation.load(path)
        else:
            logger.warning("no trained forest at %s: training one on %d self-played games", path, games)
            X, y = collect_positions(games, threshold, seed)
            if len(y) == 0 or len(set(y.tolist())) < 2:
                raise ForestFileError(f"could not train a forest for threshold {threshold}: "
                                      f"{len(y)} labelled positions")
            forest = ForestEvaluation(train_forest(X, y, trees, seed), threshold)
            forest.save(path)
            logger.warning("forest trained on %d positions, saved to %s", len(y), path)
            _FORESTS[key] = forest
    return _FORESTS[key]
