"""The binary game file: a sequence-form game as numpy arrays in an ``.npz`` archive, read without unpickling.

The same game as the JSON format (:mod:`gamelp.game`), for games too large to parse as text: each player's
nodes top-down as parallel arrays, and player 1's payoff matrix in compressed sparse row form.  Reading
checks every member's header before its data (:func:`gamelp.io.read_npz`: plain dtypes only, declared sizes
equal to the data held, at most :data:`MAX_BINARY_GAME_BYTES` in all), then the same structure the JSON loader
checks, with vectorised passes: one root first, parents before children, edges that name an outcome of the
parent, one node per edge, unique ids and outcome names, unambiguous sequence labels, and payoff entries on
existing sequences, in order, each pair once, finite and not subnormal.  Every fault raises one
:class:`~gamelp.errors.GameFileError` naming the file and the array, node or entry.

The arrays (``P`` is 1 or 2):

* ``format`` (text, :data:`FORMAT`) and ``version`` (int64, :data:`VERSION`);
* ``names_utf8`` (uint8) and ``names_ends`` (int64): the table of action and signal names, UTF-8 text
  cut at the cumulative byte ends;
* ``plP_kind`` (int8, 0 decision, 1 observation), ``plP_parent`` (int64, the parent node's position, -1 at
  the root), ``plP_edge`` (int64, which outcome of the parent, -1 at the root), ``plP_outcome_ends``
  (int64, cumulative count of outcomes), ``plP_outcomes`` (int64, positions in the name table) and
  ``plP_ids_utf8`` / ``plP_ids_ends`` (the node ids, as the names);
* ``utility_indptr``, ``utility_indices`` (int64) and ``utility_values`` (float64): player 1's payoffs
  ``A[sequence of player 1, sequence of player 2]``, rows in CSR form, columns increasing within a row;
  sequences are numbered as the treeplex numbers them (0 the empty sequence, which the format cannot name
  and so carries no payoff, then the actions of each decision point in node order);
* optionally ``action_names_keys`` and ``action_names_values`` (text): the JSON format's ``action_names``.

The sequences and each decision point's parent sequence follow from the nodes (the last own action on the
path), as the JSON loader checks them.  The treeplex read from a file (:class:`ArrayTreeplex`) builds its
nodes' records and its names only when asked for them, so loading and regret solving a game of 10^6
sequences never makes a Python object per node.
"""

from __future__ import annotations

import os
from functools import cached_property
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from gamelp.errors import GameFileError, shown
from gamelp.io import atomic_write, read_npz
from gamelp.treeplex import Point, Treeplex, _check_labels_unambiguous

FORMAT = "gamelp sequence-form game"
VERSION = 1
MAX_BINARY_GAME_BYTES = 16 * 2**30
"""The most array data a binary game file may declare, all members together (a 10^6-sequence poker game is
about 0.4 GiB); larger is refused before a byte of data is read.  The machine's memory is checked too."""
BYTES_PER_FILE_BYTE = 4
"""Memory a load takes per byte of array data: the arrays themselves, the checks' temporaries and the matrix."""

DECISION, OBSERVATION = 0, 1
_KINDS = ("decision", "observation")
_PLAYER_ARRAYS = {
    "kind": np.int8,
    "parent": np.int64,
    "edge": np.int64,
    "outcome_ends": np.int64,
    "outcomes": np.int64,
    "ids_utf8": np.uint8,
    "ids_ends": np.int64,
}
_GAME_ARRAYS = {
    "names_utf8": np.uint8,
    "names_ends": np.int64,
    "utility_indptr": np.int64,
    "utility_indices": np.int64,
    "utility_values": np.float64,
}
REQUIRED = (
    "format",
    "version",
    *_GAME_ARRAYS,
    *(f"pl{p}_{name}" for p in (1, 2) for name in _PLAYER_ARRAYS),
)


# ---------------------------------------------------------------------------------------------------- text
def encode_texts(texts: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """Strings as one UTF-8 byte array and the cumulative end of each (the format's ``*_utf8`` / ``*_ends``)."""
    encoded = [text.encode("utf-8") for text in texts]
    ends = np.cumsum([len(e) for e in encoded], dtype=np.int64)
    return np.frombuffer(b"".join(encoded), dtype=np.uint8).copy(), ends


def decode_texts(data: np.ndarray, ends: np.ndarray) -> list[str]:
    """The strings :func:`encode_texts` packed (the ends are checked already)."""
    raw = data.tobytes()
    starts = np.concatenate(([0], ends[:-1])).tolist()
    if raw.isascii():  # one byte a character: cut the text itself
        text = raw.decode("ascii")
        return [text[a:b] for a, b in zip(starts, ends.tolist())]
    return [raw[a:b].decode("utf-8") for a, b in zip(starts, ends.tolist())]


def _check_texts(data: np.ndarray, ends: np.ndarray, where: str) -> None:
    """Ends that cut ``data`` into valid UTF-8 strings: increasing, within the data, on character boundaries."""
    if ends.size and (np.diff(ends, prepend=0) < 0).any():
        k = int(np.flatnonzero(np.diff(ends, prepend=0) < 0)[0])
        raise GameFileError(f"{where}: text {k} ends at byte {int(ends[k])}, before it starts")
    if (ends[-1] if ends.size else 0) != data.size:
        raise GameFileError(
            f"{where}: the texts end at byte {int(ends[-1]) if ends.size else 0}, the data holds {data.size}"
        )
    try:
        data.tobytes().decode("utf-8")
    except UnicodeDecodeError as exc:
        raise GameFileError(f"{where}: not UTF-8 text (byte {exc.start})") from None
    inner = ends[:-1]
    inner = inner[inner < data.size]
    continuation = (data[inner] & 0xC0) == 0x80
    if continuation.any():
        k = int(np.flatnonzero(continuation)[0])
        raise GameFileError(f"{where}: text {k} ends inside a character (byte {int(inner[k])})")


# ---------------------------------------------------------------------------------------------------- treeplex
class ArrayTreeplex(Treeplex):
    """A treeplex read from arrays: the sequence form at once, the graph and the names when asked for.

    ``parents``, ``starts`` and ``ends`` are what the solvers use; ``points``, ``decision_points`` and
    ``actions`` (and so the labels and the graph) are built from the node arrays on first use.
    """

    def __init__(self, player: int, nodes: dict[str, np.ndarray], names: list[str], ids: list[str], sequence_form):
        for name, value in (("player", player), ("nodes", nodes), ("names", names), ("ids", ids)):
            object.__setattr__(self, name, value)
        for name, value in zip(("parents", "starts", "ends"), sequence_form):
            object.__setattr__(self, name, value)

    nodes: dict[str, np.ndarray]
    names: list[str]
    ids: list[str]

    @cached_property
    def _outcome_starts(self) -> np.ndarray:
        ends = self.nodes["outcome_ends"]
        return np.concatenate(([0], ends[:-1]))

    def outcomes_of(self, node: int) -> tuple[str, ...]:
        """The action or signal names of the node at position ``node``."""
        lo, hi = int(self._outcome_starts[node]), int(self.nodes["outcome_ends"][node])
        return tuple(self.names[o] for o in self.nodes["outcomes"][lo:hi].tolist())

    @cached_property
    def _decision_nodes(self) -> np.ndarray:
        return np.flatnonzero(self.nodes["kind"] == DECISION)

    @cached_property
    def decision_points(self) -> tuple[str, ...]:
        """The decision points' ids, in node order."""
        return tuple(self.ids[j] for j in self._decision_nodes.tolist())

    @cached_property
    def actions(self) -> dict[str, tuple[str, ...]]:
        """Decision point id -> its actions."""
        return {self.ids[j]: self.outcomes_of(j) for j in self._decision_nodes.tolist()}

    @cached_property
    def labels(self) -> tuple[str, ...]:
        """Readable sequence names, built from the arrays without the sequence tuples."""
        outcomes = self.nodes["outcomes"].tolist()
        starts, ends = self._outcome_starts.tolist(), self.nodes["outcome_ends"].tolist()
        names, ids = self.names, self.ids
        return ("∅",) + tuple(
            f"{ids[j]}:{names[outcomes[o]]}" for j in self._decision_nodes.tolist() for o in range(starts[j], ends[j])
        )

    @cached_property
    def points(self) -> dict[str, Point]:
        """Every node, top-down: its type, outcomes and parent edge, as :meth:`Treeplex.from_nodes` makes them."""
        kind, parent, edge = (self.nodes[k].tolist() for k in ("kind", "parent", "edge"))
        outcomes = [self.outcomes_of(position) for position in range(len(self.ids))]
        return {
            node_id: Point(
                _KINDS[kind[k]],
                outcomes[k],
                None if parent[k] < 0 else (self.ids[parent[k]], outcomes[parent[k]][edge[k]]),
            )
            for k, node_id in enumerate(self.ids)
        }

    def _summary(self) -> dict:
        return {
            "player": self.player,
            "decision_points": self.num_decision_points,
            "sequences": self.num_sequences,
            "observation_points": int((self.nodes["kind"] == OBSERVATION).sum()),
            "depth": int(_depths(self.nodes["parent"]).max()),
        }


def _depths(parent: np.ndarray) -> np.ndarray:
    """Each node's depth (the root's is 0), the root first: one numpy pass per level until nothing changes."""
    depth = np.zeros(parent.size, dtype=np.int64)
    below = parent >= 0
    while True:
        deeper = np.where(below, depth[parent] + 1, 0)
        if (deeper == depth).all():
            return depth
        depth = deeper


# ---------------------------------------------------------------------------------------------------- reading
def read_binary(path, max_bytes: int = MAX_BINARY_GAME_BYTES) -> dict[str, np.ndarray]:
    """The arrays of the binary game file ``path``, headers checked (:func:`gamelp.io.read_npz`), not yet the game.

    :meth:`gamelp.game.SequenceFormGame.from_arrays` checks and builds the game; ``load_game`` does both.
    """
    from gamelp.memory import refuse_unless_it_fits

    try:
        size = os.stat(path).st_size
    except OSError:
        size = 0  # read_npz names the fault
    refuse_unless_it_fits(
        BYTES_PER_FILE_BYTE * min(size, max_bytes),
        f"{path}: loading its {size / 2**20:,.0f} MiB of arrays",
        GameFileError,
        "load it on a machine with more memory, or make the game smaller",
    )
    return read_npz(path, GameFileError, max_bytes, "a binary game file")


def _array(arrays: dict[str, np.ndarray], name: str, dtype, source: str) -> np.ndarray:
    value = arrays[name]
    if value.dtype != np.dtype(dtype) or value.ndim != 1:
        raise GameFileError(
            f"{source}: array {name!r} is {value.ndim}-d {value.dtype}, expected 1-d {np.dtype(dtype).name}"
        )
    return value


def checked_parts(arrays: dict[str, np.ndarray], source: str, subnormal) -> tuple:
    """The treeplexes, payoff matrix and action names of the format's arrays, checked; faults name ``source``.

    ``subnormal(values)`` says which payoffs are subnormal (the JSON loader's rule).
    """
    missing = [name for name in REQUIRED if name not in arrays]
    if missing:
        raise GameFileError(f"{source}: not a binary game file (no array {', '.join(map(repr, missing))})")
    fmt, version = arrays["format"], arrays["version"]
    if fmt.dtype.kind != "U" or fmt.shape != () or str(fmt) != FORMAT:
        raise GameFileError(f"{source}: not a binary game file (format {shown(fmt.tolist())}, expected {FORMAT!r})")
    if version.dtype.kind not in "iu" or version.shape != () or int(version) != VERSION:
        raise GameFileError(f"{source}: binary game file version {shown(version.tolist())}; gamelp reads {VERSION}")
    names_utf8 = _array(arrays, "names_utf8", np.uint8, source)
    names_ends = _array(arrays, "names_ends", np.int64, source)
    _check_texts(names_utf8, names_ends, f"{source}: names")
    names = decode_texts(names_utf8, names_ends)
    pl1 = _treeplex(arrays, 1, names, source)
    pl2 = _treeplex(arrays, 2, names, source)
    A = _utility(arrays, pl1, pl2, source, subnormal)
    keys, values = arrays.get("action_names_keys"), arrays.get("action_names_values")
    action_names = {}
    if keys is not None or values is not None:
        if keys is None or values is None or keys.dtype.kind != "U" or values.dtype.kind != "U":
            raise GameFileError(f"{source}: action_names_keys and action_names_values must both be text arrays")
        if keys.shape != values.shape or keys.ndim != 1:
            raise GameFileError(f"{source}: action_names_keys and action_names_values differ in shape")
        action_names = dict(zip(keys.tolist(), values.tolist()))
        known = set(names)
        unknown = [key for key in action_names if key not in known]
        if unknown:
            raise GameFileError(
                f"{source}: action_names names {shown(unknown[0])}, which no node has as action or signal"
            )
    return pl1, pl2, A, action_names


def _treeplex(arrays: dict[str, np.ndarray], player: int, names: list[str], source: str) -> ArrayTreeplex:
    """Player ``player``'s treeplex from its arrays, checked as :meth:`Treeplex.from_nodes` checks a node list."""
    where = f"{source}: decision_problem_pl{player}"
    nodes = {name: _array(arrays, f"pl{player}_{name}", dtype, source) for name, dtype in _PLAYER_ARRAYS.items()}
    kind, parent, edge, outcome_ends, outcomes = (
        nodes[k] for k in ("kind", "parent", "edge", "outcome_ends", "outcomes")
    )
    n = kind.size
    if n == 0:
        raise GameFileError(f"{where}: no nodes")
    for name in ("parent", "edge", "outcome_ends", "ids_ends"):
        if nodes[name].size != n:
            raise GameFileError(f"{where}: array pl{player}_{name} has {nodes[name].size} entries for {n} nodes")
    _check_texts(nodes["ids_utf8"], nodes["ids_ends"], f"{where}: node ids")
    ids = decode_texts(nodes["ids_utf8"], nodes["ids_ends"])
    if len(set(ids)) != n:
        seen: dict[str, int] = {}
        for position, node_id in enumerate(ids):
            if node_id in seen:
                raise GameFileError(
                    f"{where}: duplicate node id {node_id!r} (positions {seen[node_id]} and {position})"
                )
            seen[node_id] = position
    bad = np.flatnonzero((kind != DECISION) & (kind != OBSERVATION))
    if bad.size:
        k = int(bad[0])
        raise GameFileError(f"{where}: node {ids[k]!r} has unknown kind {int(kind[k])} (0 decision, 1 observation)")
    counts = np.diff(outcome_ends, prepend=0)
    if (counts <= 0).any():
        k = int(np.flatnonzero(counts <= 0)[0])
        raise GameFileError(f"{where}: node {ids[k]!r} has {int(counts[k])} actions or signals; it needs one at least")
    if outcome_ends[-1] != outcomes.size:
        raise GameFileError(
            f"{where}: the nodes' outcomes end at {int(outcome_ends[-1])}, "
            f"array pl{player}_outcomes has {outcomes.size}"
        )
    if outcomes.size and (outcomes.min() < 0 or outcomes.max() >= len(names)):
        k = int(np.flatnonzero((outcomes < 0) | (outcomes >= len(names)))[0])
        owner = int(np.searchsorted(outcome_ends, k, side="right"))
        raise GameFileError(
            f"{where}: node {ids[owner]!r} names outcome {int(outcomes[k])}, not in the {len(names)} names"
        )
    owner_of_outcome = np.repeat(np.arange(n), counts)
    pairs = np.sort(owner_of_outcome * len(names) + outcomes)  # one key per (node, outcome)
    repeated = np.flatnonzero(np.diff(pairs) == 0)
    if repeated.size:
        owner, which = divmod(int(pairs[repeated[0]]), len(names))
        raise GameFileError(f"{where}: node {ids[owner]!r} lists {names[which]!r} twice among its outcomes")
    roots = np.flatnonzero(parent < 0)
    if roots.size != 1 or roots[0] != 0:
        shown_roots = [ids[k] for k in roots[:5].tolist()]
        raise GameFileError(f"{where}: expected exactly one root (parent -1), the first node; found {shown_roots}")
    positions = np.arange(n)
    late = np.flatnonzero(parent[1:] >= positions[1:]) + 1
    if late.size:
        k = int(late[0])
        raise GameFileError(
            f"{where}: node {ids[k]!r} comes before its parent (position {int(parent[k])}); "
            "nodes must be listed top-down"
        )
    if edge[0] != -1:
        raise GameFileError(f"{where}: the root {ids[0]!r} has edge {int(edge[0])}, expected -1")
    child_parent, child_edge = parent[1:], edge[1:]
    out_of_range = np.flatnonzero((child_edge < 0) | (child_edge >= counts[child_parent])) + 1
    if out_of_range.size:
        k = int(out_of_range[0])
        raise GameFileError(
            f"{where}: node {ids[k]!r} hangs from outcome {int(edge[k])} of {ids[parent[k]]!r}, "
            f"which has {int(counts[parent[k]])}"
        )
    outcome_starts = outcome_ends - counts
    slot = outcome_starts[child_parent] + child_edge  # the global outcome each child hangs from
    if (np.diff(np.sort(slot)) == 0).any():
        order = np.argsort(slot, kind="stable")
        first = int(np.flatnonzero(np.diff(slot[order]) == 0)[0])
        a, b = int(order[first]) + 1, int(order[first + 1]) + 1
        label = names[outcomes[slot[a - 1]]]
        raise GameFileError(
            f"{where}: nodes {ids[a]!r} and {ids[b]!r} both hang from edge ({ids[parent[a]]!r}, {label!r})"
        )
    decisions = np.flatnonzero(kind == DECISION)
    if decisions.size == 0:
        raise GameFileError(f"{where}: the decision process has no decision point")
    sizes = counts[decisions]
    ends = 1 + np.cumsum(sizes)
    starts = ends - sizes
    if any(":" in text for text in names) or any(":" in text for text in ids):
        point_ids = tuple(ids[j] for j in decisions.tolist())
        actions = {ids[j]: tuple(names[o] for o in outcomes[outcome_starts[j] : outcome_ends[j]]) for j in decisions}
        _check_labels_unambiguous(point_ids, actions, where)
    # Each node's last own sequence: the action it hangs from, else its parent's (observation points pass it on).
    point_of_node = np.full(n, -1, dtype=np.int64)
    point_of_node[decisions] = np.arange(decisions.size)
    last = np.full(n, -1, dtype=np.int64)
    last[0] = 0
    below_action = np.flatnonzero(kind[parent] == DECISION)
    below_action = below_action[below_action > 0]
    last[below_action] = starts[point_of_node[parent[below_action]]] + edge[below_action]
    todo = np.flatnonzero(last < 0)
    while todo.size:
        last[todo] = last[parent[todo]]
        todo = todo[last[todo] < 0]
    return ArrayTreeplex(player, nodes, names, ids, (last[decisions], starts, ends))


def _utility(arrays, pl1: Treeplex, pl2: Treeplex, source: str, subnormal) -> sp.csr_matrix:
    """Player 1's payoff matrix, checked: CSR rows, columns increasing, sequences that exist, finite values."""
    indptr = _array(arrays, "utility_indptr", np.int64, source)
    indices = _array(arrays, "utility_indices", np.int64, source)
    values = _array(arrays, "utility_values", np.float64, source)
    n1, n2 = pl1.num_sequences, pl2.num_sequences
    where = f"{source}: utility"
    if indptr.size != n1 + 1:
        raise GameFileError(f"{where}: utility_indptr has {indptr.size} entries, expected {n1 + 1} (sequences + 1)")
    if indptr[0] != 0 or (np.diff(indptr) < 0).any():
        raise GameFileError(f"{where}: utility_indptr must start at 0 and never decrease")
    if indptr[-1] != indices.size or indices.size != values.size:
        raise GameFileError(
            f"{where}: utility_indptr ends at {int(indptr[-1])}, with {indices.size} indices and {values.size} values"
        )
    if indptr[1] != 0:
        raise GameFileError(f"{where}: a payoff on player 1's empty sequence, which the format cannot name")
    bad = np.flatnonzero((indices <= 0) | (indices >= n2))
    if bad.size:
        k = int(bad[0])
        raise GameFileError(
            f"{where}: entry {k} has column {int(indices[k])}, not a sequence of player 2 (1..{n2 - 1})"
        )
    steps = np.diff(indices) <= 0  # within a row, the columns must increase
    boundaries = indptr[1:-1]
    steps[boundaries[(boundaries > 0) & (boundaries < indices.size)] - 1] = False  # a new row starts
    bad_values = ~np.isfinite(values) | subnormal(values)
    if steps.any() or bad_values.any():
        rows = np.repeat(np.arange(n1, dtype=np.int64), np.diff(indptr))
        if steps.any():
            k = int(np.flatnonzero(steps)[0]) + 1
            what = "repeats" if indices[k] == indices[k - 1] else "comes after a larger column"
            raise GameFileError(
                f"{where}: entry {k} ({pl1.labels[rows[k]]}, {pl2.labels[indices[k]]}) {what} in its row; "
                "each pair once, columns increasing"
            )
        k = int(np.flatnonzero(bad_values)[0])
        raise GameFileError(
            f"{where}: entry {k} ({pl1.labels[rows[k]]}, {pl2.labels[indices[k]]}) has value {float(values[k])!r}, "
            "not a finite normal number"
        )
    return sp.csr_matrix((values, indices, indptr), shape=(n1, n2))


# ---------------------------------------------------------------------------------------------------- writing
def _node_arrays(treeplex: Treeplex, name_index: dict[str, int]) -> dict[str, np.ndarray]:
    """A treeplex's nodes as the format's arrays, in the order the file listed them."""
    points = treeplex.points
    position = {node: k for k, node in enumerate(points)}
    kind, parent, edge, counts, outcomes = [], [], [], [], []
    for point in points.values():
        kind.append(_KINDS.index(point.type))
        counts.append(len(point.outcomes))
        outcomes += [name_index[o] for o in point.outcomes]
        if point.parent_edge is None:
            parent.append(-1)
            edge.append(-1)
        else:
            above, label = point.parent_edge
            parent.append(position[above])
            edge.append(points[above].outcomes.index(label))
    ids_utf8, ids_ends = encode_texts(list(points))
    return {
        "kind": np.array(kind, dtype=np.int8),
        "parent": np.array(parent, dtype=np.int64),
        "edge": np.array(edge, dtype=np.int64),
        "outcome_ends": np.cumsum(counts, dtype=np.int64),
        "outcomes": np.array(outcomes, dtype=np.int64),
        "ids_utf8": ids_utf8,
        "ids_ends": ids_ends,
    }


def game_arrays(game) -> dict[str, np.ndarray]:
    """The format's arrays of a :class:`~gamelp.game.SequenceFormGame` (refused: a payoff on an empty sequence)."""
    if all(isinstance(tp, ArrayTreeplex) and tp.names is game.pl1.names for tp in (game.pl1, game.pl2)):
        names = game.pl1.names
        players = [game.pl1.nodes, game.pl2.nodes]
    else:
        names = sorted({o for tp in (game.pl1, game.pl2) for point in tp.points.values() for o in point.outcomes})
        name_index = {name: k for k, name in enumerate(names)}
        players = [_node_arrays(tp, name_index) for tp in (game.pl1, game.pl2)]
    A = sp.csr_matrix(game.A)
    A.sum_duplicates()
    A.eliminate_zeros()
    A.sort_indices()
    if A.indptr[1] != 0 or (A.indices == 0).any():
        raise GameFileError(
            f"{game.name}: a payoff on the empty sequence cannot be written: the file format names "
            "every sequence by [decision point, action]"
        )
    names_utf8, names_ends = encode_texts(list(names))
    arrays = {
        "format": np.array(FORMAT),
        "version": np.array(VERSION, dtype=np.int64),
        "names_utf8": names_utf8,
        "names_ends": names_ends,
        "utility_indptr": A.indptr.astype(np.int64),
        "utility_indices": A.indices.astype(np.int64),
        "utility_values": A.data.astype(np.float64),
    }
    for p, nodes in zip((1, 2), players):
        arrays |= {f"pl{p}_{name}": nodes[name] for name in _PLAYER_ARRAYS}
    if game.action_names:
        arrays["action_names_keys"] = np.array(list(game.action_names))
        arrays["action_names_values"] = np.array(list(game.action_names.values()))
    return arrays


def save_arrays(arrays: dict[str, np.ndarray], path) -> Path:
    """Write the format's arrays to ``path`` atomically (:func:`gamelp.io.atomic_write`), uncompressed."""
    with atomic_write(path, "wb") as handle:
        np.savez(handle, **arrays)  # type: ignore[arg-type]  # numpy types the keywords as allow_pickle
    return Path(path)
