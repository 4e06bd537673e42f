"""OpenSpiel games as sequence-form games, and solved strategies back as OpenSpiel policies.

:func:`load_openspiel` enumerates every history of a two-player zero-sum
OpenSpiel game (simultaneous-move games through OpenSpiel's turn-based
wrapper) and builds a :class:`~gamelp.game.SequenceFormGame`:

* each information state of a player is a decision point whose id is
  OpenSpiel's information-state string and whose actions are OpenSpiel's
  action names (``state.action_to_string``);
* a decision point's parent sequence is the player's last (information
  state, action) on the way down (the game must have perfect recall);
  when several decision points follow the same sequence (the player is dealt
  a card, sees the opponent act, ...), they hang from one observation node
  ``o|<parent>`` whose signals are their ids;
* ``A[s1, s2]`` is the sum over terminal histories ``z`` whose last
  sequences are ``s1`` and ``s2`` of ``chance(z) u1(z)``, with ``chance(z)``
  the product of the probabilities OpenSpiel gives each chance outcome.

Games that are not two-player zero-sum, that sample chance without listing
its outcomes, or that have more than ``max_histories`` histories are refused
with an :class:`OpenSpielImportError` (a :class:`~gamelp.errors.GamelpError`).
:meth:`OpenSpielGame.tabular_policy` turns sequence-form strategies into an
OpenSpiel ``TabularPolicy`` (behavioural: action probabilities per
information state), so ``pyspiel`` can check them independently;
:func:`equilibrium_policy` solves both Nash LPs and returns that policy.

Needs the ``open_spiel`` package (the ``openspiel`` extra).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from gamelp.backends import DEFAULT_BACKEND
from gamelp.errors import GamelpError
from gamelp.game import SequenceFormGame
from gamelp.treeplex import Treeplex

PREFIX = "openspiel:"
DEFAULT_MAX_HISTORIES = 2_000_000


class OpenSpielImportError(GamelpError):
    """An OpenSpiel game cannot be imported (not two-player zero-sum, sampled chance, too large, ...)."""


@dataclass(frozen=True, eq=False)
class OpenSpielGame(SequenceFormGame):
    """A sequence-form game imported from OpenSpiel; remembers the game and the action ids."""

    spiel_game: object = None
    # (player, information state) -> {action name: OpenSpiel action id}
    action_ids: dict = field(default_factory=dict)
    histories: int = 0

    def tabular_policy(self, x: np.ndarray, y: np.ndarray):
        """Both players' sequence-form strategies as one OpenSpiel ``TabularPolicy`` of :attr:`spiel_game`."""
        from open_spiel.python import policy as policy_lib

        policy = policy_lib.TabularPolicy(self.spiel_game)
        for player, (treeplex, strategy) in enumerate(((self.pl1, x), (self.pl2, y))):
            for info_state, probabilities in treeplex.to_behavioural(strategy).items():
                row = policy.state_lookup[info_state]
                policy.action_probability_array[row] = 0.0
                ids = self.action_ids[(player, info_state)]
                for action, probability in probabilities.items():
                    policy.action_probability_array[row, ids[action]] = probability
        return policy


def equilibrium_policy(game: OpenSpielGame, backend: str = DEFAULT_BACKEND):
    """Solve both players' Nash LPs; return player 1's value and the equilibrium as a ``TabularPolicy``."""
    from gamelp.models.nash import solve_nash

    first, second = solve_nash(game, 1, backend), solve_nash(game, 2, backend)
    return first.value, game.tabular_policy(first.strategy, second.strategy)


def load_openspiel(game_string: str, max_histories: int = DEFAULT_MAX_HISTORIES) -> OpenSpielGame:
    """Import ``game_string`` (e.g. ``"leduc_poker"``, ``"goofspiel(num_cards=3)"``); see the module docstring."""
    try:
        import pyspiel
    except ImportError:
        raise OpenSpielImportError(f"{PREFIX}{game_string}: OpenSpiel is not installed "
                                   "(pip install 'gamelp[openspiel]')") from None
    where = f"{PREFIX}{game_string}"
    try:
        game = pyspiel.load_game(game_string)
    except pyspiel.SpielError as exc:
        raise OpenSpielImportError(f"{where}: OpenSpiel cannot load it ({exc})") from None
    kind = game.get_type()
    if game.num_players() != 2:
        raise OpenSpielImportError(f"{where}: {game.num_players()} players; only two-player games can be imported")
    if kind.utility != pyspiel.GameType.Utility.ZERO_SUM:
        raise OpenSpielImportError(f"{where}: the game is {kind.utility.name.lower().replace('_', '-')}; "
                                   "only zero-sum games can be imported")
    if kind.chance_mode == pyspiel.GameType.ChanceMode.SAMPLED_STOCHASTIC:
        raise OpenSpielImportError(f"{where}: chance is sampled, not listed with probabilities")
    if kind.dynamics == pyspiel.GameType.Dynamics.SIMULTANEOUS:
        game = pyspiel.convert_to_turn_based(game)
    if not game.get_type().provides_information_state_string:
        raise OpenSpielImportError(f"{where}: the game gives no information-state strings")
    walk = _Walk(game, where, max_histories)
    walk.visit(game.new_initial_state(), 1.0, (None, None))
    pl1, pl2 = (Treeplex.from_nodes(walk.decision_process(p), p + 1, where) for p in (0, 1))
    entries = [(pl1.index[s1], pl2.index[s2], value) for (s1, s2), value in walk.utility.items() if value != 0]
    rows, cols, values = zip(*entries) if entries else ((), (), ())
    A = sp.csr_matrix((values, (rows, cols)), shape=(pl1.num_sequences, pl2.num_sequences))
    return OpenSpielGame(pl1, pl2, A, game_string, game, walk.action_ids, walk.histories)


class _Walk:
    """Depth-first enumeration of every history: decision points, their parents, and the payoff entries."""

    def __init__(self, game, where: str, max_histories: int):
        self.game, self.where, self.max_histories = game, where, max_histories
        self.histories = 0
        self.action_ids: dict[tuple[int, str], dict[str, int]] = {}
        self.parent: dict[tuple[int, str], tuple[str, str] | None] = {}  # decision point -> parent sequence
        self.utility: dict[tuple, float] = {}

    def visit(self, state, chance: float, last: tuple) -> None:
        self.histories += 1
        if self.histories > self.max_histories:
            raise OpenSpielImportError(f"{self.where}: too large to enumerate: more than {self.max_histories:,} "
                                       f"histories (visited {self.histories - 1:,} before stopping)")
        if state.is_terminal():
            key = last
            self.utility[key] = self.utility.get(key, 0.0) + chance * state.returns()[0]
            return
        if state.is_chance_node():
            for action, probability in state.chance_outcomes():
                if probability > 0:
                    self.visit(state.child(action), chance * probability, last)
            return
        player = state.current_player()
        info_state = state.information_state_string(player)
        names = self._decision_point(state, player, info_state, last[player])
        for action, name in names:
            new_last = list(last)
            new_last[player] = (info_state, name)
            self.visit(state.child(action), chance, tuple(new_last))

    def _decision_point(self, state, player: int, info_state: str, parent) -> list[tuple[int, str]]:
        actions = [(action, state.action_to_string(player, action)) for action in state.legal_actions(player)]
        key = (player, info_state)
        if key not in self.parent:
            names = [name for _, name in actions]
            if len(set(names)) != len(names):
                raise OpenSpielImportError(f"{self.where}: information state {info_state!r} has two actions "
                                           f"with the same name: {names}")
            self.parent[key] = parent
            self.action_ids[key] = {name: action for action, name in actions}
        elif self.parent[key] != parent:
            raise OpenSpielImportError(f"{self.where}: player {player + 1} forgets its own past at information "
                                       f"state {info_state!r} (reached after {self.parent[key]} and {parent}); "
                                       "only games with perfect recall can be imported")
        return actions

    def decision_process(self, player: int) -> list[dict]:
        """The player's nodes top-down, in the JSON game format of :mod:`gamelp.game`."""
        children: dict[tuple[str, str] | None, list[str]] = {}
        for (owner, info_state), parent in self.parent.items():
            if owner == player:
                children.setdefault(parent, []).append(info_state)
        nodes: list[dict] = []

        def hang(parent, parent_edge) -> None:
            below = children.get(parent, [])
            if len(below) > 1:
                observation = f"o|{'root' if parent is None else ':'.join(parent)}"
                nodes.append({"id": observation, "type": "observation", "signals": list(below),
                              "parent_edge": parent_edge})
                edges = [[observation, info_state] for info_state in below]
            else:
                edges = [parent_edge] * len(below)
            for info_state, edge in zip(below, edges):
                actions = list(self.action_ids[(player, info_state)])
                nodes.append({"id": info_state, "type": "decision", "actions": actions, "parent_edge": edge,
                              "parent_sequence": None if parent is None else list(parent)})
                for action in actions:
                    hang((info_state, action), [info_state, action])

        hang(None, None)
        return nodes
