"""Plots written to files by the CLI, the simulators and the scripts.

Figures are built with matplotlib's object API (``matplotlib.figure.Figure``), never through
pyplot, so drawing one neither picks nor forces a GUI backend and leaves no figure open.
"""

from __future__ import annotations

from pathlib import Path

from gamelp.deps import require

require("matplotlib", "plotting")  # one line naming the extra (gamelp[plot]), not an ImportError
from matplotlib.figure import Figure  # noqa: E402

from gamelp.io import atomic_path  # noqa: E402


def save_figure(fig: Figure, path) -> Path:
    """Lay out ``fig`` and write it atomically to ``path``, the format taken from the extension."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.tight_layout()
    with atomic_path(path) as temporary:
        fig.savefig(temporary, dpi=120, format=path.suffix.lstrip(".") or None)
    return path


def plot_k_sweep(curves: dict[str, list[dict]], path, title: str = "value against k") -> Path:
    """Step plot of value against k, one curve per label; rows are ``{"k", "value", ...}`` dicts.

    Where rows carry a ``bound`` above the value (a MIP stopped before its gap), the band
    between the two is shaded: the true value lies in it.
    """
    fig = Figure(figsize=(7, 4))
    ax = fig.subplots()
    for label, rows in curves.items():
        ks, values = [r["k"] for r in rows], [r["value"] for r in rows]
        (line,) = ax.step(ks, values, where="post", marker=".", label=label)
        bounds = [r.get("bound", r["value"]) for r in rows]
        if any(b > v + 1e-9 for b, v in zip(bounds, values)):
            ax.fill_between(
                ks, values, bounds, step="post", color=line.get_color(), alpha=0.2, label=f"{label}: best bound"
            )
    ax.set_xlabel("k (decision points forced deterministic)")
    ax.set_ylabel("value")
    ax.set_title(title)
    ax.grid(alpha=0.3)
    ax.legend()
    return save_figure(fig, path)
