"""Generate the homework's sequence-form game files from the rules of the games.

One job: turn the rules of rock-paper-superscissors, Kuhn poker (H. W. Kuhn,
"A simplified two-person poker", 1950) and Leduc poker (F. Southey et al.,
"Bayes' bluff: opponent modelling in poker", UAI 2005) into the JSON game
format of CMU 15-888 Homework 2 (Fall 2021), part 2:

- ``decision_problem_pl1`` / ``decision_problem_pl2``: each player's
  tree-form sequential decision process, nodes in top-down order.  Decision
  nodes are the player's betting decisions; observation nodes are the points
  where the player learns something that splits its future: its private card,
  the public card, or the opponent's bet.  An observation with only one
  outcome after which the player still has to act (e.g. in Kuhn poker, the
  opponent betting after player 1 checked -- its check ends the hand) is not
  a node: the next decision hangs directly off the previous edge.  Signals
  list only the outcomes after which the player acts again.
- ``utility_pl1``: the non-zero entries of player 1's sequence-form payoff
  matrix A, one per sequence pair (sigma1, sigma2):
  A[sigma1, sigma2] = sum over terminal histories z whose last sequences are
  sigma1 and sigma2 of chance(z) * u1(z).  Chance probabilities are computed
  exactly (fractions) with card removal, then written as floats.

Node ids extend the seed's ``d1_pl1`` naming: ``d<state>_pl<i>`` for decision
nodes and ``o<state>_pl<i>`` for observation nodes, where ``<state>`` is what
the player knows, written ``card/round-1 bets/public card/round-2 bets`` with
empty trailing parts dropped (e.g. ``dJ/rc/Q/kr_pl1``; the root observation
node is ``o_pl1``).  Actions: ``k`` check, ``b`` bet (Kuhn), ``r`` raise
(Leduc), ``c`` call, ``f`` fold.  Player 1 acts first in every round.

Run ``python -m gamelp.games.poker OUTDIR`` to write rps.json, kuhn.json and
leduc.json (``--leduc-ranks`` etc. add a bigger Leduc variant).
"""

from __future__ import annotations

import argparse
import json
import math
import numbers
from dataclasses import dataclass, replace
from fractions import Fraction
from pathlib import Path

import numpy as np

from gamelp.binary import DECISION, FORMAT, OBSERVATION, VERSION, encode_texts, save_arrays
from gamelp.game import SequenceFormGame
from gamelp.games.errors import PokerRulesError
from gamelp.players import player_of_seat
from gamelp.registry import register_game

GAME_KEYS = ("decision_problem_pl1", "decision_problem_pl2", "utility_pl1")
_RANK_LABELS = "23456789TJQKA"
# What each action letter means (the game files' action_names): Kuhn bets with b, Leduc bets and raises with r.
ACTION_NAMES = {"k": "check", "b": "bet", "r": "bet or raise", "c": "call", "f": "fold"}
_ACTION_ORDER = "kfcbr"  # signal order of opponent moves (no bet: k,b/r; facing a bet: f,c,r)


# A player's view of the play so far: a tuple of events (kind, key) with kind
# "card" (own private card; key = rank index), "public" (public card; rank
# index), "own" (own action; letter) or "opp" (opponent's action; letter).
Event = tuple[str, object]
View = tuple[Event, ...]


def _check_int(name: str, value: object, low: int, high: int | None = None) -> None:
    if (
        not isinstance(value, numbers.Integral)
        or isinstance(value, bool)
        or value < low
        or (high is not None and value > high)
    ):
        bound = f"an integer >= {low}" if high is None else f"an integer in {low}..{high}"
        raise PokerRulesError(f"poker rules: {name} must be {bound}, got {value!r}")


@dataclass(frozen=True)
class _PokerRules:
    """Two-player limit poker with one private card each and one public card per extra round."""

    ranks: int
    suits: int
    raise_sizes: tuple[int, ...]
    max_raises: int
    ante: int
    raise_action: str

    def __post_init__(self) -> None:
        _check_int("ranks", self.ranks, 2, len(_RANK_LABELS))
        _check_int("suits", self.suits, 1)
        _check_int("max_raises", self.max_raises, 1)
        _check_int("ante", self.ante, 1)
        for size in self.raise_sizes:
            _check_int("each raise size", size, 1)
        cards_needed = 2 + len(self.raise_sizes) - 1  # two private cards, one public per later round
        if self.ranks * self.suits < cards_needed:
            raise PokerRulesError(
                f"poker rules: {self.ranks} ranks x {self.suits} suits is fewer than the {cards_needed} cards dealt"
            )

    def game(self) -> dict:
        """Walk every deal and betting history; return the game in the JSON format."""
        walk = _Walk(self)
        walk.play()
        return walk.result()

    def deal(self, dealt: tuple[int, ...]) -> list[tuple[int, Fraction]]:
        """(rank, probability) of the next card given the ranks already dealt (card removal)."""
        remaining = self.ranks * self.suits - len(dealt)
        deals = []
        for rank in range(self.ranks):
            left = self.suits - dealt.count(rank)
            if left > 0:
                deals.append((rank, Fraction(left, remaining)))
        return deals

    def legal_actions(self, history: str, raises: int) -> tuple[str, ...]:
        """Check or raise with no bet to answer; fold, call or re-raise facing one."""
        can_raise = raises < self.max_raises
        if history.endswith(self.raise_action):
            return ("f", "c", self.raise_action) if can_raise else ("f", "c")
        return ("k", self.raise_action) if can_raise else ("k",)

    def after(self, round_: int, history: str, action: str, committed: tuple[int, int], views: tuple) -> tuple:
        """One betting action: both players' views after it, their stakes, and whether the round goes on.

        The actor sees its own action, the other player the opponent's; a call matches the stake, a raise
        tops it by the round's size.  The round goes on after a raise or a first check, and ends at a call
        or a check after a check (a fold, which ends the hand, is the caller's).
        """
        actor = len(history) % 2
        new_views = list(views)
        new_views[actor] = views[actor] + (("own", action),)
        new_views[1 - actor] = views[1 - actor] + (("opp", action),)
        paid = list(committed)
        is_raise = action == self.raise_action
        if action == "c":
            paid[actor] = committed[1 - actor]
        elif is_raise:
            paid[actor] = committed[1 - actor] + self.raise_sizes[round_]
        return tuple(new_views), tuple(paid), is_raise or history + action == "k"

    def showdown(self, cards: tuple[int, int], public: tuple[int, ...]) -> int:
        """+1 if player 1 wins, -1 if it loses, 0 for a split: a pair with a public card, else the higher rank."""
        strength = [(rank in public, rank) for rank in cards]
        return (strength[0] > strength[1]) - (strength[0] < strength[1])


KUHN_RULES = _PokerRules(ranks=3, suits=1, raise_sizes=(1,), max_raises=1, ante=1, raise_action="b")
"""Kuhn poker's rules (Kuhn 1950): J < Q < K, ante 1, one bet of 1 at most, played as ``b``."""
LEDUC_RULES = _PokerRules(ranks=3, suits=2, raise_sizes=(2, 4), max_raises=2, ante=1, raise_action="r")
"""Leduc poker's rules (Southey et al. 2005): J, Q, K in two suits, ante 1, two rounds of raises of 2 then 4,
at most 2 raises a round; the one place they are written (the generators, ``leduc:RxS`` and the .efg writer)."""


def rock_paper_superscissors() -> dict:
    """Rock-paper-superscissors: paper beats superscissors by 2, the rest by 1.

    Player 1's payoff matrix (rows r, p, s; columns r, p, s of player 2) is
    [[0, -1, 1], [1, 0, -2], [-1, 2, 0]]; its value is 0.
    """
    actions = ("r", "p", "s")
    payoff = ((0, -1, 1), (1, 0, -2), (-1, 2, 0))
    return {
        "decision_problem_pl1": [_root_decision("d1_pl1", actions)],
        "decision_problem_pl2": [_root_decision("d1_pl2", actions)],
        "utility_pl1": [
            _utility_entry(("d1_pl1", a1), ("d1_pl2", a2), payoff[i][j])
            for i, a1 in enumerate(actions)
            for j, a2 in enumerate(actions)
            if payoff[i][j] != 0
        ],
        "action_names": {"r": "rock", "p": "paper", "s": "superscissors"},
    }


def kuhn(ranks: int = KUHN_RULES.ranks) -> dict:
    """Kuhn poker: one card each from J<Q<K, ante 1, one bet of 1 at most.

    Player 1 checks or bets; after a check player 2 checks (showdown for 1)
    or bets (player 1 calls for a showdown for 2 or folds); after a bet
    player 2 calls or folds.  ``ranks`` > 3 gives the n-card generalisation.
    Player 1's value with 3 cards is -1/18.
    """
    return replace(KUHN_RULES, ranks=ranks).game()


def leduc(
    ranks: int = LEDUC_RULES.ranks,
    suits: int = LEDUC_RULES.suits,
    raise_sizes: tuple[int, ...] = LEDUC_RULES.raise_sizes,
    max_raises: int = LEDUC_RULES.max_raises,
    ante: int = LEDUC_RULES.ante,
) -> dict:
    """Leduc poker (Southey et al. 2005), parametrised for bigger variants.

    ``ranks`` x ``suits`` cards (default J, Q, K in two suits), ``ante`` each,
    one private card each, one betting round per entry of ``raise_sizes``
    (default two: raises of 2 then 4), at most ``max_raises`` raises per
    round; one public card is revealed before every round after the first.
    At the showdown a pair with a public card wins (the higher pair if both
    pair), else the higher card; equal ranks split.  Player 1's value with
    the defaults is about -0.085606.  Three or more rounds give games with
    far more sequences (8 ranks, three rounds: 90,496 per player).
    """
    return _leduc_rules(ranks, suits, raise_sizes, max_raises, ante).game()


def _leduc_rules(ranks: int, suits: int, raise_sizes, max_raises: int, ante: int) -> _PokerRules:
    """The rules of a Leduc variant, checked (at least two betting rounds)."""
    if len(tuple(raise_sizes)) < 2:
        raise PokerRulesError(
            f"leduc: raise_sizes must give one raise size per betting round (at least 2), got {raise_sizes!r}"
        )
    return replace(
        LEDUC_RULES, ranks=ranks, suits=suits, raise_sizes=tuple(raise_sizes), max_raises=max_raises, ante=ante
    )


def leduc_arrays(
    ranks: int = LEDUC_RULES.ranks,
    suits: int = LEDUC_RULES.suits,
    raise_sizes: tuple[int, ...] = LEDUC_RULES.raise_sizes,
    max_raises: int = LEDUC_RULES.max_raises,
    ante: int = LEDUC_RULES.ante,
) -> dict[str, np.ndarray]:
    """The game :func:`leduc` generates, as the arrays of a binary game file (:mod:`gamelp.binary`), by numpy.

    The same nodes, ids and payoffs, listed view by view instead of depth first; a game of 10^6 sequences a
    player takes seconds, where :func:`leduc` takes hours.  Write it with :func:`gamelp.binary.save_arrays`,
    or make it a game with :meth:`gamelp.game.SequenceFormGame.from_arrays`.
    """
    return _ArrayGame(_leduc_rules(ranks, suits, raise_sizes, max_raises, ante)).arrays()


def leduc_largest_payoff(
    raise_sizes: tuple[int, ...] = LEDUC_RULES.raise_sizes,
    max_raises: int = LEDUC_RULES.max_raises,
    ante: int = LEDUC_RULES.ante,
) -> int:
    """The most a player of :func:`leduc` with these rules can win or lose: its ante and every raise of every round.

    Each of a round's ``max_raises`` raises adds that round's size to the
    raiser's stake over the other's, and the hand ends with equal stakes, so
    the largest stake is ``ante + max_raises * sum(raise_sizes)``.  A
    NashConv target "relative to the payoff range" is relative to this.
    """
    return ante + max_raises * sum(raise_sizes)


def rules_of(source: str) -> _PokerRules | None:
    """The rules of a poker source: ``kuhn``, ``leduc``, ``kuhn:N`` or ``leduc:RxS[xN]`` (None for another source).

    ``kuhn:N`` is Kuhn poker with ``N`` cards; ``leduc:RxS`` is Leduc poker with ``R`` ranks and ``S`` suits, and
    ``leduc:RxSxN`` plays ``N`` betting rounds (raises of the first round's size, then of the second's).
    """
    name, colon, variant = source.partition(":")
    rules = {"kuhn": KUHN_RULES, "leduc": LEDUC_RULES}.get(name)
    if rules is None or not colon:
        return rules
    if name == "kuhn" and variant.isdecimal():
        return replace(rules, ranks=int(variant))
    if name == "leduc":
        try:
            ranks, suits, rounds = parse_leduc_variant(variant, rounds=True)
        except PokerRulesError:
            pass  # refused below, in the game string's own terms
        else:
            sizes = rules.raise_sizes[:1] + rules.raise_sizes[1:2] * (rounds - 1)
            return replace(rules, ranks=ranks, suits=suits, raise_sizes=sizes)
    raise PokerRulesError(f"{source}: not a variant of {name}; expected {_VARIANT_FORMS[name]}")


_VARIANT_FORMS = {
    "kuhn": "kuhn:N (N cards), such as kuhn:4",
    "leduc": "leduc:RxS (R ranks, S suits) or leduc:RxSxN (N >= 2 betting rounds), such as leduc:13x4",
}


@register_game("kuhn", variants=True)
def kuhn_variant(variant: str) -> SequenceFormGame:
    """The game ``kuhn:VARIANT`` (:func:`rules_of`), generated from its rules."""
    return _variant_game(f"kuhn:{variant}")


@register_game("leduc", variants=True)
def leduc_variant(variant: str) -> SequenceFormGame:
    """The game ``leduc:VARIANT`` (:func:`rules_of`), generated from its rules: ``leduc:13x4`` has 52 cards."""
    return _variant_game(f"leduc:{variant}")


def _variant_game(source: str) -> SequenceFormGame:
    rules = rules_of(source)
    assert rules is not None
    return SequenceFormGame.from_dict(rules.game(), source)


def write_game(game: dict, path: str | Path) -> Path:
    """Check ``game`` and write it to ``path`` as a game file (:meth:`SequenceFormGame.save`); return the path."""
    path = Path(path)
    SequenceFormGame.from_dict(game, str(path)).save(path)
    return path


def write_builtin_data(directory: str | Path) -> list[Path]:
    """Write rps.json, kuhn.json and leduc.json (default parameters) into ``directory``."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    games = {"rps": rock_paper_superscissors(), "kuhn": kuhn(), "leduc": leduc()}
    return [write_game(game, directory / f"{name}.json") for name, game in games.items()]


def parse_leduc_variant(variant: str, *, rounds: bool = False) -> tuple[int, ...]:
    """A Leduc variant's numbers: ``"13x4"`` -> ``(13, 4)``, its ranks and suits (``RxS``).

    With ``rounds``, ``"5x2x3"`` -> ``(5, 2, 3)`` too: ``RxSxN`` plays ``N`` betting rounds (at least 2),
    and ``RxS`` gives ``(R, S, 2)``.  Each number is written in decimal digits and is at least 1; anything
    else raises :class:`~gamelp.games.errors.PokerRulesError` naming the form.  Whether the rules make a
    game (2 ranks at least, enough cards) is :func:`leduc`'s to say.  The one parser of this form: the
    scripts' ``--variants`` and ``--game RxS`` and the game string ``leduc:RxS`` read it here.
    """
    parts = variant.strip().split("x")
    numbers = [int(part) for part in parts if part.isdecimal() and int(part) >= 1]
    if len(numbers) != len(parts) or len(parts) not in ((2, 3) if rounds else (2,)) or numbers[2:3] == [1]:
        form = "RxS (R ranks, S suits) or RxSxN (N >= 2 betting rounds)" if rounds else "RxS (R ranks, S suits)"
        raise PokerRulesError(f"{variant!r} is not a Leduc variant: expected {form}, such as 13x4")
    return (*numbers, 2) if rounds and len(numbers) == 2 else tuple(numbers)


def game_size(game: dict) -> dict[str, tuple[int, int]]:
    """Per player key, (number of decision points, number of sequences without the empty one)."""
    sizes = {}
    for key in GAME_KEYS[:2]:
        decisions = [node for node in game[key] if node["type"] == "decision"]
        sizes[key] = (len(decisions), sum(len(node["actions"]) for node in decisions))
    return sizes


def _root_decision(node_id: str, actions: tuple[str, ...]) -> dict:
    return {"id": node_id, "type": "decision", "actions": list(actions), "parent_edge": None, "parent_sequence": None}


def _utility_entry(sequence_pl1: tuple[str, str], sequence_pl2: tuple[str, str], value: Fraction | int) -> dict:
    value = Fraction(value)
    number = int(value) if value.denominator == 1 else float(value)
    return {"sequence_pl1": list(sequence_pl1), "sequence_pl2": list(sequence_pl2), "value": number}


def _rank_labels(ranks: int) -> str:
    """Card labels, lowest first: the ``ranks`` highest up to the king, then the ace for 13."""
    return _RANK_LABELS if ranks == 13 else _RANK_LABELS[:-1][-ranks:]


class _Walk:
    """Depth-first walk of the game tree collecting both players' decision points and A."""

    def __init__(self, rules: _PokerRules) -> None:
        self.rules = rules
        self.labels = _rank_labels(rules.ranks)
        self.decisions: tuple[dict[View, tuple[str, tuple[str, ...]]], ...] = ({}, {})
        self.utility: dict[tuple[tuple[str, str], tuple[str, str]], Fraction] = {}

    def play(self) -> None:
        """Deal both private cards every way (card removal), and walk the betting after each deal."""
        rules = self.rules
        first = rules.deal(())
        self._dealt(first)
        for r1, p1 in first:
            second = rules.deal((r1,))
            self._dealt(second)
            for r2, p2 in second:
                self.betting(
                    cards=(r1, r2),
                    public=(),
                    prob=p1 * p2,
                    round_=0,
                    history="",
                    raises=0,
                    committed=(rules.ante, rules.ante),
                    views=((("card", r1),), (("card", r2),)),
                    last=(None, None),
                )

    def _dealt(self, deals: list[tuple[int, Fraction]]) -> None:
        """A private card's deal, (rank, probability) each, met before its branches (a hook: the .efg writer's)."""

    def betting(self, cards, public, prob, round_, history, raises, committed, views, last):
        """One decision of the betting round ``round_``; ``history`` holds its actions so far.

        Player 1 opens every round, so player 1 acts after an even number of actions.
        ``committed`` is each player's stake, ``views`` what each player has seen,
        ``last`` each player's last sequence and ``prob`` the chance probability.
        """
        actor = len(history) % 2
        node_id = self._decision_id(actor, views[actor])
        actions = self.rules.legal_actions(history, raises)
        self.decisions[actor].setdefault(views[actor], (node_id, actions))
        for action in actions:
            new_last = list(last)
            new_last[actor] = (node_id, action)
            if action == "f":
                stake_lost = committed[actor]
                self._add(new_last, prob * (-stake_lost if actor == 0 else stake_lost))
                continue
            new_views, paid, goes_on = self.rules.after(round_, history, action, committed, views)
            if goes_on:
                is_raise = action == self.rules.raise_action
                self.betting(
                    cards, public, prob, round_, history + action, raises + is_raise, paid, new_views, tuple(new_last)
                )
            else:  # a call, or a check after a check
                self._end_round(cards, public, prob, round_, paid, new_views, tuple(new_last))

    def _end_round(self, cards, public, prob, round_, committed, views, last):
        """After a call or check-check: reveal a public card and bet again, or show down."""
        if round_ + 1 == len(self.rules.raise_sizes):
            self._add(last, prob * committed[0] * self.rules.showdown(cards, public))
            return
        for rank, p in self.rules.deal(cards + public):
            seen = tuple(view + (("public", rank),) for view in views)
            self.betting(cards, public + (rank,), prob * p, round_ + 1, "", 0, committed, seen, last)

    def _add(self, last, value: Fraction) -> None:
        """Add one terminal's chance-weighted payoff to the entry of its last sequences."""
        key = (last[0], last[1])
        self.utility[key] = self.utility.get(key, Fraction(0)) + value

    def _state_text(self, view: View) -> str:
        parts = []
        for kind, key in view:
            if kind in ("card", "public"):
                parts += [self.labels[key], ""]
            else:
                parts[-1] += key
        return "/".join(part for part in parts if part)

    def _decision_id(self, player: int, view: View) -> str:
        return f"d{self._state_text(view)}_pl{player_of_seat(player)}"

    def _signal(self, event: Event) -> str:
        kind, key = event
        return self.labels[key] if kind in ("card", "public") else key

    def _decision_process(self, player: int) -> list[dict]:
        """Top-down node list of one player's tree-form decision process."""
        decisions = self.decisions[player]
        children: dict[View, dict[Event, None]] = {}
        for view in decisions:
            for depth in range(len(view)):
                children.setdefault(view[:depth], {})[view[depth]] = None
        nodes: list[dict] = []

        def order(event: Event):
            kind, key = event
            return key if kind in ("card", "public") else _ACTION_ORDER.index(key)

        def visit(view: View, parent_edge, parent_sequence) -> None:
            if view in decisions:
                node_id, actions = decisions[view]
                nodes.append(
                    {
                        "id": node_id,
                        "type": "decision",
                        "actions": list(actions),
                        "parent_edge": parent_edge,
                        "parent_sequence": parent_sequence,
                    }
                )
                for action in actions:
                    visit(view + (("own", action),), [node_id, action], [node_id, action])
                return
            following = sorted(children.get(view, {}), key=order)
            if len(following) == 1:
                visit(view + (following[0],), parent_edge, parent_sequence)
            elif following:
                node_id = f"o{self._state_text(view)}_pl{player_of_seat(player)}"
                signals = [self._signal(event) for event in following]
                nodes.append({"id": node_id, "type": "observation", "signals": signals, "parent_edge": parent_edge})
                for event, signal in zip(following, signals):
                    visit(view + (event,), [node_id, signal], parent_sequence)

        visit((), None, None)
        return nodes

    def result(self) -> dict:
        processes = [self._decision_process(player) for player in (0, 1)]
        rank = [
            {
                (node["id"], action): i
                for i, (node, action) in enumerate(
                    (node, action) for node in process if node["type"] == "decision" for action in node["actions"]
                )
            }
            for process in processes
        ]
        entries = sorted(
            ((rank[0][s1], rank[1][s2]), s1, s2, value) for (s1, s2), value in self.utility.items() if value != 0
        )
        return {
            "decision_problem_pl1": processes[0],
            "decision_problem_pl2": processes[1],
            "utility_pl1": [_utility_entry(s1, s2, value) for _, s1, s2, value in entries],
            "action_names": {action: ACTION_NAMES[action] for action in ("k", self.rules.raise_action, "c", "f")},
        }


# ---------------------------------------------------------------------------------------------------- arrays
class _Contexts:
    """The card tuples of length ``k`` no deal rules out: no rank more than ``suits`` times, in lexicographic order.

    A player's view with ``k`` cards (its own, then the public ones) is one node per such tuple, and the deals
    of a round are the tuples of both private cards and the public ones.  ``counts[t, r]`` is how often rank
    ``r`` is in tuple ``t``; ``position`` maps a tuple's code (its ranks as base-``ranks`` digits) to its place,
    -1 for a tuple ruled out.
    """

    def __init__(self, ranks: int, suits: int, k: int):
        grid = np.indices((ranks,) * k).reshape(k, -1).T if k else np.zeros((1, 0), dtype=np.int64)
        counts = np.stack([(grid == r).sum(axis=1) for r in range(ranks)], axis=1)
        possible = (counts <= suits).all(axis=1)
        self.ranks = ranks
        self.tuples = grid[possible]
        self.counts = counts[possible]
        self.position = np.full(grid.shape[0], -1, dtype=np.int64)
        self.position[possible] = np.arange(int(possible.sum()))

    @property
    def size(self) -> int:
        return int(self.tuples.shape[0])

    def find(self, tuples: np.ndarray) -> np.ndarray:
        """The places of these tuples (rows, all possible)."""
        k = tuples.shape[1]
        return self.position[tuples @ (self.ranks ** np.arange(k - 1, -1, -1))]


class _ArrayGame:
    """A game of :class:`_PokerRules` as the arrays of :mod:`gamelp.binary`, built by numpy, without a deal walk.

    The betting, whose views and terminals do not depend on the cards, is walked once with the cards as
    placeholders.  Each view of a player then stands for one node per card tuple it can hold
    (:class:`_Contexts`), all made at once.  Nodes, ids, signals and payoffs are those of :class:`_Walk` (listed
    view by view: top-down, not depth-first).  Each payoff is exact: the deals of one round share the
    denominator of their chance probabilities, over which the integer numerators are added up.
    """

    def __init__(self, rules: _PokerRules):
        self.rules = rules
        self.labels = _rank_labels(rules.ranks)
        self.decisions: tuple[dict[View, tuple[str, ...]], ...] = ({}, {})
        self.terminals: list[tuple[int, list, tuple]] = []  # (round, each player's (view, action index), payoff)
        self.contexts = [_Contexts(rules.ranks, rules.suits, k) for k in range(len(rules.raise_sizes) + 2)]
        self.names = [*dict.fromkeys(("k", rules.raise_action, "c", "f")), *self.labels]
        self.name_index = {name: k for k, name in enumerate(self.names)}
        card = ("card", None)
        self._bet(0, "", 0, (rules.ante, rules.ante), ((card,), (card,)), (None, None))

    def _bet(self, round_, history, raises, committed, views, last) -> None:
        """The betting of :meth:`_Walk.betting`, cards left out: each player's decision views and the terminals."""
        actor = len(history) % 2
        actions = self.rules.legal_actions(history, raises)
        self.decisions[actor].setdefault(views[actor], actions)
        for a, action in enumerate(actions):
            new_last = list(last)
            new_last[actor] = (views[actor], a)
            if action == "f":
                self.terminals.append((round_, new_last, ("fold", actor, committed[actor])))
                continue
            new_views, paid, goes_on = self.rules.after(round_, history, action, committed, views)
            if goes_on:
                is_raise = action == self.rules.raise_action
                self._bet(round_, history + action, raises + is_raise, paid, new_views, tuple(new_last))
            elif round_ + 1 == len(self.rules.raise_sizes):
                self.terminals.append((round_, new_last, ("showdown", paid[0])))
            else:
                seen = tuple(view + (("public", None),) for view in new_views)
                self._bet(round_ + 1, "", 0, paid, seen, tuple(new_last))

    # ---- one player's decision process
    def player(self, seat: int) -> tuple[dict[str, np.ndarray], dict[tuple[View, int], np.ndarray]]:
        """The seat's node arrays, and the sequences of each (decision view, action) by card tuple."""
        decisions = self.decisions[seat]
        children: dict[View, dict[Event, None]] = {}
        for view in decisions:
            for depth in range(len(view)):
                children.setdefault(view[:depth], {})[view[depth]] = None
        blocks: list[tuple] = []
        sequences: dict[tuple[View, int], np.ndarray] = {}
        count = {"nodes": 0, "sequences": 1}  # the empty sequence is 0

        def add(kind: int, view: View, where: np.ndarray, parent, edge, outcomes) -> np.ndarray:
            """Nodes of ``view`` for the card tuples ``where``: their positions in the node list."""
            first = count["nodes"]
            count["nodes"] += where.size
            blocks.append((kind, view, where, parent, edge, outcomes))
            return np.arange(first, count["nodes"])

        def visit(view: View, parent: np.ndarray, edge: np.ndarray) -> None:
            """Add the nodes of ``view`` and below; ``parent`` and ``edge`` per card tuple: where they hang."""
            k = sum(kind in ("card", "public") for kind, _ in view)
            every = np.arange(self.contexts[k].size)
            if view in decisions:
                actions = decisions[view]
                nodes = add(DECISION, view, every, parent, edge, [self.name_index[a] for a in actions])
                first = count["sequences"]
                count["sequences"] += nodes.size * len(actions)
                for a, action in enumerate(actions):
                    sequences[(view, a)] = first + np.arange(nodes.size) * len(actions) + a
                    visit(view + (("own", action),), nodes, np.full(nodes.size, a))
                return
            if view not in children:  # the player acts no more below
                return
            following = sorted(children[view], key=lambda event: _ACTION_ORDER.index(event[1]) if event[1] else 0)
            if following[0][0] in ("card", "public"):  # a card comes: a node where two ranks or more can
                here, there = self.contexts[k], self.contexts[k + 1]
                allowed = here.counts < self.rules.suits
                observed = np.flatnonzero(allowed.sum(axis=1) >= 2)
                nodes = np.full(here.size, -1, dtype=np.int64)
                nodes[observed] = add(OBSERVATION, view, observed, parent[observed], edge[observed], allowed[observed])
                before = here.find(there.tuples[:, :k]) if k else np.zeros(there.size, dtype=np.int64)
                signal = np.cumsum(allowed, axis=1)[before, there.tuples[:, k]] - 1
                seen = nodes[before] >= 0
                visit(
                    view + (following[0],),
                    np.where(seen, nodes[before], parent[before]),
                    np.where(seen, signal, edge[before]),
                )
                return
            if len(following) == 1:
                visit(view + (following[0],), parent, edge)
                return
            nodes = add(OBSERVATION, view, every, parent, edge, [self.name_index[event[1]] for event in following])
            for s, event in enumerate(following):
                visit(view + (event,), nodes, np.full(nodes.size, s))

        visit((), np.array([-1]), np.array([-1]))
        return self._assemble(seat, blocks), sequences

    def _assemble(self, seat: int, blocks: list[tuple]) -> dict[str, np.ndarray]:
        """The node arrays of the blocks (one per view, one node per card tuple), with their ids."""
        labels = np.array(list(self.labels))
        first_card = self.name_index[self.labels[0]]
        kinds, parents, edges, counts, outcomes, ids = [], [], [], [], [], []
        for kind, view, where, parent, edge, outcome in blocks:
            kinds.append(np.full(where.size, kind, dtype=np.int8))
            parents.append(parent)
            edges.append(edge)
            if isinstance(outcome, np.ndarray):  # the ranks a card can have, per node
                counts.append(outcome.sum(axis=1))
                outcomes.append(np.nonzero(outcome)[1] + first_card)
            else:
                counts.append(np.full(where.size, len(outcome)))
                outcomes.append(np.tile(outcome, where.size))
            template = ("d" if kind == DECISION else "o") + self._template(view) + f"_pl{player_of_seat(seat)}"
            k = template.count("{}")
            cards = labels[self.contexts[k].tuples[where]].tolist()
            ids += [template.format(*row) for row in cards]
        ids_utf8, ids_ends = encode_texts(ids)
        return {
            "kind": np.concatenate(kinds),
            "parent": np.concatenate(parents).astype(np.int64),
            "edge": np.concatenate(edges).astype(np.int64),
            "outcome_ends": np.cumsum(np.concatenate(counts), dtype=np.int64),
            "outcomes": np.concatenate(outcomes).astype(np.int64),
            "ids_utf8": ids_utf8,
            "ids_ends": ids_ends,
        }

    @staticmethod
    def _template(view: View) -> str:
        """:meth:`_Walk._state_text` with ``{}`` for each card."""
        parts: list[str] = []
        for kind, key in view:
            if kind in ("card", "public"):
                parts += ["{}", ""]
            else:
                parts[-1] += str(key)
        return "/".join(part for part in parts if part)

    # ---- the payoffs
    def utility(self, sequences, size_pl2: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Player 1's payoffs as (rows, columns, values), each pair once, non-zero, in row-major order."""
        rules = self.rules
        deck = rules.ranks * rules.suits
        keys, values = [], []
        for round_ in range(len(rules.raise_sizes)):
            deals = self.contexts[round_ + 2]
            cards = deals.tuples  # player 1's card, player 2's card, the public cards
            chances = np.ones(deals.size, dtype=np.int64)
            for i in range(cards.shape[1]):
                chances *= rules.suits - (cards[:, :i] == cards[:, i : i + 1]).sum(axis=1)
            denominator = math.prod(range(deck - cards.shape[1] + 1, deck + 1))
            public = cards[:, 2:]
            strength = [(public == cards[:, [p]]).any(axis=1) * rules.ranks + cards[:, p] for p in (0, 1)]
            showdown = np.sign(strength[0] - strength[1])
            round_keys, round_numerators = [], []
            for terminal_round, last, payoff in self.terminals:
                if terminal_round != round_:
                    continue
                index = []
                for seat, (view, action) in enumerate(last):
                    k = sum(kind in ("card", "public") for kind, _ in view)
                    own = cards[:, [seat, *range(2, k + 1)]]
                    index.append(sequences[seat][(view, action)][self.contexts[k].find(own)])
                if payoff[0] == "fold":
                    won = np.full(deals.size, payoff[2] if payoff[1] == 1 else -payoff[2], dtype=np.int64)
                else:
                    won = payoff[1] * showdown
                round_keys.append(index[0] * size_pl2 + index[1])
                round_numerators.append(won * chances)
            key, numerator = _summed(np.concatenate(round_keys), np.concatenate(round_numerators))
            keys.append(key)
            values.append(numerator / denominator)
        key, value = _summed(np.concatenate(keys), np.concatenate(values))
        keep = value != 0
        return key[keep] // size_pl2, key[keep] % size_pl2, value[keep]

    def arrays(self) -> dict[str, np.ndarray]:
        """The game as :mod:`gamelp.binary`'s arrays."""
        (nodes1, sequences1), (nodes2, sequences2) = self.player(0), self.player(1)
        size1 = 1 + sum(s.size for s in sequences1.values())
        size2 = 1 + sum(s.size for s in sequences2.values())
        rows, cols, values = self.utility((sequences1, sequences2), size2)
        names_utf8, names_ends = encode_texts(self.names)
        arrays = {
            "format": np.array(FORMAT),
            "version": np.array(VERSION, dtype=np.int64),
            "names_utf8": names_utf8,
            "names_ends": names_ends,
            "utility_indptr": np.concatenate(([0], np.cumsum(np.bincount(rows, minlength=size1)))).astype(np.int64),
            "utility_indices": cols.astype(np.int64),
            "utility_values": values,
            "action_names_keys": np.array(self.names[:4]),
            "action_names_values": np.array([ACTION_NAMES[a] for a in self.names[:4]]),
        }
        for p, nodes in ((1, nodes1), (2, nodes2)):
            arrays |= {f"pl{p}_{name}": array for name, array in nodes.items()}
        return arrays


def _summed(keys: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct keys, increasing, and the sum of the values of each."""
    order = np.argsort(keys, kind="stable")
    keys, values = keys[order], values[order]
    first = np.flatnonzero(np.concatenate(([True], keys[1:] != keys[:-1])))
    return keys[first], np.add.reduceat(values, first) if values.size else values


def main(argv: list[str] | None = None) -> int:
    """Write the built-in game files (and optionally a bigger Leduc variant) to OUTDIR."""
    parser = argparse.ArgumentParser(
        prog="python -m gamelp.games.poker",
        description="Write rps.json, kuhn.json and leduc.json (sequence-form game files) "
        "generated from the rules; any --leduc-* option also writes that Leduc "
        "variant as leduc_r<ranks>_s<suits>_m<max raises>_b<sizes>_a<ante>.json (.npz with --binary).",
    )
    parser.add_argument("outdir", type=Path, help="directory to write the JSON files to")
    default = {key: getattr(LEDUC_RULES, key) for key in ("ranks", "suits", "raise_sizes", "max_raises", "ante")}
    labels, sizes_text = " ".join(_rank_labels(default["ranks"])), " ".join(map(str, default["raise_sizes"]))
    parser.add_argument(
        "--leduc-ranks", type=int, default=default["ranks"], help=f"card ranks (default {default['ranks']}: {labels})"
    )
    parser.add_argument("--leduc-suits", type=int, default=default["suits"], help=f"suits (default {default['suits']})")
    parser.add_argument(
        "--leduc-raise-sizes",
        type=int,
        nargs="+",
        default=list(default["raise_sizes"]),
        metavar="SIZE",
        help=f"one raise size per betting round, at least two rounds (default {sizes_text})",
    )
    parser.add_argument(
        "--leduc-max-raises",
        type=int,
        default=default["max_raises"],
        help=f"raises allowed per round (default {default['max_raises']})",
    )
    parser.add_argument("--leduc-ante", type=int, default=default["ante"], help=f"ante (default {default['ante']})")
    parser.add_argument(
        "--binary",
        action="store_true",
        help="write the Leduc variant as a binary game file (.npz), made by numpy: seconds for 10^6 sequences",
    )
    args = parser.parse_args(argv)

    variant = dict(
        ranks=args.leduc_ranks,
        suits=args.leduc_suits,
        raise_sizes=tuple(args.leduc_raise_sizes),
        max_raises=args.leduc_max_raises,
        ante=args.leduc_ante,
    )
    extra = {}
    if variant != default:
        sizes = "-".join(map(str, variant["raise_sizes"]))
        name = f"leduc_r{variant['ranks']}_s{variant['suits']}_m{variant['max_raises']}_b{sizes}_a{variant['ante']}"
        try:
            extra[name] = leduc_arrays(**variant) if args.binary else leduc(**variant)
        except PokerRulesError as error:
            parser.error(str(error))
    paths = write_builtin_data(args.outdir)
    for path in paths:
        game = json.loads(path.read_text(encoding="utf-8"))
        _print_size(path, *game_size(game).values(), len(game["utility_pl1"]))
    for name, made in extra.items():
        if isinstance(made, dict) and "format" in made:
            path = save_arrays(made, args.outdir / f"{name}.npz")
            _print_size(path, *(_arrays_size(made, p) for p in (1, 2)), made["utility_values"].size)
        else:
            path = write_game(made, args.outdir / f"{name}.json")
            _print_size(path, *game_size(made).values(), len(made["utility_pl1"]))
    return 0


def _arrays_size(arrays: dict[str, np.ndarray], player: int) -> tuple[int, int]:
    """(decision points, sequences without the empty one) of a player in a binary game file's arrays."""
    kind, ends = arrays[f"pl{player}_kind"], arrays[f"pl{player}_outcome_ends"]
    counts = np.diff(ends, prepend=0)
    return int((kind == DECISION).sum()), int(counts[kind == DECISION].sum())


def _print_size(path: Path, pl1: tuple[int, int], pl2: tuple[int, int], entries: int) -> None:
    print(
        f"{path}: player 1 {pl1[0]} decision points / {pl1[1]} sequences, "
        f"player 2 {pl2[0]} / {pl2[1]}, {entries} payoff entries"
    )


if __name__ == "__main__":
    raise SystemExit(main())
