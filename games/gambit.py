"""Gambit's text formats: ``.nfg`` matrix games in and out, ``.efg`` extensive games in and out.

The formats (Gambit's documentation, "Game representation formats"):

* ``.nfg``: ``NFG 1 R "title" { "Player 1" "Player 2" } { { "r0" "r1" } { "c0" "c1" } } "comment"``
  (each player's strategies by name, or just their numbers ``{ 2 2 }``),
  then either the payoff version, one payoff per player for every
  strategy profile with player 1's strategy changing fastest, or the outcome
  version, a list of outcomes ``{ "name" u1, u2 }`` followed by one outcome
  number per profile (0: no outcome, all payoffs zero).
* ``.efg``: ``EFG 2 R "title" { "Player 1" "Player 2" } "comment"``, then the
  nodes in preorder: ``c "name" infoset "infoset name" { "action" prob ... }
  outcome``, ``p "name" player infoset "infoset name" { "action" ... }
  outcome`` and ``t "name" outcome "outcome name" { u1, u2 }``; a non-zero
  outcome on any node adds its payoffs to every terminal below it; action
  lists and outcome payoffs may be left out where an earlier node already
  gave them; numbers are integers, decimals or fractions ``1/3``.

:func:`read_nfg` gives a :class:`~gamelp.matrix.MatrixGame` (player 1's
payoffs; the game must be zero-sum), :func:`write_nfg` writes one (player 2
gets the negated payoffs).  :func:`read_efg` gives a
:class:`~gamelp.game.SequenceFormGame` of a two-player zero-sum game with
perfect recall (through :mod:`gamelp.games.extensive`): decision points are
Gambit's information sets, named by their labels when those are unique.
:func:`write_efg` writes the game tree of an OpenSpiel game (``openspiel:...``)
or of the built-in poker generators (``kuhn``, ``leduc``) as ``.efg``.  Faults raise :class:`GambitFileError` naming the file and the
place in it.
"""

from __future__ import annotations

import math
import re
from fractions import Fraction
from pathlib import Path

import numpy as np

from gamelp.errors import GambitFileError
from gamelp.io import read_text, write_text
from gamelp.game import SequenceFormGame
from gamelp.games.extensive import SequenceFormBuilder
from gamelp.games.poker import _PokerRules, _Walk as _PokerWalk
from gamelp.matrix import MatrixGame, MatrixGameError

_TOKEN = re.compile(r'"((?:[^"\\]|\\.)*)"|([{}])|,|([^\s{},"]+)', re.S)
ZERO_SUM_TOLERANCE = 1e-9


class _Tokens:
    """Quoted strings, braces and bare words of a Gambit file, with their line numbers for errors."""

    def __init__(self, text: str, source: str):
        self.source = source
        self.items: list[tuple[str, str, int]] = []  # (kind, text, line): kind is "str", "{", "}" or "word"
        line = 1
        position = 0
        for match in _TOKEN.finditer(text):
            line += text.count("\n", position, match.start())
            position = match.start()
            quoted, brace, word = match.groups()
            if quoted is not None:
                self.items.append(("str", re.sub(r"\\(.)", r"\1", quoted), line))
            elif brace is not None:
                self.items.append((brace, brace, line))
            elif word is not None:
                self.items.append(("word", word, line))
        self.position = 0

    def error(self, message: str) -> GambitFileError:
        line = self.items[min(self.position, len(self.items) - 1)][2] if self.items else 1
        return GambitFileError(f"{self.source}: line {line}: {message}")

    def peek(self) -> str | None:
        return self.items[self.position][0] if self.position < len(self.items) else None

    def take(self, kind: str, what: str) -> str:
        if self.peek() != kind:
            found = "the end of the file" if self.peek() is None else repr(self.items[self.position][1])
            raise self.error(f"expected {what}, found {found}")
        self.position += 1
        return self.items[self.position - 1][1]

    def optional_string(self) -> str | None:
        return self.take("str", "a label") if self.peek() == "str" else None

    def integer(self, what: str) -> int:
        word = self.take("word", what)
        if not re.fullmatch(r"\d+", word):
            self.position -= 1
            raise self.error(f"expected {what} (a non-negative integer), found {word!r}")
        return int(word)

    def number(self, what: str) -> Fraction:
        word = self.take("word", what)
        try:
            return Fraction(word)
        except (ValueError, ZeroDivisionError):
            self.position -= 1
            raise self.error(f"expected {what} (an integer, decimal or fraction), found {word!r}") from None

    def strings(self, what: str) -> list[str]:
        self.take("{", f"{{ before the {what}")
        names = []
        while self.peek() == "str":
            names.append(self.take("str", what))
        self.take("}", f"}} after the {what}")
        return names

    def numbers(self, what: str) -> list[Fraction]:
        self.take("{", f"{{ before the {what}")
        values = []
        while self.peek() == "word":
            values.append(self.number(what))
        self.take("}", f"}} after the {what}")
        return values


def _read(path, extension: str) -> _Tokens:
    tokens = _Tokens(read_text(path, GambitFileError), str(path))
    header = extension.upper()
    if tokens.peek() != "word" or tokens.items[0][1] != header:
        raise tokens.error(f"not a Gambit .{extension} file (it must start with {header})")
    tokens.position = 1
    tokens.take("word", "the format version")
    kind = tokens.take("word", "R (rational or real numbers)")
    if kind not in ("R", "D"):
        tokens.position -= 1
        raise tokens.error(f"expected R, found {kind!r}")
    tokens.take("str", "the title")
    players = tokens.strings("player names")
    if len(players) != 2:
        raise tokens.error(f"{len(players)} players; only two-player games can be read")
    return tokens


def _check_zero_sum(tokens: _Tokens, payoffs, where: str) -> Fraction:
    if len(payoffs) != 2:
        raise tokens.error(f"{where}: {len(payoffs)} payoffs for two players")
    if abs(payoffs[0] + payoffs[1]) > ZERO_SUM_TOLERANCE * max(1, abs(payoffs[0])):
        raise tokens.error(f"{where}: payoffs {float(payoffs[0]):g} and {float(payoffs[1]):g} do not sum to "
                           "zero; only zero-sum games can be read")
    return payoffs[0]


# ---------------------------------------------------------------------------------------- .nfg
def read_nfg(path) -> MatrixGame:
    """A two-player zero-sum ``.nfg`` file (payoff or outcome version) as a matrix game of player 1's payoffs."""
    tokens = _read(path, "nfg")
    tokens.take("{", "{ before the strategies")
    labels = []
    for player in (1, 2):
        if tokens.peek() == "{":
            names = tokens.strings(f"player {player}'s strategy names")
        else:
            names = [str(k) for k in range(1, tokens.integer(f"player {player}'s number of strategies") + 1)]
        if not names:
            raise tokens.error(f"player {player} has no strategies")
        labels.append(names)
    tokens.take("}", "} after the strategies")
    tokens.optional_string()  # comment
    rows, cols = len(labels[0]), len(labels[1])
    profiles = [(i, j) for j in range(cols) for i in range(rows)]  # player 1 changes fastest
    payoffs = np.zeros((rows, cols))
    if tokens.peek() == "{":  # outcome version
        tokens.take("{", "{ before the outcomes")
        outcomes = []
        while tokens.peek() == "{":
            tokens.take("{", "{ before an outcome")
            tokens.take("str", "the outcome's name")
            values = []
            while tokens.peek() == "word":
                values.append(tokens.number("a payoff"))
            tokens.take("}", "} after an outcome")
            outcomes.append(_check_zero_sum(tokens, values, f"outcome {len(outcomes) + 1}"))
        tokens.take("}", "} after the outcomes")
        for i, j in profiles:
            k = tokens.integer("an outcome number")
            if k > len(outcomes):
                tokens.position -= 1
                raise tokens.error(f"outcome {k} of profile ({labels[0][i]}, {labels[1][j]}) is not defined "
                                   f"(there are {len(outcomes)})")
            payoffs[i, j] = 0.0 if k == 0 else float(outcomes[k - 1])
    else:
        for i, j in profiles:
            pair = [tokens.number(f"payoffs of profile ({labels[0][i]}, {labels[1][j]})") for _ in range(2)]
            payoffs[i, j] = float(_check_zero_sum(tokens, pair, f"profile ({labels[0][i]}, {labels[1][j]})"))
    if tokens.peek() is not None:
        raise tokens.error("unexpected text after the last payoff")
    try:
        return MatrixGame(payoffs, labels[0], labels[1])
    except MatrixGameError as exc:
        raise GambitFileError(f"{path}: {exc}") from None


def _quote(text: str) -> str:
    return '"' + str(text).replace("\\", "\\\\").replace('"', '\\"') + '"'


def _number(value: float) -> str:
    """A float as Gambit reads it back exactly: an integer, or the shortest decimal that round-trips."""
    value = float(value)
    return str(int(value)) if value.is_integer() else repr(value)


def write_nfg(game: MatrixGame, path, title: str = "gamelp matrix game") -> Path:
    """Write ``game`` as a payoff-version ``.nfg`` (player 2's payoffs are the negated ones)."""
    strategies = " ".join("{ " + " ".join(_quote(label) for label in labels) + " }"
                          for labels in (game.row_labels, game.col_labels))
    values = [f"{_number(game.payoffs[i, j])} {_number(-game.payoffs[i, j])}"
              for j in range(game.shape[1]) for i in range(game.shape[0])]
    text = (f'NFG 1 R {_quote(title)} {{ "Player 1" "Player 2" }} {{ {strategies} }}\n""\n\n'
            + " ".join(values) + "\n")
    return write_text(path, text)


# ---------------------------------------------------------------------------------------- .efg
class _EfgReader:
    """Recursive preorder parse of the nodes, walked straight into a :class:`SequenceFormBuilder`."""

    def __init__(self, tokens: _Tokens):
        self.tokens = tokens
        self.builder = SequenceFormBuilder(tokens.source)
        self.infosets: dict[tuple[int, int], tuple[list[str], list[Fraction] | None, str]] = {}
        self.outcomes: dict[int, Fraction] = {}

    def node(self, chance: Fraction, payoff: Fraction, last: tuple) -> None:
        tokens = self.tokens
        kind = tokens.take("word", "a node (c, p or t)")
        tokens.take("str", "the node's name")
        if kind == "t":
            payoff += self.outcome()
            self.builder.terminal(last, float(chance * payoff))
            return
        if kind not in ("c", "p"):
            tokens.position -= 1
            raise tokens.error(f"unknown node type {kind!r} (expected c, p or t)")
        player = 0 if kind == "c" else tokens.integer("the player number")
        if kind == "p" and player not in (1, 2):
            raise tokens.error(f"player {player} does not exist (players are 1 and 2)")
        actions, probabilities, label = self.infoset(player, tokens.integer("the information set number"))
        payoff += self.outcome()
        if kind == "c":
            for action, probability in zip(actions, probabilities):
                self.node(chance * probability, payoff, last)
            return
        self.builder.decision(player, label, actions, last[player - 1])
        for action in actions:
            new_last = list(last)
            new_last[player - 1] = (label, action)
            self.node(chance, payoff, tuple(new_last))

    def infoset(self, player: int, number: int):
        tokens = self.tokens
        name = tokens.optional_string() or ""
        key = (player, number)
        if tokens.peek() == "{":
            tokens.take("{", "{ before the actions")
            actions, probabilities = [], []
            while tokens.peek() == "str":
                actions.append(tokens.take("str", "an action name"))
                if player == 0:
                    probabilities.append(tokens.number("a chance probability"))
            tokens.take("}", "} after the actions")
            if not actions:
                raise tokens.error(f"information set {number} of {'chance' if player == 0 else player} has no "
                                   "actions")
            if player == 0 and (min(probabilities) < 0 or abs(sum(probabilities) - 1) > 1e-9):
                raise tokens.error(f"chance probabilities {[str(p) for p in probabilities]} are not a "
                                   "distribution")
            if len(set(actions)) != len(actions) or not all(actions):
                actions = [f"{k + 1}:{action}" if action else str(k + 1) for k, action in enumerate(actions)]
            if key not in self.infosets:
                self.infosets[key] = (actions, probabilities or None, name or f"{player}.{number}")
        if key not in self.infosets:
            raise tokens.error(f"information set {number} of {'chance' if player == 0 else f'player {player}'} "
                               "is used before its actions are given")
        return self.infosets[key]

    def outcome(self) -> Fraction:
        tokens = self.tokens
        number = tokens.integer("the outcome number")
        if tokens.peek() == "str":
            tokens.take("str", "the outcome's name")
            if tokens.peek() == "{":
                values = tokens.numbers("outcome payoffs")
                self.outcomes.setdefault(number, _check_zero_sum(tokens, values, f"outcome {number}"))
        if number == 0:
            return Fraction(0)
        if number not in self.outcomes:
            raise tokens.error(f"outcome {number} is used before its payoffs are given")
        return self.outcomes[number]


def read_efg(path) -> SequenceFormGame:
    """A two-player zero-sum ``.efg`` file with perfect recall as a sequence-form game."""
    tokens = _read(path, "efg")
    tokens.optional_string()  # comment
    reader = _EfgReader(tokens)
    reader.node(Fraction(1), Fraction(0), (None, None))
    if tokens.peek() is not None:
        raise tokens.error("unexpected text after the last node of the tree")
    labels = [(player, info[2]) for (player, _), info in reader.infosets.items() if player > 0]
    duplicated = sorted({label for player, label in labels if labels.count((player, label)) > 1})
    if duplicated:
        raise GambitFileError(f"{path}: information sets of different numbers share the labels {duplicated}; "
                              "give them distinct labels (or none)")
    pl1, pl2, A = reader.builder.build()
    return SequenceFormGame(pl1, pl2, A, Path(path).stem)


class _EfgWriter:
    """Preorder node lines; information sets numbered per player as first met, outcomes per payoff."""

    def __init__(self):
        self.lines: list[str] = []
        self.infosets: dict[tuple[int, str], int] = {}
        self.outcomes: dict[float, int] = {}
        self.chance_sets = 0

    def chance(self, outcomes: list[tuple[str, float]]) -> None:
        """A chance node: its own (unlabelled) information set."""
        self.chance_sets += 1
        listed = " ".join(f"{_quote(name)} {_probability(p)}" for name, p in outcomes)
        self.lines.append(f'c "" {self.chance_sets} "" {{ {listed} }} 0')

    def player(self, player: int, info_set: str, actions: list[str]) -> None:
        key = (player, info_set)
        number = self.infosets.setdefault(key, sum(p == player for p, _ in self.infosets) + 1)
        listed = " ".join(_quote(a) for a in actions)
        self.lines.append(f'p "" {player} {number} {_quote(info_set)} {{ {listed} }} 0')

    def terminal(self, payoff: float) -> None:
        number = self.outcomes.setdefault(payoff, len(self.outcomes) + 1)
        self.lines.append(f't "" {number} "" {{ {_number(payoff)}, {_number(-payoff)} }}')

    def text(self, title: str) -> str:
        return f'EFG 2 R {_quote(title)} {{ "Player 1" "Player 2" }}\n""\n\n' + "\n".join(self.lines) + "\n"


def _probability(p: float) -> str:
    """A chance probability as a fraction when a small one matches it to machine precision, else a decimal."""
    fraction = Fraction(p).limit_denominator(10_000)
    return str(fraction) if math.isclose(float(fraction), p, rel_tol=1e-14, abs_tol=1e-15) else repr(float(p))


def write_efg(source: str, path) -> str:
    """Write the game tree of ``source`` to ``path``; returns a one-line summary.

    ``source`` is ``openspiel:GAME_STRING`` or a built-in poker generator,
    ``kuhn`` or ``leduc`` (default rules of :mod:`gamelp.games.poker`).
    """
    from gamelp.games.openspiel import PREFIX

    writer = _EfgWriter()
    if source.startswith(PREFIX):
        _write_openspiel_tree(source[len(PREFIX):], writer)
    elif source in POKER_GENERATORS:
        _PokerTree(POKER_GENERATORS[source](), writer).walk()
    else:
        raise GambitFileError(f"{source}: writing .efg needs the game tree, which gamelp has for OpenSpiel games "
                              f"({PREFIX}GAME_STRING) and the poker generators {sorted(POKER_GENERATORS)}; "
                              "a sequence-form file does not keep it")
    write_text(path, writer.text(source))
    return (f"{len(writer.lines)} nodes, {len(writer.infosets)} information sets, "
            f"{len(writer.outcomes)} outcomes")


def _write_openspiel_tree(game_string: str, writer: _EfgWriter) -> None:
    from gamelp.games.openspiel import load_spiel_game

    stack = [load_spiel_game(game_string).new_initial_state()]
    while stack:  # preorder: children pushed in reverse
        state = stack.pop()
        if state.is_terminal():
            writer.terminal(state.returns()[0])
            continue
        if state.is_chance_node():
            outcomes = [(a, p) for a, p in state.chance_outcomes() if p > 0]
            writer.chance([(state.action_to_string(a), p) for a, p in outcomes])
            actions = [a for a, _ in outcomes]
        else:
            player = state.current_player()
            actions = state.legal_actions(player)
            writer.player(player + 1, state.information_state_string(player),
                          [state.action_to_string(player, a) for a in actions])
        stack.extend(state.child(a) for a in reversed(actions))


POKER_GENERATORS = {"kuhn": lambda: _PokerRules(ranks=3, suits=1, raise_sizes=(1,), max_raises=1, ante=1,
                                                raise_action="b"),
                    "leduc": lambda: _PokerRules(ranks=3, suits=2, raise_sizes=(2, 4), max_raises=2, ante=1,
                                                 raise_action="r")}


class _PokerTree(_PokerWalk):
    """The poker generator's own walk, writing every node as it is met (preorder): chance deals, decisions
    (information sets named as the generator's decision points) and terminals (payoffs without chance)."""

    def __init__(self, rules, writer: _EfgWriter):
        super().__init__(rules)
        self.writer = writer
        self.prob = Fraction(1)

    def walk(self) -> None:
        rules = self.rules
        first = rules.deal(())
        self.writer.chance([(self.labels[rank], p) for rank, p in first])
        for r1, p1 in first:
            second = rules.deal((r1,))
            self.writer.chance([(self.labels[rank], p) for rank, p in second])
            for r2, p2 in second:
                self.betting(cards=(r1, r2), public=(), prob=p1 * p2, round_=0, history="", raises=0,
                             committed=(rules.ante, rules.ante), views=((("card", r1),), (("card", r2),)),
                             last=(None, None))

    def betting(self, cards, public, prob, round_, history, raises, committed, views, last):
        actor = len(history) % 2
        actions = self.rules.legal_actions(history, raises)
        self.writer.player(actor + 1, self._decision_id(actor, views[actor]), list(actions))
        # A fold, when allowed, is the first action: its terminal is met before any child changes self.prob.
        self.prob = prob
        super().betting(cards, public, prob, round_, history, raises, committed, views, last)

    def _end_round(self, cards, public, prob, round_, committed, views, last):
        self.prob = prob
        if round_ + 1 < len(self.rules.raise_sizes):
            self.writer.chance([(self.labels[rank], p) for rank, p in self.rules.deal(cards + public)])
        super()._end_round(cards, public, prob, round_, committed, views, last)

    def _add(self, last, value) -> None:
        self.writer.terminal(float(value / self.prob))
