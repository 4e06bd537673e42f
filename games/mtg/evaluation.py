"""Evaluation functions for the search cut-off: life difference, layered score, random forest.

Each evaluation maps ``(game, state)`` to a value in [-1, 1] for player 0 (its
sign is the predicted winner, 0 a draw):

* ``life``: the life difference, scaled into (-1, 1).
* ``layered``: the lexicographic score of the "Min-Max Evaluation Function For
  Magic" blog post (2009): sub-scores Limits > Wins > Creatures > Life >
  Library > InPlay > InHand > Misc, each player 0's minus player 1's, compared
  from the most significant layer down. Each layer is clamped into its own
  range of bits of one integer, so comparing the packed numbers is exactly the
  layer-by-layer comparison; the integer is then scaled into (-1, 1).
* ``forest``: the random forest of Esche (2018), Sections 2.2 and 3.1, trained,
  stored and cached by :mod:`gamelp.games.mtg.forest`.
"""

from __future__ import annotations

from gamelp.games.mtg.engine import (
    ACTIVE,
    ATTACKERS,
    HAND_C,
    HAND_L,
    HAND_M,
    LANDS,
    LIB,
    LIFE,
    MANA,
    PLAYER_BASE,
    READY,
    SICK,
    TAPPED,
    Game,
)
from gamelp.games.mtg.forest import forest_evaluation

EVALUATIONS = ("forest", "layered", "life")
_B0, _B1 = PLAYER_BASE


def life_evaluation(game: Game, s) -> float:
    """Life difference of player 0 over player 1, divided by 41 (so |value| < 1)."""
    return (s[_B0 + LIFE] - s[_B1 + LIFE]) / 41.0


# (name, bits) from the most significant layer down; a layer of b bits holds
# values in [-(2**(b-1)) + 1, 2**(b-1) - 1].
LAYERS = (
    ("limits", 2),
    ("wins", 2),
    ("creatures", 7),
    ("life", 8),
    ("library", 8),
    ("in_play", 7),
    ("in_hand", 6),
    ("misc", 6),
)
_TOTAL_BITS = sum(bits for _, bits in LAYERS)


def _player_layers(game: Game, s, p: int) -> tuple[int, ...]:
    """Player p's raw sub-scores, most significant first."""
    b = PLAYER_BASE[p]
    o = PLAYER_BASE[1 - p]
    library = len(game.libraries[p]) - s[b + LIB]
    creature_count = s[b + READY] + s[b + SICK] + s[b + TAPPED] + (s[ATTACKERS] if s[ACTIVE] == p else 0)
    hand = s[b + HAND_M] + s[b + HAND_L] + s[b + HAND_C]
    burn = 3 * min(s[b + HAND_L], s[b + LANDS])
    return (
        -1 if library == 0 else 0,  # Limits: decked at the next draw
        1 if burn >= s[o + LIFE] else 0,  # Wins: lethal burn in hand and lands
        creature_count,  # Creatures
        s[b + LIFE],  # Life
        library,  # Library
        s[b + LANDS],  # InPlay (creatures have their own layer)
        min(hand, game.rules.max_hand),  # InHand
        s[b + HAND_L] + s[b + MANA],  # Misc: bolts and open mana
    )


def layered_layers(game: Game, s) -> tuple[int, ...]:
    """Sub-scores of player 0 minus player 1, most significant first."""
    mine, theirs = _player_layers(game, s, 0), _player_layers(game, s, 1)
    return tuple(x - y for x, y in zip(mine, theirs))


def layered_score(game: Game, s) -> int:
    """The layers packed into one integer whose order is the lexicographic order of the layers."""
    score = 0
    for (_, bits), value in zip(LAYERS, layered_layers(game, s)):
        half = (1 << (bits - 1)) - 1
        score = (score << bits) + max(-half, min(half, value))
    return score


def layered_evaluation(game: Game, s) -> float:
    """The packed layered score scaled into (-1, 1)."""
    return layered_score(game, s) / float(1 << _TOTAL_BITS)


def get_evaluation(name: str, **forest_options):
    """The evaluation called ``name`` ("forest", "layered" or "life").

    The options (``threshold``, ``path``, ...) go to :func:`forest_evaluation` and are ignored otherwise.
    """
    if name == "life":
        return life_evaluation
    if name == "layered":
        return layered_evaluation
    if name == "forest":
        return forest_evaluation(**forest_options)
    raise ValueError(f"unknown evaluation {name!r}; expected one of {EVALUATIONS}")
