"""OpenSpiel games as sequence-form games, and solved strategies back as OpenSpiel policies.

:func:`load_openspiel` enumerates every history of a two-player zero-sum
OpenSpiel game (simultaneous-move games through OpenSpiel's turn-based
wrapper) into a :class:`~gamelp.game.SequenceFormGame`
(:mod:`gamelp.games.extensive` builds it): each information state is a
decision point whose id is OpenSpiel's information-state string and whose
actions are OpenSpiel's action names (``state.action_to_string``); chance
probabilities are the ones OpenSpiel lists for each chance outcome.

Games that are not two-player zero-sum, that sample chance without listing
its outcomes, or that have more than ``max_histories`` histories are refused
with an :class:`OpenSpielImportError` (a :class:`~gamelp.errors.GameFileError`).
:meth:`OpenSpielGame.tabular_policy` turns sequence-form strategies into an
OpenSpiel ``TabularPolicy`` (behavioural: action probabilities per
information state), so ``pyspiel`` can check them independently;
:func:`equilibrium_policy` solves both Nash LPs and returns that policy.

Needs the ``open_spiel`` package (the ``openspiel`` extra).
"""

from __future__ import annotations

import contextlib
import difflib
import os
import sys
from dataclasses import dataclass, field

import numpy as np

from gamelp.backends import DEFAULT_BACKEND
from gamelp.deps import install_hint, installed
from gamelp.errors import OpenSpielImportError
from gamelp.game import SequenceFormGame
from gamelp.games.extensive import SequenceFormBuilder

PREFIX = "openspiel:"
DEFAULT_MAX_HISTORIES = 2_000_000


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


@contextlib.contextmanager
def _native_stderr_silenced():
    """Silence file descriptor 2 while OpenSpiel's C++ runs: it prints each error there before raising it,
    and the caller reports the error in one line instead."""
    sys.stderr.flush()
    saved = os.dup(2)
    with open(os.devnull, "w") as null:
        os.dup2(null.fileno(), 2)
    try:
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


def load_spiel_game(game_string: str):
    """The ``pyspiel`` game of ``game_string``, checked importable (two players, zero-sum, listed chance)
    and turned turn-based if its moves are simultaneous."""
    if not installed("pyspiel"):
        raise OpenSpielImportError(f"{PREFIX}{game_string}: OpenSpiel is not installed here; "
                                   f"{install_hint('pyspiel')}")
    import pyspiel
    where = f"{PREFIX}{game_string}"
    name = game_string.split("(", 1)[0]
    known = pyspiel.registered_names()
    if name not in known:
        close = difflib.get_close_matches(name, known, n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        raise OpenSpielImportError(f"{where}: OpenSpiel cannot load it (no game {name!r}{hint})")
    try:
        with _native_stderr_silenced():
            game = pyspiel.load_game(game_string)
    except pyspiel.SpielError as exc:
        reason = str(exc).splitlines()[0] if str(exc) else "no reason given"
        raise OpenSpielImportError(f"{where}: OpenSpiel cannot load it ({reason})") from None
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
    return game


def load_openspiel(game_string: str, max_histories: int = DEFAULT_MAX_HISTORIES) -> OpenSpielGame:
    """Import ``game_string`` (e.g. ``"leduc_poker"``, ``"goofspiel(num_cards=3)"``); see the module docstring."""
    game = load_spiel_game(game_string)
    where = f"{PREFIX}{game_string}"
    walk = _Walk(where, max_histories)
    walk.visit(game.new_initial_state(), 1.0, (None, None))
    pl1, pl2, A = walk.builder.build()
    return OpenSpielGame(pl1, pl2, A, game_string, game, walk.action_ids, walk.histories)


class _Walk:
    """Depth-first enumeration of every history into a :class:`SequenceFormBuilder`, counting histories."""

    def __init__(self, where: str, max_histories: int):
        self.where, self.max_histories = where, max_histories
        self.histories = 0
        self.builder = SequenceFormBuilder(where)
        self.action_ids: dict[tuple[int, str], dict[str, int]] = {}

    def visit(self, state, chance: float, last: tuple) -> None:
        self.histories += 1
        if self.histories > self.max_histories:
            raise OpenSpielImportError(f"{self.where}: too large to enumerate: more than {self.max_histories:,} "
                                       f"histories (visited {self.histories - 1:,} before stopping)")
        if state.is_terminal():
            self.builder.terminal(last, chance * state.returns()[0])
        elif state.is_chance_node():
            for action, probability in state.chance_outcomes():
                if probability > 0:
                    self.visit(state.child(action), chance * probability, last)
        else:
            player = state.current_player()
            info_set = state.information_state_string(player)
            ids = {state.action_to_string(player, action): action for action in state.legal_actions(player)}
            self.builder.decision(player + 1, info_set, ids, last[player])  # OpenSpiel counts players from 0
            self.action_ids.setdefault((player, info_set), ids)
            for name, action in ids.items():
                new_last = list(last)
                new_last[player] = (info_set, name)
                self.visit(state.child(action), chance, tuple(new_last))
