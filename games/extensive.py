"""Sequence form from an enumerated extensive-form tree: the builder the OpenSpiel and Gambit imports share.

A walk over the game tree reports every decision (player, information set,
action names, the player's last sequence on the way there) and every
terminal (both players' last sequences, chance probability times player 1's
payoff), players numbered 1 and 2 as in every sequence-form game of gamelp
(the OpenSpiel import adds 1 to OpenSpiel's 0 and 1).  :class:`SequenceFormBuilder` checks
perfect recall (an information set is always reached after the same own sequence), then builds

* each player's decision process in the JSON game format of
  :mod:`gamelp.game`: a decision point per information set, hanging from its
  parent sequence; when several information sets follow the same sequence
  they hang from one observation node ``o|<parent>`` whose signals are their
  ids;
* ``A[s1, s2] = sum`` of ``chance(z) u1(z)`` over the terminals ``z`` whose
  last sequences are ``s1`` and ``s2``.

:func:`distinct_labels` numbers the actions of a node when their names repeat (or are empty), so that no two merge.
"""

from __future__ import annotations

import scipy.sparse as sp

from gamelp.errors import GameFileError
from gamelp.players import seat_of_player
from gamelp.treeplex import Treeplex

Sequence = tuple[str, str]  # (information set id, action name); None is the empty sequence


def distinct_labels(labels: list[str]) -> list[str]:
    """``labels`` as they are when they are distinct and none is empty; otherwise each one numbered by position.

    ``["a", "b"]`` stays; ``["a", "a"]`` becomes ``["1:a", "2:a"]`` and ``["", "x"]`` ``["1", "2:x"]``.  Gambit
    files (actions of a node, strategies of a player) and OpenSpiel games (actions named alike at one node) may
    repeat a label; keyed by label, the repeats would merge into one action.
    """
    if len(set(labels)) == len(labels) and all(labels):
        return list(labels)
    return [f"{k}:{label}" if label else str(k) for k, label in enumerate(labels, start=1)]


class SequenceFormBuilder:
    """Collects decisions and terminals of a tree walk; :meth:`build` returns both treeplexes and ``A``."""

    def __init__(self, where: str):
        self.where = where
        self.actions: tuple[dict[str, tuple[str, ...]], ...] = ({}, {})
        self.parent: tuple[dict[str, Sequence | None], ...] = ({}, {})
        self.utility: dict[tuple, float] = {}

    def decision(self, player: int, info_set: str, actions, parent: Sequence | None) -> None:
        """Player ``player`` (1 or 2) acts at ``info_set`` with ``actions``; its last sequence was ``parent``."""
        actions = tuple(actions)
        known = self.parent[seat_of_player(player)]
        if info_set not in known:
            if len(set(actions)) != len(actions):
                raise GameFileError(
                    f"{self.where}: information set {info_set!r} has two actions with the same name: {list(actions)}"
                )
            known[info_set] = parent
            self.actions[seat_of_player(player)][info_set] = actions
            return
        if known[info_set] != parent:
            raise GameFileError(
                f"{self.where}: player {player} forgets its own past at information set "
                f"{info_set!r} (reached after {known[info_set]} and after {parent}); only games "
                "with perfect recall have a sequence form"
            )
        if self.actions[seat_of_player(player)][info_set] != actions:
            raise GameFileError(
                f"{self.where}: information set {info_set!r} of player {player} offers "
                f"{list(self.actions[seat_of_player(player)][info_set])} at one node and {list(actions)} at another"
            )

    def terminal(self, last: tuple, weighted_payoff: float) -> None:
        """A terminal reached after the last sequences ``last`` = (player 1's, player 2's)."""
        self.utility[last] = self.utility.get(last, 0.0) + weighted_payoff

    def build(self):
        """``(pl1, pl2, A)``: the two treeplexes and player 1's sparse payoff matrix."""
        pl1, pl2 = (Treeplex.from_nodes(self.decision_process(p), p, self.where) for p in (1, 2))
        entries = [(pl1.index[s1], pl2.index[s2], value) for (s1, s2), value in self.utility.items() if value != 0]
        rows, cols, values = zip(*entries) if entries else ((), (), ())
        return pl1, pl2, sp.csr_matrix((values, (rows, cols)), shape=(pl1.num_sequences, pl2.num_sequences))

    def decision_process(self, player: int) -> list[dict]:
        """Player ``player``'s (1 or 2) nodes top-down, in the JSON game format."""
        children: dict[Sequence | None, list[str]] = {}
        for info_set, parent in self.parent[seat_of_player(player)].items():
            children.setdefault(parent, []).append(info_set)
        nodes: list[dict] = []
        # Preorder with an explicit stack (trees may be deep): ("hang", parent sequence, its edge) lists the
        # information sets below a sequence, ("decision", information set, edge, parent sequence) one of them.
        pending: list[tuple] = [("hang", None, None)]
        while pending:
            task = pending.pop()
            if task[0] == "decision":
                _, info_set, edge, parent = task
                actions = list(self.actions[seat_of_player(player)][info_set])
                nodes.append(
                    {
                        "id": info_set,
                        "type": "decision",
                        "actions": actions,
                        "parent_edge": edge,
                        "parent_sequence": None if parent is None else list(parent),
                    }
                )
                pending.extend(("hang", (info_set, action), [info_set, action]) for action in reversed(actions))
                continue
            _, parent, parent_edge = task
            below = children.get(parent, [])
            if len(below) > 1:
                observation = f"o|{'root' if parent is None else ':'.join(parent)}"
                nodes.append(
                    {"id": observation, "type": "observation", "signals": list(below), "parent_edge": parent_edge}
                )
                edges = [[observation, info_set] for info_set in below]
            else:
                edges = [parent_edge] * len(below)
            pending.extend(("decision", info_set, edge, parent) for info_set, edge in reversed(list(zip(below, edges))))
        if not nodes:
            raise GameFileError(
                f"{self.where}: player {player} never acts; gamelp handles two-player zero-sum "
                "games in which both players act"
            )
        return nodes
