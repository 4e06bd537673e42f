"""Issue 45's hostile games and options: each test fails on the code before its fix.

Labels with ``$`` in every plot, a 20,000-deep chain of observation points, trees and games too large to draw or
hold, subnormal and overflowing payoffs, strict JSON, one check of export's and kdet's ``--k``, the
``--target-gap`` unit, the ``pyomo:`` solver names that may run a program, and the Gurobi licence message.
"""

from __future__ import annotations

import io
import json
from types import SimpleNamespace

import numpy as np
import pytest

from gamelp.cli import main
from gamelp.game import SequenceFormGame

MATHTEXT = r"$\frac$"  # two dollars: matplotlib would parse it as mathematics, and fail


def _drawn(fig) -> None:
    """Draw ``fig`` (to memory): every text object is laid out, so a label parsed as mathtext fails here."""
    fig.savefig(io.BytesIO(), format="png")


def _dollar_game(kuhn_dict) -> SequenceFormGame:
    data = json.loads(json.dumps(kuhn_dict).replace('"k"', json.dumps(MATHTEXT)))
    return SequenceFormGame.from_dict(data, "a$b$.json")


# ---------------------------------------------------------------- 1. labels are text, not mathtext
def test_every_figure_draws_dollar_labels_literally(kuhn_dict):
    from gamelp.games.locm.tournament import plot_mana_curves, plot_similarity
    from gamelp.matrix import MatrixGame
    from gamelp.plots import k_sweep_figure, literal, matrix_figure, strategy_tree_figure

    game = _dollar_game(kuhn_dict)
    tree = strategy_tree_figure(game.pl1, game.pl1.uniform_strategy(), title=f"{MATHTEXT}: strategy")
    _drawn(tree)
    texts = [t.get_text() for t in tree.findobj(lambda a: hasattr(a, "get_text"))]
    assert any(MATHTEXT.replace("$", r"\$") in t for t in texts)
    _drawn(k_sweep_figure({MATHTEXT: [{"k": 0, "value": 0.0, "bound": 1.0}]}, title=MATHTEXT))
    matrix = MatrixGame(np.array([[1.0, -1.0], [-1.0, 1.0]]), [MATHTEXT, "$^$"], ["a$", "$b$"])
    _drawn(matrix_figure(matrix, [0.5, 0.5], [0.5, 0.5], title=MATHTEXT))
    assert literal(r"a\$b") == r"a\\$b"  # already escaped: still drawn as written
    result = SimpleNamespace(
        drafters=[MATHTEXT, "$^$"],
        mana_curves=np.ones((2, 13)),
        battler=MATHTEXT,
        similarity=np.eye(2),
    )
    from unittest import mock

    with mock.patch("gamelp.plots.save_figure", side_effect=lambda fig, path: _drawn(fig)):
        plot_mana_curves(result, "unused.png")
        plot_similarity(result, "unused.png")


def test_solve_plot_with_dollar_actions_writes_the_picture(kuhn_dict, tmp_path, capsys):
    path = tmp_path / "$x^$.json"
    path.write_text(json.dumps(json.loads(json.dumps(kuhn_dict).replace('"k"', json.dumps(MATHTEXT)))))
    assert main(["solve", str(path), "--plot", str(tmp_path / "tree.png")]) == 0
    assert (tmp_path / "tree.png").stat().st_size > 0


# ---------------------------------------------------------------- 2. a deep chain of observation points
def _chain(length: int, player: int = 1) -> list[dict]:
    """Observation points in a chain, each with a decision point hanging from its second signal."""
    nodes: list[dict] = []
    for i in range(length):
        edge = None if i == 0 else [f"o{i - 1}", "on"]
        nodes.append({"id": f"o{i}", "type": "observation", "signals": ["on", "off"], "parent_edge": edge})
    for i in range(length):
        nodes.append(
            {
                "id": f"d{i}",
                "type": "decision",
                "actions": ["a", "b"],
                "parent_edge": [f"o{i}", "off"],
                "parent_sequence": None,
            }
        )
    return nodes


def test_the_loader_walks_a_chain_once(monkeypatch):
    import networkx as nx

    from gamelp.treeplex import Treeplex

    calls = []
    predecessors = nx.DiGraph.predecessors
    monkeypatch.setattr(nx.DiGraph, "predecessors", lambda self, n: calls.append(n) or predecessors(self, n))
    nodes = _chain(2_000)
    Treeplex.from_nodes(nodes, 1)
    assert len(calls) <= len(nodes)  # the walk up the chain for every decision point made 2,003,000
    monkeypatch.undo()
    deep = Treeplex.from_nodes(_chain(20_000), 1)  # 100 s before: quadratic
    assert deep.num_decision_points == 20_000
    assert deep.parents.max() == 0  # every decision point's last own sequence is the empty one


def test_a_chain_below_an_action_keeps_that_action_as_parent_sequence():
    from gamelp.errors import GameFileError
    from gamelp.treeplex import Treeplex

    nodes = [{"id": "r", "type": "decision", "actions": ["x", "y"], "parent_edge": None, "parent_sequence": None}]
    nodes += [dict(n, id="c" + n["id"]) for n in _chain(3)]
    for n in nodes[1:]:
        if n["parent_edge"] is None:
            n["parent_edge"] = ["r", "x"]
        else:
            n["parent_edge"] = ["c" + n["parent_edge"][0], n["parent_edge"][1]]
        if n["type"] == "decision":
            n["parent_sequence"] = ["r", "x"]
    tp = Treeplex.from_nodes(nodes, 1)
    assert set(tp.parents[1:]) == {tp.index[("r", "x")]}
    nodes[-1]["parent_sequence"] = None
    with pytest.raises(GameFileError, match=r"last own sequence on its path is \['r', 'x'\]"):
        Treeplex.from_nodes(nodes, 1)
