"""OpenSpiel games as sequence-form games, and solved strategies back as OpenSpiel policies.

:func:`load_openspiel` enumerates every history of a two-player zero-sum
OpenSpiel game (simultaneous-move games through OpenSpiel's turn-based
wrapper) into a :class:`~gamelp.game.SequenceFormGame`
(:mod:`gamelp.games.extensive` builds it): each information state is a
decision point whose id is OpenSpiel's information-state string and whose
actions are OpenSpiel's action names (``state.action_to_string``; numbered ``1:a``, ``2:a`` by position when
two at one node share a name, as the ``.efg`` reader does: :func:`~gamelp.games.extensive.distinct_labels`); chance
probabilities are the ones OpenSpiel lists for each chance outcome.

Games that are not two-player zero-sum, that sample chance without listing
its outcomes, or that have more than ``max_histories`` histories are refused
with an :class:`OpenSpielImportError` (a :class:`~gamelp.errors.GameFileError`).
The size is estimated first, from random playouts (Knuth 1975, "Estimating
the efficiency of backtrack programs", section 2): a game far beyond the
limit, such as chess, is refused in a moment with its estimate rather than
after minutes of enumeration.  The tree is walked with an explicit stack, so
a game may be deeper than Python's recursion limit.  A game string is checked
before OpenSpiel parses it: its nesting, and a file it names (``filename=``) as gamelp checks every text file
it reads (a regular file, within the 256 MiB cap, UTF-8).  What OpenSpiel raises while loading or walking a
game (``SpielError``, or the ``IndexError`` and others its C++ maps to) is an :class:`OpenSpielImportError`
naming the game string.
:meth:`OpenSpielGame.tabular_policy` turns sequence-form strategies into an
OpenSpiel ``TabularPolicy`` (behavioural: action probabilities per
information state), so ``pyspiel`` can check them independently;
:func:`equilibrium_policy` solves one Nash LP (with its duals) and returns that policy.

Needs the ``open_spiel`` package (the ``openspiel`` extra).
"""

from __future__ import annotations

import contextlib
import os
import random
import sys
from dataclasses import dataclass, field

import numpy as np

import gamelp.io
from gamelp.backends import DEFAULT_BACKEND
from gamelp.deps import install_hint, installed
from gamelp.errors import did_you_mean, shown
from gamelp.game import SequenceFormGame
from gamelp.games.errors import OpenSpielImportError
from gamelp.games.extensive import SequenceFormBuilder, distinct_labels
from gamelp.players import player_of_seat, seat_of_player
from gamelp.registry import register_game

PREFIX = "openspiel:"
DEFAULT_MAX_HISTORIES = 2_000_000
# Random playouts of the size estimate (a thousand take a tenth of a second on Leduc or liar's dice).  Each
# one's estimate is unbiased (Knuth 1975, section 2), so their mean exceeds SIZE_MARGIN times the true size with
# probability at most 1 / SIZE_MARGIN (Markov's inequality): a game is refused up front only when its estimate
# exceeds SIZE_MARGIN times the limit, and the walk's own count refuses the rest.  The playouts are seeded, so
# a game is always judged alike.
SIZE_PROBES = 1_000
SIZE_MARGIN = 100
# Brackets nested in a game string: real ones nest two or three deep, and OpenSpiel's parser recurses (about
# 20,000 levels crash the process).
MAX_GAME_STRING_NESTING = 100


@dataclass(frozen=True, eq=False, repr=False)
class OpenSpielGame(SequenceFormGame):
    """A sequence-form game imported from OpenSpiel; remembers the game and the action ids."""

    spiel_game: object = None
    # (player, information state) -> {action name: OpenSpiel action id}
    action_ids: dict = field(default_factory=dict)
    histories: int = 0

    def action_named(self, p: int, point: str, action) -> str | None:
        """The name of ``action`` at ``point`` (player ``p``'s): an action name, or OpenSpiel's action id."""
        if isinstance(action, (int, np.integer)) and not isinstance(action, bool):
            ids = self.action_ids.get((seat_of_player(p), point), {})
            return next((name for name, number in ids.items() if number == action), None)
        return super().action_named(p, point, action)

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
    """Player 1's value and the equilibrium as a ``TabularPolicy``, from one Nash LP and its duals."""
    from gamelp.models.nash import solve_equilibrium

    equilibrium = solve_equilibrium(game, backend)
    return equilibrium.value, game.tabular_policy(equilibrium.x, equilibrium.y)


@contextlib.contextmanager
def _native_stderr_silenced():
    """Silence file descriptor 2 while OpenSpiel's C++ runs.

    OpenSpiel prints each error there before raising it; the caller reports the error in one line instead.
    """
    sys.stderr.flush()
    saved = os.dup(2)
    with open(os.devnull, "w") as null:
        os.dup2(null.fileno(), 2)
    try:
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


# What OpenSpiel's C++ raises through pybind11: SpielError (a RuntimeError), and the standard exceptions it maps
# (std::out_of_range is IndexError, as in ``nfg_game`` without a file: "map::at"; invalid_argument is ValueError, ...).
OPENSPIEL_ERRORS = (RuntimeError, IndexError, ValueError, KeyError, OverflowError)


@contextlib.contextmanager
def spiel_errors(where: str, doing: str):
    """Turn an exception OpenSpiel raises in the block into one :class:`OpenSpielImportError` line naming ``where``."""
    try:
        yield
    except OPENSPIEL_ERRORS as exc:
        reason = str(exc).strip().splitlines()[0] if str(exc).strip() else "no reason given"
        if type(exc).__name__ != "SpielError":
            reason = f"{type(exc).__name__}: {reason}"
        raise OpenSpielImportError(f"{where}: OpenSpiel {doing} ({reason})") from None


def load_spiel_game(game_string: str):
    """The ``pyspiel`` game of ``game_string``, checked importable and turned turn-based if need be.

    Importable: two players, zero-sum, listed chance; simultaneous moves go through the turn-based wrapper.
    """
    if not installed("pyspiel"):
        raise OpenSpielImportError(f"{PREFIX}{game_string}: OpenSpiel is not installed here; {install_hint('pyspiel')}")
    import pyspiel

    where = f"{PREFIX}{game_string}"
    name = game_string.split("(", 1)[0]
    known = pyspiel.registered_names()
    if name not in known:
        raise OpenSpielImportError(f"{where}: OpenSpiel cannot load it (no game {name!r}{did_you_mean(name, known)})")
    depth = deepest = 0
    for character in game_string:
        depth += {"(": 1, ")": -1}.get(character, 0)
        deepest = max(deepest, depth)
    if deepest > MAX_GAME_STRING_NESTING:
        raise OpenSpielImportError(
            f"{where}: brackets nested {deepest} deep, more than the {MAX_GAME_STRING_NESTING} a game string may have"
        )
    with spiel_errors(where, "cannot load it"), _native_stderr_silenced():
        _check_files(pyspiel.game_parameters_from_string(game_string), where)
        game = pyspiel.load_game(game_string)
    kind = game.get_type()
    if game.num_players() != 2:
        raise OpenSpielImportError(f"{where}: {game.num_players()} players; only two-player games can be imported")
    if kind.utility != pyspiel.GameType.Utility.ZERO_SUM:
        raise OpenSpielImportError(
            f"{where}: the game is {kind.utility.name.lower().replace('_', '-')}; only zero-sum games can be imported"
        )
    if kind.chance_mode == pyspiel.GameType.ChanceMode.SAMPLED_STOCHASTIC:
        raise OpenSpielImportError(f"{where}: chance is sampled, not listed with probabilities")
    if kind.dynamics == pyspiel.GameType.Dynamics.SIMULTANEOUS:
        game = pyspiel.convert_to_turn_based(game)
    if not game.get_type().provides_information_state_string:
        raise OpenSpielImportError(f"{where}: the game gives no information-state strings")
    return game


def _check_files(parameters: dict, where: str) -> None:
    """Refuse a ``filename`` parameter (``efg_game``, ``nfg_game``, ...) that gamelp would not read itself.

    The checks of every text file gamelp reads (:func:`gamelp.io.read_text`): a regular file (OpenSpiel would wait
    forever on a named pipe, or read a device without end), at most :data:`gamelp.io.MAX_TEXT_BYTES`, UTF-8 text.
    OpenSpiel then reads the file again itself.
    """
    for key, value in parameters.items():
        if isinstance(value, dict):
            _check_files(value, where)  # a nested game; nesting is bounded by MAX_GAME_STRING_NESTING
        elif key == "filename" and isinstance(value, str):
            try:
                gamelp.io.read_text(value, OpenSpielImportError, gamelp.io.MAX_TEXT_BYTES)
            except OpenSpielImportError as exc:
                raise OpenSpielImportError(f"{where}: {exc}") from None


def enumerable_spiel_game(game_string: str, max_histories: int = DEFAULT_MAX_HISTORIES):
    """:func:`load_spiel_game`, refused up front when its estimated size is far beyond ``max_histories``."""
    game = load_spiel_game(game_string)
    with spiel_errors(f"{PREFIX}{game_string}", "failed while playing it out"):
        estimate = estimate_histories(game, SIZE_MARGIN * max_histories)
    if estimate > SIZE_MARGIN * max_histories:
        raise OpenSpielImportError(
            f"{PREFIX}{game_string}: too large to enumerate: an estimated {estimate:.2g} "
            f"histories or more (random playouts), beyond the {max_histories:,} gamelp "
            "enumerates"
        )
    return game


def estimate_histories(game, cap: float) -> float:
    """The estimated number of histories, averaged over :data:`SIZE_PROBES` seeded random playouts.

    Each playout gives Knuth's (1975, section 2) estimate 1 + d1 + d1 d2 + ... for the branching factors
    d1, d2, ... met on the way (chance outcomes of probability 0 are not branches).  Stops as soon as the
    mean is sure to exceed ``cap``.
    """
    rng = random.Random(0)
    total = 0.0
    for _ in range(SIZE_PROBES):
        state = game.new_initial_state()
        width = count = 1.0
        while not state.is_terminal():
            actions = (
                [a for a, p in state.chance_outcomes() if p > 0] if state.is_chance_node() else state.legal_actions()
            )
            width *= len(actions)
            count += width
            if total + count > cap * SIZE_PROBES:  # the mean already exceeds cap, whatever the other playouts
                return (total + count) / SIZE_PROBES
            state.apply_action(rng.choice(actions))
        total += count
    return total / SIZE_PROBES


@register_game("openspiel", variants=True)
def load_openspiel(game_string: str, max_histories: int = DEFAULT_MAX_HISTORIES) -> OpenSpielGame:
    """Import ``game_string`` (e.g. ``"leduc_poker"``, ``"goofspiel(num_cards=3)"``); see the module docstring."""
    game = enumerable_spiel_game(game_string, max_histories)
    walk = _Walk(f"{PREFIX}{game_string}", max_histories)
    with spiel_errors(walk.where, "failed while walking its tree"):
        walk.run(game.new_initial_state())
    pl1, pl2, A = walk.builder.build()
    return OpenSpielGame(pl1, pl2, A, game_string, game, walk.action_ids, walk.histories)


class _Walk:
    """Depth-first enumeration of every history into a :class:`SequenceFormBuilder`, counting histories.

    An explicit stack of (parent state, action, chance, last sequences) keeps each child unbuilt until its turn.
    """

    def __init__(self, where: str, max_histories: int):
        self.where, self.max_histories = where, max_histories
        self.histories = 0
        self.builder = SequenceFormBuilder(where)
        self.action_ids: dict[tuple[int, str], dict[str, int]] = {}

    def run(self, root) -> None:
        pending = [(None, root, 1.0, (None, None))]
        while pending:
            parent, action, chance, last = pending.pop()
            state = action if parent is None else parent.child(action)
            self.histories += 1
            if self.histories > self.max_histories:
                raise OpenSpielImportError(
                    f"{self.where}: too large to enumerate: more than "
                    f"{self.max_histories:,} histories (visited {self.histories - 1:,} "
                    "before stopping)"
                )
            if state.is_terminal():
                self.builder.terminal(last, chance * state.returns()[0])
            elif state.is_chance_node():
                outcomes = state.chance_outcomes()
                if len({action for action, _ in outcomes}) != len(outcomes):
                    self._refuse_repeated(state, state.current_player(), "(chance)", [a for a, _ in outcomes])
                pending.extend(
                    (state, action, chance * probability, last)
                    for action, probability in reversed(outcomes)
                    if probability > 0
                )
            else:
                player = state.current_player()
                info_set = state.information_state_string(player)
                legal = state.legal_actions(player)
                if len(set(legal)) != len(legal):
                    self._refuse_repeated(state, player, info_set, legal)
                names = distinct_labels([state.action_to_string(player, action) for action in legal])
                ids = dict(zip(names, legal, strict=True))  # names kept apart: OpenSpiel may repeat one at a node
                self.builder.decision(player_of_seat(player), info_set, ids, last[player])  # OpenSpiel counts from 0
                self.action_ids.setdefault((player, info_set), ids)
                for name, action in reversed(ids.items()):
                    new_last = list(last)
                    new_last[player] = (info_set, name)
                    pending.append((state, action, chance, tuple(new_last)))

    def _refuse_repeated(self, state, player: int, info_set: str, legal: list[int]) -> None:
        """Refuse an action id listed twice at one node: both are one child, so the game is not the one meant.

        OpenSpiel's ``efg_game`` does this: it numbers actions by name across the file, so two actions named alike
        at one node become one id (and its own LP values the game as if the second were the first).
        """
        repeated = next(action for action in legal if legal.count(action) > 1)
        hint = (
            "; read the .efg file itself (gamelp solve FILE.efg)" if self.where.startswith(f"{PREFIX}efg_game") else ""
        )
        raise OpenSpielImportError(
            f"{self.where}: OpenSpiel lists action {repeated} ({state.action_to_string(player, repeated)!r}) twice "
            f"at information state {shown(info_set)}, both leading to one child: actions named alike at one node "
            f"are merged{hint}"
        )
