"""Any strategy evaluated: the value it guarantees, its exploitability, and the opponent's best response.

A strategy of one player in a two-player zero-sum game is judged against an
opponent who knows it and best-responds.  In a sequence-form game (payoff
matrix ``A`` of player 1, realisation plans ``x`` and ``y``: Koller, Megiddo
and von Stengel 1994, Section 3) player 1's ``x`` guarantees

    g1(x) = min_y x^T A y = -max_y (-A^T x)^T y,

and player 2's ``y`` guarantees ``g2(y) = -max_x x^T A y``; the maximum over a
treeplex is one bottom-up pass (backward induction over the opponent's
decision points, von Stengel 1996, Section 4), which also names the best
action at *every* decision point, those the response itself never reaches
included (:meth:`~gamelp.treeplex.Treeplex.best_response_choices`).  One
player's strategy is exploitable by ``V_p - g_p``, its player's game value
(the Nash LP, :func:`~gamelp.models.nash.solve_nash`) minus its guarantee; a
profile ``(x, y)`` of both by its NashConv (Lanctot et al. 2017, "A unified
game-theoretic approach to multiagent reinforcement learning", Section 3.1)

    NashConv(x, y) = max_x' x'^T A y - min_y' x^T A y' = -(g1(x) + g2(y)),

the saddle-point gap, which needs no game value (OpenSpiel's
``exploitability`` is half of it).  A matrix game (payoffs ``C`` of the row
player) is the one-decision case: the row player's ``p`` guarantees
``min_j (C^T p)_j``, the column player's ``q`` concedes ``max_i (C q)_i``, both
in the row player's payoff as ``gamelp matrix solve`` reports values.

Strategies come as the JSON ``gamelp solve --json`` and ``gamelp matrix solve
--json`` print (the ``exact`` section's fractions first, then
``behavioural``, then the sequence-form ``strategy``), as a bare behavioural
object ``{information set: {action: probability}}``, a bare sequence-form
object ``{"decision point:action": weight}``, an OpenSpiel tabular policy as
JSON ``{information state: [[action id, probability], ...]}`` (what
``TabularPolicy.to_dict()`` holds, for a game loaded as ``openspiel:GAME``;
ids are OpenSpiel's, an action not legal there may be listed with
probability 0), or, for a matrix game, a CSV of ``label,probability`` lines
(a header line allowed).  Probabilities are numbers or strings ``"p/q"``.

Checks (each fault is one :class:`~gamelp.errors.StrategyFileError` naming
the file and the information set, action or label): every information set
the strategy reaches must be given (those below a probability-0 action may
be left out); probabilities are numbers in ``[0, 1]``, not NaN; each
information set's sum to 1, and sequence weights to their parent's, within
:data:`PROBABILITY_TOLERANCE`; then they are divided by their sum (a weight
within the tolerance below 0 is read as 0).

Exact evaluation (``exact=True``) works in :class:`fractions.Fraction`
arithmetic: payoffs read by :data:`gamelp.models.exact.PAYOFF_RULE`,
probabilities by :data:`PROBABILITY_RULE` (the same rule, with the precision
gamelp prints strategies to), the game value from an exact certificate
(:mod:`gamelp.models.exact`).
"""

from __future__ import annotations

import csv
import io
import math
import re
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from gamelp.backends import DEFAULT_BACKEND
from gamelp.display import Summarised
from gamelp.errors import StrategyFileError, did_you_mean, shown
from gamelp.game import PARSED_BYTES_PER_CHARACTER, SequenceFormGame, parse_json
from gamelp.io import MAX_TEXT_BYTES, read_text
from gamelp.matrix import MatrixGame
from gamelp.treeplex import Treeplex

if TYPE_CHECKING:  # the exact machinery (scipy's sparse solvers) is imported where exact=True asks for it
    from gamelp.models.exact import ExactMatrix

PROBABILITY_TOLERANCE = 1e-6
"""How far an information set's probabilities may sum from 1 (or sequence weights from their parent's)."""
PRINTED_PRECISION = 5e-13
"""Half a unit of the 12th decimal, the precision ``gamelp solve --json`` prints sequence weights to."""
PROBABILITY_RULE = (
    "each probability is the fraction with the smallest denominator (at most 10^6) within 5e-13 of it (half a "
    "unit of the 12th decimal gamelp prints), or that rounds to the same float; a probability no such fraction "
    'explains is its exact binary value; strings "p/q" are exact'
)
MAX_STRATEGY_BYTES = MAX_TEXT_BYTES
"""The largest strategy file read (:func:`gamelp.io.read_text`'s cap)."""
MATRIX_PLAYERS = ("row", "col")
# A probability written as a string: an integer, a fraction p/q or a decimal, at most 40 digits a part.
_FRACTION = re.compile(r"[+-]?\d{1,40}(/\d{1,40}|\.\d{1,40})?")

Number = float | Fraction


# ----------------------------------------------------------------------------- results
@dataclass(frozen=True, repr=False)
class PlayerEvaluation(Summarised):
    """One evaluated player's strategy: what it guarantees and the opponent's best response to it.

    ``guaranteed_value`` is the player's own payoff in a sequence-form game
    and the row player's in a matrix game.  ``best_response`` is the
    opponent's pure best response by sequence (0 / 1) or pure strategy label;
    ``best_response_behavioural`` its action at every information set
    (sequence-form games only, else None).  ``strategy`` is the evaluated
    strategy as read and normalised (sequence form, or the mixed strategy).
    """

    player: int | str
    opponent: int | str
    guaranteed_value: Number
    strategy: dict[str, Number]
    best_response: dict[str, Number]
    best_response_behavioural: dict[str, dict[str, Number]] | None

    def _summary(self) -> dict:
        return {"player": self.player, "guaranteed_value": self.guaranteed_value, "opponent": self.opponent}


@dataclass(frozen=True, repr=False)
class Evaluation(Summarised):
    """What a strategy (or a profile of both players') is worth: see the module docstring.

    ``player`` is 1, 2, ``"row"``, ``"col"`` or ``"both"``; ``players`` holds
    one :class:`PlayerEvaluation` per evaluated player.  ``exploitability`` is
    ``game_value - guaranteed_value`` for one player (``game_value`` that
    player's value of the game; in a matrix game both are the row player's
    payoffs and the column player's exploitability is ``guaranteed_value -
    game_value``), NashConv for a profile (``game_value`` None).  With
    ``exact`` every number is a Fraction.  ``renormalised`` counts the
    information sets whose probabilities did not sum to exactly 1 and were
    divided by their sum; ``binary_probabilities`` the probabilities no small
    fraction explains (:data:`PROBABILITY_RULE`, exact only), ``binary_payoffs``
    the payoffs (:data:`~gamelp.models.exact.PAYOFF_RULE`).
    """

    game: str
    player: int | str
    exact: bool
    players: tuple[PlayerEvaluation, ...]
    exploitability: Number
    game_value: Number | None
    renormalised: int = 0
    binary_probabilities: int = field(default=0, kw_only=True)
    binary_payoffs: int = field(default=0, kw_only=True)
    constant_sum: Fraction = field(default=Fraction(0), kw_only=True)

    def _summary(self) -> dict:
        return {"game": self.game, "player": self.player, "exploitability": self.exploitability, "exact": self.exact}

    @property
    def guaranteed_value(self) -> Number | None:
        """The evaluated player's guarantee; None for a profile (each player's is in ``players``)."""
        return self.players[0].guaranteed_value if len(self.players) == 1 else None

    def to_dict(self) -> dict:
        """JSON-ready: values with a constant-sum game's ``c/2``; with ``exact`` every number a string ``"p/q"``."""
        out = _number_out if not self.exact else str
        half = self.constant_sum / 2
        payload: dict = {"game": self.game, "player": self.player, "exact": self.exact}
        if self.game_value is not None:
            payload["game_value"] = out(self.game_value + _like(half, self.game_value))
            payload["guaranteed_value"] = out(self.players[0].guaranteed_value + _like(half, self.game_value))
        payload["exploitability"] = out(self.exploitability)
        if self.game_value is None:
            payload["nash_conv"] = payload["exploitability"]
        payload["players"] = {
            str(p.player): {
                "guaranteed_value": out(p.guaranteed_value + _like(half, p.guaranteed_value)),
                "strategy": {label: out(q) for label, q in p.strategy.items()},
                "best_response": {
                    "player": p.opponent,
                    "strategy": {label: out(q) for label, q in p.best_response.items()},
                    **(
                        {}
                        if p.best_response_behavioural is None
                        else {
                            "behavioural": {
                                point: {a: out(q) for a, q in local.items()}
                                for point, local in p.best_response_behavioural.items()
                            }
                        }
                    ),
                },
            }
            for p in self.players
        }
        payload["renormalised"] = self.renormalised
        if self.exact:
            from gamelp.models.exact import PAYOFF_RULE

            payload.update(
                probability_rule=PROBABILITY_RULE,
                binary_probabilities=self.binary_probabilities,
                payoff_rule=PAYOFF_RULE,
                binary_payoffs=self.binary_payoffs,
            )
        if self.constant_sum:
            payload["constant_sum"] = str(self.constant_sum) if self.exact else float(self.constant_sum)
        return payload


def _number_out(value: Number) -> float:
    return float(value)


def _like(half: Fraction, value: Number) -> Number:
    """``half`` in the arithmetic of ``value`` (a float beside floats)."""
    return half if isinstance(value, Fraction) else float(half)


# ----------------------------------------------------------------------------- reading numbers
@dataclass
class _Tally:
    """What reading a strategy counted: renormalised information sets, probabilities taken as binary values."""

    renormalised: int = 0
    binary: int = 0


class _Reader:
    """Reads one strategy document's numbers in one arithmetic (floats, or Fractions with ``exact``)."""

    def __init__(self, source: str, exact: bool):
        self.source, self.exact, self.tally = source, exact, _Tally()
        self.zero: Number = Fraction(0) if exact else 0.0
        self.one: Number = Fraction(1) if exact else 1.0

    def fault(self, message: str) -> StrategyFileError:
        return StrategyFileError(f"{self.source}: {message}")

    def number(self, value, where: str) -> Number:
        """A probability or weight in ``[0, 1]`` (a little below 0 is 0), in the reader's arithmetic."""
        if isinstance(value, str):
            text = value.strip()
            if not _FRACTION.fullmatch(text) or re.search(r"/0+$", text):
                raise self.fault(f"{where}: {shown(value)} is not a probability (a number or a fraction p/q)")
            if "/" in text or "." not in text:  # a fraction p/q or an integer: exact
                rational = Fraction(text)
                number: Number = rational if self.exact else float(rational)
            else:  # a decimal written as text (a CSV cell): a float, as a JSON number is
                number = self._rational(float(text)) if self.exact else float(text)
        elif isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, (bool, np.bool_)):
            if isinstance(value, (int, np.integer)) and abs(int(value)) > 1:
                raise self.fault(f"{where}: probability {int(value)} is not in [0, 1]")
            as_float = float(value)
            if math.isnan(as_float):
                raise self.fault(f"{where}: probability NaN is not a number")
            if not math.isfinite(as_float):
                raise self.fault(f"{where}: probability {as_float} is not finite")
            number = self._rational(as_float) if self.exact else as_float
        else:
            raise self.fault(f"{where}: {shown(value)} is not a probability (a number or a fraction p/q)")
        if number < -PROBABILITY_TOLERANCE:
            raise self.fault(f"{where}: negative probability {_show(number)}")
        if number > 1 + PROBABILITY_TOLERANCE:
            raise self.fault(f"{where}: probability {_show(number)} is above 1")
        if number < 0:
            return self.zero
        return number

    def _rational(self, value: float) -> Fraction:
        from gamelp.models.exact import MAX_PAYOFF_DENOMINATOR, rational_payoff

        rational = rational_payoff(value, tolerance=PRINTED_PRECISION)
        self.tally.binary += rational.denominator > MAX_PAYOFF_DENOMINATOR
        return rational

    def normalised(self, weights: list[Number], total_wanted: Number, where: str, what: str) -> list[Number]:
        """``weights`` divided by their sum, which must be ``total_wanted`` within the tolerance."""
        total: Number = sum(weights, self.zero)
        if abs(float(total) - float(total_wanted)) > PROBABILITY_TOLERANCE:
            raise self.fault(
                f"{where}: {what} sum to {_show(total)}, not {_show(total_wanted)} "
                f"(tolerance {PROBABILITY_TOLERANCE:g})"
            )
        if total != total_wanted:
            self.tally.renormalised += 1
        return [w / total for w in weights]


def _show(value: Number) -> str:
    return f"{float(value):.10g}"


# ----------------------------------------------------------------------------- documents
def _document(strategy, source: str, matrix: bool):
    """``strategy`` as a parsed document: a file read (JSON, or a CSV by its suffix), or the object given."""
    if not isinstance(strategy, (str, Path)):
        return strategy
    if Path(strategy).suffix.lower() == ".csv" and not matrix:
        raise StrategyFileError(f"{source}: a CSV strategy is a matrix game's; this is a sequence-form game")
    text = read_text(strategy, StrategyFileError, MAX_STRATEGY_BYTES)
    from gamelp.memory import refuse_unless_it_fits

    refuse_unless_it_fits(
        PARSED_BYTES_PER_CHARACTER * len(text),
        f"{source}: parsing its {len(text) / 2**20:,.0f} MiB",
        StrategyFileError,
        "evaluate it on a machine with more memory",
    )
    if Path(strategy).suffix.lower() == ".csv":
        return _csv_rows(text, source)
    return parse_json(text, source, StrategyFileError, "a strategy file")


def _csv_rows(text: str, source: str) -> dict[str, str]:
    """Label -> probability from a CSV's ``label,probability`` rows (a first line ``...,probability`` is a header)."""
    try:
        rows = [(n, row) for n, row in enumerate(csv.reader(io.StringIO(text)), start=1) if any(c.strip() for c in row)]
    except csv.Error as exc:
        raise StrategyFileError(f"{source}: not a readable CSV file ({exc})") from None
    if rows and len(rows[0][1]) == 2 and rows[0][1][1].strip().lower() == "probability":
        rows = rows[1:]  # the header
    if not rows:
        raise StrategyFileError(f"{source}: no label,probability rows")
    labelled: dict[str, str] = {}
    for number, row in rows:
        if len(row) != 2:
            raise StrategyFileError(f"{source}: line {number} has {len(row)} cells, expected label,probability")
        if row[0].strip() in labelled:
            raise StrategyFileError(f"{source}: line {number}: label {row[0].strip()!r} appears twice")
        labelled[row[0].strip()] = row[1].strip()
    return labelled


def _is_solve_output(document) -> bool:
    return isinstance(document, dict) and "player" in document and isinstance(document.get("strategy"), dict)


def _from_solve_output(document: dict, players: tuple, source: str) -> dict:
    """Player -> (kind, mapping) from the JSON of ``gamelp solve`` / ``gamelp matrix solve``: the best it holds."""
    own = document["player"]
    if own not in (*players, "both"):
        kind = "a matrix game's" if own in MATRIX_PLAYERS else "a sequence-form game's"
        raise StrategyFileError(
            f"{source}: the solve output of {kind} player {shown(own)}, not a strategy of "
            f"{' or '.join(map(str, players))} of this game"
        )
    first = players[0] if own == "both" else own
    other = players[1] if first == players[0] else players[0]
    exact = document["exact"] if isinstance(document.get("exact"), dict) else {}
    found = {}
    for player, prefix in ((first, ""), (other, "opponent_")):
        for kind, mapping in (
            ("sequence", exact.get(f"{prefix}strategy")),
            ("behavioural", document.get(f"{prefix}behavioural")),
            ("sequence", document.get(f"{prefix}strategy")),
        ):
            if isinstance(mapping, dict):
                found[player] = (kind, mapping)
                break
    return found


def _kind_of(mapping: dict, source: str, matrix: bool) -> str:
    """Behavioural, policy, sequence (or a matrix game's mixed strategy), by what the values are."""
    if not mapping:
        raise StrategyFileError(f"{source}: an empty strategy")
    kinds = {
        "behavioural" if isinstance(v, dict) else "policy" if isinstance(v, (list, tuple)) else "sequence"
        for v in mapping.values()
    }
    if len(kinds) > 1 or (matrix and kinds != {"sequence"}):
        raise StrategyFileError(
            f"{source}: not a strategy: expected "
            + (
                "label -> probability"
                if matrix
                else "information set -> {action: probability}, OpenSpiel's information state -> [[action, "
                "probability], ...], or decision point:action -> weight"
            )
        )
    return kinds.pop()


# ----------------------------------------------------------------------------- sequence-form strategies
def _owners_of(game: SequenceFormGame, key: str, kind: str) -> list[int]:
    """The players (1, 2) whose information set (or sequence label) ``key`` is."""
    if kind == "sequence":
        return [p for p in (1, 2) if key in _label_index(game.player(p))]
    return [p for p in (1, 2) if key in game.player(p).actions]


def _label_index(treeplex: Treeplex) -> dict[str, int]:
    return {label: i for i, label in enumerate(treeplex.labels)}


def _split_by_player(game, kind: str, mapping: dict, source: str, matrix: bool) -> dict:
    """Player -> (kind, its part of ``mapping``): each key goes to the players it belongs to."""
    parts: dict = {}
    unknown = []
    for key, value in mapping.items():
        owners = _matrix_owners(game, key) if matrix else _owners_of(game, str(key), kind)
        if not owners:
            unknown.append(key)
        for owner in owners:
            parts.setdefault(owner, (kind, {}))[1][key] = value
    if unknown:
        what = "label" if matrix else "decision point:action label" if kind == "sequence" else "information set"
        if len(unknown) == len(mapping):
            raise StrategyFileError(
                f"{source}: none of its {len(mapping)} {what}s is one of {_name(game)}'s "
                f"(first: {shown(unknown[0])}): a strategy of another game?"
            )
        known = _all_keys(game, kind, matrix)
        raise StrategyFileError(f"{source}: unknown {what} {shown(unknown[0])}{did_you_mean(str(unknown[0]), known)}")
    return parts


def _name(game) -> str:
    return game.name if isinstance(game, SequenceFormGame) else "the matrix game"


def _all_keys(game, kind: str, matrix: bool) -> list[str]:
    if matrix:
        return [*game.row_labels, *game.col_labels]
    if kind == "sequence":
        return [*game.pl1.labels, *game.pl2.labels]
    return [*game.pl1.decision_points, *game.pl2.decision_points]


def _behaviour_of_weights(treeplex: Treeplex, weights: dict, reader: _Reader, player) -> dict[str, list[Number]]:
    """Behavioural probabilities from sequence weights (label -> weight), checked against the polytope ``F x = f``."""
    index = _label_index(treeplex)
    given: dict[int, Number] = {index[label]: reader.number(w, f"sequence {label!r}") for label, w in weights.items()}
    if abs(float(given.get(0, reader.one)) - 1) > PROBABILITY_TOLERANCE:
        raise reader.fault(f"player {player}'s empty sequence has the weight {_show(given[0])}, not 1")
    given[0] = reader.one
    behaviour = {}
    for j, point in enumerate(treeplex.decision_points):
        sequences = range(treeplex.starts[j], treeplex.ends[j])
        parent = given.get(int(treeplex.parents[j]), reader.zero)
        if not any(s in given for s in sequences):
            if parent > PROBABILITY_TOLERANCE:
                raise reader.fault(
                    f"missing information set {point!r} of player {player} "
                    f"(its parent sequence {treeplex.labels[treeplex.parents[j]]!r} has the weight {_show(parent)})"
                )
            continue
        local = [given.get(s, reader.zero) for s in sequences]
        if sum(local, reader.zero) == 0:
            if parent > PROBABILITY_TOLERANCE:
                raise reader.fault(
                    f"information set {point!r}: the weights of its actions sum to 0, not its parent sequence "
                    f"{treeplex.labels[treeplex.parents[j]]!r}'s {_show(parent)} (tolerance {PROBABILITY_TOLERANCE:g})"
                )
            continue  # never reached: any behaviour there is the same strategy
        behaviour[point] = reader.normalised(
            local,
            parent,
            f"information set {point!r}",
            f"the weights of its actions (their parent sequence {treeplex.labels[treeplex.parents[j]]!r}'s)",
        )
    return behaviour


def _behaviour_of_mapping(game, player: int, kind: str, mapping: dict, reader: _Reader) -> dict[str, list[Number]]:
    """Behavioural probabilities, aligned with each point's actions, from a behavioural object or a policy."""
    treeplex = game.player(player)
    behaviour = {}
    for point, local in mapping.items():
        actions = treeplex.actions[point]
        where = f"information set {point!r}"
        if kind == "policy":
            pairs = []
            for pair in local:
                if not (isinstance(pair, (list, tuple)) and len(pair) == 2):
                    raise reader.fault(f"{where}: expected [action, probability] pairs, got {shown(pair)}")
                pairs.append(pair)
        elif isinstance(local, dict):
            pairs = list(local.items())
        else:
            raise reader.fault(f"{where}: expected an object action -> probability, got {shown(local)}")
        probabilities = dict.fromkeys(actions, reader.zero)
        seen = set()
        for action, value in pairs:
            name = game.action_named(player, point, action)
            probability = reader.number(value, f"{where}, action {shown(action)}")
            if name is None:
                if kind == "policy" and probability == 0:
                    continue  # OpenSpiel lists every action id, those not legal here at 0
                raise reader.fault(
                    f"{where} has no action {shown(action)} (its actions: {', '.join(actions)})"
                    + did_you_mean(str(action), actions)
                )
            if name in seen:
                raise reader.fault(f"{where} lists action {shown(action)} twice")
            seen.add(name)
            probabilities[name] = probability
        behaviour[point] = reader.normalised(list(probabilities.values()), reader.one, where, "its probabilities")
    return behaviour


def _plan(treeplex: Treeplex, behaviour: dict[str, list[Number]], reader: _Reader, player: int) -> np.ndarray:
    """The sequence form of ``behaviour``; an information set the strategy reaches must be in it."""
    x = np.array([reader.zero] * treeplex.num_sequences, dtype=object if reader.exact else float)
    x[0] = reader.one
    for j, point in enumerate(treeplex.decision_points):
        reach = x[treeplex.parents[j]]
        local = behaviour.get(point)
        if local is None:
            if reach > 0:
                raise reader.fault(
                    f"missing information set {point!r} of player {player}, which the strategy reaches "
                    f"(with probability {_show(reach)})"
                )
            continue
        for k, probability in enumerate(local):
            x[treeplex.starts[j] + k] = reach * probability
    return x


# ----------------------------------------------------------------------------- players
def _players_wanted(player, available: dict, players: tuple, source: str):
    """The players to evaluate: ``player`` (None: those the document holds), each of which it must hold."""
    if player is None:
        return [p for p in players if p in available]
    if player not in (*players, "both"):
        raise StrategyFileError(f"player must be {', '.join(map(str, players))} or both, got {shown(player)}")
    wanted = list(players) if player == "both" else [player]
    missing = [p for p in wanted if p not in available]
    if missing:
        held = ", ".join(f"player {p}'s" for p in available) or "nothing"
        raise StrategyFileError(f"{source}: holds no strategy of player {missing[0]} (it holds {held})")
    return wanted


def _matrix_owners(game: MatrixGame, label) -> list[str]:
    return [p for p, labels in zip(MATRIX_PLAYERS, (game.row_labels, game.col_labels)) if label in labels]


def _read(game, strategy, player, source: str, exact: bool):
    """Player -> strategy vector (sequence form, or mixed), and the reader's tally."""
    matrix = isinstance(game, MatrixGame)
    players: tuple = MATRIX_PLAYERS if matrix else (1, 2)
    reader = _Reader(source, exact)
    if isinstance(strategy, (np.ndarray, list)):
        document = _labelled_vector(game, strategy, player, source)
    else:
        document = _document(strategy, source, matrix)
    if not isinstance(document, dict):
        raise StrategyFileError(f"{source}: not a strategy (expected a JSON object, got {type(document).__name__})")
    solved = _is_solve_output(document)
    if solved:
        available = _from_solve_output(document, players, source)
        if player is None:
            player = document["player"]
    else:
        kind = _kind_of(document, source, matrix)
        available = _split_by_player(game, kind, document, source, matrix)
        if matrix and player is None and len(available) > 1:
            player = "row"  # labels both players have (rock, paper, scissors): the row player's, as matrix solve
    wanted = _players_wanted(player, available, players, source)
    vectors = {}
    for p in wanted:
        kind, mapping = available[p]
        if solved:
            _own_part(game, p, kind, mapping, source, matrix)
        if matrix:
            vectors[p] = _mixed(game, p, mapping, reader)
            continue
        treeplex = game.player(p)
        behaviour = (
            _behaviour_of_weights(treeplex, mapping, reader, p)
            if kind == "sequence"
            else _behaviour_of_mapping(game, p, kind, mapping, reader)
        )
        vectors[p] = _plan(treeplex, behaviour, reader, p)
    return vectors, reader.tally


def _own_part(game, player, kind: str, mapping: dict, source: str, matrix: bool) -> None:
    """Refuse a key of a solve output's ``mapping`` that is not player ``player``'s (or not the game's)."""
    own = _split_by_player(game, kind, mapping, source, matrix).get(player, (kind, {}))[1]
    stray = next((key for key in mapping if key not in own), None)
    if stray is not None:
        what = "label" if matrix else "sequence" if kind == "sequence" else "information set"
        raise StrategyFileError(f"{source}: {what} {shown(stray)} is not player {player}'s but its opponent's")


def _mixed(game: MatrixGame, player: str, mapping: dict, reader: _Reader) -> np.ndarray:
    """The mixed strategy over ``player``'s labels (labels left out at 0), normalised."""
    labels = game.row_labels if player == "row" else game.col_labels
    weights = [
        reader.number(mapping[label], f"label {label!r}") if label in mapping else reader.zero for label in labels
    ]
    return np.array(
        reader.normalised(weights, reader.one, f"the {player} player's strategy", "its probabilities"),
        dtype=object if reader.exact else float,
    )


def _labelled_vector(game, vector, player, source: str) -> dict:
    """A strategy given as an array (sequence form, or mixed) as label -> weight; ``player`` must say whose."""
    matrix = isinstance(game, MatrixGame)
    if player not in ((*MATRIX_PLAYERS,) if matrix else (1, 2)):
        raise StrategyFileError(f"{source}: a strategy given as an array needs its player (1 or 2, row or col)")
    labels = (game.row_labels if player == "row" else game.col_labels) if matrix else game.player(player).labels
    values = list(vector)
    if len(values) != len(labels):
        raise StrategyFileError(f"{source}: {len(values)} weights, but player {player} has {len(labels)}")
    return dict(zip(labels, values))


# ----------------------------------------------------------------------------- evaluation
def evaluate(
    game: SequenceFormGame | MatrixGame,
    strategy,
    player: int | str | None = None,
    *,
    exact: bool = False,
    backend: str = DEFAULT_BACKEND,
    source: str | None = None,
) -> Evaluation:
    """The value ``strategy`` guarantees, its exploitability and the opponent's best response.

    Parameters
    ----------
    game : SequenceFormGame or MatrixGame
        The game.
    strategy : str, os.PathLike, dict, list or numpy.ndarray
        A strategy file (JSON, or a matrix game's CSV), a parsed JSON document
        (see the module docstring), or an array over the player's sequences
        (or pure strategies), with ``player``.
    player : {None, 1, 2, "row", "col", "both"}
        Whose strategy to evaluate; None: whose the document holds (a solve
        output's ``player``; a profile when it holds both players').
    exact : bool
        Rational arithmetic (:data:`PROBABILITY_RULE`, :data:`~gamelp.models.exact.PAYOFF_RULE`).
    backend : str
        Where the Nash LP finds the game value (one player's strategy only).
    source : str, optional
        How messages name the strategy (default: the file, or ``<strategy>``).

    Returns
    -------
    Evaluation

    Raises
    ------
    StrategyFileError
        One line naming the file and the information set, action or label at fault.
    """
    if not isinstance(game, (SequenceFormGame, MatrixGame)):
        raise StrategyFileError(f"expected a SequenceFormGame or a MatrixGame, got {type(game).__name__}")
    if source is None:
        source = str(strategy) if isinstance(strategy, (str, Path)) else "<strategy>"
    vectors, tally = _read(game, strategy, player, source, exact)
    matrix = isinstance(game, MatrixGame)
    if exact:
        from gamelp.models.exact import ExactMatrix
    payoffs = ExactMatrix.from_floats(game.payoffs if isinstance(game, MatrixGame) else game.A) if exact else None
    evaluated = [
        _matrix_response(game, p, own, payoffs)
        if isinstance(game, MatrixGame)
        else _sequence_response(game, p, own, payoffs)
        for p, own in vectors.items()
    ]
    # Each guarantee in its player's own payoff (a matrix game's are the row player's).
    secured = [_SIGN[p.player] * p.guaranteed_value if matrix else p.guaranteed_value for p in evaluated]
    value: Number | None = None
    if len(evaluated) == 2:
        exploitability = -(secured[0] + secured[1])  # NashConv: both players' gains from deviating
    else:
        sign = _SIGN[evaluated[0].player]
        value = _game_value(game, exact, backend)
        exploitability = sign * value - secured[0]
        value = value if matrix else sign * value
    return Evaluation(
        "matrix game" if isinstance(game, MatrixGame) else game.name,
        evaluated[0].player if len(evaluated) == 1 else "both",
        exact,
        tuple(evaluated),
        exploitability,
        value,
        tally.renormalised,
        binary_probabilities=tally.binary,
        binary_payoffs=payoffs.binary if payoffs is not None else 0,
        constant_sum=Fraction(getattr(game, "constant_sum", 0)),
    )


# The sign that turns player 1's (the row player's) payoff into each player's own.
_SIGN = {1: 1, 2: -1, "row": 1, "col": -1}


def _units(exact: bool) -> tuple[Number, Number]:
    return (Fraction(1), Fraction(0)) if exact else (1.0, 0.0)


def _sequence_response(
    game: SequenceFormGame, player: int, own: np.ndarray, payoffs: ExactMatrix | None
) -> PlayerEvaluation:
    """Player ``player``'s sequence-form strategy ``own`` against the opponent's best response."""
    opponent = 3 - player
    # The opponent's utility per sequence: -A^T x against player 1's x, A y against player 2's y.
    if payoffs is not None:
        utility = -payoffs.T.matvec(own) if player == 1 else payoffs.matvec(own)
    else:
        utility = -(game.A.T @ own) if player == 1 else game.A @ own
    treeplex = game.player(opponent)
    value, choices = treeplex.best_response_choices(np.asarray(utility))
    one, zero = _units(payoffs is not None)
    return PlayerEvaluation(
        player,
        opponent,
        -value,
        dict(zip(game.player(player).labels, own.tolist())),
        {label: (one if w else zero) for label, w in zip(treeplex.labels, treeplex.pure_strategy(choices))},
        {
            point: {a: (one if k == choices[j] else zero) for k, a in enumerate(treeplex.actions[point])}
            for j, point in enumerate(treeplex.decision_points)
        },
    )


def _matrix_response(game: MatrixGame, player: str, own: np.ndarray, payoffs: ExactMatrix | None) -> PlayerEvaluation:
    """The ``player``'s mixed strategy ``own`` against the opponent's best pure strategy (row player's payoffs)."""
    if player == "row":  # the column player answers with the column that pays the row player least
        payoff = payoffs.T.matvec(own) if payoffs is not None else game.payoffs.T @ own
        best, labels, opponent = int(np.argmin(payoff)), game.col_labels, "col"
    else:  # the row player answers with the row that pays it most
        payoff = payoffs.matvec(own) if payoffs is not None else game.payoffs @ own
        best, labels, opponent = int(np.argmax(payoff)), game.row_labels, "row"
    one, zero = _units(payoffs is not None)
    return PlayerEvaluation(
        player,
        opponent,
        payoff[best],
        dict(zip(game.row_labels if player == "row" else game.col_labels, own.tolist())),
        {label: (one if k == best else zero) for k, label in enumerate(labels)},
        None,
    )


def _game_value(game, exact: bool, backend: str) -> Number:
    """Player 1's (the row player's) value of the game: the Nash LP's, or its exact certificate's."""
    from gamelp.models.nash import solve_matrix_nash, solve_nash

    result = (
        solve_matrix_nash(game, "row", backend, exact=exact)
        if isinstance(game, MatrixGame)
        else solve_nash(game, 1, backend, exact=exact)
    )
    if result.certificate is not None:  # exact=True certifies or raises
        return result.certificate.value
    return result.value


__all__ = ["PROBABILITY_RULE", "PROBABILITY_TOLERANCE", "Evaluation", "PlayerEvaluation", "evaluate"]
