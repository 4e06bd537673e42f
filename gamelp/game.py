"""Two-player zero-sum games in sequence form: load, validate, save, evaluate.

A game is two :class:`~gamelp.treeplex.Treeplex` decision processes and the
sparse payoff matrix ``A`` of player 1 over (sequence of player 1, sequence
of player 2): player 1 gets ``x^T A y``, player 2 gets ``-x^T A y`` (the
JSON format of CMU 15-888 Homework 2, Fall 2021, part 2).  Evaluation needs no solver:
expected utility, best responses and the saddle-point gap

    gap(x, y) = max_x' x'^T A y  -  min_y' x^T A y'  >= 0,

which is zero exactly at a Nash equilibrium.
"""

from __future__ import annotations

import json
import logging
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
import scipy.sparse as sp

import gamelp.registry as registry
from gamelp.binary import checked_parts, game_arrays, read_binary, save_arrays
from gamelp.display import Raw, Summarised
from gamelp.errors import GameFileError, GamelpError, did_you_mean, shown
from gamelp.io import atomic_write, read_text
from gamelp.players import opponent_of
from gamelp.treeplex import Treeplex

BINARY_SUFFIX = ".npz"
"""The suffix of binary game files (:mod:`gamelp.binary`), which load and save dispatch on as on ``.json``."""
_TOP_KEYS = ("decision_problem_pl1", "decision_problem_pl2", "utility_pl1")
# action_names: what each action or signal name means, for readers (validate prints it); constant_sum: the
# constant c both players' payoffs add up to in a constant-sum game, whose file holds the zero-sum u1 - c/2.
_OPTIONAL_KEYS = ("action_names", "constant_sum")
_NODE_KEYS = ("id", "type", "actions", "signals", "parent_edge", "parent_sequence")
_ENTRY_KEYS = ("sequence_pl1", "sequence_pl2", "value")
log = logging.getLogger(__name__)


@dataclass(frozen=True, eq=False, repr=False)
class SequenceFormGame(Summarised):
    """A validated two-player zero-sum game in sequence form.

    ``constant_sum`` is ``c`` for a constant-sum game (payoffs ``u1 + u2 = c`` at every outcome, as in many of
    Gambit's examples): ``A`` then holds the zero-sum game ``u1 - c/2``, which has the same equilibria, and each
    player's payoff with the constant is the zero-sum one plus ``c/2``.  It is 0 for a zero-sum game.
    """

    pl1: Treeplex
    pl2: Treeplex
    A: sp.csr_matrix
    name: str = "game"
    # The file's optional action_names: action or signal -> what it means (keyword-only: subclasses add fields).
    action_names: Mapping[str, str] = field(default_factory=dict, kw_only=True)
    constant_sum: Fraction = field(default=Fraction(0), kw_only=True)

    # ------------------------------------------------------------------ loading and saving
    @classmethod
    def from_dict(cls, data, source: str = "<game>", *, sum_duplicates: bool = False) -> SequenceFormGame:
        """Build from the parsed JSON object; every fault raises :class:`GameFileError` naming it.

        Duplicate utility entries for one sequence pair are refused (naming the
        pairs) unless ``sum_duplicates`` is true, in which case they are added.
        """
        if not isinstance(data, dict):
            raise GameFileError(f"{source}: expected a JSON object with keys {list(_TOP_KEYS)}")
        for key in _TOP_KEYS:
            if key not in data:
                raise GameFileError(f"{source}: missing key {key!r}")
        _warn_unknown_keys(data, source)
        _refuse_unless_it_builds(data, source)
        pl1 = Treeplex.from_nodes(data["decision_problem_pl1"], 1, source)
        pl2 = Treeplex.from_nodes(data["decision_problem_pl2"], 2, source)
        entries = data["utility_pl1"]
        if not isinstance(entries, list):
            raise GameFileError(f"{source}: utility_pl1 must be a list of entries")
        A = _clean_utility(entries, pl1, pl2)
        if A is None:
            A = _checked_utility(entries, pl1, pl2, source, sum_duplicates)
        names = _action_names(data.get("action_names", {}), pl1, pl2, source)
        constant = _constant_sum(data.get("constant_sum", 0), source)
        name = Path(source).stem if source != "<game>" else "game"
        return cls(pl1, pl2, A, name, action_names=names, constant_sum=constant)

    @classmethod
    def from_arrays(cls, arrays: dict[str, np.ndarray], source: str = "<game>") -> SequenceFormGame:
        """Build from the arrays of a binary game file (:mod:`gamelp.binary`), checked as :meth:`from_dict` checks.

        Every fault raises :class:`GameFileError` naming ``source`` and the array, node or entry.
        """
        pl1, pl2, A, names = checked_parts(arrays, source, _subnormal)
        return cls(pl1, pl2, A, Path(source).stem if source != "<game>" else "game", action_names=names)

    def to_dict(self) -> dict:
        """The JSON object of this game (nodes top-down, one utility entry per non-zero)."""

        def nodes(tp: Treeplex) -> list[dict]:
            out = []
            point_index = {point: j for j, point in enumerate(tp.decision_points)}
            for node_id, point in tp.points.items():
                edge = None if point.parent_edge is None else list(point.parent_edge)
                record: dict[str, Any] = {"id": node_id, "type": point.type}
                if point.type == "decision":
                    record["actions"] = list(point.outcomes)
                    parent = tp.sequences[tp.parents[point_index[node_id]]]
                    record["parent_edge"] = edge
                    record["parent_sequence"] = None if parent is None else list(parent)
                else:
                    record["signals"] = list(point.outcomes)
                    record["parent_edge"] = edge
                out.append(record)
            return out

        A = self.A.tocoo()
        utility = [
            {
                "sequence_pl1": _pair(self.pl1.sequences[i]),
                "sequence_pl2": _pair(self.pl2.sequences[j]),
                "value": float(v),
            }
            for i, j, v in zip(A.row, A.col, A.data)
            if v != 0
        ]
        data: dict[str, Any] = {
            "decision_problem_pl1": nodes(self.pl1),
            "decision_problem_pl2": nodes(self.pl2),
            "utility_pl1": utility,
        }
        if self.action_names:
            data["action_names"] = dict(self.action_names)
        if self.constant_sum:
            data["constant_sum"] = str(self.constant_sum)  # exact: "10", "7/2"
        return data

    def to_json(self) -> str:
        """The game file's text: one node or utility entry per line, keys in format order.

        Floats are written with ``repr`` and so read back bit-for-bit.
        """
        data = self.to_dict()
        blocks = []
        for key in _TOP_KEYS:
            items = ",\n".join("  " + json.dumps(item) for item in data[key])
            blocks.append(f' "{key}": [\n{items}\n ]')
        blocks += [f' "{key}": {json.dumps(data[key])}' for key in _OPTIONAL_KEYS if key in data]
        return "{\n" + ",\n".join(blocks) + "\n}\n"

    def save(self, path) -> None:
        """Write the game file to ``path`` atomically: binary for a ``.npz`` path (:mod:`gamelp.binary`), else JSON."""
        if Path(path).suffix.lower() == BINARY_SUFFIX:
            save_arrays(game_arrays(self), path)
            return
        with atomic_write(path) as handle:
            handle.write(self.to_json())

    def _summary(self) -> dict:
        return {
            "name": self.name,
            "sequences": Raw(f"{self.pl1.num_sequences}/{self.pl2.num_sequences}"),
            "decision_points": Raw(f"{self.pl1.num_decision_points}/{self.pl2.num_decision_points}"),
            "payoff_nonzeros": self.A.nnz,
        }

    # ------------------------------------------------------------------ evaluation
    def player(self, p: int) -> Treeplex:
        """Player ``p``'s treeplex (``p`` is 1 or 2; anything else raises ``ValueError``)."""
        if p not in (1, 2):
            raise ValueError(f"player must be 1 or 2, got {p!r}")
        return self.pl1 if p == 1 else self.pl2

    def payoff_matrix(self, p: int) -> sp.csr_matrix:
        """Player ``p``'s payoffs with its own sequences as rows: ``A`` for player 1, ``-A^T`` for player 2."""
        return self.A if self.player(p) is self.pl1 else (-self.A.T).tocsr()

    def utility(self, x: np.ndarray, y: np.ndarray) -> float:
        """Expected utility of player 1, ``x^T A y``."""
        return float(np.asarray(x) @ (self.A @ np.asarray(y)))

    def best_response_value(self, p: int, opponent_strategy: np.ndarray) -> float:
        """What player ``p`` gets (in its own utility) by best-responding to the other's strategy."""
        if p == 1:
            return self.pl1.best_response(self.A @ opponent_strategy)[0]
        return self.pl2.best_response(-(self.A.T @ opponent_strategy))[0]

    def saddle_point_gap(self, x: np.ndarray, y: np.ndarray) -> float:
        """``max_x' x'^T A y - min_y' x^T A y'``: 0 at an equilibrium, the sum of both players' regrets."""
        return self.best_response_value(1, y) + self.best_response_value(2, x)

    def action_named(self, p: int, point: str, action) -> str | None:
        """The name of ``action`` at ``point``, a decision point of player ``p``; None if the point has no such action.

        Actions are named as the game file names them; a game imported from elsewhere also takes its source's
        own numbers for them (OpenSpiel's action ids: :class:`gamelp.games.openspiel.OpenSpielGame`).
        """
        return action if isinstance(action, str) and action in self.player(p).actions[point] else None

    def guaranteed_value(self, p: int, strategy: np.ndarray) -> float:
        """The utility player ``p`` secures with ``strategy`` against a best-responding opponent."""
        return -self.best_response_value(opponent_of(p), strategy)


# Memory a game takes while it is loaded, measured on games of 10^5 nodes (CPython 3.11, with the networkx graphs
# loading no longer builds): the parsed JSON holds about 6 bytes per byte of text; the graphs, indices and payoff
# matrix about 310 bytes per node, action or signal and utility entry (rounded up: the estimates refuse a game
# before a MemoryError would stop it).
PARSED_BYTES_PER_CHARACTER = 7
BUILT_BYTES_PER_ITEM = 400


def _refuse_unless_it_builds(data: dict, source: str) -> None:
    """Refuse, before building anything, a game whose declared nodes, outcomes and entries would not fit in memory."""
    from gamelp.memory import refuse_unless_it_fits

    nodes = outcomes = 0
    for key in ("decision_problem_pl1", "decision_problem_pl2"):
        listed = data[key] if isinstance(data[key], list) else []
        nodes += len(listed)
        for node in listed:
            found = node.get("actions", node.get("signals")) if isinstance(node, dict) else None
            outcomes += len(found) if isinstance(found, list) else 0
    entries = len(data["utility_pl1"]) if isinstance(data["utility_pl1"], list) else 0
    refuse_unless_it_fits(
        BUILT_BYTES_PER_ITEM * (nodes + outcomes + entries),
        f"{source}: building its {nodes:,} nodes, {outcomes:,} actions and signals and {entries:,} utility entries",
        GameFileError,
        "load it on a machine with more memory, or make the game smaller",
    )


def _clean_utility(entries: list, pl1: Treeplex, pl2: Treeplex) -> sp.csr_matrix | None:
    """The payoff matrix of utility entries without a fault, built from arrays; None if any entry has one.

    Every entry is an object with both sequences as known ``[decision point,
    action]`` lists and a finite number, and no sequence pair repeats; an
    entry that breaks any of this sends the caller to :func:`_checked_utility`,
    which names the fault (or adds up duplicates when asked).
    """
    try:
        rows = _sequence_indices([entry["sequence_pl1"] for entry in entries], pl1)
        cols = _sequence_indices([entry["sequence_pl2"] for entry in entries], pl2)
        values = [entry["value"] for entry in entries]
        if not all(type(value) is float or type(value) is int for value in values):
            return None
        vals = np.asarray(values, dtype=float)
    except (TypeError, KeyError, OverflowError):
        return None
    if rows is None or cols is None or not np.isfinite(vals).all() or _subnormal(vals).any():
        return None
    if np.unique(rows * pl2.num_sequences + cols).size != rows.size:
        return None
    return sp.csr_matrix((vals, (rows, cols)), shape=(pl1.num_sequences, pl2.num_sequences))


def _sequence_indices(pairs: list, treeplex: Treeplex) -> np.ndarray | None:
    """The indices of sequences given as ``[decision point, action]`` lists; None if any is not one."""
    index = treeplex.index
    found = np.fromiter(
        (index.get(tuple(p), -1) if type(p) is list and len(p) == 2 else -1 for p in pairs),
        dtype=np.int64,
        count=len(pairs),
    )
    return None if (found <= 0).any() else found


def _checked_utility(entries: list, pl1: Treeplex, pl2: Treeplex, source: str, sum_duplicates: bool) -> sp.csr_matrix:
    """The payoff matrix of utility entries, entry by entry: the first fault raises naming its entry."""
    rows, cols, vals = [], [], []
    first_seen: dict[tuple[int, int], int] = {}
    duplicates = []
    for k, entry in enumerate(entries):
        where = f"{source}: utility_pl1 entry {k}"
        if not isinstance(entry, dict):
            raise GameFileError(f"{where}: expected an object")
        for key in ("sequence_pl1", "sequence_pl2", "value"):
            if key not in entry:
                raise GameFileError(f"{where}: missing key {key!r}")
        i = pl1.sequence_of(entry["sequence_pl1"], f"{where} sequence_pl1")
        j = pl2.sequence_of(entry["sequence_pl2"], f"{where} sequence_pl2")
        value = _finite_value(entry["value"], where)
        if (i, j) in first_seen:
            duplicates.append((first_seen[(i, j)], k, pl1.labels[i], pl2.labels[j]))
        else:
            first_seen[(i, j)] = k
        rows.append(i)
        cols.append(j)
        vals.append(value)
    if duplicates and not sum_duplicates:
        shown = "; ".join(f"({a}, {b}) in entries {e1} and {e2}" for e1, e2, a, b in duplicates)
        raise GameFileError(
            f"{source}: duplicate utility entries for the sequence pairs {shown} "
            "(pass sum_duplicates=True / --sum-duplicates to add them up)"
        )
    A = sp.coo_matrix(
        (np.asarray(vals, dtype=float), (np.asarray(rows, dtype=np.int64), np.asarray(cols, dtype=np.int64))),
        shape=(pl1.num_sequences, pl2.num_sequences),
    ).tocsr()
    A.sum_duplicates()
    if not np.isfinite(A.data).all():  # duplicates added up past the largest float
        coo = A.tocoo()
        k = int(np.flatnonzero(~np.isfinite(coo.data))[0])
        i, j = int(coo.row[k]), int(coo.col[k])
        raise GameFileError(
            f"{source}: the utility entries for the sequence pair ({pl1.labels[i]}, {pl2.labels[j]}) "
            f"add up to {coo.data[k]}, beyond the largest floating-point number"
        )
    return A


def _subnormal(values: np.ndarray) -> np.ndarray:
    """Which values are subnormal: non-zero but below the smallest normal float (2.2e-308) in magnitude."""
    return (values != 0) & (np.abs(values) < np.finfo(float).tiny)


def _pair(sequence: tuple[str, str] | None) -> list[str]:
    """A sequence as the file writes it, ``[decision point, action]``; the empty sequence has no such pair."""
    if sequence is None:
        raise GameFileError(
            "a utility on the empty sequence cannot be written: the file format names "
            "every sequence by [decision point, action]"
        )
    return list(sequence)


def _finite_value(value, where: str) -> float:
    """A utility value as a float; booleans, strings, NaN, infinities, subnormals and too large integers are refused."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise GameFileError(f"{where}: value must be a finite number, got {shown(value)}")
    try:
        number = float(value)
    except OverflowError:
        raise GameFileError(
            f"{where}: value is an integer of {len(str(abs(value)))} digits, too large for a floating-point payoff"
        ) from None
    if not math.isfinite(number):
        raise GameFileError(f"{where}: value must be a finite number, got {shown(value)}")
    if _subnormal(np.array([number]))[0]:
        raise GameFileError(
            f"{where}: value {number!r} is subnormal (below {np.finfo(float).tiny:.1e} in magnitude), too small for "
            "a solver to tell from 0 or to divide by: write 0, or scale the game's payoffs up"
        )
    return number


def _action_names(names, pl1: Treeplex, pl2: Treeplex, source: str) -> dict[str, str]:
    """The file's optional ``action_names``: each key an action or signal of the game, each value a string."""
    if not isinstance(names, dict) or not all(isinstance(v, str) for v in names.values()):
        raise GameFileError(f"{source}: action_names must map action or signal names to strings")
    outcomes = {o for tp in (pl1, pl2) for point in tp.points.values() for o in point.outcomes}
    unknown = [name for name in names if name not in outcomes]
    if unknown:
        raise GameFileError(f"{source}: action_names names {shown(unknown[0])}, which no node has as action or signal")
    return dict(names)


def _constant_sum(value, source: str) -> Fraction:
    """The file's optional ``constant_sum``: a finite number, or a fraction ``"p/q"`` (at most 40 digits each)."""
    if not isinstance(value, str):
        return Fraction(str(_finite_value(value, f"{source}: constant_sum")))
    if not re.fullmatch(r"-?\d{1,40}(/0*[1-9]\d{0,39})?", value):
        raise GameFileError(f"{source}: constant_sum {shown(value)} is not a number or a fraction p/q")
    return Fraction(value)


def _warn_unknown_keys(data: dict, source: str) -> None:
    """Log one warning per unknown key (they are ignored), naming where it first occurs."""
    places = [(key, "the top-level object") for key in data if key not in _TOP_KEYS + _OPTIONAL_KEYS]
    for player in (1, 2):
        nodes = data.get(f"decision_problem_pl{player}")
        for node in nodes if isinstance(nodes, list) else ():
            if isinstance(node, dict):
                places += [
                    (key, f"node {shown(node.get('id'))} of decision_problem_pl{player}")
                    for key in node
                    if key not in _NODE_KEYS
                ]
    entries = data.get("utility_pl1")
    for k, entry in enumerate(entries if isinstance(entries, list) else ()):
        if isinstance(entry, dict):
            places += [(key, f"utility_pl1 entry {k}") for key in entry if key not in _ENTRY_KEYS]
    first: dict[str, str] = {}
    counts: dict[str, int] = {}
    for key, place in places:
        first.setdefault(key, place)
        counts[key] = counts.get(key, 0) + 1
    for key, place in first.items():
        more = f" (and {counts[key] - 1} more)" if counts[key] > 1 else ""
        log.warning("%s: ignoring unknown key %r in %s%s", source, key, place, more)


def game_schema() -> dict:
    """The JSON Schema of game files shipped with gamelp (``gamelp/game.schema.json``)."""
    return json.loads(resources.files("gamelp").joinpath("game.schema.json").read_text(encoding="utf-8"))


def check_schema(data, source: str) -> None:
    """Refuse ``data`` if it breaks the shipped JSON Schema, naming the first offending place."""
    import jsonschema

    validator = jsonschema.Draft202012Validator(game_schema())
    try:
        error = jsonschema.exceptions.best_match(validator.iter_errors(data))
    except RecursionError:
        raise GameFileError(f"{source}: JSON nested too deeply to be a game file") from None
    if error is not None:
        place = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in error.absolute_path).lstrip(".")
        message = error.message if len(error.message) <= 200 else error.message[:200] + "..."
        raise GameFileError(f"{source}: {place or 'the top-level object'} breaks the game file schema: {message}")


def load_game(path_or_name, *, sum_duplicates: bool = False, schema: bool = False) -> SequenceFormGame:
    """Load a game file, a built-in game by name (``rps``, ``kuhn``, ``leduc``), or a registered source.

    Everything but a JSON game file is found in the game registry (:mod:`gamelp.registry`), where the games
    register themselves: game families ``NAME:VARIANT`` (the games layer's: Leduc variants ``leduc:13x4``, ranks
    x suits, n-card Kuhn ``kuhn:4``, OpenSpiel games ``openspiel:GAME_STRING``), readers of other file formats
    (Gambit ``.efg``), the shipped games (``NAME.json`` of the registered data folder) and games registered by name.

    With ``schema`` the file is first checked against the shipped JSON Schema
    (:func:`check_schema`); the loader's own checks cover the schema and more.
    A name that is neither a file nor a built-in game, but a built-in game up
    to letter case or a typo, is refused with a suggestion.

    Parameters
    ----------
    path_or_name : str or os.PathLike
        A game file (JSON, or ``.efg``), a built-in or registered name, or ``NAME:VARIANT`` (``leduc:13x4``,
        ``openspiel:GAME_STRING``).
    sum_duplicates : bool
        Add up utility entries listed twice for one pair of sequences instead of refusing the file.
    schema : bool
        Check the file against the shipped JSON Schema first.

    Returns
    -------
    SequenceFormGame
        The validated game.

    Raises
    ------
    GameFileError
        One line naming the file and the node or entry at fault.
    """
    name = str(path_or_name)
    prefix, colon, variant = name.partition(":")
    load_variant = registry.family(prefix) if colon else None
    if load_variant is not None:
        return load_variant(variant)
    suffix = Path(name).suffix.lower()
    if suffix == BINARY_SUFFIX:
        return SequenceFormGame.from_arrays(read_binary(name), name)
    read = None if suffix == ".json" else registry.reader(name, "game")  # JSON: this module's
    if read is not None:
        return read(name)
    if Path(name).exists():
        text, source = read_text(name, GameFileError), name
    elif (shipped := registry.shipped_data().joinpath(f"{name}.json")).is_file():
        text, source = shipped.read_text(encoding="utf-8"), f"{name}.json"
    elif (load := registry.game(name)) is not None:
        return load()
    else:
        hint = did_you_mean(name, registry.game_names())
        if hint:
            raise GameFileError(f"{name}: no such file or built-in game{hint}")
        if Path(name).name == name and not Path(name).suffix:  # a bare name: perhaps meant as a built-in game
            families = ", ".join(f"{prefix}:..." for prefix in sorted(registry.FAMILIES))
            raise GameFileError(
                f"{name}: no such file or built-in game (the built-in games: {', '.join(registry.game_names())}; "
                f"families: {families})"
            )
        text, source = read_text(name, GameFileError), name
    from gamelp.memory import refuse_unless_it_fits

    refuse_unless_it_fits(
        PARSED_BYTES_PER_CHARACTER * len(text),
        f"{source}: parsing its {len(text) / 2**20:,.0f} MiB of JSON",
        GameFileError,
        "load it on a machine with more memory, or make the game smaller",
    )
    data = parse_json(text, source)
    if schema:
        check_schema(data, source)
    return SequenceFormGame.from_dict(data, source, sum_duplicates=sum_duplicates)


def parse_json(text: str, source: str, error: type[GamelpError] = GameFileError, what: str = "a game file"):
    """Parse a JSON document strictly: duplicate keys and absurd nesting are refused naming ``source``.

    Each refusal is an ``error``; ``what`` names what the document should be (``"a game file"``).
    """

    def refuse_duplicates(pairs):
        unique = dict(pairs)
        if len(unique) == len(pairs):
            return unique
        seen = set()
        for key, _ in pairs:
            if key in seen:
                owner = unique.get("id")
                where = f" in node {owner!r}" if isinstance(owner, str) else ""
                raise error(f"{source}: duplicate key {key!r}{where} (JSON would keep only the last one)")
            seen.add(key)
        return unique

    try:
        return json.loads(text, object_pairs_hook=refuse_duplicates)
    except json.JSONDecodeError as exc:
        raise error(f"{source}: not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})") from None
    except RecursionError:
        raise error(f"{source}: JSON nested too deeply to be {what}") from None
    except ValueError as exc:  # an integer literal beyond Python's digit limit
        raise error(f"{source}: not valid JSON ({exc})") from None
