"""The simulators under the :class:`~gamelp.games.engine.Engine` protocol: one adapter per engine.

Each adapter translates the contract of :mod:`gamelp.games.engine` into its
engine's own calls and changes nothing inside the engine:

* :class:`MtgEngine`: the mini Magic game (:mod:`gamelp.games.mtg.engine`). A state
  pairs the deal (:class:`~gamelp.games.mtg.engine.Game`, fixed for the game) with
  the engine's immutable 26-int position; moves are the engine's letters (``"M"``,
  ``"L"``, ...), forced decision points are already played by the engine.
* :class:`LocmEngine`: Legends of Code and Magic 1.2, draft and battle
  (:mod:`gamelp.games.locm`). The seed gives the referee's seeds; the 30 draft
  turns are 60 moves (seat 0 then seat 1 picks 0, 1 or 2 of the same offer), then
  the referee's shuffles start the battle, whose moves are the engine's action
  tuples, ``PASS`` ending the turn. The engine's state changes in place, so
  ``apply`` clones it first (:meth:`~gamelp.games.locm.engine.State.clone`).
* :class:`YugiohEngine`: the simplified Yu-Gi-Oh of :mod:`gamelp.games.yugioh`. Its
  one decision, each battle phase that offers one, is ``"attack"`` or ``"hold"``;
  the draw and main phase follow the paper (every main-phase probability 1), and an
  attack on an empty field is forced, so both are played by the adapter between
  decisions. Chance during play (which face-down card a spell hits, which card is
  set) comes from the state's own generator, seeded by ``new_game``.
* :class:`PenniesEngine` and :class:`RpsEngine`: one play of a win/lose matrix game
  (:class:`~gamelp.games.pennies.WinLossGame`), the simultaneous choice made as two
  moves (seat 0, then seat 1), as OpenSpiel turns simultaneous games into sequential ones.

Each adapter registers itself in gamelp's game registry (``@register_engine``,
:mod:`gamelp.registry`) under its engine's name. The engines' modules are imported
when an adapter is made, so listing the registry imports none of them.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from gamelp.games.engine import TERMINAL
from gamelp.registry import register_engine

WIN_LOSS = {0: (1.0, -1.0), 1: (-1.0, 1.0)}


# ---- mini Magic ---------------------------------------------------------------------------------------------------
class MtgState(NamedTuple):
    """A deal and a position of it (immutable; the deal is fixed for the game)."""

    game: Any  # gamelp.games.mtg.engine.Game
    position: tuple


@register_engine("mtg")
class MtgEngine:
    """The mini Magic game (Esche 2018) under the Engine protocol.

    The seed shuffles both decks and picks the first player, the decks themselves are drawn from ``decks`` (default: the
    33 the thesis analysed).
    """

    name = "mtg"
    num_players = 2
    constant_sum = 0.0
    stochastic = True
    static_attributes = ("game",)
    # A player decks out by turn 2 * (60 - 7 + 1) = 108 at the latest. Each turn closes at most 5 windows
    # with N (main, attack, respond, block, pay); every other move plays, pays for or discards one of the
    # 120 cards, or declares an attack or block (each ends in a dead creature, a card spent, or at least
    # 1 damage of the 40 life): 108 * 5 + 120 * 3 + 2 * (120 + 40) = 1220.
    max_moves = 1_220

    def __init__(self, decks=None, rules=None):
        from gamelp.games.mtg import engine as mtg
        from gamelp.games.mtg.deck import analysed_decks

        self._mtg = mtg
        self.decks = tuple(decks) if decks is not None else tuple(str(d) for d in analysed_decks())
        self.rules = rules if rules is not None else mtg.Rules()

    def new_game(self, seed: int) -> MtgState:
        """The start of a game: the seed picks both decks, shuffles them and picks the first player."""
        rng = np.random.default_rng(seed)
        deck0, deck1 = (self.decks[int(i)] for i in rng.integers(len(self.decks), size=2))
        game, position = self._mtg.Game.deal(deck0, deck1, rng, int(rng.integers(2)), self.rules)
        return MtgState(game, position)

    def current_player(self, state: MtgState) -> int:
        """The seat to decide, or :data:`TERMINAL` once the game is over."""
        return TERMINAL if self._mtg.is_over(state.position) else self._mtg.decider(state.position)

    def legal_moves(self, state: MtgState) -> list[str]:
        """The engine's legal moves at the position, in its order."""
        return list(state.game.legal_moves(state.position))

    def apply(self, state: MtgState, move: str) -> MtgState:
        """The state after ``move``; an illegal move raises ``ValueError``."""
        if move not in state.game.legal_moves(state.position):
            raise ValueError(f"mtg: move {move!r} is not legal here")
        return MtgState(state.game, state.game.step(state.position, move))

    def is_terminal(self, state: MtgState) -> bool:
        """True once the game is over."""
        return self._mtg.is_over(state.position)

    def returns(self, state: MtgState) -> tuple[float, float]:
        """(1, -1) or (-1, 1) for a winner, (0, 0) before the end or on a draw."""
        return WIN_LOSS.get(self._mtg.winner(state.position), (0.0, 0.0))

    def clone(self, state: MtgState) -> MtgState:
        """The state itself: it is immutable."""
        return state  # immutable: the position is a tuple of ints, the deal is fixed for the game


# ---- Legends of Code and Magic -------------------------------------------------------------------------------------
class LocmState:
    """A match: the referee's seeds, both decks so far (card ids in pick order), and the battle once drafted."""

    __slots__ = ("battle", "decks", "seeds")

    def __init__(self, seeds, decks: tuple[tuple[int, ...], tuple[int, ...]], battle=None):
        self.seeds = seeds
        self.decks = decks
        self.battle = battle


@register_engine("locm")
class LocmEngine:
    """LOCM 1.2 under the Engine protocol: the draft (60 moves: picks 0, 1, 2) and the battle (action tuples)."""

    name = "locm"
    num_players = 2
    constant_sum = 0.0
    stochastic = True
    static_attributes = ("cards", "columns", "base")  # the card table and each instance's card: fixed per match
    # 60 draft picks. A player's 51st turn on, every draw costs a rune (30 health, runes at 25, ..., 5), so
    # no player has more than 56 turns: 112 battle turns. In a turn a player plays at most the 8 cards of a
    # full hand, each creature attacks at most once (at most 6 on the board plus 8 summoned), then passes.
    max_moves = 60 + 112 * (8 + 14 + 1)

    def __init__(self):
        from gamelp.games.locm import draft, engine

        self._draft, self._locm = draft, engine

    def new_game(self, seed: int) -> LocmState:
        """The start of a match: the referee's seeds from ``seed`` and two empty decks."""
        return LocmState(self._draft.RefereeSeeds.from_seed(seed), ((), ()))

    @staticmethod
    def _drafting(state: LocmState) -> bool:
        return state.battle is None

    def current_player(self, state: LocmState) -> int:
        """The seat to pick (drafting) or to act (battle), or :data:`TERMINAL` once the battle is won."""
        if self._drafting(state):
            return 0 if len(state.decks[0]) == len(state.decks[1]) else 1
        return TERMINAL if state.battle.winner >= 0 else state.battle.current

    def legal_moves(self, state: LocmState) -> list:
        """The pick indices 0, 1, 2 while drafting; the battle's legal actions afterwards (none once won)."""
        if self._drafting(state):
            return list(range(self._draft.OFFER_SIZE))
        return [] if state.battle.winner >= 0 else state.battle.legal_actions()

    def apply(self, state: LocmState, move) -> LocmState:
        """The state after ``move``: a pick index while drafting, a battle action afterwards.

        An illegal move raises ``ValueError``.
        """
        if self._drafting(state):
            if move not in range(self._draft.OFFER_SIZE):
                raise ValueError(f"locm: a draft pick is 0, 1 or 2, not {move!r}")
            seat = self.current_player(state)
            offer = self._draft.draft_offers(state.seeds.draft)[len(state.decks[seat])]
            decks = list(state.decks)
            decks[seat] = decks[seat] + (int(offer[move]),)
            decks = (decks[0], decks[1])
            battle = None
            if len(decks[1]) == self._draft.DRAFT_TURNS:  # the referee's shuffles; seat 0 plays first
                battle = self._locm.State.new(
                    self._draft.shuffled_deck(decks[0], state.seeds.shuffle0),
                    self._draft.shuffled_deck(decks[1], state.seeds.shuffle1),
                )
                battle.start_turn()
            return LocmState(state.seeds, decks, battle)
        if state.battle.winner >= 0 or not state.battle.is_legal(move):
            raise ValueError(f"locm: action {move!r} is not legal here")
        battle = state.battle.clone()
        if move[0] == self._locm.PASS:
            battle.start_turn()
        else:
            battle.apply(move)
        return LocmState(state.seeds, state.decks, battle)

    def is_terminal(self, state: LocmState) -> bool:
        """True once the battle has a winner."""
        return not self._drafting(state) and state.battle.winner >= 0

    def returns(self, state: LocmState) -> tuple[float, float]:
        """(1, -1) or (-1, 1) once the battle is won, (0, 0) before."""
        return WIN_LOSS[state.battle.winner] if self.is_terminal(state) else (0.0, 0.0)

    def clone(self, state: LocmState) -> LocmState:
        """A copy of ``state`` with its own battle."""
        return LocmState(state.seeds, state.decks, None if state.battle is None else state.battle.clone())


# ---- Yu-Gi-Oh -----------------------------------------------------------------------------------------------------
@dataclass
class YugiohState:
    """A position of :mod:`gamelp.games.yugioh` at a battle decision (or over), and the generator of its chance."""

    game: Any  # gamelp.games.yugioh.Game
    rng: np.random.Generator


@register_engine("yugioh")
class YugiohEngine:
    """The simplified Yu-Gi-Oh (Giotta 2020) under the Engine protocol.

    Moves: ``"attack"`` or ``"hold"`` at each battle phase with a choice; the seed deals both decks and picks the first
    player.
    """

    name = "yugioh"
    num_players = 2
    constant_sum = 0.0
    stochastic = True
    static_attributes = ()

    def __init__(self, rules=None):
        from gamelp.games import yugioh

        self._ygo = yugioh
        self.rules = rules if rules is not None else yugioh.TABLE1_RULES
        self._attack, self._hold = yugioh.ALWAYS, yugioh.Policy.constant(0.0)
        # every turn but the first draws a card, a player who cannot draw loses: at most one decision a turn
        # and 2 * (deck - hand + 1) turns
        self.max_moves = 2 * (sum(self.rules.deck) - self.rules.hand_size + 1)

    def new_game(self, seed: int) -> YugiohState:
        """The start of a game: the seed deals both decks and picks the first player; play runs to the first choice."""
        rng = np.random.default_rng(seed)
        first = int(rng.integers(2))
        players = (self._ygo.deal(rng, self.rules), self._ygo.deal(rng, self.rules))
        game = self._ygo.Game(players, self.rules, active=first)
        self._advance(game, rng)
        return YugiohState(game, rng)

    def _advance(self, game, rng) -> None:
        """Play turns from the start of the active player's turn to its next battle choice, or to the end.

        The phases of :func:`gamelp.games.yugioh.play_turn`, stopping before the battle phase when it holds a choice.
        """
        ygo = self._ygo
        while game.winner is None:
            if not ygo.draw_phase(game):
                return
            me, foe = game.players[game.active], game.players[1 - game.active]
            ygo.main_phase(me, foe, self._attack, rng)  # the paper's main phase: every probability 1
            if game.turn > 0 and me.monsters:
                if foe.monsters or foe.face_down:
                    return  # a choice: attack or hold
                self._battle(game, self._attack, rng)  # an empty field is always attacked
                if game.winner is not None:
                    return
            game.turn += 1
            game.active = 1 - game.active

    def _battle(self, game, policy, rng) -> None:
        me, foe = game.players[game.active], game.players[1 - game.active]
        self._ygo.battle_phase(me, foe, policy, rng)
        if foe.life <= 0:
            game.winner = game.active

    def current_player(self, state: YugiohState) -> int:
        """The seat to choose at the battle phase, or :data:`TERMINAL` once the game is over."""
        return TERMINAL if state.game.winner is not None else state.game.active

    def legal_moves(self, state: YugiohState) -> list[str]:
        """``["attack", "hold"]``, or none once the game is over."""
        return [] if state.game.winner is not None else ["attack", "hold"]

    def apply(self, state: YugiohState, move: str) -> YugiohState:
        """The state after the battle choice and the turns up to the next choice (``ValueError`` if illegal)."""
        if move not in self.legal_moves(state):
            raise ValueError(f"yugioh: move {move!r} is not legal here")
        new = self.clone(state)
        game, rng = new.game, new.rng
        self._battle(game, self._attack if move == "attack" else self._hold, rng)
        if game.winner is None:
            game.turn += 1
            game.active = 1 - game.active
            self._advance(game, rng)
        return new

    def is_terminal(self, state: YugiohState) -> bool:
        """True once the game has a winner."""
        return state.game.winner is not None

    def returns(self, state: YugiohState) -> tuple[float, float]:
        """(1, -1) or (-1, 1) for a winner, (0, 0) before the end."""
        return WIN_LOSS.get(state.game.winner, (0.0, 0.0))

    def clone(self, state: YugiohState) -> YugiohState:
        """A deep copy of the game and of its random generator."""
        return YugiohState(copy.deepcopy(state.game), copy.deepcopy(state.rng))


# ---- win/lose matrix games -----------------------------------------------------------------------------------------
class WinLossEngine:
    """One play of a :class:`~gamelp.games.pennies.WinLossGame`.

    Seat 0 (A, the rows) then seat 1 (B) names an action; the state is the tuple of action indices chosen so far; A's
    return is ``W[i, j]``, B's its negative.
    """

    num_players = 2
    max_moves = 2
    constant_sum = 0.0
    stochastic = False  # no chance: the seed decides nothing
    static_attributes = ()

    def __init__(self, name: str, game):
        self.name = name
        self.game = game
        self._win = np.asarray(game.win)

    def new_game(self, seed: int) -> tuple:
        """The empty tuple: no action chosen yet (the seed is not used)."""
        return ()

    def current_player(self, state: tuple) -> int:
        """Seat 0, then seat 1, then :data:`TERMINAL`."""
        return len(state) if len(state) < 2 else TERMINAL

    def legal_moves(self, state: tuple) -> list[str]:
        """The game's action labels while a seat has still to choose, else none."""
        return list(self.game.labels) if len(state) < 2 else []

    def apply(self, state: tuple, move: str) -> tuple:
        """The state with ``move``'s index appended; an illegal move raises ``ValueError``."""
        if move not in self.legal_moves(state):
            raise ValueError(f"{self.name}: move {move!r} is not legal here")
        return state + (self.game.labels.index(move),)

    def is_terminal(self, state: tuple) -> bool:
        """True once both seats have chosen."""
        return len(state) == 2

    def returns(self, state: tuple) -> tuple[float, float]:
        """``(W[i, j], -W[i, j])`` once both have chosen, (0, 0) before."""
        if len(state) < 2:
            return (0.0, 0.0)
        a_wins = float(self._win[state[0], state[1]])
        return (a_wins, -a_wins)

    def clone(self, state: tuple) -> tuple:
        """The state itself: a tuple is immutable."""
        return state


@register_engine("pennies")
class PenniesEngine(WinLossEngine):
    """Matching pennies (:data:`gamelp.games.pennies.PENNIES`): A wins when the coins match."""

    def __init__(self):
        from gamelp.games.pennies import PENNIES

        super().__init__("pennies", PENNIES)


@register_engine("rps")
class RpsEngine(WinLossEngine):
    """Rock-paper-scissors (:data:`gamelp.games.rps.RPS`)."""

    def __init__(self):
        from gamelp.games.rps import RPS

        super().__init__("rps", RPS)
