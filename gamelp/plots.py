"""Plots written to files by the CLI, the simulators and the scripts, and shown in notebooks.

Figures are built with matplotlib's object API (``matplotlib.figure.Figure``), never through
pyplot, so drawing one neither picks nor forces a GUI backend and leaves no figure open.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import TYPE_CHECKING

from gamelp.deps import require

require("matplotlib", "plotting")  # one line naming the extra (gamelp[plot]), not an ImportError
import networkx as nx  # noqa: E402
import numpy as np  # noqa: E402
from matplotlib.colors import CenteredNorm  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.patches import Rectangle  # noqa: E402

from gamelp.errors import OutputError  # noqa: E402
from gamelp.io import atomic_write  # noqa: E402

if TYPE_CHECKING:
    from gamelp.matrix import MatrixGame
    from gamelp.treeplex import Treeplex


def literal(text) -> str:
    r"""``text`` as matplotlib draws it literally: every ``$`` escaped, so no label is parsed as mathematics.

    Matplotlib reads a string with two unescaped ``$`` as mathtext and fails on what is not valid mathtext
    (an action ``$\frac$``); an escaped ``\$`` is drawn as ``$``.  Every action, information set, strategy,
    drafter and file name a figure shows goes through here.
    """
    return str(text).replace("$", r"\$")


def save_figure(fig: Figure, path) -> Path:
    """Lay out ``fig`` and write it atomically to ``path``, the format taken from the extension."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.tight_layout()
    # Drawn in memory first, the long part: a drawing stopped there (Ctrl-C, a timeout's SIGTERM) leaves no file
    # behind, not even an empty temporary one; the bytes are then written atomically.
    image = io.BytesIO()
    fig.savefig(image, dpi=120, format=path.suffix.lstrip(".") or None)
    with atomic_write(path, "wb") as handle:
        handle.write(image.getbuffer())
    return path


def plot_k_sweep(curves: dict[str, list[dict]], path, title: str = "value against k") -> Path:
    """Write :func:`k_sweep_figure` to ``path``."""
    return save_figure(k_sweep_figure(curves, title), path)


def k_sweep_figure(curves: dict[str, list[dict]], title: str = "value against k") -> Figure:
    """Step plot of value against k, one curve per label; rows are ``{"k", "value", ...}`` dicts.

    Where rows carry a ``bound`` above the value (a MIP stopped before its gap), the band
    between the two is shaded: the true value lies in it.
    """
    fig = Figure(figsize=(7, 4))
    ax = fig.subplots()
    for label, rows in curves.items():
        ks, values = [r["k"] for r in rows], [r["value"] for r in rows]
        (line,) = ax.step(ks, values, where="post", marker=".", label=literal(label))
        bounds = [r.get("bound", r["value"]) for r in rows]
        if any(b > v + 1e-9 for b, v in zip(bounds, values)):
            ax.fill_between(
                ks,
                values,
                bounds,
                step="post",
                color=line.get_color(),
                alpha=0.2,
                label=literal(f"{label}: best bound"),
            )
    ax.set_xlabel("k (decision points forced deterministic)")
    ax.set_ylabel("value")
    ax.set_title(literal(title))
    ax.grid(alpha=0.3)
    ax.legend()
    return fig


MAX_NAMED_POINTS = 40  # a tree picture names its decision points when it shows at most this many
# A tree picture draws at most this many edges (actions and signals): Leduc whole has 486, and a picture of
# 2,000 takes half a minute to lay out and is unreadable at any size.
MAX_DRAWN_EDGES = 1_000


def drawn_edges(treeplex: Treeplex, depth: int | None = None) -> list[int]:
    """The edges (actions and signals) a tree picture cut below ``depth`` levels would draw, level by level.

    Entry ``d`` counts the edges leaving the points at depth ``d``; the picture draws the first ``depth`` entries
    (all of them without a cut).  One walk down the tree, the drawing's own levels.
    """
    graph = treeplex.graph
    level = [next(node for node, degree in graph.in_degree() if degree == 0)]
    counts: list[int] = []
    while level and (depth is None or len(counts) < depth):
        counts.append(sum(len(graph.nodes[node]["outcomes"]) for node in level))
        level = [child for node in level for child in graph.successors(node)]
    return counts


def check_drawable(treeplex: Treeplex, depth: int | None = None) -> None:
    """Refuse, in one line naming the count and :data:`MAX_DRAWN_EDGES`, a tree picture too large to read.

    Cheap (no strategy, no layout), so a command checks it before it solves; the line says which ``depth``
    would fit, if any does.
    """
    counts = drawn_edges(treeplex, depth)
    total = sum(counts)
    if total <= MAX_DRAWN_EDGES:
        return
    fits = [d for d in range(1, len(counts)) if sum(counts[:d]) <= MAX_DRAWN_EDGES]
    advice = (
        f"depth {fits[-1]} (--plot-depth {fits[-1]}) draws {sum(counts[: fits[-1]]):,}"
        if fits
        else f"its first level alone has {counts[0]:,}"
    )
    cut = "" if depth is None else f" to depth {depth}"
    raise OutputError(
        f"cannot draw player {treeplex.player}'s tree{cut}: it has {total:,} actions and signals, more than the "
        f"{MAX_DRAWN_EDGES:,} a picture shows legibly; {advice}"
    )


def _drawing_tree(treeplex: Treeplex, x: np.ndarray, depth: int | None):
    """The decision process with a leaf for every action that ends the player's part, cut below ``depth``.

    Returns the tree (node attribute ``kind``: decision, observation, leaf or cut; edge attributes ``label`` and,
    on actions, ``probability``), the root and each node's depth.
    """
    behaviour = treeplex.to_behavioural(x)
    tree: nx.DiGraph = nx.DiGraph()
    graph = treeplex.graph
    root = next(node for node, degree in graph.in_degree() if degree == 0)
    levels = {root: 0}
    for node in nx.topological_sort(graph):
        if node not in levels:  # below the cut
            continue
        info = graph.nodes[node]
        tree.add_node(node, kind=info["type"])
        if depth is not None and levels[node] >= depth:
            if graph.out_degree(node) or info["type"] == "decision":
                tree.nodes[node]["kind"] = "cut"
            continue
        children = {graph.edges[node, child]["label"]: child for child in graph.successors(node)}
        for outcome in info["outcomes"]:
            child = children.get(outcome, (node, outcome))
            if child not in children.values():
                tree.add_node(child, kind="leaf")
            levels[child] = levels[node] + 1
            edge = {"label": outcome}
            if info["type"] == "decision":
                edge["probability"] = behaviour[node][outcome]
                edge["reach"] = float(x[treeplex.index[(node, outcome)]])
            tree.add_edge(node, child, **edge)
    return tree, root, levels


def _tidy_layout(tree: nx.DiGraph, root, levels: dict) -> dict:
    """Leaves side by side in order, each parent centred over its children, one row per depth."""
    position: dict = {}
    next_leaf = 0
    for node in nx.dfs_postorder_nodes(tree, root):  # children in insertion order: the actions' order
        children = list(tree.successors(node))
        if children:
            x = sum(position[child][0] for child in children) / len(children)
        else:
            x, next_leaf = float(next_leaf), next_leaf + 1
        position[node] = (x, -float(levels[node]))
    return position


def strategy_tree_figure(treeplex: Treeplex, x, depth: int | None = None, title: str | None = None) -> Figure:
    """Player ``treeplex.player``'s decision process as a tree, the strategy's probabilities on the actions.

    Decision points are squares, observation points circles; an action's edge is labelled with its behavioural
    probability and drawn the wider the more often the strategy reaches and takes it (its sequence-form weight),
    grey where never played (at a point the strategy never reaches, the probabilities are uniform).  ``depth``
    cuts the tree below that many levels (cut points drawn as triangles).
    """
    check_drawable(treeplex, depth)
    x = np.asarray(x, dtype=float)
    tree, root, levels = _drawing_tree(treeplex, x, depth)
    position = _tidy_layout(tree, root, levels)
    leaves = sum(1 for node in tree if tree.out_degree(node) == 0)
    rows = max(levels[node] for node in tree) + 1
    fig = Figure(figsize=(min(max(6.0, 0.8 * leaves), 40.0), 1.3 * rows + 1.2))
    ax = fig.subplots()
    ax.set_axis_off()
    actions = [edge for edge in tree.edges if "probability" in tree.edges[edge]]
    signals = [edge for edge in tree.edges if "probability" not in tree.edges[edge]]
    nx.draw_networkx_edges(tree, position, edgelist=signals, ax=ax, edge_color="0.6", style="dotted", arrows=False)
    nx.draw_networkx_edges(
        tree,
        position,
        edgelist=actions,
        ax=ax,
        arrows=False,
        width=[0.6 + 4.0 * tree.edges[edge]["reach"] for edge in actions],
        edge_color=["tab:blue" if tree.edges[edge]["reach"] > 1e-9 else "0.75" for edge in actions],
    )
    shapes = {"decision": ("s", "tab:orange"), "observation": ("o", "0.85"), "leaf": (".", "0.3"), "cut": ("v", "0.5")}
    for kind, (shape, colour) in shapes.items():
        nodes = [node for node in tree if tree.nodes[node]["kind"] == kind]
        nx.draw_networkx_nodes(
            tree,
            position,
            nodelist=nodes,
            ax=ax,
            node_shape=shape,
            node_color=colour,
            node_size=90 if kind != "leaf" else 20,
        )
    labels = {
        edge: literal(
            f"{tree.edges[edge]['label']} {tree.edges[edge]['probability']:.2f}"
            if "probability" in tree.edges[edge]
            else tree.edges[edge]["label"]
        )
        for edge in tree.edges
    }
    nx.draw_networkx_edge_labels(
        tree,
        position,
        edge_labels=labels,
        ax=ax,
        font_size=8,
        rotate=False,
        label_pos=0.7,
        bbox={"facecolor": "white", "edgecolor": "none", "alpha": 0.85, "pad": 0.3},
    )
    decisions = [node for node in tree if tree.nodes[node]["kind"] in ("decision", "cut") and isinstance(node, str)]
    if len(decisions) <= MAX_NAMED_POINTS:  # information sets by name where they fit
        for node in decisions:
            ax.annotate(
                literal(node),
                position[node],
                xytext=(-7, 0),
                textcoords="offset points",
                ha="right",
                va="center",
                fontsize=7,
            )
    cut = f", cut at depth {depth}" if depth is not None and any(tree.nodes[n]["kind"] == "cut" for n in tree) else ""
    ax.set_title(literal(title or f"player {treeplex.player}'s strategy{cut}"))
    fig.text(
        0.01,
        0.01,
        "squares: decisions (action and its probability on each edge; width: how often it is played), "
        "circles: observations, dots: the player's last action",
        fontsize=7,
        color="0.4",
    )
    return fig


def plot_strategy_tree(treeplex: Treeplex, x, path, depth: int | None = None, title: str | None = None) -> Path:
    """Write :func:`strategy_tree_figure` to ``path``."""
    return save_figure(strategy_tree_figure(treeplex, x, depth, title), path)


def matrix_figure(game: MatrixGame, row_strategy=None, col_strategy=None, title: str | None = None) -> Figure:
    """The payoff matrix as a heat map, the rows and columns an equilibrium plays (its support) outlined.

    With at most 40 rows and columns the labels are shown, with the strategy's probability beside each played one.
    """
    m, n = game.shape
    fig = Figure(figsize=(min(4.0 + 0.35 * n, 14.0), min(3.0 + 0.3 * m, 12.0)))
    ax = fig.subplots()
    signs = game.payoffs.min() < 0 < game.payoffs.max()  # then white is 0, blue wins, red losses
    norm = CenteredNorm(0.0) if signs else None
    image = ax.imshow(game.payoffs, cmap="RdBu", norm=norm, aspect="auto", interpolation="nearest")
    fig.colorbar(image, ax=ax, label="row player's payoff")
    for strategy, along_rows in ((row_strategy, True), (col_strategy, False)):
        if strategy is None:
            continue
        for k in np.flatnonzero(np.asarray(strategy) > 1e-9):
            corner, size = ((-0.5, k - 0.5), (n, 1)) if along_rows else ((k - 0.5, -0.5), (1, m))
            ax.add_patch(Rectangle(corner, *size, fill=False, edgecolor="black", linewidth=1.2))
    labelled = m <= 40 and n <= 40

    def ticks(labels, strategy) -> list[str]:
        if strategy is None:
            return [literal(label) for label in labels]
        return [literal(f"{label} ({p:.2f})" if p > 1e-9 else label) for label, p in zip(labels, strategy)]

    if labelled:
        font = 8 if max(m, n) <= 20 else 6
        ax.set_yticks(range(m), ticks(game.row_labels, row_strategy), fontsize=font)
        ax.set_xticks(range(n), ticks(game.col_labels, col_strategy), rotation=60, ha="right", fontsize=font)
    ax.set_xlabel("column player")
    ax.set_ylabel("row player")
    ax.set_title(literal(title or "payoffs, equilibrium support outlined"))
    return fig


def plot_matrix_game(game: MatrixGame, path, row_strategy=None, col_strategy=None, title: str | None = None) -> Path:
    """Write :func:`matrix_figure` to ``path``."""
    return save_figure(matrix_figure(game, row_strategy, col_strategy, title), path)
