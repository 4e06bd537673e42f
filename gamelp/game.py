"""Two-player zero-sum games in sequence form: load, validate, save, evaluate.

A game is two :class:`~gamelp.treeplex.Treeplex` decision processes and the
sparse payoff matrix ``A`` of player 1 over (sequence of player 1, sequence
of player 2): player 1 gets ``x^T A y``, player 2 gets ``-x^T A y`` (the
JSON format of the homework, seed 004 part 2).  Evaluation needs no solver:
expected utility, best responses and the saddle-point gap

    gap(x, y) = max_x' x'^T A y  -  min_y' x^T A y'  >= 0,

which is zero exactly at a Nash equilibrium.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from gamelp.errors import GameFileError
from gamelp.files import read_text, write_text_atomic
from gamelp.treeplex import Treeplex

BUILTIN_GAMES = ("rps", "kuhn", "leduc")
_TOP_KEYS = ("decision_problem_pl1", "decision_problem_pl2", "utility_pl1")


@dataclass(frozen=True, eq=False)
class SequenceFormGame:
    """A validated two-player zero-sum game in sequence form."""

    pl1: Treeplex
    pl2: Treeplex
    A: sp.csr_matrix
    name: str = "game"

    # ------------------------------------------------------------------ loading and saving
    @classmethod
    def from_dict(cls, data, source: str = "<game>", *, sum_duplicates: bool = False) -> "SequenceFormGame":
        """Build from the parsed JSON object; every fault raises :class:`GameFileError` naming it.

        Duplicate utility entries for one sequence pair are refused (naming the
        pairs) unless ``sum_duplicates`` is true, in which case they are added.
        """
        if not isinstance(data, dict):
            raise GameFileError(f"{source}: expected a JSON object with keys {list(_TOP_KEYS)}")
        for key in _TOP_KEYS:
            if key not in data:
                raise GameFileError(f"{source}: missing key {key!r}")
        pl1 = Treeplex.from_nodes(data["decision_problem_pl1"], 1, source)
        pl2 = Treeplex.from_nodes(data["decision_problem_pl2"], 2, source)
        entries = data["utility_pl1"]
        if not isinstance(entries, list):
            raise GameFileError(f"{source}: utility_pl1 must be a list of entries")
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
            value = entry["value"]
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
                raise GameFileError(f"{where}: value must be a finite number, got {value!r}")
            if (i, j) in first_seen:
                duplicates.append((first_seen[(i, j)], k, pl1.labels[i], pl2.labels[j]))
            else:
                first_seen[(i, j)] = k
            rows.append(i)
            cols.append(j)
            vals.append(float(value))
        if duplicates and not sum_duplicates:
            shown = "; ".join(f"({a}, {b}) in entries {e1} and {e2}" for e1, e2, a, b in duplicates)
            raise GameFileError(f"{source}: duplicate utility entries for the sequence pairs {shown} "
                                "(pass sum_duplicates=True / --sum-duplicates to add them up)")
        A = sp.coo_matrix((vals, (rows, cols)), shape=(pl1.num_sequences, pl2.num_sequences)).tocsr()
        A.sum_duplicates()
        return cls(pl1, pl2, A, Path(source).stem if source != "<game>" else "game")

    def to_dict(self) -> dict:
        """The JSON object of this game (nodes top-down, one utility entry per non-zero)."""
        def nodes(tp: Treeplex) -> list[dict]:
            out = []
            for node_id in sorted(tp.graph.nodes, key=lambda n: tp.graph.nodes[n]["position"]):
                info = tp.graph.nodes[node_id]
                preds = list(tp.graph.predecessors(node_id))
                edge = [preds[0], tp.graph.edges[preds[0], node_id]["label"]] if preds else None
                record = {"id": node_id, "type": info["type"]}
                if info["type"] == "decision":
                    record["actions"] = list(info["outcomes"])
                    j = tp.decision_points.index(node_id)
                    parent = tp.sequences[tp.parents[j]]
                    record["parent_edge"] = edge
                    record["parent_sequence"] = None if parent is None else list(parent)
                else:
                    record["signals"] = list(info["outcomes"])
                    record["parent_edge"] = edge
                out.append(record)
            return out

        A = self.A.tocoo()
        utility = [{"sequence_pl1": list(self.pl1.sequences[i]), "sequence_pl2": list(self.pl2.sequences[j]),
                    "value": float(v)} for i, j, v in zip(A.row, A.col, A.data) if v != 0]
        return {"decision_problem_pl1": nodes(self.pl1), "decision_problem_pl2": nodes(self.pl2),
                "utility_pl1": utility}

    def save(self, path) -> None:
        write_text_atomic(path, json.dumps(self.to_dict(), indent=1) + "\n")

    # ------------------------------------------------------------------ evaluation
    def player(self, p: int) -> Treeplex:
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

    def guaranteed_value(self, p: int, strategy: np.ndarray) -> float:
        """The utility player ``p`` secures with ``strategy`` against a best-responding opponent."""
        return -self.best_response_value(3 - p, strategy)


def load_game(path_or_name, *, sum_duplicates: bool = False) -> SequenceFormGame:
    """Load a game file, a built-in game by name (``rps``, ``kuhn``, ``leduc``), an OpenSpiel game
    ``openspiel:GAME_STRING`` (:mod:`gamelp.games.openspiel`) or a Gambit ``.efg`` file."""
    name = str(path_or_name)
    if name.startswith("openspiel:"):
        from gamelp.games.openspiel import load_openspiel

        return load_openspiel(name[len("openspiel:"):])
    if name.lower().endswith(".efg"):
        from gamelp.games.gambit import read_efg

        return read_efg(name)
    if name in BUILTIN_GAMES and not Path(name).exists():
        text = resources.files("gamelp.games").joinpath("data", f"{name}.json").read_text(encoding="utf-8")
        source = f"{name}.json"
    else:
        text = read_text(name, GameFileError)
        source = name
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise GameFileError(f"{source}: not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})") \
            from None
    return SequenceFormGame.from_dict(data, source, sum_duplicates=sum_duplicates)
