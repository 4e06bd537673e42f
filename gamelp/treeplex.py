"""One player's tree-form sequential decision process and its sequence-form polytope.

The process is a tree of decision points (the player picks an action) and
observation points (the player receives a signal), given as a list of nodes
in top-down order (the JSON format of CMU 15-888 Homework 2,
Fall 2021, part 2).  Loading
validates it and builds

* ``points`` — each node's type, actions or signals and parent edge, top-down;
  ``graph`` builds from them, on first use, a ``networkx.DiGraph`` with one node
  per point and an edge per action or signal (edge attribute ``label``);
* the sequences — index 0 is the empty sequence, then the actions of each
  decision point in top-down order, so the actions of decision point ``j``
  occupy the contiguous range ``starts[j]:ends[j]``;
* ``F`` and ``f`` (``scipy.sparse``) with ``{x >= 0 : F x = f}`` the
  sequence-form polytope: ``x[empty] = 1`` and ``sum_a x[ja] = x[p_j]`` for
  every decision point ``j`` with parent sequence ``p_j``.

It also converts between behavioural and sequence-form strategies and
computes best responses by one bottom-up pass.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property
from typing import TYPE_CHECKING, NamedTuple

import numpy as np
import scipy.sparse as sp

from gamelp.display import Summarised, strategy_frame
from gamelp.errors import GameFileError, shown

if TYPE_CHECKING:
    import networkx as nx

EMPTY_SEQUENCE = "∅"
NODE_TYPES = ("decision", "observation")


class Point(NamedTuple):
    """One node of a decision process: its type, its actions or signals, and the edge it hangs from."""

    type: str
    outcomes: tuple[str, ...]
    parent_edge: tuple[str, str] | None  # (parent node, action or signal); None at the root


@dataclass(frozen=True, eq=False, repr=False)  # pragma: no mutate: never assigned to
class Treeplex(Summarised):
    """A validated decision process of one player (see the module docstring)."""

    player: int
    points: dict[str, Point]  # every node, top-down
    decision_points: tuple[str, ...]
    actions: dict[str, tuple[str, ...]]
    parents: np.ndarray  # parent-sequence index of each decision point (0 = empty sequence)
    starts: np.ndarray
    ends: np.ndarray

    # ------------------------------------------------------------------ loading
    @classmethod
    def from_nodes(cls, nodes, player: int, source: str = "<game>") -> Treeplex:
        """Validate a node list and build the treeplex; faults raise :class:`GameFileError`."""
        where = f"{source}: decision_problem_pl{player}"
        if not isinstance(nodes, list):
            raise GameFileError(f"{where}: expected a list of nodes, got {type(nodes).__name__}")
        order: dict[str, int] = {}
        for position, node in enumerate(nodes):
            node_id = _check_node_fields(node, position, where)
            if node_id in order:
                raise GameFileError(
                    f"{where}: duplicate node id {node_id!r} (positions {order[node_id]} and {position})"
                )
            order[node_id] = position

        points: dict[str, Point] = {}
        for node in nodes:
            edge = node["parent_edge"]
            if edge is not None:
                edge = _check_pair(edge, f"{where}: node {node['id']!r} parent_edge")
                if edge[0] not in order:
                    raise GameFileError(f"{where}: node {node['id']!r} has parent_edge to unknown node {edge[0]!r}")
            outcomes = node["actions"] if node["type"] == "decision" else node["signals"]
            points[node["id"]] = Point(node["type"], tuple(outcomes), edge)
        try:
            _check_edges(points, order, where)
        except GameFileError:
            _refuse_cycle(points, where)  # a cycle is reported as a cycle rather than as the fault it causes
            raise

        decision_points = tuple(n["id"] for n in nodes if n["type"] == "decision")
        if not decision_points:
            raise GameFileError(f"{where}: the decision process has no decision point")
        actions = {j: points[j].outcomes for j in decision_points}
        _check_labels_unambiguous(decision_points, actions, where)
        index: dict[tuple[str, str] | None, int] = {None: 0}  # the empty sequence, then (point, action)
        starts, ends = [], []
        for j in decision_points:
            starts.append(len(index))
            for a in actions[j]:
                index[(j, a)] = len(index)
            ends.append(len(index))

        parents = []
        last = _last_sequences(points)
        for node in nodes:
            if node["type"] != "decision":
                continue
            expected = last[node["id"]]
            given = node["parent_sequence"]
            given = (
                None
                if given is None
                else tuple(_check_pair(given, f"{where}: decision point {node['id']!r} parent_sequence"))
            )
            if given != expected:
                raise GameFileError(
                    f"{where}: decision point {node['id']!r} has parent_sequence "
                    f"{_show(given)}, but the last own sequence on its path is {_show(expected)}"
                )
            parents.append(index[expected])
        return cls(
            player,
            points,
            decision_points,
            actions,
            np.array(parents, dtype=np.int64),
            np.array(starts, dtype=np.int64),
            np.array(ends, dtype=np.int64),
        )

    @cached_property
    def graph(self) -> nx.DiGraph:
        """The process as a ``networkx.DiGraph``: nodes with ``type``, ``outcomes``, ``position``; edges ``label``."""
        import networkx as nx

        graph: nx.DiGraph = nx.DiGraph()
        for position, (node_id, point) in enumerate(self.points.items()):
            graph.add_node(node_id, type=point.type, outcomes=point.outcomes, position=position)
        graph.add_edges_from(
            (point.parent_edge[0], node_id, {"label": point.parent_edge[1]})
            for node_id, point in self.points.items()
            if point.parent_edge is not None
        )
        return graph

    def _summary(self) -> dict:
        depth: dict[str, int] = {}
        for node_id, point in self.points.items():  # top-down: a parent's depth is known before its children's
            depth[node_id] = 0 if point.parent_edge is None else depth[point.parent_edge[0]] + 1
        return {
            "player": self.player,
            "decision_points": self.num_decision_points,
            "sequences": self.num_sequences,
            "observation_points": len(self.points) - self.num_decision_points,
            "depth": max(depth.values()),
        }

    def to_frame(self, x: np.ndarray):
        """The strategy ``x`` as a pandas DataFrame: information set, action, probability, reach probability."""
        return strategy_frame(self, x)

    # ------------------------------------------------------------------ sequences
    @cached_property
    def sequences(self) -> tuple[tuple[str, str] | None, ...]:
        """All sequences in index order; ``None`` is the empty sequence."""
        return (None,) + tuple((j, a) for j in self.decision_points for a in self.actions[j])

    @cached_property
    def index(self) -> dict[tuple[str, str] | None, int]:
        """Sequence -> index."""
        return {s: i for i, s in enumerate(self.sequences)}

    @cached_property
    def labels(self) -> tuple[str, ...]:
        """Readable sequence names: ``∅`` and ``decision_point:action``."""
        return tuple(EMPTY_SEQUENCE if s is None else f"{s[0]}:{s[1]}" for s in self.sequences)

    @property
    def num_sequences(self) -> int:
        """The number of sequences, the empty sequence included."""
        return int(self.ends[-1])

    @property
    def num_decision_points(self) -> int:
        """The number of decision points."""
        return len(self.decision_points)

    @cached_property
    def decision_point_of(self) -> np.ndarray:
        """For each sequence, the index of its decision point (-1 for the empty sequence)."""
        owner = np.full(self.num_sequences, -1, dtype=np.int64)
        for j, (s, e) in enumerate(zip(self.starts, self.ends)):
            owner[s:e] = j
        return owner

    @cached_property
    def F(self) -> sp.csr_array:
        """Constraint matrix of the polytope: row 0 fixes the empty sequence, row j+1 is decision point j."""
        rows, cols, vals = [0], [0], [1.0]
        seq = np.arange(1, self.num_sequences)
        rows += list(self.decision_point_of[seq] + 1)
        cols += list(seq)
        vals += [1.0] * len(seq)
        rows += list(np.arange(self.num_decision_points) + 1)
        cols += list(self.parents)
        vals += [-1.0] * self.num_decision_points
        return sp.csr_array((vals, (rows, cols)), shape=(self.num_decision_points + 1, self.num_sequences))

    @cached_property
    def f(self) -> np.ndarray:
        """The right-hand side of the polytope's constraints ``F x = f``: 1 in row 0 (the empty sequence), else 0."""
        f = np.zeros(self.num_decision_points + 1)
        f[0] = 1.0
        return f

    # ------------------------------------------------------------------ strategies
    def uniform_strategy(self) -> np.ndarray:
        """The sequence-form strategy that plays every action uniformly."""
        return self.from_behavioural({})

    def from_behavioural(self, behaviour: dict[str, dict[str, float]]) -> np.ndarray:
        """Sequence form of a behavioural strategy; missing decision points play uniformly."""
        x = np.zeros(self.num_sequences)
        x[0] = 1.0
        for j, point in enumerate(self.decision_points):
            probs = behaviour.get(point)
            acts = self.actions[point]
            local = (
                np.full(len(acts), 1.0 / len(acts))
                if probs is None
                else np.array([float(probs.get(a, 0.0)) for a in acts])
            )
            x[self.starts[j] : self.ends[j]] = x[self.parents[j]] * local
        return x

    def to_behavioural(self, x: np.ndarray) -> dict[str, dict[str, float]]:
        """Behavioural strategy of a sequence-form one (uniform where the point is never reached)."""
        x = np.asarray(x, dtype=float)
        out = {}
        for j, point in enumerate(self.decision_points):
            local = np.clip(x[self.starts[j] : self.ends[j]], 0.0, None)
            total = local.sum()
            probs = local / total if total > 1e-12 else np.full(local.size, 1.0 / local.size)
            out[point] = dict(zip(self.actions[point], probs.tolist()))
        return out

    def infeasibility(self, x: np.ndarray) -> float:
        """Largest violation of ``F x = f, x >= 0`` (0 for a valid sequence-form strategy)."""
        x = np.asarray(x, dtype=float)
        if x.shape != (self.num_sequences,):
            raise ValueError(f"player {self.player}: expected {self.num_sequences} sequence weights, got {x.shape}")
        negative = -x.min(initial=0.0)  # pragma: no mutate: a larger initial only lowers a term below the first
        return float(max(np.abs(self.F @ x - self.f).max(), negative))

    def best_response(self, utility: np.ndarray) -> tuple[float, np.ndarray]:
        """Maximise ``utility . x`` over the polytope: returns the value and a pure maximiser.

        One bottom-up pass: the value of a decision point is the best action's
        utility plus the values of the decision points below that action.
        """
        value, best = self.best_response_choices(np.array(utility, dtype=float))
        return float(value), self.pure_strategy(best)

    def best_response_choices(self, utility: np.ndarray):
        """The value of :meth:`best_response` and its action at *every* decision point, reached or not.

        ``best[j]`` is the position, among ``actions[decision_points[j]]``,
        of the action taken at decision point ``j``: the best one given the
        values below it, also where the response's own earlier choices never
        lead.  Floats stay floats; an object array of Fractions is worked in
        exactly.
        """
        accumulated = utility.copy()  # the pass adds into it
        best = self._bottom_up(accumulated)
        return accumulated[0], best

    def pure_strategy(self, choices: np.ndarray) -> np.ndarray:
        """The sequence form (0 / 1 weights) of the pure strategy taking action ``choices[j]`` at decision point j."""
        x = np.zeros(self.num_sequences)
        x[0] = 1.0
        for j in range(self.num_decision_points):
            x[self.starts[j] + choices[j]] = x[self.parents[j]]
        return x

    def exact_best_response_value(self, utility: np.ndarray) -> Fraction:
        """The value of :meth:`best_response` in rational arithmetic: ``utility`` holds Fractions (or ints)."""
        return self.best_response_choices(np.array([Fraction(u) for u in utility] + [None], dtype=object)[:-1])[0]

    def _bottom_up(self, accumulated: np.ndarray) -> np.ndarray:
        """Add each decision point's best action's value into its parent sequence, deepest first; the choices.

        Works in the arithmetic of ``accumulated`` (floats, or Fractions in an object array).
        """
        best = np.empty(self.num_decision_points, dtype=np.int64)
        for j in range(self.num_decision_points - 1, -1, -1):
            local = accumulated[self.starts[j] : self.ends[j]]
            best[j] = int(np.argmax(local))
            accumulated[self.parents[j]] += local[best[j]]
        return best

    def sequence_of(self, pair, where: str) -> int:
        """Index of the sequence ``[decision_point, action]``; faults name ``where``."""
        key = tuple(_check_pair(pair, where))
        if key not in self.index:
            raise GameFileError(f"{where}: unknown sequence {list(key)} of player {self.player}")
        return self.index[key]


def _refuse_cycle(points: dict[str, Point], where: str) -> None:
    """Raise naming the cycle if the parent edges form one."""
    import networkx as nx

    graph: nx.DiGraph = nx.DiGraph()
    graph.add_nodes_from(points)
    graph.add_edges_from((p.parent_edge[0], node_id) for node_id, p in points.items() if p.parent_edge is not None)
    try:
        cycle = nx.find_cycle(graph)
    except nx.NetworkXNoCycle:
        return
    path = " -> ".join([u for u, _ in cycle] + [cycle[0][0]])
    raise GameFileError(f"{where}: the parent edges form a cycle: {path}")


def _check_edges(points: dict[str, Point], order: dict[str, int], where: str) -> None:
    """Check that every node hangs below its parent, from one of its outcomes, alone, and that one node is the root.

    A cycle of parent edges always breaks the top-down order, so the caller
    looks for one (a graph walk) only when this check fails.
    """
    seen_edges: dict[tuple[str, str], str] = {}
    roots = []
    for node_id, point in points.items():
        if point.parent_edge is None:
            roots.append(node_id)
            continue
        parent, label = point.parent_edge
        if order[parent] >= order[node_id]:
            raise GameFileError(
                f"{where}: node {node_id!r} comes before its parent {parent!r}; nodes must be listed top-down"
            )
        parent_point = points[parent]
        if label not in parent_point.outcomes:
            kind = "action" if parent_point.type == "decision" else "signal"
            raise GameFileError(
                f"{where}: node {node_id!r} hangs from {kind} {label!r}, which its "
                f"parent {parent!r} does not have (it has {list(parent_point.outcomes)})"
            )
        if (parent, label) in seen_edges:
            raise GameFileError(
                f"{where}: nodes {seen_edges[(parent, label)]!r} and {node_id!r} both "
                f"hang from edge ({parent!r}, {label!r})"
            )
        seen_edges[(parent, label)] = node_id
    if len(roots) != 1:
        raise GameFileError(f"{where}: expected exactly one root (parent_edge null), found {roots}")


def _check_labels_unambiguous(decision_points, actions, where: str) -> None:
    """Refuse two sequences that print alike (node ``a:b`` action ``c`` and node ``a`` action ``b:c``).

    Strategies are reported by label (``decision_point:action``), so an
    ambiguous label would merge two sequences in the JSON output.
    """
    owner: dict[str, tuple[str, str]] = {}
    for j in decision_points:
        for a in actions[j]:
            label = f"{j}:{a}"
            if label in owner:
                other_node, other_action = owner[label]
                raise GameFileError(
                    f"{where}: node {j!r} action {a!r} and node {other_node!r} action "
                    f"{other_action!r} both have the sequence label {label!r}; rename one "
                    "(a ':' in a node id or action makes labels ambiguous)"
                )
            owner[label] = (j, a)


def _check_node_fields(node, position: int, where: str) -> str:
    if not isinstance(node, dict):
        raise GameFileError(f"{where}: node at position {position} is not an object")
    for key in ("id", "type", "parent_edge"):
        if key not in node:
            raise GameFileError(f"{where}: node at position {position} is missing key {key!r}")
    node_id = node["id"]
    if not isinstance(node_id, str):
        raise GameFileError(f"{where}: node at position {position} has a non-string id {shown(node_id)}")
    kind = node["type"]
    if kind not in NODE_TYPES:
        raise GameFileError(
            f"{where}: node {node_id!r} has unknown type {shown(kind)} (expected decision or observation)"
        )
    needed = ("actions", "parent_sequence") if kind == "decision" else ("signals",)
    for key in needed:
        if key not in node:
            raise GameFileError(f"{where}: {kind} node {node_id!r} is missing key {key!r}")
    outcomes = node["actions" if kind == "decision" else "signals"]
    name = "actions" if kind == "decision" else "signals"
    if not isinstance(outcomes, list) or not outcomes or not all(isinstance(o, str) for o in outcomes):
        raise GameFileError(f"{where}: node {node_id!r} needs a non-empty list of string {name}, got {shown(outcomes)}")
    if len(set(outcomes)) != len(outcomes):
        raise GameFileError(f"{where}: node {node_id!r} lists duplicate {name}: {outcomes}")
    return node_id


def _check_pair(pair, where: str) -> tuple[str, str]:
    if not (isinstance(pair, (list, tuple)) and len(pair) == 2 and all(isinstance(p, str) for p in pair)):
        raise GameFileError(f"{where}: expected a pair [id, action_or_signal], got {shown(pair)}")
    return pair[0], pair[1]


def _last_sequences(points: dict[str, Point]) -> dict:
    """Each node's last own sequence: the last (decision point, action) pair on the path from the root to it.

    One top-down pass (the nodes are listed top-down, which :func:`_check_edges` has checked): a node below an
    action has that action's sequence, a node below a signal its parent's.  Linear in the nodes, so a chain of
    20,000 observation points is walked once, not once per decision point below it.
    """
    last: dict = {}
    for node_id, point in points.items():
        if point.parent_edge is None:
            last[node_id] = None
            continue
        parent = point.parent_edge[0]
        last[node_id] = point.parent_edge if points[parent].type == "decision" else last[parent]
    return last


def _show(sequence) -> str:
    return "null" if sequence is None else str(list(sequence))
