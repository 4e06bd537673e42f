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
