"""The quick-start notebook (docs/quickstart.md, MyST markdown) runs top to bottom on the current code.

It is executed in a real Jupyter kernel, as a reader would run it, so a change that breaks it, or that changes
what it shows (the model's algebra, the tables, the pictures), fails here.
"""

from pathlib import Path

import pytest

jupytext = pytest.importorskip("jupytext")
nbclient = pytest.importorskip("nbclient")

NOTEBOOK = Path(__file__).parents[2] / "docs" / "quickstart.md"


def _text(output) -> str:
    if output.output_type == "stream":
        return output.text
    data = output.get("data", {})
    return data.get("text/html", "") + data.get("text/plain", "")


@pytest.fixture(scope="module")
def cells(tmp_path_factory):
    notebook = jupytext.read(NOTEBOOK)
    client = nbclient.NotebookClient(
        notebook,
        timeout=600,
        kernel_name="python3",
        resources={"metadata": {"path": str(tmp_path_factory.mktemp("nb"))}},
    )
    client.execute()
    return [cell for cell in notebook.cells if cell.cell_type == "code"]


def test_the_notebook_runs_and_writes_nothing_to_stderr(cells):
    assert len(cells) == 10
    for cell in cells:
        assert cell.outputs, cell.source
        assert not [o for o in cell.outputs if o.output_type == "error" or o.get("name") == "stderr"], cell.source


def test_it_shows_the_model_the_table_the_tree_and_the_sweep(cells):
    shown = ["\n".join(_text(o) for o in cell.outputs) for cell in cells]
    assert "SequenceFormGame" in shown[0] and "sequences" in shown[0]
    assert "maximise  v[root]" in shown[1] and "[dJ/k_pl2:k]  1/6 x[dQ_pl1:k] + 1/6 x[dK_pl1:k]" in shown[1]
    assert "coefficient ranges" in shown[2] and "z " in shown[2]
    assert "NashResult" in shown[3] and "-0.05555555556" in shown[3]
    assert "information set" in shown[4] and "reach probability" in shown[4]
    pictures = [i for i, cell in enumerate(cells) if any("image/png" in o.get("data", {}) for o in cell.outputs)]
    assert pictures == [5, 8, 9]  # the tree, the k-sweep and the heat map
    solvers = cells[6].outputs[-1]["data"]["text/plain"]
    assert (
        "cvxpy:CLARABEL" in solvers
        and "highspy" in solvers
        and solvers.count("-0.05555") == 2
        and "bet with the jack" in solvers
    )
    sweep = cells[7].outputs[-1]["data"]["text/plain"].splitlines()
    columns = ["k", "value", "bound", "gap", "status", "source", "seconds", "determinism"]
    assert sweep[0].split() == columns and len(sweep) == 8
