"""The random-forest evaluation of Esche (2018): training data, training, storage as plain arrays, cache.

Esche (2018), Section 2.2 and 3.1 (training) and 2.6 (the 8- and 4-life
forests of the imperfect player): 1,000 games between random decks of eight
creatures or fewer are played by the perfect-information player; the 60
predictors (:data:`FEATURE_NAMES`) are recorded when a player first has 12
life or less, the game is played to its end, and the winner is the label.
The same games give the 8- and 4-life training sets. A forest has 9 trees,
each split drawing sqrt(60) features (scikit-learn's ``max_features="sqrt"``).

Here the perfect-information player plays with no evaluation function (exact
alpha-beta to the end of the game, the C search of
:mod:`gamelp.games.mtg.exact`, which plays the moves
:class:`~gamelp.games.mtg.search.Searcher` plays), so the winner of the game
played out from a recorded position is that position's minimax winner, which
is how it is computed.

Storage is data, never code: a forest is the arrays of its scikit-learn trees
(``children_left``, ``children_right``, ``feature``, ``threshold`` and the
probability that player 0 wins at each node) concatenated into one ``.npz``
read with its headers checked first (:func:`gamelp.io.read_npz`: no pickles, declared sizes within
:data:`MAX_FOREST_BYTES`) and its trees checked on load (finite thresholds, children in range and after their
parent, one parent per node, depth at most :data:`MAX_TREE_DEPTH`). The arrays are evaluated as they are, no
code is generated from them: :meth:`Forest.predict_proba` walks every (row, tree) pair of a batch level by
level with numpy and equals scikit-learn's ``predict_proba``; a search evaluates single positions by walking
the same arrays as Python lists, which for one row is some six times faster than numpy's per-call overhead.

The cache (``$GAMELP_CACHE/mtg`` or ``~/.cache/gamelp/mtg``) holds one file per
setting (threshold, games, seed, trees). A cache directory that other users
can write to, or that another user owns, is refused, and so is an entry or a
lock file that is not a regular file (a named pipe there would block). Training
takes an exclusive ``fcntl.flock`` on a lock file beside the entries, so parallel
workers that all miss the cache train once: the others wait, then load. Entries are written atomically
(:func:`gamelp.io.atomic_write`): a full disk is refused in one line and leaves no partial or temporary file.
"""

from __future__ import annotations

import fcntl
import logging
import os
import stat
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from gamelp.deps import require
from gamelp.games.errors import ForestError
from gamelp.games.mtg.deck import analysed_decks
from gamelp.games.mtg.engine import (
    ACTIVE,
    ATTACKERS,
    HAND_C,
    HAND_L,
    HAND_M,
    LAND_PLAYED,
    LANDS,
    LIB,
    LIFE,
    LIFE_THRESHOLD,
    PHASE,
    PLAYER_BASE,
    READY,
    SICK,
    TAPPED,
    TURN,
    Game,
    Rules,
    decider,
    is_over,
)
from gamelp.games.mtg.exact import exact_value, play_exact
from gamelp.io import atomic_write, read_npz

logger = logging.getLogger(__name__)

THRESHOLDS = (LIFE_THRESHOLD, 8, 4)  # Esche (2018), Section 2.6
_B0, _B1 = PLAYER_BASE


# ---- the 60 predictors ------------------------------------------------------------------------
# Per player: the public and private counts of the state and its library (size, composition,
# the next 3 and next 7 cards, the distance to the next card of each type); the decision point;
# a few differences.
_PLAYER_FIELDS = ("life", "hand_m", "hand_l", "hand_c", "lands", "mana", "ready", "sick", "tapped")
_LIBRARY_FIELDS = (
    "lib_size",
    "lib_m",
    "lib_l",
    "lib_c",
    "top3_m",
    "top3_l",
    "top3_c",
    "top7_m",
    "top7_l",
    "top7_c",
    "next_m",
    "next_l",
    "next_c",
)
FEATURE_NAMES = tuple(f"p{p + 1}_{name}" for p in (0, 1) for name in _PLAYER_FIELDS + _LIBRARY_FIELDS) + (
    "phase",
    "active",
    "decider",
    "turn",
    "land_played",
    "attackers",
    "life_diff",
    "creature_diff",
    "land_diff",
    "hand_bolt_diff",
    "library_bolt_diff",
    "p1_burn",
    "p2_burn",
    "p1_damage",
    "p2_damage",
    "hand_diff",
)


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
                    (n - i,)
                    + here
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
        out.extend(s[b + LIFE : b + LIFE + 1])
        out.extend(s[b + HAND_M : b + TAPPED + 1])
        out.extend(rows[p][s[b + LIB]])
        creature_counts.append(s[b + READY] + s[b + SICK] + s[b + TAPPED] + (s[ATTACKERS] if s[ACTIVE] == p else 0))
        burns.append(3 * min(s[b + HAND_L], s[b + LANDS]))
    out.extend((s[PHASE], s[ACTIVE], decider(s), s[TURN], s[LAND_PLAYED], s[ATTACKERS]))
    b0, b1 = _B0, _B1
    out.extend(
        (
            s[b0 + LIFE] - s[b1 + LIFE],
            creature_counts[0] - creature_counts[1],
            s[b0 + LANDS] - s[b1 + LANDS],
            s[b0 + HAND_L] - s[b1 + HAND_L],
            rows[0][s[b0 + LIB]][2] - rows[1][s[b1 + LIB]][2],
            burns[0],
            burns[1],
            4 * creature_counts[0] + burns[0],
            4 * creature_counts[1] + burns[1],
            (s[b0 + HAND_M] + s[b0 + HAND_L] + s[b0 + HAND_C]) - (s[b1 + HAND_M] + s[b1 + HAND_L] + s[b1 + HAND_C]),
        )
    )
    return out


# ---- training data --------------------------------------------------------------------------
@dataclass
class TrainingSet:
    """Feature rows ``X`` and labels ``y`` (1: player 0 wins) per threshold, and games skipped."""

    X: dict
    y: dict
    games: int = 0
    capped: int = 0


def _training_game(g: int, thresholds, seed, label_cap, max_creatures, rules, decks=None) -> dict | None:
    """One training game (its own generator from ``(seed, g)``).

    Returns ``{threshold: (row, label)}``, or None when its exact search scores more than ``label_cap`` positions
    (leaves of the C search, :mod:`gamelp.games.mtg.exact`, summed over the game).
    """
    rng = np.random.default_rng(np.random.SeedSequence([*np.atleast_1d(seed).tolist(), g]))
    decks = analysed_decks(max_creatures) if decks is None else decks
    pair = [decks[i] for i in rng.integers(len(decks), size=2)]
    game, state = Game.deal(pair[0], pair[1], rng, g % 2, rules or Rules())
    budget = label_cap
    recorded = {}
    for t in thresholds:
        played = play_exact(game, state, budget, stop_life=t)
        if played.capped:
            return None
        state, budget = played.state, None if budget is None else budget - played.leaves
        if is_over(state):
            break
        value, _, leaves = exact_value(game, state, budget)
        if value is None:
            return None
        budget = None if budget is None else budget - leaves
        recorded[t] = (features(game, state), 1 if value > 0 else 0)
    return recorded


def collect_positions(
    games: int,
    thresholds=THRESHOLDS,
    seed=0,
    label_cap: int | None = 300_000,
    max_creatures: int = 8,
    rules: Rules | None = None,
    progress: bool = False,
    workers: int = 1,
    decks=None,
) -> TrainingSet:
    """Play ``games`` perfect-information games between random decks and record training positions.

    For each threshold, records the first position at which a player has that much life or less, labelled with the
    game's winner.

    Decks are drawn uniformly and independently from ``decks`` (default: the
    decks analysed in Esche (2018), Appendix B, at most ``max_creatures``
    creatures); the first
    player alternates. A game whose exact search scores more than
    ``label_cap`` positions gives no example (counted in ``capped``); a game
    that ends before a threshold is reached gives no example for it. Game g
    draws from ``SeedSequence([seed, g])`` (``seed`` an int or a list of ints),
    so ``workers`` processes give the same set as one.
    """
    from functools import partial

    from tqdm.auto import tqdm

    thresholds = tuple(sorted({int(t) for t in thresholds}, reverse=True))
    play = partial(
        _training_game,
        thresholds=thresholds,
        seed=seed,
        label_cap=label_cap,
        max_creatures=max_creatures,
        rules=rules,
        decks=decks,
    )
    bar = partial(tqdm, total=games, desc="training games", unit="game", disable=not progress)
    if workers > 1:
        from gamelp.games.runner import process_pool

        with process_pool(workers) as pool:
            results = list(bar(pool.map(play, range(games), chunksize=4)))
    else:
        results = list(bar(map(play, range(games))))
    X = {t: [r[t][0] for r in results if r and t in r] for t in thresholds}
    y = {t: [r[t][1] for r in results if r and t in r] for t in thresholds}
    as_arrays = {t: np.array(X[t], dtype=np.float64).reshape(-1, len(FEATURE_NAMES)) for t in thresholds}
    return TrainingSet(
        as_arrays, {t: np.array(y[t], dtype=np.int64) for t in thresholds}, games, sum(r is None for r in results)
    )


def train_forest(X, y, trees: int = 9, seed: int = 0):
    """A scikit-learn random forest with the thesis's settings (``max_features="sqrt"``).

    Raises :class:`ForestError` when the positions do not include wins of both players.
    """
    require("sklearn", "training a random forest")
    if len(set(np.asarray(y).tolist())) < 2:
        raise ForestError(f"{len(y)} labelled positions, not won by both players: play more or longer games")
    from sklearn.ensemble import RandomForestClassifier

    return RandomForestClassifier(n_estimators=trees, max_features="sqrt", random_state=seed).fit(X, y)


# ---- the forest as arrays -------------------------------------------------------------------
_ARRAYS = {
    "children_left": np.int64,
    "children_right": np.int64,
    "feature": np.int64,
    "threshold": np.float64,
    "win": np.float64,
    "roots": np.int64,
}
MAX_FOREST_BYTES = 256 << 20
"""Most array data a forest file may declare: 9 trees from the thesis's 1,000 games take about 0.1 MB, from
100,000 games under 100 MB; a header declaring more is refused before anything is allocated."""
MAX_TREE_DEPTH = 1024
"""Most splits from a root to a leaf in a forest file: scikit-learn's trees on these training sets are 15 to 40
splits deep; an evaluation walks every level, so a hostile chain of a million nodes would stall every search."""


class Forest:
    """A fitted forest as arrays.

    Node ``i`` of the concatenated trees splits on ``feature[i] <= threshold[i]`` (children ``children_left/right[i]``,
    -1 at a leaf, indices global); ``win[i]`` is the share of player-0 wins at the node; ``roots`` are the trees' first
    nodes. A verdict is the sign of the mean leaf share minus 1/2.
    """

    def __init__(
        self, children_left, children_right, feature, threshold, win, roots, threshold_life: int = LIFE_THRESHOLD
    ):
        self.children_left = np.asarray(children_left, dtype=np.int64)
        self.children_right = np.asarray(children_right, dtype=np.int64)
        self.feature = np.asarray(feature, dtype=np.int64)
        self.threshold = np.asarray(threshold, dtype=np.float64)
        self.win = np.asarray(win, dtype=np.float64)
        self.roots = np.asarray(roots, dtype=np.int64)
        self.life = int(threshold_life)
        self._votes = None

    @classmethod
    def from_sklearn(cls, model, threshold_life: int = LIFE_THRESHOLD) -> Forest:
        """A :class:`Forest` from a fitted scikit-learn ``RandomForestClassifier``, for cut-off ``threshold_life``."""
        classes = list(model.classes_)
        parts = {name: [] for name in ("children_left", "children_right", "feature", "threshold", "win")}
        roots, offset = [], 0
        for estimator in model.estimators_:
            t = estimator.tree_
            leaf = t.children_left == -1
            parts["children_left"].append(np.where(leaf, -1, t.children_left + offset))
            parts["children_right"].append(np.where(leaf, -1, t.children_right + offset))
            parts["feature"].append(np.where(leaf, 0, t.feature))
            parts["threshold"].append(t.threshold)
            counts = t.value[:, 0, :]
            share = counts[:, classes.index(1)] / counts.sum(axis=1) if 1 in classes else np.zeros(len(counts))
            parts["win"].append(share)
            roots.append(offset)
            offset += t.node_count
        return cls(*(np.concatenate(parts[k]) for k in parts), roots, threshold_life)

    def predict_proba(self, X) -> np.ndarray:
        """P(player 0 wins) of each row: every (row, tree) pair walked level by level at once, leaf shares averaged.

        Rows are compared in float32, as scikit-learn's trees do.
        """
        X = np.asarray(X, dtype=np.float32).astype(np.float64)
        trees = len(self.roots)
        node = np.tile(self.roots, len(X))  # pair p: row p // trees, tree p % trees
        row = np.repeat(np.arange(len(X)), trees)
        live = np.flatnonzero(self.children_left[node] != -1)
        while live.size:  # at most MAX_TREE_DEPTH levels (checked on load)
            at = node[live]
            go_left = X[row[live], self.feature[at]] <= self.threshold[at]
            node[live] = np.where(go_left, self.children_left[at], self.children_right[at])
            live = live[self.children_left[node[live]] != -1]
        shares = self.win[node].reshape(len(X), trees)
        total = np.zeros(len(X))
        for k in range(trees):  # summed tree by tree, as scikit-learn does, so the averages are equal bit for bit
            total += shares[:, k]
        return total / trees

    def predict(self, X) -> np.ndarray:
        """Predicted labels (1: player 0 wins)."""
        return (self.predict_proba(X) > 0.5).astype(np.int64)

    def votes(self, row) -> float:
        """The summed leaf shares of one feature row (a sequence of :data:`FEATURE_NAMES` numbers).

        Walks the stored arrays as Python lists, tree by tree: for a single row this is several times faster
        than numpy (whose per-call cost is paid at every level) and it agrees with :meth:`predict_proba`.
        """
        if self._votes is None:
            self._votes = tuple(
                array.tolist()
                for array in (
                    self.children_left,
                    self.children_right,
                    self.feature,
                    self.threshold,
                    self.win,
                    self.roots,
                )
            )
        left, right, feature, threshold, win, roots = self._votes
        total = 0.0
        for node in roots:
            while left[node] != -1:
                node = left[node] if row[feature[node]] <= threshold[node] else right[node]
            total += win[node]
        return total

    def __call__(self, game: Game, s) -> float:
        """The verdict at ``s``: 1 if player 0 is predicted to win, -1 if player 1, 0 on a tie."""
        # features are small integers, exact in float32, so this equals predict_proba
        votes = self.votes(features(game, s))
        half = len(self.roots) / 2.0
        return 1.0 if votes > half else -1.0 if votes < half else 0.0

    # ---- storage ----
    def save(self, path) -> None:
        """Write the arrays to ``path`` (.npz) atomically (:func:`gamelp.io.atomic_write`).

        On a full disk the write is refused with one :class:`~gamelp.errors.OutputError`, and neither a partial
        file nor a temporary one is left behind.
        """
        arrays = {name: getattr(self, name) for name in _ARRAYS}
        with atomic_write(path, "wb") as handle:
            np.savez(handle, life=np.int64(self.life), features=np.array(FEATURE_NAMES), **arrays)

    @classmethod
    def load(cls, path) -> Forest:
        """Read a forest saved by :meth:`save`.

        Anything else (not a regular file, a pickle, object arrays, sizes over :data:`MAX_FOREST_BYTES`, wrong dtypes,
        shapes, features or trees) is refused with :class:`ForestError` naming the file, and nothing is executed.
        """
        stored = read_npz(path, ForestError, MAX_FOREST_BYTES, "a saved mtg forest")
        missing = [name for name in (*_ARRAYS, "life", "features") if name not in stored]
        if missing:
            raise ForestError(f"{path}: not a saved mtg forest (no array {', '.join(map(repr, missing))})")
        if stored["features"].dtype.kind != "U" or tuple(str(x) for x in stored["features"].ravel()) != FEATURE_NAMES:
            raise ForestError(f"{path}: forest was trained on different features; retrain it")
        for name, dtype in _ARRAYS.items():
            kinds = "iu" if np.dtype(dtype).kind == "i" else "iuf"
            if stored[name].ndim != 1 or stored[name].dtype.kind not in kinds:
                raise ForestError(f"{path}: array {name!r} is not a 1-d {np.dtype(dtype).name} array")
        life = stored["life"]
        if life.ndim != 0 or life.dtype.kind not in "iu" or not 0 <= int(life) <= 1000:  # players start at 20
            raise ForestError(f"{path}: 'life' must be one life threshold, a whole number from 0 to 1000")
        forest = cls(*(stored[name] for name in _ARRAYS), threshold_life=int(life))
        forest._check(path)
        return forest

    def _check(self, path) -> None:
        """Refuse arrays that are not ``len(roots)`` trees (see :meth:`load`), naming the first fault."""
        n = len(self.children_left)
        if (
            n == 0
            or len(self.roots) == 0
            or any(len(getattr(self, k)) != n for k in ("children_right", "feature", "threshold", "win"))
        ):
            raise ForestError(f"{path}: the tree arrays are inconsistent (empty, or of different lengths)")
        inner = self.children_left != -1
        index = np.flatnonzero(inner)
        after = np.arange(n)

        def child_ok(child):
            return (child > after) & (child < n)  # after its parent: no cycle

        faults = {
            "a root out of range": ~((self.roots >= 0) & (self.roots < n)),
            "a left child out of range or not after its parent": inner & ~child_ok(self.children_left),
            "a right child out of range or not after its parent": inner & ~child_ok(self.children_right),
            "a right child at a leaf": ~inner & (self.children_right != -1),
            "a feature out of range": inner & ~((self.feature >= 0) & (self.feature < len(FEATURE_NAMES))),
            "a threshold that is not finite": inner & ~np.isfinite(self.threshold),
            "a win share that is not in [0, 1]": ~(np.isfinite(self.win) & (self.win >= 0) & (self.win <= 1)),
        }
        for fault, bad in faults.items():
            if np.any(bad):
                raise ForestError(
                    f"{path}: the tree arrays are inconsistent ({fault}, at index {int(np.flatnonzero(bad)[0])})"
                )
        # children come after their parents, so there is no cycle; each node but a root has exactly one parent
        parents = np.bincount(np.concatenate([self.children_left[index], self.children_right[index]]), minlength=n)
        expected = np.ones(n, dtype=np.int64)
        expected[self.roots] = 0
        if len(np.unique(self.roots)) != len(self.roots):
            raise ForestError(f"{path}: the tree arrays are inconsistent (a root is listed twice)")
        if np.any(parents != expected):
            node = int(np.flatnonzero(parents != expected)[0])
            raise ForestError(
                f"{path}: the tree arrays are inconsistent (node {node} has {int(parents[node])} "
                f"parents; every node must be a root or the child of one node)"
            )
        level, depth = self.roots, 0  # depth: the splits on the longest path from a root to a leaf
        while (level := level[self.children_left[level] != -1]).size:
            depth += 1
            if depth > MAX_TREE_DEPTH:
                raise ForestError(f"{path}: a tree is more than {MAX_TREE_DEPTH} splits deep, refused")
            level = np.concatenate([self.children_left[level], self.children_right[level]])


# ---- the cache ------------------------------------------------------------------------------
def default_cache_dir() -> Path:
    """Where trained forests are cached: ``$GAMELP_CACHE`` or ``~/.cache/gamelp``, under ``mtg/``."""
    root = os.environ.get("GAMELP_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "gamelp"
    )
    return Path(root) / "mtg"


def trusted_dir(directory) -> Path:
    """Create ``directory`` (mode 0700) if needed, refusing an unsafe one.

    Refuses it when another user owns it or others can write to it (a planted file there could stand in for a forest).
    """
    directory = Path(directory)
    try:
        directory.mkdir(mode=0o700, parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        raise ForestError(f"{directory}: the forest cache is not a directory (or a file stands in its path)") from None
    info = directory.stat()
    if info.st_uid != os.getuid():
        raise ForestError(f"{directory}: the forest cache is owned by another user; refusing it")
    if stat.S_IMODE(info.st_mode) & 0o022:
        raise ForestError(
            f"{directory}: the forest cache is writable by group or others "
            f"(mode {stat.S_IMODE(info.st_mode):o}); run chmod go-w on it"
        )
    return directory


@contextmanager
def _locked(lock_path: Path):
    """Hold an exclusive lock on ``lock_path``, created if missing; a lock that is not a regular file is refused.

    Opened non-blocking, so a named pipe planted there fails or is refused instead of waiting for a reader.
    """
    if lock_path.exists() and not lock_path.is_file():
        raise ForestError(f"{lock_path}: the forest cache's lock file is not a regular file; remove it")
    try:
        descriptor = os.open(lock_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_NONBLOCK, 0o600)
    except OSError as exc:
        raise ForestError(f"{lock_path}: cannot open the forest cache's lock file ({exc.strerror or exc})") from None
    with open(descriptor, "a") as handle:
        if not stat.S_ISREG(os.fstat(descriptor).st_mode):
            raise ForestError(f"{lock_path}: the forest cache's lock file is not a regular file; remove it")
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def cache_name(threshold: int, games: int, seed: int, trees: int) -> str:
    """The cache file name of a forest trained with these settings."""
    return f"forest_t{threshold}_g{games}_s{seed}_n{trees}.npz"


def train_forests(
    games: int = 1000,
    seed: int = 0,
    trees: int = 9,
    thresholds=THRESHOLDS,
    directory=None,
    progress: bool = True,
    label_cap: int | None = 300_000,
    workers: int = 1,
) -> dict:
    """The forests for ``thresholds`` from one training run, from the cache or trained and cached.

    Holds the cache's lock file while checking and training, so concurrent
    callers train once. Returns ``{threshold: Forest}``.
    """
    directory = trusted_dir(directory or default_cache_dir())
    paths = {t: directory / cache_name(t, games, seed, trees) for t in thresholds}
    with _locked(directory / f"forest_g{games}_s{seed}_n{trees}.lock"):
        if not all(p.exists() for p in paths.values()):
            require("sklearn", "training the mini Magic forest evaluation")  # before the games are played
            logger.warning(
                "training the forests for %s life on %d games (cached in %s)",
                "/".join(map(str, thresholds)),
                games,
                directory,
            )
            data = collect_positions(games, thresholds, seed, label_cap=label_cap, progress=progress, workers=workers)
            logger.warning(
                "%d of %d training games skipped: their exact search passed %s positions", data.capped, games, label_cap
            )
            for t, path in paths.items():
                try:
                    trained = train_forest(data.X[t], data.y[t], trees, seed)
                except ForestError as exc:
                    raise ForestError(f"could not train the {t}-life forest: {exc}") from None
                Forest.from_sklearn(trained, t).save(path)
        return {t: Forest.load(p) for t, p in paths.items()}


_FORESTS: dict = {}


def forest_evaluation(
    threshold: int = LIFE_THRESHOLD, path=None, games: int = 1000, seed: int = 0, trees: int = 9
) -> Forest:
    """The forest for cut-off ``threshold``.

    Read from ``path`` if given, else from the cache (trained there first if missing, with a progress bar); kept in
    memory afterwards.
    """
    key = (threshold, str(path), games, seed, trees)
    if key not in _FORESTS:
        if path is not None:
            _FORESTS[key] = Forest.load(path)
        else:
            thresholds = THRESHOLDS if threshold in THRESHOLDS else (threshold,)
            _FORESTS[key] = train_forests(games, seed, trees, thresholds)[threshold]
    return _FORESTS[key]
