"""The LOCM 1.2 battle, rule for rule as the official Java referee plays it.

Rules (Vieira (2020), Section 4.3; the referee's ``GameState``/``Gamer``):
30 health and runes at 25, 20, 15, 10 and 5: each rune crossed by damage
adds a card to the next draw.  Player 0 starts with 4 cards, player 1 with 5
and one extra mana that lasts until the first turn it starts with all its
mana spent.  Each turn the mana grows by one up to 12, the player draws
``1 + rune draws + card-draw effects`` (a full hand of 8 wastes the rest);
drawing from an empty deck, or any draw from the player's 51st turn on,
costs the next rune (health drops to it; with no rune left, to 0).  Two lanes
of at most three creatures; creatures attack from their second turn, or at
once with Charge; an enemy Guard in the lane must be attacked first.
Breakthrough carries excess damage to the player, Drain heals by the attack,
Lethal kills on any damage, Ward absorbs the first damage.  Green items buff
a friendly creature, red items debuff an enemy one, blue items debuff an
enemy creature or damage the opponent.  Referee quirks kept: a creature
that attacks, is attacked or is targeted by an item loses its summon
effects' numbers (they are shown as 0 afterwards); the opponent's shown draw
is the value when its turn ended.

The state is flat: per-instance lists indexed by instance id (1..60) for the
creature fields, two-element lists for the players' numbers, small lists for
decks, hands and boards; :meth:`State.clone` copies only those lists, so a
lookahead battler can clone per candidate action.

Actions are tuples ``(kind, origin, target)``: ``(PASS, -1, -1)``,
``(SUMMON, instance, lane)``, ``(ATTACK, instance, target)``,
``(USE, instance, target)`` where target -1 is the opponent.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from gamelp.games.errors import LocmError
from gamelp.games.locm.cards import (
    ABILITY_STRINGS,
    BLUE_ITEM,
    BREAKTHROUGH,
    CHARGE,
    CREATURE,
    DRAIN,
    GREEN_ITEM,
    GUARD,
    LETHAL,
    WARD,
    CardTable,
    locm12_cards,
)

PASS, SUMMON, ATTACK, USE = 0, 1, 2, 3
ACTION_NAMES = ("PASS", "SUMMON", "ATTACK", "USE")
PASS_ACTION = (PASS, -1, -1)

INITIAL_HEALTH = 30
MAX_MANA = 12
HAND_LIMIT = 8
LANE_LIMIT = 3
PLAYER_TURN_LIMIT = 50
DECK_SIZE = 30


@lru_cache(maxsize=4)
def _card_columns(cards: CardTable) -> tuple[list[int], ...]:
    """The card table as plain lists (faster than numpy scalars in the hot loop)."""
    return (
        cards.type.tolist(),
        cards.cost.tolist(),
        cards.attack.tolist(),
        cards.defense.tolist(),
        cards.abilities.tolist(),
        cards.player_hp.tolist(),
        cards.enemy_hp.tolist(),
        cards.card_draw.tolist(),
    )


def action_text(action: tuple[int, int, int]) -> str:
    """The referee's text of an action: ``SUMMON 7 0``, ``ATTACK 5 -1``, ``PASS``."""
    kind, origin, target = action
    return "PASS" if kind == PASS else f"{ACTION_NAMES[kind]} {origin} {target}"


def parse_actions(text: str) -> list[tuple[int, int, int]]:
    """A player's output line (actions separated by ``;``) as action tuples.

    Raises ``ValueError`` where the referee ends the match with an invalid-action error.
    """
    actions = []
    for part in text.split(";"):
        words = part.split()
        if not words:
            continue
        name = words[0]
        if name == "PASS":
            actions.append(PASS_ACTION)
        elif name in ("SUMMON", "ATTACK", "USE") and len(words) >= 3:
            actions.append((ACTION_NAMES.index(name), int(words[1]), int(words[2])))
        else:
            raise ValueError(f"invalid action {part.strip()!r}")
    return actions


class State:
    """A battle in progress, seen from ``current`` (the player to move).

    Per instance id (index 0 unused): ``base`` card index, ``attack``,
    ``defense``, ``abilities`` bits, ``can_attack``, ``has_attacked``,
    ``lane``, ``effects`` (False once the referee's copy dropped the summon
    effects).  Per player: ``health``, ``max_mana``, ``mana``, ``next_rune``,
    ``next_draw``, ``shown_draw``, ``bonus_turns``, ``deck`` (next card last),
    ``hand``, ``board`` (creature ids in summoning order, both lanes),
    ``performed`` (the legal actions of the player's last turn).
    ``winner`` is -1 while the battle goes on.
    """

    __slots__ = (
        "abilities",
        "attack",
        "base",
        "board",
        "bonus_turns",
        "can_attack",
        "cards",
        "columns",
        "current",
        "deck",
        "defense",
        "effects",
        "hand",
        "has_attacked",
        "health",
        "lane",
        "mana",
        "max_mana",
        "next_draw",
        "next_rune",
        "performed",
        "shown_draw",
        "turn",
        "winner",
    )

    @classmethod
    def new(cls, deck0: Sequence[int], deck1: Sequence[int], cards: CardTable | None = None) -> State:
        """The battle's start from two shuffled decks (card ids, first drawn first).

        Instance ids are ``2 i + player + 1`` for the i-th card of a deck, as
        the referee numbers them.  Call :meth:`start_turn` to begin player 0's
        first turn.
        """
        cards = cards or locm12_cards()
        if len(deck0) != DECK_SIZE or len(deck1) != DECK_SIZE:
            raise LocmError(f"decks must hold {DECK_SIZE} cards, got {len(deck0)} and {len(deck1)}")
        _, _, attack, defense, abilities, _, _, _ = _card_columns(cards)
        state = cls.__new__(cls)
        state.cards = cards
        state.columns = _card_columns(cards)
        size = 2 * DECK_SIZE + 1
        state.base = [0] * size
        for player, deck in enumerate((deck0, deck1)):
            for i, card_id in enumerate(deck):
                state.base[2 * i + player + 1] = cards.index(int(card_id))
        state.attack = [attack[b] for b in state.base]
        state.defense = [defense[b] for b in state.base]
        state.abilities = [abilities[b] for b in state.base]
        state.can_attack = [False] * size
        state.has_attacked = [False] * size
        state.lane = [-1] * size
        state.effects = [True] * size
        state.health = [INITIAL_HEALTH, INITIAL_HEALTH]
        state.max_mana = [0, 1]
        state.mana = [0, 1]
        state.next_rune = [25, 25]
        state.next_draw = [1, 1]
        state.shown_draw = [1, 1]
        state.bonus_turns = [0, 1]
        state.deck = [[2 * i + player + 1 for i in reversed(range(DECK_SIZE))] for player in (0, 1)]
        state.hand = [[], []]
        state.board = [[], []]
        state.performed = [[], []]
        state.turn = -1
        state.current = 1
        state.winner = -1
        state._draw(0, 4, 0)
        state._draw(1, 5, 0)
        return state

    def clone(self) -> State:
        """An independent copy (the card table and static columns are shared)."""
        other = State.__new__(State)
        other.cards = self.cards
        other.columns = self.columns
        other.base = self.base  # never changes
        other.attack = self.attack[:]
        other.defense = self.defense[:]
        other.abilities = self.abilities[:]
        other.can_attack = self.can_attack[:]
        other.has_attacked = self.has_attacked[:]
        other.lane = self.lane[:]
        other.effects = self.effects[:]
        other.health = self.health[:]
        other.max_mana = self.max_mana[:]
        other.mana = self.mana[:]
        other.next_rune = self.next_rune[:]
        other.next_draw = self.next_draw[:]
        other.shown_draw = self.shown_draw[:]
        other.bonus_turns = self.bonus_turns[:]
        other.deck = [self.deck[0][:], self.deck[1][:]]
        other.hand = [self.hand[0][:], self.hand[1][:]]
        other.board = [self.board[0][:], self.board[1][:]]
        other.performed = [self.performed[0][:], self.performed[1][:]]
        other.turn = self.turn
        other.current = self.current
        other.winner = self.winner
        return other

    # ------------------------------------------------------------ health, runes, draws

    def _modify_health(self, player: int, amount: int) -> None:
        """``Gamer.ModifyHealth``: damage crossing runes adds one draw per rune."""
        health = self.health[player] + amount
        self.health[player] = health
        if amount < 0:
            rune = self.next_rune[player]
            while rune > 0 and health <= rune:
                self.next_draw[player] += 1
                rune -= 5
            self.next_rune[player] = rune

    def _lose_rune(self, player: int) -> None:
        """Drawing from an empty deck or after the turn limit: health drops to the next rune, or to 0."""
        rune = self.next_rune[player]
        if rune > 0:
            self.health[player] = rune
            self.next_rune[player] = rune - 5
        else:
            self.health[player] = 0

    def _draw(self, player: int, count: int, player_turn: int) -> None:
        deck, hand = self.deck[player], self.hand[player]
        for _ in range(count):
            if not deck or player_turn >= PLAYER_TURN_LIMIT:
                self._lose_rune(player)
                continue
            if len(hand) == HAND_LIMIT:
                break
            hand.append(deck.pop())

    def _check_winner(self) -> None:
        me = self.current
        if self.health[1 - me] <= 0:
            self.winner = me
        elif self.health[me] <= 0:
            self.winner = 1 - me

    # ------------------------------------------------------------ turns

    def start_turn(self) -> None:
        """End the current player's turn and start the other's (``GameState.AdvanceState()``)."""
        self._check_winner()
        me = self.current
        for creature in self.board[me]:
            self.can_attack[creature] = False
            self.has_attacked[creature] = False
        self.shown_draw[me] = self.next_draw[me]
        me = self.current = 1 - me
        self.performed[me] = []
        self.turn += 1
        if self.max_mana[me] < MAX_MANA + (self.bonus_turns[me] > 0):
            self.max_mana[me] += 1
        if self.bonus_turns[me] > 0 and self.mana[me] == 0:
            self.bonus_turns[me] -= 1
            if self.bonus_turns[me] == 0:
                self.max_mana[me] -= 1
        self.mana[me] = self.max_mana[me]
        for creature in self.board[me]:
            self.can_attack[creature] = True
        self._draw(me, self.next_draw[me], self.turn // 2)
        self.shown_draw[me] = self.next_draw[me]
        self.next_draw[me] = 1
        self._check_winner()

    # ------------------------------------------------------------ legality

    def guards(self, player: int, lane: int) -> list[int]:
        """``player``'s creatures with Guard in ``lane``, in board order."""
        abilities, lanes = self.abilities, self.lane
        return [c for c in self.board[player] if lanes[c] == lane and abilities[c] & GUARD]

    def _attack_targets(self, lane: int) -> list[int]:
        enemy = 1 - self.current
        guards = self.guards(enemy, lane)
        if guards:
            return guards
        return [-1] + [c for c in self.board[enemy] if self.lane[c] == lane]

    def is_legal(self, action: tuple[int, int, int]) -> bool:
        """Whether the referee would perform ``action`` now (PASS counts as legal)."""
        kind, origin, target = action
        me = self.current
        if kind == PASS:
            return True
        if kind == ATTACK:
            if origin not in self.board[me] or not self.can_attack[origin]:
                return False
            return target in self._attack_targets(self.lane[origin])
        if origin not in self.hand[me]:
            return False
        card_type, cost = self.columns[0][self.base[origin]], self.columns[1][self.base[origin]]
        if cost > self.mana[me]:
            return False
        if kind == SUMMON:
            if card_type != CREATURE or target not in (0, 1):
                return False
            lanes = self.lane
            return sum(1 for c in self.board[me] if lanes[c] == target) < LANE_LIMIT
        if kind != USE or card_type == CREATURE:
            return False
        if card_type == GREEN_ITEM:
            return target in self.board[me]
        return target in self.board[1 - me] or (card_type == BLUE_ITEM and target == -1)

    def legal_actions(self) -> list[tuple[int, int, int]]:
        """Every legal action, in the referee's order: summons, attacks, items, then PASS."""
        me, enemy = self.current, 1 - self.current
        types, costs = self.columns[0], self.columns[1]
        base, lanes, mana = self.base, self.lane, self.mana[me]
        hand, board, enemy_board = self.hand[me], self.board[me], self.board[enemy]
        actions = []
        summonable = [c for c in hand if types[base[c]] == CREATURE and costs[base[c]] <= mana]
        if summonable:
            for lane in (0, 1):
                if sum(1 for c in board if lanes[c] == lane) < LANE_LIMIT:
                    actions.extend((SUMMON, c, lane) for c in summonable)
        for creature in board:
            if self.can_attack[creature]:
                actions.extend((ATTACK, creature, t) for t in self._attack_targets(lanes[creature]))
        for item in hand:
            card_type = types[base[item]]
            if card_type == CREATURE or costs[base[item]] > mana:
                continue
            targets = board if card_type == GREEN_ITEM else enemy_board
            actions.extend((USE, item, t) for t in targets)
            if card_type == BLUE_ITEM:
                actions.append((USE, item, -1))
        actions.append(PASS_ACTION)
        return actions

    # ------------------------------------------------------------ actions

    def play(self, action: tuple[int, int, int]) -> bool:
        """Perform ``action`` if legal and return True; skip it (the referee's rule) and return False."""
        if action[0] == PASS or not self.is_legal(action):
            return False
        self.apply(action)
        return True

    def apply(self, action: tuple[int, int, int]) -> None:
        """Perform a legal, non-PASS action (``GameState.AdvanceState(action)``); no checks."""
        kind, origin, target = action
        me = self.current
        if kind == SUMMON:
            self._summon(me, origin, target)
        elif kind == ATTACK:
            if target == -1:
                self._attack_player(me, origin)
            else:
                self._attack_creature(me, origin, target)
        else:
            self._use(me, origin, target)
        self.performed[me].append(action)
        self._check_winner()

    def _summon(self, me: int, creature: int, lane: int) -> None:
        b = self.base[creature]
        _, cost, _, _, _, player_hp, enemy_hp, draw = self.columns
        self.hand[me].remove(creature)
        self.mana[me] -= cost[b]
        self.can_attack[creature] = bool(self.abilities[creature] & CHARGE)
        self.has_attacked[creature] = False
        self.lane[creature] = lane
        self.board[me].append(creature)
        self._modify_health(me, player_hp[b])
        self._modify_health(1 - me, enemy_hp[b])
        self.next_draw[me] += draw[b]

    def _attack_player(self, me: int, attacker: int) -> None:
        power = self.attack[attacker]
        self.can_attack[attacker] = False
        self.has_attacked[attacker] = True
        self.effects[attacker] = False
        self._modify_health(me, power if self.abilities[attacker] & DRAIN else 0)
        self._modify_health(1 - me, -power)

    def _attack_creature(self, me: int, attacker: int, defender: int) -> None:
        """``GameState.ResolveAttack(attacker, defender)``."""
        abilities, defense = self.abilities, self.defense
        att_power, def_power = self.attack[attacker], self.attack[defender]
        att_abilities, def_abilities = abilities[attacker], abilities[defender]
        att_defense, def_defense = defense[attacker], defense[defender]
        given = 0 if def_abilities & WARD else att_power
        taken = 0 if att_abilities & WARD else def_power
        if def_abilities & WARD and att_power != 0:
            abilities[defender] = def_abilities & ~WARD
        if att_abilities & WARD and def_power != 0:
            abilities[attacker] = att_abilities & ~WARD

        defender_dies = given >= def_defense
        gain = 0
        breakthrough = given - def_defense if att_abilities & BREAKTHROUGH and defender_dies else 0
        if att_abilities & LETHAL and given > 0:
            defender_dies = True
        if att_abilities & DRAIN and given > 0:
            gain = att_power
        attacker_dies = taken >= att_defense or (def_abilities & LETHAL and taken > 0)

        enemy = 1 - me
        if defender_dies:
            self.board[enemy].remove(defender)
        else:
            defense[defender] = def_defense - given
            self.effects[defender] = False
        if attacker_dies:
            self.board[me].remove(attacker)
        else:
            defense[attacker] = att_defense - taken
            self.effects[attacker] = False
            self.can_attack[attacker] = False
            self.has_attacked[attacker] = True
        self._modify_health(me, gain)
        self._modify_health(enemy, -breakthrough)

    def _use(self, me: int, item: int, target: int) -> None:
        """``GameState.ResolveUse``: green on a friendly creature, red or blue on an enemy one, blue on the opponent."""
        b = self.base[item]
        card_type, cost, item_attack, item_defense, item_abilities, player_hp, enemy_hp, draw = (
            column[b] for column in self.columns
        )
        enemy = 1 - me
        self.hand[me].remove(item)
        self.mana[me] -= cost
        if target == -1:
            self._modify_health(me, player_hp)
            self._modify_health(enemy, item_defense + enemy_hp)
            self.next_draw[me] += draw
            return
        abilities = self.abilities[target]
        can_attack = self.can_attack[target]
        if card_type == GREEN_ITEM:
            abilities |= item_abilities
            if item_abilities & CHARGE:
                can_attack = not self.has_attacked[target]
        else:
            abilities &= ~item_abilities
        defense = self.defense[target]
        if abilities & WARD and item_defense < 0:
            abilities &= ~WARD
        else:
            defense += item_defense
        if defense > 0:
            self.abilities[target] = abilities
            self.attack[target] = max(0, self.attack[target] + item_attack)
            self.defense[target] = defense
            self.can_attack[target] = can_attack
            self.effects[target] = False
        elif card_type != GREEN_ITEM:  # the referee leaves a green item's target as it was
            self.board[enemy].remove(target)
        self._modify_health(me, player_hp)
        self._modify_health(enemy, enemy_hp)
        self.next_draw[me] += draw

    # ------------------------------------------------------------ the referee's input text

    def _card_line(self, instance: int, location: int) -> str:
        card_type, cost, _, _, _, player_hp, enemy_hp, draw = self.columns
        b = self.base[instance]
        shown = self.effects[instance]
        lane = -1 if location == 0 else self.lane[instance]
        return (
            f"{b + 1} {instance} {location} {card_type[b]} {cost[b]} {self.attack[instance]} "
            f"{self.defense[instance]} {ABILITY_STRINGS[self.abilities[instance]]} "
            f"{player_hp[b] if shown else 0} {enemy_hp[b] if shown else 0} {draw[b] if shown else 0} {lane} "
        )

    def render(self) -> str:
        """The text the referee sends the player to move (``getPlayersInput`` + ``getCardsInput``)."""
        me, enemy = self.current, 1 - self.current
        lines = [
            f"{self.health[p]} {self.max_mana[p]} {len(self.deck[p])} {self.next_rune[p]} {self.shown_draw[p]}"
            for p in (me, enemy)
        ]
        lines.append(f"{len(self.hand[enemy])} {len(self.performed[enemy])}")
        lines += [f"{self.base[a[1]] + 1} {action_text(a)}" for a in self.performed[enemy]]
        lines.append(str(len(self.hand[me]) + len(self.board[me]) + len(self.board[enemy])))
        lines += [self._card_line(c, 0) for c in self.hand[me]]
        lines += [self._card_line(c, 1) for c in self.board[me]]
        lines += [self._card_line(c, -1) for c in self.board[enemy]]
        return "\n".join(lines) + "\n"
