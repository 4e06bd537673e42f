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
payoffs), :func:`write_nfg` writes one (player 2 gets the negated payoffs).
:func:`read_efg` gives a :class:`~gamelp.game.SequenceFormGame` of a two-player game with
perfect recall (through :mod:`gamelp.games.extensive`): decision points are
Gambit's information sets, named by their labels when those are unique.
Labels that repeat at one node (actions) or for one player (strategies), or are empty, are numbered by
position: ``"1:a"``, ``"2:a"``, or ``"1"`` for an empty one
(:func:`~gamelp.games.extensive.distinct_labels`).

Both readers take zero-sum and constant-sum games (many of Gambit's examples are constant-sum): when
``u1 + u2 = c`` at every outcome a play ends in (terminal of an ``.efg``, with the outcomes on its path; profile
of an ``.nfg``), the game read is the strategically equal zero-sum game of player 1's payoffs ``u1 - c/2``, and
``c`` is kept as ``constant_sum`` (:class:`~gamelp.game.SequenceFormGame`, which JSON game files keep too, and
:class:`GambitMatrixGame`; 0 for a zero-sum game).
Player 1's payoff with the constant is then the zero-sum value ``v`` plus ``c/2``, and player 2's ``c/2 - v``:
``gamelp solve`` and ``gamelp matrix solve`` report them so, with ``constant_sum`` and ``zero_sum_value``
(:func:`gamelp.cli.output.add_constant_sum`).  A game whose sums differ is general-sum and refused in one line
naming both outcomes.
:func:`write_efg` writes the game tree of an OpenSpiel game (``openspiel:...``)
or of the built-in poker generators (``kuhn``, ``leduc`` and their variants ``kuhn:N``,
``leduc:RxS``) as ``.efg``.  Faults raise :class:`GambitFileError` naming the file and the place in it.
The module registers both readers and the writer in gamelp's game registry
(:mod:`gamelp.registry`), through which ``load_game``, ``MatrixGame.load`` and
``gamelp export-game`` reach them by the file's suffix.
"""

from __future__ import annotations

import bisect
import math
import re
import sys
import unicodedata
from collections import Counter
from fractions import Fraction
from pathlib import Path

import numpy as np

from gamelp.errors import shown
from gamelp.game import SequenceFormGame
from gamelp.games.errors import GambitFileError
from gamelp.games.extensive import SequenceFormBuilder, distinct_labels
from gamelp.games.poker import _Walk as _PokerWalk
from gamelp.games.poker import rules_of
from gamelp.io import read_text, write_text
from gamelp.matrix import MatrixGame, MatrixGameError
from gamelp.players import player_of_seat, seat_of_player
from gamelp.registry import register_reader, register_writer

_TOKEN = re.compile(r'"((?:[^"\\]|\\.)*)"|([{}])|,|([^\s{},"]+)', re.S)
_UNESCAPE = re.compile(r"\\(.)", re.S)
# A number as Gambit writes one: an integer or decimal with an optional exponent, or a fraction of integers.
_NUMBER = re.compile(r"[+-]?(?:(\d+)/(\d+)|(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?)")
ZERO_SUM_TOLERANCE = 1e-9
# Digits in one number (mantissa and exponent together).  Python refuses to convert integers of more than 4,300
# digits, and a float holds 17 significant ones; no payoff or probability needs thousands.
MAX_NUMBER_DIGITS = 4_000
# The decimal order of magnitude beyond which a number is not a float.  Checked on the token, before any
# arithmetic: building the exact Fraction of 1e999999999 would take a billion-digit power of ten.
MAX_DECIMAL_EXPONENT = 308
# Strategy profiles of an .nfg game: the payoff matrix is dense (8 bytes a profile, 80 MB at the limit), and a
# matrix LP of that size is beyond what gamelp solves in reasonable time anyway.
MAX_PROFILES = 10_000_000


class _Tokens:
    """Quoted strings, braces and bare words of a Gambit file, with their offsets (an error names the line)."""

    def __init__(self, text: str, source: str):
        self.source = source
        self.text = text
        self.items: list[tuple[str, str, int]] = []  # (kind, text, offset): kind is "str", "{", "}" or "word"
        for match in _TOKEN.finditer(text):
            quoted, brace, word = match.groups()
            if quoted is not None:
                unescaped = _UNESCAPE.sub(r"\1", quoted) if "\\" in quoted else quoted
                self.items.append(("str", unescaped, match.start()))
            elif brace is not None:
                self.items.append((brace, brace, match.start()))
            elif word is not None:
                self.items.append(("word", word, match.start()))
        self.position = 0
        self.line_ends: list[int] | None = None

    def line(self) -> int:
        """The line of the current token (a binary search among the line ends, found once)."""
        if self.line_ends is None:
            self.line_ends = [match.start() for match in re.finditer("\n", self.text)]
        offset = self.items[min(self.position, len(self.items) - 1)][2] if self.items else 0
        return bisect.bisect_left(self.line_ends, offset) + 1

    def error(self, message: str) -> GambitFileError:
        return GambitFileError(f"{self.source}: line {self.line()}: {message}")

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
        if len(word.lstrip("0")) > MAX_NUMBER_DIGITS:
            self.position -= 1
            raise self.error(f"{what} has more than {MAX_NUMBER_DIGITS:,} digits")
        return int(word)

    def number(self, what: str) -> Fraction:
        """The next word as an exact number, refused (naming ``what``) unless it is a float's size.

        Its digits and order of magnitude are read off the word before any arithmetic; a value below the
        float range is 0.
        """
        word = self.take("word", what)
        match = _NUMBER.fullmatch(word)
        if match is None or not any(c.isdigit() for c in re.split("[eE]", word)[0]):
            self.position -= 1
            if word.lstrip("+-").lower() in ("inf", "infinity", "nan"):
                raise self.error(f"{what}: {word!r} is not a finite number")
            raise self.error(f"expected {what} (an integer, decimal or fraction), found {shown(word)}")
        if sum(c.isdigit() for c in word) > MAX_NUMBER_DIGITS:
            self.position -= 1
            raise self.error(f"{what}: {shown(word)} has more than {MAX_NUMBER_DIGITS:,} digits")
        numerator, denominator, whole, decimals, exponent = match.groups()
        if denominator is not None:
            if int(denominator) == 0:
                self.position -= 1
                raise self.error(f"{what}: {word!r} divides by zero")
            magnitude = len(numerator.lstrip("0")) - len(denominator.lstrip("0"))  # within 1 of the order
        else:
            digits = ((whole or "") + (decimals or "")).lstrip("0")
            if not digits:
                return Fraction(0)
            magnitude = len(digits) - len(decimals or "") + int(exponent or 0)  # within 1 of the order
        if magnitude < -MAX_DECIMAL_EXPONENT - 20:  # below the smallest float (about 5e-324): it rounds to 0
            return Fraction(0)
        value = Fraction(word) if magnitude <= MAX_DECIMAL_EXPONENT + 1 else None
        try:
            finite = value is not None and math.isfinite(float(value))
        except OverflowError:  # float(Fraction) raises where float(str) would give inf
            finite = False
        if not finite:
            self.position -= 1
            raise self.error(
                f"{what}: {shown(word)} is out of the floating-point range (magnitude at most {sys.float_info.max:.4g})"
            )
        return value

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
        raise tokens.error(
            f"{len(players)} player{'s' * (len(players) != 1)}; gamelp handles two-player zero-sum games only"
        )
    return tokens


class _ConstantSum:
    """Checks that both players' payoffs add up to one constant ``c`` at every outcome a play ends in.

    The first one met sets ``c``; a sum off it by more than :data:`ZERO_SUM_TOLERANCE` (relative) is refused as a
    general-sum game.  :meth:`check` returns player 1's payoff in the zero-sum game ``u1 - c/2``.
    """

    def __init__(self, tokens: _Tokens):
        self.tokens = tokens
        self.constant: Fraction | None = None
        self.where = ""

    def check(self, u1: Fraction | float, total: Fraction, where: str, first: str | None = None) -> float:
        """``u1 - c/2`` of an outcome ``where`` (``first``: how a later error names it, when it sets ``c``)."""
        if self.constant is None:
            self.constant, self.where = total, first or where
        constant = self.constant
        if abs(total - constant) > ZERO_SUM_TOLERANCE * max(1.0, abs(float(u1)), abs(float(constant))):
            raise self.tokens.error(
                f"{where}: payoffs {float(u1):g} and {float(total - Fraction(u1)):g} sum to {float(total):g}, but "
                f"those of {self.where} to {float(constant):g}: a general-sum game; gamelp reads zero-sum and "
                "constant-sum games only"
            )
        return float(u1) - float(constant) / 2

    @property
    def value(self) -> Fraction:
        """``c`` (0 when no outcome was met)."""
        return self.constant or Fraction(0)


def _pair(tokens: _Tokens, payoffs: list[Fraction], where: str) -> tuple[Fraction, Fraction]:
    """Player 1's payoff and the sum of both, of a list of payoffs that must have one per player."""
    if len(payoffs) != 2:
        raise tokens.error(f"{where}: {len(payoffs)} payoffs for two players")
    return payoffs[0], payoffs[0] + payoffs[1]


class GambitMatrixGame(MatrixGame):
    """A matrix game read from an ``.nfg`` file: the zero-sum payoffs ``u1 - c/2`` of a constant-sum one, and ``c``."""

    def __init__(self, payoffs, row_labels, col_labels, constant_sum: Fraction = Fraction(0)):
        super().__init__(payoffs, row_labels, col_labels)
        self.constant_sum = constant_sum


# ---------------------------------------------------------------------------------------- .nfg
def read_nfg(path) -> GambitMatrixGame:
    """A two-player zero-sum or constant-sum ``.nfg`` file (payoff or outcome version) as a matrix game.

    Its payoffs are player 1's, less half the constant sum (:class:`GambitMatrixGame`).
    """
    tokens = _read(path, "nfg")
    tokens.take("{", "{ before the strategies")
    declared: list[list[str] | int] = []  # names, or a number of strategies (labels made once it is checked)
    for player in (1, 2):
        if tokens.peek() == "{":
            declared.append(tokens.strings(f"player {player}'s strategy names"))
        else:
            declared.append(tokens.integer(f"player {player}'s number of strategies"))
        if not declared[-1]:
            raise tokens.error(f"player {player} has no strategies")
    tokens.take("}", "} after the strategies")
    rows, cols = (count if isinstance(count, int) else len(count) for count in declared)
    if rows * cols > MAX_PROFILES:
        raise tokens.error(
            f"the game declares {rows} x {cols} strategy profiles, more than the {MAX_PROFILES:,} gamelp reads"
        )
    tokens.optional_string()  # comment
    outcome_version = tokens.peek() == "{"
    if not outcome_version:
        _check_present(tokens, rows, cols, 2, "payoffs")
    labels = [
        [str(k) for k in range(1, count + 1)] if isinstance(count, int) else distinct_labels(count)
        for count in declared
    ]
    constant = _ConstantSum(tokens)
    if outcome_version:
        tokens.take("{", "{ before the outcomes")
        outcomes: list[tuple[Fraction, Fraction]] = []
        while tokens.peek() == "{":
            tokens.take("{", "{ before an outcome")
            tokens.take("str", "the outcome's name")
            values = []
            while tokens.peek() == "word":
                values.append(tokens.number("a payoff"))
            tokens.take("}", "} after an outcome")
            outcomes.append(_pair(tokens, values, f"outcome {len(outcomes) + 1}"))
        tokens.take("}", "} after the outcomes")
        _check_present(tokens, rows, cols, 1, "outcome numbers")
        payoffs = np.zeros((rows, cols))
        for i, j in _profiles(rows, cols):
            k = tokens.integer("an outcome number")
            if k > len(outcomes):
                tokens.position -= 1
                raise tokens.error(
                    f"outcome {k} of profile ({labels[0][i]}, {labels[1][j]}) is not defined "
                    f"(there are {len(outcomes)})"
                )
            u1, total = (Fraction(0), Fraction(0)) if k == 0 else outcomes[k - 1]
            payoffs[i, j] = constant.check(u1, total, f"profile ({labels[0][i]}, {labels[1][j]}) (outcome {k})")
    else:
        payoffs = np.zeros((rows, cols))
        for i, j in _profiles(rows, cols):
            where = f"profile ({labels[0][i]}, {labels[1][j]})"
            u1, total = _pair(tokens, [tokens.number(f"payoffs of {where}") for _ in range(2)], where)
            payoffs[i, j] = constant.check(u1, total, where)
    if tokens.peek() is not None:
        raise tokens.error("unexpected text after the last payoff")
    try:
        return GambitMatrixGame(payoffs, labels[0], labels[1], constant.value)
    except MatrixGameError as exc:
        raise GambitFileError(f"{path}: {exc}") from None


def _profiles(rows: int, cols: int):
    """Strategy profiles in file order: player 1's strategy changes fastest."""
    return ((i, j) for j in range(cols) for i in range(rows))


def _check_present(tokens: _Tokens, rows: int, cols: int, per_profile: int, what: str) -> None:
    """Refuse a declared size the rest of the file cannot fill, before anything of that size is allocated."""
    needed = rows * cols * per_profile
    present = sum(kind == "word" for kind, _, _ in tokens.items[tokens.position :])
    if present < needed:
        raise tokens.error(
            f"the game declares {rows} x {cols} strategy profiles, which need {needed:,} {what}; "
            f"the file has {present:,}"
        )


def _quote(text: str) -> str:
    return '"' + str(text).replace("\\", "\\\\").replace('"', '\\"') + '"'


def _number(value: float) -> str:
    """A float as Gambit reads it back exactly: an integer, or the shortest decimal that round-trips."""
    value = float(value)
    return str(int(value)) if value.is_integer() else repr(value)


def write_nfg(game: MatrixGame, path, title: str = "gamelp matrix game") -> Path:
    """Write ``game`` as a payoff-version ``.nfg`` (player 2's payoffs are the negated ones)."""
    strategies = " ".join(
        "{ " + " ".join(_quote(label) for label in labels) + " }" for labels in (game.row_labels, game.col_labels)
    )
    values = [
        f"{_number(game.payoffs[i, j])} {_number(-game.payoffs[i, j])}"
        for j in range(game.shape[1])
        for i in range(game.shape[0])
    ]
    text = f'NFG 1 R {_quote(title)} {{ "Player 1" "Player 2" }} {{ {strategies} }}\n""\n\n' + " ".join(values) + "\n"
    return write_text(path, text)


# ---------------------------------------------------------------------------------------- .efg
class _EfgReader:
    """Preorder parse of the nodes with an explicit stack (a tree may be as deep as its file is long).

    The nodes are walked straight into a :class:`SequenceFormBuilder`.  Chance probabilities and payoffs are
    exact fractions as read, and floats along the paths: products of thousands of fractions would grow without
    bound.
    """

    def __init__(self, tokens: _Tokens):
        self.tokens = tokens
        self.builder = SequenceFormBuilder(tokens.source)
        self.infosets: dict[tuple[int, int], tuple[list[str], list[float] | None, str]] = {}
        self.outcomes: dict[int, tuple[float, Fraction]] = {}  # player 1's payoff, and the sum of both
        self.constant = _ConstantSum(tokens)
        self.outcome_words: dict[int, tuple[str, ...]] = {}  # each outcome's payoffs as first written

    def tree(self) -> None:
        """Every node from the root: each node's children wait on the stack, the first one on top."""
        # chance probability, payoffs so far (player 1's, and both players' sum), both players' last sequences
        pending = [(1.0, (0.0, Fraction(0)), (None, None))]
        while pending:
            pending.extend(reversed(self.node(*pending.pop())))

    def node(self, chance: float, payoff: tuple[float, Fraction], last: tuple) -> list[tuple]:
        """Read one node; return its children's (chance, payoff, last) in order."""
        tokens = self.tokens
        kind = tokens.take("word", "a node (c, p or t)")
        tokens.take("str", "the node's name")
        if kind == "t":
            line = tokens.line()
            u1, total = self._add(payoff, self.outcome())
            if not math.isfinite(u1):
                raise tokens.error("the payoffs on the path to this terminal add up beyond the floating-point range")
            self.builder.terminal(
                last, chance * self.constant.check(u1, total, "this terminal", f"the terminal on line {line}")
            )
            return []
        if kind not in ("c", "p"):
            tokens.position -= 1
            raise tokens.error(f"unknown node type {kind!r} (expected c, p or t)")
        player = 0 if kind == "c" else tokens.integer("the player number")
        if kind == "p" and player not in (1, 2):
            raise tokens.error(f"player {player} does not exist (players are 1 and 2)")
        actions, probabilities, label = self.infoset(player, tokens.integer("the information set number"))
        payoff = self._add(payoff, self.outcome())
        if kind == "c":
            return [(chance * probability, payoff, last) for probability in probabilities]
        self.builder.decision(player, label, actions, last[seat_of_player(player)])
        children = []
        for action in actions:
            new_last = list(last)
            new_last[seat_of_player(player)] = (label, action)
            children.append((chance, payoff, tuple(new_last)))
        return children

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
                    probabilities.append(
                        tokens.number(f"chance probability of action {shown(actions[-1])} at information set {number}")
                    )
            tokens.take("}", "} after the actions")
            if not actions:
                raise tokens.error(f"information set {number} of {'chance' if player == 0 else player} has no actions")
            if player == 0 and (min(probabilities) < 0 or abs(math.fsum(map(float, probabilities)) - 1) > 1e-9):
                raise tokens.error(
                    f"chance probabilities {shown([str(p) for p in probabilities])} are not a distribution"
                )
            actions = distinct_labels(actions)
            if key not in self.infosets:
                self.infosets[key] = (actions, [float(p) for p in probabilities] or None, name or f"{player}.{number}")
        if key not in self.infosets:
            raise tokens.error(
                f"information set {number} of {'chance' if player == 0 else f'player {player}'} "
                "is used before its actions are given"
            )
        return self.infosets[key]

    @staticmethod
    def _add(payoff: tuple[float, Fraction], outcome: tuple[float, Fraction]) -> tuple[float, Fraction]:
        """Payoffs so far plus an outcome's: player 1's as a float, the sum of both exactly."""
        return payoff[0] + outcome[0], payoff[1] + outcome[1]

    def outcome(self) -> tuple[float, Fraction]:
        """The node's outcome: player 1's payoff and the sum of both players' ((0, 0) for none)."""
        tokens = self.tokens
        number = tokens.integer("the outcome number")
        if tokens.peek() == "str":
            tokens.take("str", "the outcome's name")
            if tokens.peek() == "{":
                start = tokens.position
                while tokens.peek() == "word" or tokens.position == start:  # the words up to "}", unparsed
                    tokens.position += 1
                words = tuple(word for _, word, _ in tokens.items[start + 1 : tokens.position])
                tokens.position = start
                if self.outcome_words.get(number) == words:  # repeated as first given: parsed then
                    tokens.position += len(words) + 1
                    tokens.take("}", "} after the outcome payoffs")
                else:
                    self.outcome_words.setdefault(number, words)
                    u1, total = _pair(tokens, tokens.numbers(f"payoffs of outcome {number}"), f"outcome {number}")
                    payoff = (float(u1), total)
                    if self.outcomes.setdefault(number, payoff) != payoff:
                        before = self.outcomes[number]
                        raise tokens.error(
                            f"outcome {number} is given the payoffs {payoff[0]:g}, {float(total - u1):g} here and "
                            f"{before[0]:g}, {float(before[1]) - before[0]:g} before"
                        )
        if number == 0:
            return 0.0, Fraction(0)
        if number not in self.outcomes:
            raise tokens.error(f"outcome {number} is used before its payoffs are given")
        return self.outcomes[number]


def read_efg(path) -> SequenceFormGame:
    """A two-player zero-sum or constant-sum ``.efg`` file with perfect recall as a sequence-form game."""
    tokens = _read(path, "efg")
    tokens.optional_string()  # comment
    reader = _EfgReader(tokens)
    reader.tree()
    if tokens.peek() is not None:
        raise tokens.error("unexpected text after the last node of the tree")
    labels = Counter((player, info[2]) for (player, _), info in reader.infosets.items() if player > 0)
    duplicated = sorted({label for (_, label), count in labels.items() if count > 1})
    if duplicated:
        raise GambitFileError(
            f"{path}: information sets of different numbers share the labels {duplicated}; "
            "give them distinct labels (or none)"
        )
    pl1, pl2, A = reader.builder.build()
    return SequenceFormGame(pl1, pl2, A, Path(path).stem, constant_sum=reader.constant.value)


def gambit_label(text: str) -> str:
    """``text`` as a label Gambit accepts: well-formed UTF-8, no control characters, single inner spaces only.

    Gambit (pygambit 17) refuses a label with a control character, leading or trailing whitespace or two
    whitespace characters in a row; OpenSpiel's names have all three (goofspiel's multi-line information states,
    matrix_rps's padded actions).  Control characters become spaces, then whitespace runs one space, stripped.
    """
    text = text.encode("utf-8", "replace").decode("utf-8")  # a lone surrogate is no UTF-8
    text = "".join(" " if unicodedata.category(c) == "Cc" else c for c in text)
    return " ".join(text.split())


def _gambit_labels(labels: list[str]) -> list[str]:
    """The labels of one node's actions, each :func:`gambit_label`, numbered apart if that makes two alike."""
    return [gambit_label(label) for label in distinct_labels([gambit_label(label) for label in labels])]


class _EfgWriter:
    """Preorder node lines; information sets numbered per player as first met, outcomes per payoff.

    Every label is one Gambit accepts (:func:`gambit_label`): a node's actions stay distinct, and so do a player's
    information sets (a label that two sets' names sanitise to gets `` #2``, `` #3``, ... on the later ones).
    """

    def __init__(self):
        self.lines: list[str] = []
        self.infosets: dict[tuple[int, str], tuple[int, str]] = {}  # number and label of each, per player
        self.infosets_of = {1: 0, 2: 0}  # information sets numbered so far, per player
        self.labels_used: set[tuple[int, str]] = set()
        self.outcomes: dict[float, int] = {}
        self.chance_sets = 0

    def chance(self, outcomes: list[tuple[str, float]]) -> None:
        """A chance node: its own (unlabelled) information set."""
        self.chance_sets += 1
        names = _gambit_labels([name for name, _ in outcomes])
        listed = " ".join(f"{_quote(name)} {_probability(p)}" for name, (_, p) in zip(names, outcomes, strict=True))
        self.lines.append(f'c "" {self.chance_sets} "" {{ {listed} }} 0')

    def player(self, player: int, info_set: str, actions: list[str]) -> None:
        key = (player, info_set)
        if key not in self.infosets:
            self.infosets_of[player] += 1
            label = base = gambit_label(info_set)
            copies = 1
            while (player, label) in self.labels_used:
                copies += 1
                label = f"{base} #{copies}"
            self.labels_used.add((player, label))
            self.infosets[key] = (self.infosets_of[player], label)
        number, label = self.infosets[key]
        listed = " ".join(_quote(a) for a in _gambit_labels(actions))
        self.lines.append(f'p "" {player} {number} {_quote(label)} {{ {listed} }} 0')

    def terminal(self, payoff: float) -> None:
        number = self.outcomes.setdefault(payoff, len(self.outcomes) + 1)
        self.lines.append(f't "" {number} "" {{ {_number(payoff)}, {_number(-payoff)} }}')

    def text(self, title: str) -> str:
        return (
            f'EFG 2 R {_quote(gambit_label(title))} {{ "Player 1" "Player 2" }}\n""\n\n' + "\n".join(self.lines) + "\n"
        )


def _probability(p: float) -> str:
    """A chance probability as a fraction when a small one matches it to machine precision, else a decimal."""
    fraction = Fraction(p).limit_denominator(10_000)
    return str(fraction) if math.isclose(float(fraction), p, rel_tol=1e-14, abs_tol=1e-15) else repr(float(p))


def write_efg(source: str, path) -> str:
    """Write the game tree of ``source`` to ``path``; returns a one-line summary.

    ``source`` is ``openspiel:GAME_STRING`` or a built-in poker generator,
    ``kuhn`` or ``leduc`` (the rules of :mod:`gamelp.games.poker`) or a variant of one (``leduc:13x4``).
    """
    from gamelp.games.openspiel import PREFIX

    writer = _EfgWriter()
    rules = rules_of(source)
    if source.startswith(PREFIX):
        _write_openspiel_tree(source[len(PREFIX) :], writer)
    elif rules is not None:
        _PokerTree(rules, writer).play()
    else:
        raise GambitFileError(
            f"{source}: writing .efg needs the game tree, which gamelp has for OpenSpiel games "
            f"({PREFIX}GAME_STRING) and the poker generators {sorted(POKER_GENERATORS)}; "
            "a sequence-form file does not keep it"
        )
    write_text(path, writer.text(source))
    return f"{len(writer.lines)} nodes, {len(writer.infosets)} information sets, {len(writer.outcomes)} outcomes"


def _write_openspiel_tree(game_string: str, writer: _EfgWriter) -> None:
    """Every history of the OpenSpiel game, written as ``.efg`` nodes.

    Refused up front, or once counted, when there are more than the OpenSpiel import enumerates
    (:data:`~gamelp.games.openspiel.DEFAULT_MAX_HISTORIES`).
    """
    from gamelp.games.openspiel import PREFIX, enumerable_spiel_game, spiel_errors

    root = enumerable_spiel_game(game_string).new_initial_state()
    with spiel_errors(f"{PREFIX}{game_string}", "failed while walking its tree"):
        _write_spiel_nodes(root, game_string, writer)


def _write_spiel_nodes(root, game_string: str, writer: _EfgWriter) -> None:
    """The preorder walk of :func:`_write_openspiel_tree` from the state ``root``."""
    from gamelp.games.openspiel import DEFAULT_MAX_HISTORIES, PREFIX

    stack = [root]
    while stack:  # preorder: children pushed in reverse
        if len(writer.lines) >= DEFAULT_MAX_HISTORIES:
            raise GambitFileError(
                f"{PREFIX}{game_string}: too large to write: more than {DEFAULT_MAX_HISTORIES:,} histories"
            )
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
            writer.player(
                player_of_seat(player),
                state.information_state_string(player),
                [state.action_to_string(player, a) for a in actions],
            )
        stack.extend(state.child(a) for a in reversed(actions))


POKER_GENERATORS = ("kuhn", "leduc")  # and their variants kuhn:N, leduc:RxS (gamelp.games.poker.rules_of)


class _PokerTree(_PokerWalk):
    """The poker generator's own walk, writing every node as it is met (preorder).

    Chance deals, decisions (information sets named as the generator's decision points) and terminals
    (payoffs without chance).
    """

    def __init__(self, rules, writer: _EfgWriter):
        super().__init__(rules)
        self.writer = writer
        self.prob = Fraction(1)

    def _dealt(self, deals) -> None:
        self.writer.chance([(self.labels[rank], p) for rank, p in deals])

    def betting(self, cards, public, prob, round_, history, raises, committed, views, last):
        actor = len(history) % 2
        actions = self.rules.legal_actions(history, raises)
        self.writer.player(player_of_seat(actor), self._decision_id(actor, views[actor]), list(actions))
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


register_reader("efg", read_efg, "game")
register_reader("nfg", read_nfg, "matrix")
register_writer("efg", write_efg)
