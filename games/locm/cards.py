"""The 160 cards of Legends of Code and Magic 1.2 as an immutable table of numpy arrays.

The card list (``data/cardlist-v1.2.txt``, from the official referee via
gym-locm) has one card per line, fields separated by ``;``: id; name; type
(``creature``, ``itemGreen``, ``itemRed``, ``itemBlue``); cost; attack;
defense; abilities (six characters of ``BCDGLW``, ``-`` where absent); player
health change; enemy health change; card draw; text (Vieira (2020),
Section 4.3, Table 4.1).

Every array of :class:`CardTable` is indexed by ``card_id - 1`` (ids run 1..160)
and is read-only.  ``load_cards(path)`` refuses a malformed list with a
:class:`~gamelp.errors.LocmError` naming the file and line (and the field, for a number outside the
referee's 32-bit range).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path

import numpy as np

from gamelp.errors import shown
from gamelp.games.errors import LocmError
from gamelp.io import read_text

# The numeric fields of a card line, in order, and their range: the referee's (Java) ints.
NUMBER_FIELDS = ("card id", "cost", "attack", "defense", "player health change", "enemy health change", "card draw")
JAVA_INT_MIN, JAVA_INT_MAX = -(2**31), 2**31 - 1
CREATURE, GREEN_ITEM, BLUE_ITEM = 0, 1, 3  # a red item (2) follows the rules of every item
TYPE_NAMES = ("creature", "itemGreen", "itemRed", "itemBlue")
ABILITY_LETTERS = "BCDGLW"
BREAKTHROUGH, CHARGE, DRAIN, GUARD, LETHAL, WARD = (1 << i for i in range(6))
"""Ability bits, in the order of the abilities string ``BCDGLW``."""


def abilities_to_bits(text: str) -> int:
    """``'B--G-W'`` -> the bit mask of its abilities; raises ``ValueError`` for a bad string."""
    if len(text) != 6:
        raise ValueError(f"abilities {text!r} are not six characters")
    bits = 0
    for i, (char, letter) in enumerate(zip(text, ABILITY_LETTERS, strict=True)):
        if char == letter:
            bits |= 1 << i
        elif char != "-":
            raise ValueError(f"abilities {text!r}: position {i + 1} must be {letter!r} or '-'")
    return bits


ABILITY_STRINGS = tuple(
    "".join(letter if bits >> i & 1 else "-" for i, letter in enumerate(ABILITY_LETTERS)) for bits in range(64)
)
"""``ABILITY_STRINGS[bits]`` is the referee's six-character rendering of an ability mask."""


@dataclass(frozen=True, eq=False)
class CardTable:
    """The card list: parallel read-only arrays indexed by ``card_id - 1``.

    ``type`` holds 0 creature, 1 green item, 2 red item, 3 blue item;
    ``abilities`` the bit mask (``BREAKTHROUGH`` ... ``WARD``);
    ``ability_flags`` the same as a (n, 6) boolean array in ``BCDGLW`` order.
    """

    ids: np.ndarray
    names: tuple[str, ...]
    type: np.ndarray
    cost: np.ndarray
    attack: np.ndarray
    defense: np.ndarray
    abilities: np.ndarray
    ability_flags: np.ndarray
    player_hp: np.ndarray
    enemy_hp: np.ndarray
    card_draw: np.ndarray
    texts: tuple[str, ...]

    def __len__(self) -> int:
        return len(self.ids)

    def index(self, card_id: int) -> int:
        """Row of ``card_id`` in every array."""
        if not 1 <= card_id <= len(self.ids):
            raise LocmError(f"unknown LOCM card id {card_id}; ids run 1..{len(self.ids)}")
        return card_id - 1

    def describe(self, card_id: int) -> str:
        """One line for people: ``#64 Coppershell Tortoise creature 2/1/1 ---G-W``."""
        i = self.index(card_id)
        return (
            f"#{card_id} {self.names[i]} {TYPE_NAMES[self.type[i]]} "
            f"{self.cost[i]}/{self.attack[i]}/{self.defense[i]} {ABILITY_STRINGS[self.abilities[i]]}"
        )


def parse_cards(text: str, source: str) -> CardTable:
    """Parse a card list; ``source`` names the file in error messages."""
    rows = []
    for line_number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        fields = [field.strip() for field in line.split(";")]
        where = f"{source}, line {line_number}"
        if len(fields) != 11:
            raise LocmError(f"{where}: expected 11 ';'-separated fields, found {len(fields)}")
        card_id, name, type_name, cost, attack, defense, abilities, player_hp, enemy_hp, draw, card_text = fields
        if type_name not in TYPE_NAMES:
            raise LocmError(f"{where}: unknown card type {type_name!r}; expected one of {', '.join(TYPE_NAMES)}")
        try:
            numbers = [int(x) for x in (card_id, cost, attack, defense, player_hp, enemy_hp, draw)]
            bits = abilities_to_bits(abilities)
        except ValueError as exc:
            raise LocmError(f"{where}: {exc}") from None
        for field_name, number in zip(NUMBER_FIELDS, numbers, strict=True):
            if not JAVA_INT_MIN <= number <= JAVA_INT_MAX:  # the card arrays are int64: numpy would overflow
                raise LocmError(
                    f"{where}: {field_name} {shown(number)} is out of range (the referee's Java int, "
                    f"{JAVA_INT_MIN}..{JAVA_INT_MAX})"
                )
        if numbers[0] != len(rows) + 1:
            raise LocmError(f"{where}: card id {numbers[0]} out of order; expected {len(rows) + 1}")
        rows.append((numbers, name, TYPE_NAMES.index(type_name), bits, card_text))
    if not rows:
        raise LocmError(f"{source}: no cards")

    def column(values) -> np.ndarray:
        array = np.array(values, dtype=np.int64)
        array.flags.writeable = False
        return array

    bits = column([row[3] for row in rows])
    flags = (bits[:, None] >> np.arange(6)) & 1 == 1
    flags.flags.writeable = False
    return CardTable(
        ids=column([row[0][0] for row in rows]),
        names=tuple(row[1] for row in rows),
        type=column([row[2] for row in rows]),
        cost=column([row[0][1] for row in rows]),
        attack=column([row[0][2] for row in rows]),
        defense=column([row[0][3] for row in rows]),
        abilities=bits,
        ability_flags=flags,
        player_hp=column([row[0][4] for row in rows]),
        enemy_hp=column([row[0][5] for row in rows]),
        card_draw=column([row[0][6] for row in rows]),
        texts=tuple(row[4] for row in rows),
    )


def load_cards(path: str | Path) -> CardTable:
    """Read and parse a card list file."""
    return parse_cards(read_text(path, LocmError), str(path))


@lru_cache(maxsize=1)
def locm12_cards() -> CardTable:
    """The shipped LOCM 1.2 card list (160 cards)."""
    data = resources.files("gamelp.games.locm").joinpath("data", "cardlist-v1.2.txt")
    table = parse_cards(data.read_text(encoding="utf-8"), "cardlist-v1.2.txt")
    if len(table) != 160:
        raise LocmError(f"cardlist-v1.2.txt: expected 160 cards, found {len(table)}")
    return table
