"""The published LOCM 1.2 draft strategies, and a drafter from any per-card score table.

Vieira (2020), Section 5.4 compares its learned drafters with five others:
*random*, *max-attack* (the creature with the greatest attack) and the card
rankings of three past competition bots, *icebox*, *closet-ai* and *coac*.
Their tables ship as ``data/draft-rankings.json`` (facts from gym-locm, the
thesis's engine).  The tie rules follow gym-locm's agents, which played the
thesis's tournaments:

- random: uniform over the three offered cards.
- max-attack: the first creature whose attack beats every earlier offered
  creature's and 0; offer position 0 when none does.  As published, a
  0-attack creature never wins (an offer of item, 0/5 creature, item takes
  the item in position 0).
- icebox: the card with the greatest value of icebox's formula in cost,
  attack, defense, health changes, card draw and abilities
  (:func:`icebox_scores`); the first on a tie.
- closet-ai: the card with the greatest published score; the first on a tie.
  The published list is read at ``card_id - 1`` (gym-locm's indexing), so
  card 1 scores -666 and cards 142 to 160 score -100.
- coac: the card that comes first in the seat's published order (``p1`` for
  the first player, ``p2`` for the second); once at least one card is picked
  and fewer than 40% of the picks are creatures, the seat's ``_creature``
  order instead.  In the published tables the ``_creature`` orders equal the
  plain ones, so only the seat changes coac's picks.
- ``immediate``, ``history``, ``lstm`` (:data:`LEARNED_DRAFTERS`): the learned drafters
  shipped in ``data/`` (both seats, trained by self-play with the max-attack
  battler, :mod:`gamelp.games.locm.train`); ``file:PATH``: any learned
  drafter's networks (:mod:`gamelp.games.locm.policy`).
- ``scores:PATH``: the card with the greatest score in a CSV file of
  ``card_id,score`` rows (an optional header ``card_id,score``, every card
  1..160 exactly once); the first on a tie.

Every drafter has ``name`` and ``pick(offer, chosen, seat, rng) -> 0|1|2``
(:class:`gamelp.games.locm.draft.Drafter`): ``offer`` the three offered card
ids, ``chosen`` the ids it picked on earlier turns, ``seat`` 0 (plays first)
or 1, ``rng`` the match's ``random.Random`` (only the random drafter draws
from it).
"""

from __future__ import annotations

import csv
import json
import math
import random
from collections.abc import Sequence
from functools import lru_cache
from importlib import resources
from pathlib import Path

import numpy as np

from gamelp.games.errors import LocmError
from gamelp.games.locm.cards import CREATURE, CardTable, locm12_cards
from gamelp.games.locm.policy import PolicyDrafter, load_policy
from gamelp.io import open_regular

PUBLISHED_DRAFTERS = ("random", "max-attack", "icebox", "closet-ai", "coac")
SCORE_FILE_PREFIX = "scores:"
POLICY_FILE_PREFIX = "file:"
LEARNED_DRAFTERS = {
    "immediate": "policy-immediate-max-attack.npz",
    "history": "policy-history-max-attack.npz",
    "lstm": "policy-lstm-max-attack.npz",
}
"""The shipped learned drafters: name -> policy file in ``data/``, each written by ``gamelp locm train``:

- immediate: ``--approach immediate --battler max-attack --episodes 15000 --minibatches 10
  --learning-rate-scale 3 --envs 4 --battles 10 --seed 0`` (Table A.2's networks and PPO
  settings but for 10 mini-batches of 30 steps and three times its learning rates, and 10
  battles per episode's reward);
- history: ``--approach history --battler max-attack --episodes 5000 --minibatches 8
  --learning-rate-scale 3 --envs 4 --battles 10 --seed 0`` (likewise: 8 mini-batches of 30 steps);
- lstm: ``--approach lstm --battler max-attack --episodes 4000 --learning-rate-scale 3 --envs 4
  --battles 10 --seed 0`` (Table A.2's settings, three times its learning rates; with the
  published rates the second seat's network stayed near 45% against max-attack).
"""
COAC_CREATURE_SHARE = 0.4
COAC_ORDERS = ("p1", "p1_creature", "p2", "p2_creature")
"""coac switches to its ``_creature`` order below this share of creatures among its picks."""


@lru_cache(maxsize=1)
def draft_rankings() -> dict:
    """The published rankings (``data/draft-rankings.json``)."""
    data = resources.files("gamelp.games.locm").joinpath("data", "draft-rankings.json")
    return json.loads(data.read_text(encoding="utf-8"))


def icebox_scores(cards: CardTable | None = None) -> np.ndarray:
    """Icebox's value of every card, indexed by ``card_id - 1``.

    attack + defense - 0.006392651 cost^2 - 1.463006 cost - 1.435985
    + 0.05985350469 h^2 + 0.3880957 h + 5.219 (h = player HP - enemy HP)
    - 5.516179907 draw^2 + 0.239521 draw - 0.163766 - 0.07751401869
    + a bonus per ability (``draft-rankings.json``, ``icebox.keyword_bonus``).
    """
    cards = cards or locm12_cards()
    cost, draw = cards.cost, cards.card_draw
    health = cards.player_hp - cards.enemy_hp
    bonus = draft_rankings()["icebox"]["keyword_bonus"]
    bonuses = np.array([bonus[letter] for letter in "BCDGLW"])
    return (
        cards.attack
        + cards.defense
        - 0.006392651 * cost**2
        - 1.463006 * cost
        - 1.435985
        + 0.05985350469 * health**2
        + 0.3880957 * health
        + 5.219
        - 5.516179907 * draw**2
        + 0.239521 * draw
        - 0.163766
        - 0.07751401869
        + cards.ability_flags @ bonuses
    )


def max_attack_scores(cards: CardTable | None = None) -> np.ndarray:
    """max-attack's rule as scores: a creature's attack if positive, else 0 (as every non-creature).

    Taking the first greatest score then gives the first creature of greatest
    positive attack, and position 0 when no offered creature has any.
    """
    cards = cards or locm12_cards()
    return np.where(cards.type == CREATURE, np.maximum(cards.attack, 0), 0)


def _first_best(offer: Sequence[int], value: Sequence[float]) -> int:
    """Position of the offered card with the greatest ``value[card_id - 1]``, the first on a tie."""
    values = [value[card - 1] for card in offer]
    return values.index(max(values))


class RandomDrafter:
    """Picks uniformly among the three offered cards."""

    name = "random"

    def pick(self, offer: Sequence[int], chosen: Sequence[int], seat: int, rng: random.Random) -> int:
        """An index drawn uniformly with ``rng``."""
        return rng.randrange(len(offer))


class ScoreDrafter:
    """The offered card with the greatest score in a per-card table, the first on a tie."""

    def __init__(self, name: str, scores: Sequence[float]):
        self.name = name
        self.scores = [float(score) for score in scores]

    def pick(self, offer: Sequence[int], chosen: Sequence[int], seat: int, rng: random.Random) -> int:
        """The index of the offered card with the greatest score, the first on a tie."""
        return _first_best(offer, self.scores)


class CoacDrafter:
    """coac's per-seat card orders, with its creature-share switch (see the module docstring).

    ``orders`` maps ``p1``, ``p1_creature``, ``p2``, ``p2_creature`` to card
    ids, best first; by default the published ones.
    """

    name = "coac"

    def __init__(self, orders: dict[str, Sequence[int]] | None = None, cards: CardTable | None = None):
        cards = cards or locm12_cards()
        orders = orders or draft_rankings()["coac"]["orders"]
        if set(orders) != set(COAC_ORDERS):
            raise LocmError(f"coac orders {sorted(orders)}; expected {', '.join(COAC_ORDERS)}")
        n_cards = len(cards)
        # minus the rank, so that the best card has the greatest value
        self._values = {key: _negated_ranks(order, n_cards, f"coac order {key!r}") for key, order in orders.items()}
        self._is_creature = (cards.type == CREATURE).tolist()

    def pick(self, offer: Sequence[int], chosen: Sequence[int], seat: int, rng: random.Random) -> int:
        """The index of the best offered card in this seat's order (its creature order while creatures are scarce)."""
        key = "p1" if seat == 0 else "p2"
        if chosen and sum(self._is_creature[card - 1] for card in chosen) / len(chosen) < COAC_CREATURE_SHARE:
            key += "_creature"
        return _first_best(offer, self._values[key])


def _negated_ranks(order: Sequence[int], n_cards: int, source: str) -> list[int]:
    """Minus each card's position in ``order`` (a permutation of the ids 1..n_cards), by ``card_id - 1``."""
    if sorted(order) != list(range(1, n_cards + 1)):
        raise LocmError(f"{source}: not an order of the card ids 1..{n_cards}")
    values = [0] * n_cards
    for rank, card in enumerate(order):
        values[card - 1] = -rank
    return values


def load_score_table(path: str | Path, n_cards: int = 160) -> list[float]:
    """Read a ``card_id,score`` CSV into a list indexed by ``card_id - 1``; refuse a malformed one."""
    with open_regular(path, LocmError, encoding="utf-8") as stream:
        try:
            text = stream.read()
        except (OSError, UnicodeDecodeError) as exc:
            raise LocmError(f"{path}: cannot read the score table ({exc})") from None
    scores: list[float | None] = [None] * n_cards
    for line_number, row in enumerate(csv.reader(text.splitlines()), start=1):
        where = f"{path}, line {line_number}"
        if not row or not "".join(row).strip():
            continue
        fields = [field.strip() for field in row]
        if line_number == 1 and fields == ["card_id", "score"]:
            continue
        if len(fields) != 2:
            raise LocmError(f"{where}: expected 'card_id,score', found {len(fields)} fields")
        try:
            card, score = int(fields[0]), float(fields[1])
        except ValueError:
            raise LocmError(f"{where}: expected an integer card id and a number, found {','.join(fields)!r}") from None
        if not 1 <= card <= n_cards:
            raise LocmError(f"{where}: card id {card} out of range 1..{n_cards}")
        if not math.isfinite(score):
            raise LocmError(f"{where}: score {fields[1]!r} is not a finite number")
        if scores[card - 1] is not None:
            raise LocmError(f"{where}: card {card} scored twice")
        scores[card - 1] = score
    missing = [card for card, score in enumerate(scores, start=1) if score is None]
    if missing:
        raise LocmError(f"{path}: no score for {len(missing)} card(s), the first card {missing[0]}")
    return scores


def drafter_file(name: str) -> Path | None:
    """The file a ``scores:PATH``, ``file:PATH`` or shipped learned drafter reads (None for the others)."""
    if name in LEARNED_DRAFTERS:
        return Path(str(resources.files("gamelp.games.locm").joinpath("data", LEARNED_DRAFTERS[name])))
    for prefix in (SCORE_FILE_PREFIX, POLICY_FILE_PREFIX):
        if name.startswith(prefix):
            return Path(name[len(prefix) :])
    return None


def make_drafter(name: str):
    """The drafter called ``name``.

    One of :data:`PUBLISHED_DRAFTERS`, :data:`LEARNED_DRAFTERS`, ``scores:PATH`` or ``file:PATH``; an empty
    name is refused (it is no drafter, not ``random``).
    """
    if not name.strip():
        raise LocmError(f"an empty drafter name {name!r}; name a drafter (random, max-attack, icebox, ...)")
    if name in LEARNED_DRAFTERS or name.startswith(POLICY_FILE_PREFIX):
        return load_policy(drafter_file(name), name)
    if name.startswith(SCORE_FILE_PREFIX):
        return ScoreDrafter(name, load_score_table(drafter_file(name)))
    if name == "random":
        return RandomDrafter()
    if name == "max-attack":
        return ScoreDrafter("max-attack", max_attack_scores().tolist())
    if name == "icebox":
        return ScoreDrafter("icebox", icebox_scores().tolist())
    if name == "closet-ai":
        return ScoreDrafter("closet-ai", draft_rankings()["closet_ai"]["scores_by_card_id_minus_1"])
    if name == "coac":
        return CoacDrafter()
    known = ", ".join(
        PUBLISHED_DRAFTERS + tuple(LEARNED_DRAFTERS) + (SCORE_FILE_PREFIX + "PATH", POLICY_FILE_PREFIX + "PATH")
    )
    raise LocmError(f"unknown drafter {name!r}; known drafters: {known}")


def make_seated_drafter(name: str, seats=(0, 1)):
    """``make_drafter(name)``, refusing (naming the file) a learned drafter with no network for one of ``seats``."""
    drafter = make_drafter(name)
    if isinstance(drafter, PolicyDrafter):
        drafter.require_seats(seats)
    return drafter
