"""Players of the mini Magic game: perfect-information search, determinisation, heuristics, random.

From Esche (2018), ch. 2.1 and 2.6:

* ``perfect``: minimax with alpha-beta (:mod:`gamelp.games.mtg.search`) on the
  true state, cutting off at a life threshold with an evaluation function. When
  a player is already at or below the threshold, the cut-off moves down in
  steps of 4 (12, 8, 4, as the thesis's forests); below the last step the
  search runs to the end of the game, in C (:mod:`gamelp.games.mtg.exact`).
* ``imperfect``: at every choice, draw ``samples`` determinisations (its own
  library order; an opponent deck consistent with every card the opponent has
  shown, then the opponent's hand and library order), search the
  perfect-information game after each candidate move, and play the move that
  wins most samples (the first such move in move order). Below the last
  cut-off step (``life_threshold=0``: always) each sampled deal is searched to
  its end by the C search: perfect-information Monte Carlo.
* ``aggressive``: bolts the opponent at once, always attacks, never blocks,
  pays 4 life against a Vexing Devil whenever it has more than 4 life.
* ``defensive``: bolts opponent creatures when it can (attackers first), bolts
  the opponent only when the bolts in its hand are enough to win (the thesis's
  test: the bolts held, not only those it has mana for this turn), attacks when
  it has more creatures than the opponent, always blocks, pays 4 life when it
  holds no bolt.
* ``random``: a uniformly random legal move.

Heuristic players play Mountains first and, at the hand limit, discard the card
type they hold most of (ties: Mountain, Devil, Bolt). A player sees the game
through :meth:`Player.choose` ``(game, state, moves, table)``, where ``table``
records the cards each player has shown (:class:`Table`). :func:`make_player`
builds a player from its kind (``PLAYER_KINDS``) and raises :class:`MtgError`
for an unknown one.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from gamelp.games.errors import MtgError
from gamelp.games.mtg.deck import BOLT, DECK_SIZE, DEVIL, MOUNTAIN, Deck, thesis_decks
from gamelp.games.mtg.engine import (
    ATTACK,
    BLOCK,
    DISCARD,
    EVAL_CAP,
    HAND_C,
    HAND_L,
    HAND_M,
    LIB,
    LIFE,
    LIFE_THRESHOLD,
    MAIN,
    MANA,
    PAY,
    PHASE,
    PLAYER_BASE,
    RESPOND,
    Game,
    at_cutoff,
    creatures,
    decider,
)
from gamelp.games.mtg.evaluation import get_evaluation
from gamelp.games.mtg.exact import exact_value
from gamelp.games.mtg.search import CapReached, Searcher

TIER_STEP = 4
PLAYER_KINDS = ("perfect", "imperfect", "aggressive", "defensive", "defensive-hand", "random")


@dataclass
class Table:
    """Public information of a game in progress: the cards each player has shown."""

    decks: tuple[Deck, Deck]
    shown: list[list[int]] = field(default_factory=lambda: [[0, 0, 0], [0, 0, 0]])

    def record(self, player: int, move: str) -> None:
        """Note the card ``move`` puts in view (a land, a devil, a bolt, a discard)."""
        card = _CARD_SHOWN.get(move)
        if card is not None:
            self.shown[player][card] += 1


_CARD_SHOWN = {
    "M": MOUNTAIN,
    "S": DEVIL,
    "L": BOLT,
    "D": BOLT,
    "J": BOLT,
    "T": BOLT,
    "XM": MOUNTAIN,
    "XL": BOLT,
    "XC": DEVIL,
}


class Player:
    """A strategy: ``choose`` returns one of ``moves`` (the legal moves at ``state``)."""

    nodes = 0
    evaluations = 0

    def choose(self, game: Game, state, moves, table: Table) -> str:
        """One of ``moves`` for the player to decide at ``state``; every player implements it."""
        raise NotImplementedError


class RandomPlayer(Player):
    """A uniformly random legal move."""

    def __init__(self, rng: np.random.Generator):
        self.rng = rng

    def choose(self, game, state, moves, table):
        """One of ``moves``, drawn uniformly."""
        return moves[int(self.rng.integers(len(moves)))]


def _discard_choice(state, moves) -> str:
    b = PLAYER_BASE[decider(state)]
    held = {"XM": state[b + HAND_M], "XC": state[b + HAND_C], "XL": state[b + HAND_L]}
    return max(("XM", "XC", "XL"), key=lambda m: held[m])  # max keeps the first of ties


def _first_of(preferences, moves) -> str:
    for move in preferences:
        if move in moves:
            return move
    return "N"


class AggressivePlayer(Player):
    """Bolts the opponent at once, always attacks, never blocks, pays life when it legally can."""

    def choose(self, game, state, moves, table):
        """The move this rule makes at the phase of ``state`` (see the class docstring)."""
        phase = state[PHASE]
        if phase == MAIN:
            return _first_of(("M", "L", "S"), moves)
        if phase in (PAY, ATTACK):
            return _first_of(("P", "A"), moves)
        if phase == RESPOND:
            return _first_of(("L",), moves)
        if phase == DISCARD:
            return _discard_choice(state, moves)
        return "N"  # BLOCK: never blocks


class DefensivePlayer(Player):
    """Kills creatures, bolts the player only with a lethal volley, attacks with more creatures, always blocks.

    Esche (2018), Section 2.6: it "won't target the opponent itself with a Lightning Bolt unless it
    has enough in its hand to win the game". ``lethal_from="castable"`` (kind ``defensive``) counts
    the bolts it can cast now (in hand, with open mana): over random decks with at most 8 creatures
    it then beats the aggressive heuristic 30% of the time, the thesis 34% (Section 3.4).
    ``lethal_from="hand"`` (kind ``defensive-hand``) counts every bolt in hand, castable over this and
    later turns or not: 50% (``scripts/esche/esche_3_4_players.py`` prints both).
    """

    def __init__(self, lethal_from: str = "castable"):
        if lethal_from not in ("castable", "hand"):
            raise MtgError(f"lethal_from must be 'castable' or 'hand', got {lethal_from!r}")
        self.lethal_from = lethal_from

    def choose(self, game, state, moves, table):
        """The move this rule makes at the phase of ``state`` (see the class docstring)."""
        phase = state[PHASE]
        me = decider(state)
        b, o = PLAYER_BASE[me], PLAYER_BASE[1 - me]
        bolts = state[b + HAND_L] if self.lethal_from == "hand" else min(state[b + HAND_L], state[b + MANA])
        lethal = game.rules.bolt_damage * bolts >= state[o + LIFE]
        if phase == MAIN:
            return _first_of(("M", "D", "T") + (("L",) if lethal else ()) + ("S",), moves)
        if phase == RESPOND:
            return _first_of(("T", "J", "D") + (("L",) if lethal else ()), moves)
        if phase == PAY:
            return "P" if "P" in moves and state[b + HAND_L] == 0 else "N"
        if phase == ATTACK:
            return "A" if creatures(state, me) > creatures(state, 1 - me) else "N"
        if phase == BLOCK:
            return "B"
        return _discard_choice(state, moves)


def cutoff_tier(state, threshold: int) -> int:
    """The cut-off for a search from ``state``.

    The highest of threshold, threshold-4, ... that both players are still above; 0 (search to the end) when there is
    none.
    """
    tier = threshold
    while tier > 0 and at_cutoff(state, tier):
        tier -= TIER_STEP
    return max(tier, 0)


class PerfectPlayer(Player):
    """Alpha-beta search on the true state (both library orders known)."""

    def __init__(
        self,
        evaluation: str = "forest",
        life_threshold: int = LIFE_THRESHOLD,
        eval_cap: int | None = EVAL_CAP,
        forest_options=None,
        graded: bool = False,
    ):
        self.evaluation = evaluation
        self.graded = graded
        self.life_threshold = life_threshold
        self.eval_cap = eval_cap
        self.forest_options = forest_options or {}
        self._searchers: dict[int, Searcher] = {}
        self._game = None
        self._spent_nodes = 0
        self._spent_evaluations = 0

    @property
    def nodes(self):
        """Search nodes visited so far, over every game."""
        return self._spent_nodes + sum(s.nodes for s in self._searchers.values())

    @property
    def evaluations(self):
        """Positions evaluated (search leaves) so far, over every game."""
        return self._spent_evaluations + sum(s.leaves for s in self._searchers.values())

    def searcher(self, game: Game, tier: int) -> Searcher:
        """The searcher (and its transposition table) for ``game`` with cut-off ``tier``."""
        if game is not self._game:
            self._spent_nodes, self._spent_evaluations = self.nodes, self.evaluations
            self._searchers, self._game = {}, game
        if tier not in self._searchers:
            evaluate = get_evaluation(self.evaluation, threshold=tier, **self.forest_options) if tier > 0 else None
            self._searchers[tier] = Searcher(game, evaluate, tier, cap=None, graded=self.graded)
        return self._searchers[tier]

    def choose(self, game, state, moves, table):
        """The best move by alpha-beta search to the cut-off tier; the first move when the evaluation cap is reached.

        With no tier left, the first move that wins by the C search to the end (else the first move).
        """
        tier = cutoff_tier(state, self.life_threshold)
        if tier == 0:
            return self._exact_choice(game, state, moves)
        searcher = self.searcher(game, tier)
        if self.eval_cap is not None:
            searcher.cap = searcher.leaves + self.eval_cap
        try:
            move, _ = searcher.best_move(state)
        except CapReached:
            move = moves[0]
        return move

    def _exact_choice(self, game, state, moves) -> str:
        """The first of ``moves`` that wins for the mover by the C search to the end, else the first move.

        As ``Searcher.best_move``; ``eval_cap`` leaves for each move's search.
        """
        me = decider(state)
        for move in moves:
            value, nodes, leaves = exact_value(game, game.step(state, move), self.eval_cap)
            self._spent_nodes += nodes
            self._spent_evaluations += leaves
            if value is None:
                return moves[0]
            if (value > 0) == (me == 0):
                return move
        return moves[0]


def consistent_decks(shown, candidates) -> list[Deck]:
    """Decks among ``candidates`` holding at least the cards in ``shown`` (else every such deck)."""
    m, b, c = shown  # mountains, bolts, creatures seen
    fits = [d for d in candidates if d.mountains >= m and d.bolts >= b and d.creatures >= c]
    if fits:
        return fits
    return [Deck(cc, bb) for cc in range(c, DECK_SIZE - m - b + 1) for bb in range(b, DECK_SIZE - m - cc + 1)]


def determinize(game: Game, state, me: int, table: Table, rng: np.random.Generator, candidates) -> tuple[Game, tuple]:
    """A perfect-information game consistent with what player ``me`` knows at ``state``.

    Its own library is reshuffled (its contents are known, not their order); the
    opponent's deck is drawn from the ``candidates`` consistent with the cards it
    has shown, and its unseen cards are dealt into its hand and library at random.
    """
    them = 1 - me
    s = list(state)
    libraries = [None, None]
    own = np.repeat(np.arange(3), game.library_counts(state, me))
    libraries[me] = rng.permutation(own)
    decks = consistent_decks(table.shown[them], candidates)
    deck = decks[int(rng.integers(len(decks)))]
    unseen = np.array(deck.counts) - np.array(table.shown[them])
    pool = rng.permutation(np.repeat(np.arange(3), unseen))
    ob = PLAYER_BASE[them]
    hand = s[ob + HAND_M] + s[ob + HAND_L] + s[ob + HAND_C]
    hand_cards = np.bincount(pool[:hand], minlength=3)
    s[ob + HAND_M], s[ob + HAND_L], s[ob + HAND_C] = (int(x) for x in hand_cards)
    libraries[them] = pool[hand : hand + game.library_size(state, them)]
    s[PLAYER_BASE[0] + LIB] = s[PLAYER_BASE[1] + LIB] = 0
    return Game(libraries, game.rules), tuple(s)


class ImperfectPlayer(Player):
    """Determinisation: search sampled perfect-information games, play the move winning most of them."""

    def __init__(
        self,
        rng: np.random.Generator,
        evaluation: str = "forest",
        life_threshold: int = LIFE_THRESHOLD,
        samples: int = 8,
        sample_cap: int | None = 20_000,
        candidates=None,
        forest_options=None,
    ):
        self.rng = rng
        self.evaluation = evaluation
        self.life_threshold = life_threshold
        self.samples = samples
        self.sample_cap = sample_cap
        self.candidates = thesis_decks() if candidates is None else [Deck.parse(d) for d in candidates]
        self.forest_options = forest_options or {}
        self.nodes = 0
        self.evaluations = 0

    def choose(self, game, state, moves, table):
        """The move winning the most sampled determinisations of the hidden cards, the first on a tie."""
        me = decider(state)
        tier = cutoff_tier(state, self.life_threshold)
        evaluate = get_evaluation(self.evaluation, threshold=tier, **self.forest_options) if tier > 0 else None
        wins = np.zeros(len(moves), dtype=np.int64)
        for _ in range(self.samples):
            sample_game, sample_state = determinize(game, state, me, table, self.rng, self.candidates)
            children = [sample_game.step(sample_state, move) for move in moves]
            values = (
                self._exact_values(sample_game, children)
                if tier == 0
                else self._cut_off_values(sample_game, children, evaluate, tier)
            )
            for i, value in enumerate(values):
                if value is not None and ((value > 0) if me == 0 else (value < 0)):
                    wins[i] += 1
        return moves[int(np.argmax(wins))]

    def _cut_off_values(self, game, children, evaluate, tier) -> list:
        """Values of ``children`` (None when capped) by the Python search with the evaluation at ``tier``.

        There is one search and one cap for all of them.
        """
        searcher = Searcher(game, evaluate, tier, cap=self.sample_cap)
        values = []
        for child in children:
            try:
                values.append(searcher.value(child))
            except CapReached:
                values.append(None)
        self.nodes += searcher.nodes
        self.evaluations += searcher.leaves
        return values

    def _exact_values(self, game, children) -> list:
        """Exact values of ``children`` (None when capped) by the C search to the end of the game.

        With ``sample_cap`` leaves for each.
        """
        values = []
        for child in children:
            value, nodes, leaves = exact_value(game, child, self.sample_cap)
            values.append(value)
            self.nodes += nodes
            self.evaluations += leaves
        return values


def make_player(
    kind: str,
    rng: np.random.Generator,
    evaluation: str = "forest",
    life_threshold: int = LIFE_THRESHOLD,
    eval_cap: int | None = EVAL_CAP,
    **options,
) -> Player:
    """A player of ``kind`` (one of ``PLAYER_KINDS``)."""
    if kind == "perfect":
        return PerfectPlayer(evaluation, life_threshold, eval_cap, **options)
    if kind == "imperfect":
        return ImperfectPlayer(rng, evaluation, life_threshold, sample_cap=eval_cap, **options)
    if kind == "aggressive":
        return AggressivePlayer()
    if kind == "defensive":
        return DefensivePlayer()
    if kind == "defensive-hand":
        return DefensivePlayer(lethal_from="hand")
    if kind == "random":
        return RandomPlayer(rng)
    raise MtgError(f"unknown player kind {kind!r}; expected one of {', '.join(PLAYER_KINDS)}")
