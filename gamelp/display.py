"""How gamelp's objects show themselves in a Python session or a notebook.

One mixin, :class:`Summarised`: a class lists what it is in a few fields
(kind, name, sizes, status, value) in :meth:`Summarised._summary`, and gets
from them a ``repr`` of a few hundred characters whatever the game's size and
a compact HTML table for Jupyter (``_repr_html_``), with the largest entries
of its strategy or data (:meth:`Summarised._entries`) below it, truncated.
The full data stays one attribute away.  Dataclasses that use the mixin are
declared ``@dataclass(repr=False)`` so the generated ``repr`` does not replace it.

Tables as pandas DataFrames (pandas is optional: :func:`frame` refuses in one
line naming the extra) come from :func:`frame` and :func:`strategy_frame`,
the sequence-form strategy as information set, action, probability and reach
probability.  :func:`model_text` is a model's algebra, block by block with the
labels, for ``print(model)`` and ``Model.pprint``, or for a large model its
blocks' sizes, nonzeros and coefficient ranges in the form HiGHS reports them.
"""

from __future__ import annotations

import html
from collections.abc import Iterable, Mapping
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import numpy as np
import scipy.sparse as sp

from gamelp.deps import require

if TYPE_CHECKING:
    from gamelp.treeplex import Treeplex

__all__ = [
    "Raw",
    "Summarised",
    "bounds_summary",
    "counted",
    "finite_range",
    "frame",
    "matrix_strategy_frame",
    "model_text",
    "number",
    "result_summary",
    "shape_text",
    "show_range",
    "strategy_frame",
]

MAX_REPR = 400  # characters: a summary is cut here whatever it holds
MAX_TEXT = 60  # characters of one string field
HTML_ENTRIES = 12  # rows of the entries table in a notebook


class Raw(str):
    """A summary field shown as it is, without quotes (a description such as ``"x[13], v[7]"``)."""


def _short(value: Any, quote: bool = True) -> str:
    """One field's value as the summary shows it: floats to 10 digits, long strings cut (quoted for a repr)."""
    if isinstance(value, bool) or value is None:
        return str(value)
    if isinstance(value, (float, np.floating)):
        return f"{float(value):.10g}"
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    if isinstance(value, str):
        text = value if len(value) <= MAX_TEXT else value[: MAX_TEXT - 3] + "..."
        return repr(text) if quote and not isinstance(value, Raw) else text
    text = str(value)
    return text if len(text) <= MAX_TEXT else text[: MAX_TEXT - 3] + "..."


class Summarised:
    """A short ``repr`` and a notebook table from :meth:`_summary` (and :meth:`_entries`)."""

    __slots__ = ()

    def _summary(self) -> Mapping[str, Any]:
        """Field name -> a scalar or a short string: what the object is, at a glance."""
        raise NotImplementedError

    def _entries(self) -> tuple[str, Iterable[tuple[str, float]]] | None:
        """A caption and (label, value) pairs to list under the summary in a notebook (its largest nonzero ones)."""
        return None

    def __repr__(self) -> str:
        fields = ", ".join(f"{key}={_short(value)}" for key, value in self._summary().items() if value is not None)
        text = f"{type(self).__name__}({fields})"
        return text if len(text) <= MAX_REPR else text[: MAX_REPR - 4] + "...)"

    def _repr_html_(self) -> str:
        rows = "".join(
            f"<tr><th style='text-align:left'>{html.escape(key)}</th><td style='text-align:left'>"
            f"{html.escape(_short(value, quote=False))}</td></tr>"
            for key, value in self._summary().items()
            if value is not None
        )
        parts = [f"<div><b>{html.escape(type(self).__name__)}</b><table>{rows}</table>"]
        entries = self._entries()
        if entries is not None:
            caption, pairs = entries
            pairs = list(pairs)
            nonzero = sorted((pair for pair in pairs if abs(pair[1]) > 1e-12), key=lambda pair: -abs(pair[1]))
            shown = nonzero[:HTML_ENTRIES]
            body = "".join(
                f"<tr><td style='text-align:left'>{html.escape(str(label))}</td><td>{value:.6g}</td></tr>"
                for label, value in shown
            )
            largest = f"the {len(shown)} largest of " if len(nonzero) > len(shown) else ""
            count = f"{largest}{len(nonzero)} nonzero"
            parts.append(f"<p>{html.escape(caption)}: {count} of {len(pairs)} entries</p><table>{body}</table>")
        return "".join(parts) + "</div>"


def shape_text(shape: Iterable[int]) -> str:
    """A shape as ``"13x13"``."""
    return "x".join(str(int(n)) for n in shape)


def frame(data, what: str, **options):
    """A pandas DataFrame of ``data`` (refused in one line naming the extra when pandas is missing)."""
    require("pandas", what, extra="notebook")
    import pandas as pd

    return pd.DataFrame(data, **options)


def strategy_frame(treeplex: Treeplex, x: np.ndarray, what: str = "a strategy table"):
    """One row per sequence of ``treeplex``'s player: information set, action, probability and reach.

    ``reach probability`` is the sequence-form weight ``x[ja]`` (the chance the
    player's own actions lead to and take action ``a`` at ``j``), ``probability``
    the behavioural one ``x[ja] / x[p_j]`` (uniform where ``j`` is never reached).
    """
    x = np.asarray(x, dtype=float)
    behaviour = treeplex.to_behavioural(x)
    rows = [
        (point, action, behaviour[point][action], float(x[treeplex.starts[j] + k]))
        for j, point in enumerate(treeplex.decision_points)
        for k, action in enumerate(treeplex.actions[point])
    ]
    return frame(rows, what, columns=["information set", "action", "probability", "reach probability"])


def matrix_strategy_frame(game, row_strategy, col_strategy, what: str = "a strategy table"):
    """Both players' mixed strategies of a matrix game by label: player, action, probability."""
    rows = [("row", label, float(p)) for label, p in zip(game.row_labels, row_strategy)]
    rows += [("col", label, float(p)) for label, p in zip(game.col_labels, col_strategy)]
    return frame(rows, what, columns=["player", "action", "probability"])


def result_summary(result, gap: float | None, **fields) -> dict:
    """The fields every solved result shows: ``fields`` then value, ``gap``, status and backend (those it has)."""
    solution = getattr(result, "solution", None)
    return {
        **fields,
        "value": result.value,
        "gap": None if gap is None else Raw(f"{gap:.2e}"),
        "status": None if solution is None else str(solution.status),
        "backend": None if solution is None else solution.backend,
        "solver_version": None if solution is None else solution.solver_version or None,
    }


def finite_range(values: np.ndarray) -> tuple[float, float] | None:
    """The smallest and largest nonzero finite magnitude in ``values`` (None when there is none)."""
    magnitudes = np.abs(np.asarray(values, dtype=float).ravel())
    magnitudes = magnitudes[np.isfinite(magnitudes) & (magnitudes > 0)]
    return (float(magnitudes.min()), float(magnitudes.max())) if magnitudes.size else None


def show_range(bounds: tuple[float, float] | None) -> str:
    """A coefficient range as HiGHS prints it, ``[1e+00, 4e+00]`` (``-`` when empty)."""
    return "-" if bounds is None else f"[{bounds[0]:.0e}, {bounds[1]:.0e}]"


def number(value: float) -> str:
    """A coefficient in the model's algebra: integers plain, small fractions as ``1/6``, others to 6 digits."""
    value = float(value)
    if value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    short = f"{value:.12g}"  # 0.55, not 0.5499999999999999 (0.6 - 0.05)
    if len(short) <= 8 and abs(float(short) - value) <= 1e-12 * abs(value):  # a short decimal reads best as it is
        return short
    fraction = Fraction(value).limit_denominator(1000)
    if abs(float(fraction) - value) <= 1e-12 * abs(value):
        return str(fraction)
    return f"{value:.6g}"


# ----------------------------------------------------------------------------- a model's algebra
MAX_ALGEBRA_ROWS = 60  # models with more constraint and cone rows print as a summary
SENSE_TEXT = {"<=": "<=", ">=": ">=", "==": "="}


def counted(n: int, word: str) -> str:
    """``1 row``, ``13 rows``."""
    return f"{n} {word}{'' if n == 1 else 's'}"


def _names(block) -> list[str]:
    """``x[label]`` for each variable of a block (``x[i]`` without labels)."""
    labels = block.labels if block.labels is not None else range(block.size)
    return [f"{block.name}[{label}]" for label in labels]


def _expression(coefficients, columns: list[str], constant: float = 0.0) -> str:
    """``a x + b y - z + c`` from the nonzero coefficients of one row (sparse or dense) over ``columns``."""
    row = sp.coo_matrix(np.atleast_2d(coefficients) if isinstance(coefficients, np.ndarray) else coefficients)
    terms: list[str] = []
    for j, c in sorted(zip(row.col.tolist(), row.data.tolist())):
        if c == 0:
            continue
        magnitude = "" if abs(c) == 1 else number(abs(c)) + " "
        sign = ("- " if c < 0 else "+ ") if terms else ("-" if c < 0 else "")
        terms.append(f"{sign}{magnitude}{columns[j]}")
    if constant:
        sign = ("- " if constant < 0 else "+ ") if terms else ("-" if constant < 0 else "")
        terms.append(f"{sign}{number(abs(constant))}")
    return " ".join(terms) or "0"


def _bounds_text(block) -> list[str]:
    """A variable block's bounds: one line when they are uniform, else one per variable."""
    kind = "" if block.kind == "continuous" else f" {block.kind}"
    if block.kind == "binary":
        return [f"{block.name}{kind} ({block.size})"]
    lows, highs = np.unique(block.lb), np.unique(block.ub)
    names = _names(block)
    if lows.size == 1 and highs.size == 1:
        return [f"{_interval(block.name, lows[0], highs[0])}{kind} ({block.size})"]
    return [f"{_interval(name, lo, hi)}{kind}" for name, lo, hi in zip(names, block.lb, block.ub)]


def _interval(name: str, low: float, high: float) -> str:
    if low == -np.inf and high == np.inf:
        return f"{name} free"
    if high == np.inf:
        return f"{name} >= {number(low)}"
    if low == -np.inf:
        return f"{name} <= {number(high)}"
    return f"{number(low)} <= {name} <= {number(high)}"


def bounds_summary(block) -> str:
    """``>= 0``, ``free``, ``binary``, or the range of the bounds when they vary."""
    if block.kind == "binary":
        return "0 or 1"
    lows, highs = np.unique(block.lb), np.unique(block.ub)
    if lows.size == 1 and highs.size == 1:
        return _interval("", lows[0], highs[0]).strip()
    return f"lower bounds {number(lows[0])}..{number(lows[-1])}, upper {number(highs[0])}..{number(highs[-1])}"


def model_text(model, full: bool | None = None) -> str:
    """The model's algebra block by block with its labels, or (large models) a summary of its blocks.

    ``full=None`` prints the algebra up to :data:`MAX_ALGEBRA_ROWS` rows, ``True`` always, ``False`` never.
    The summary gives each block's size and nonzeros and the coefficient ranges as HiGHS reports them.
    """
    form = model.matrix_form()
    rows = form.A.shape[0] + sum(cone.matrix.shape[0] for cone in form.cones)
    kind = "MIP" if form.is_mip else "SOCP" if form.cones else "LP"
    head = (
        f"{model.name}: {kind}, {counted(form.A.shape[1], 'variable')}, {counted(form.A.shape[0], 'constraint')}"
        f"{', ' + counted(len(form.cones), 'cone') if form.cones else ''}, {counted(form.A.nnz, 'nonzero')}"
    )
    sense = "maximise" if model.sense == "max" else "minimise"
    if full is None:
        full = rows <= MAX_ALGEBRA_ROWS
    if not full:
        return _model_summary(model, form, head, sense)
    columns = [name for block in model.variables.values() for name in _names(block)]
    lines = [head, f"{sense}  {_expression(np.asarray(form.c), columns, model.objective_constant)}", "subject to"]
    for block in model.constraints.values():
        lines.append(f"  {block.name} ({counted(block.size, 'row')}):")
        labels = block.labels if block.labels is not None else range(block.size)
        width = max((len(str(label)) for label in labels), default=0) + 2
        for i, label in enumerate(labels):
            row = form.A[block.start + i]
            lines.append(
                f"    {'[' + str(label) + ']':<{width}}  {_expression(row, columns)} "
                f"{SENSE_TEXT[block.sense]} {number(block.rhs[i])}"
            )
    for cone in form.cones:
        lines.append(f"  {cone.name} (second-order cone, u[0] >= ||u[1:]||, {counted(cone.matrix.shape[0], 'row')}):")
        for i in range(cone.matrix.shape[0]):
            lines.append(f"    u[{i}] = {_expression(cone.matrix[i], columns, cone.constant[i])}")
    lines.append("bounds")
    lines += [f"  {line}" for block in model.variables.values() for line in _bounds_text(block)]
    return "\n".join(lines)


def _model_summary(model, form, head: str, sense: str) -> str:
    costs = np.count_nonzero(form.c)
    columns = [name for block in model.variables.values() for name in _names(block)] if costs <= 8 else []
    objective = f"  {_expression(np.asarray(form.c), columns)}" if columns else f": {costs} nonzero costs"
    lines = [head, f"{sense}{objective}", "variable blocks"]
    width = max((len(name) for name in [*model.variables, *model.constraints]), default=0)
    for block in model.variables.values():
        lines.append(f"  {block.name:<{width}}  {block.size:>8} {block.kind:<10}  {bounds_summary(block)}")
    lines.append("constraint blocks")
    for block in model.constraints.values():
        lines.append(
            f"  {block.name:<{width}}  {block.size:>8} rows {SENSE_TEXT[block.sense]:<2}  "
            f"{block.matrix.nnz} nonzeros, matrix {show_range(finite_range(block.matrix.data))}, "
            f"rhs {show_range(finite_range(block.rhs))}"
        )
    for cone in model.cones.values():
        lines.append(f"  {cone.name:<{width}}  {cone.matrix.shape[0]:>8} rows in a second-order cone")
    cone_data = [cone.matrix.data for cone in form.cones]
    lines += [
        "coefficient ranges",
        f"  Matrix {show_range(finite_range(np.concatenate([form.A.data, *cone_data])))}",
        f"  Cost   {show_range(finite_range(form.c))}",
        f"  Bound  {show_range(finite_range(np.r_[form.col_lb, form.col_ub]))}",
        f"  RHS    {show_range(finite_range(np.r_[form.rhs, *(cone.constant for cone in form.cones)]))}",
    ]
    return "\n".join(lines)
