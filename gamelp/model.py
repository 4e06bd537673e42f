"""The declarative optimisation model: plain data, no solver import.

A :class:`Model` holds named variable blocks (continuous, binary or integer,
with bounds and optional labels), named blocks of sparse linear constraints
``sum_b M_b x_b  (<= | >= | ==)  rhs``, named second-order-cone blocks
``u = sum_b M_b x_b + c,  u_0 >= ||u_1:||_2`` and a linear objective, to
which a convex diagonal quadratic term ``1/2 sum_j q_j x_j^2`` (``q >= 0``,
minimised; :meth:`Model.set_objective`'s ``quadratic``) may be added.  Every
backend in :mod:`gamelp.backends` reads the same flattened
:class:`MatrixForm`, so a model written once solves anywhere with one
argument changed::

    m = Model("toy")
    x = m.add_variables("x", 2, lb=0)
    m.add_constraints("budget", {x: [[1, 1]]}, "<=", 1)
    m.set_objective({x: [1, 2]}, sense="max")
    sol = m.solve("highs")          # or "gurobi", "pyomo:appsi_highs", "cvxpy:CLARABEL"
    sol.values["x"], sol.duals["budget"]

Dual values follow one convention on every backend: the derivative of the
optimal objective with respect to the constraint's right-hand side.

Every number is checked when it is given (blocks added, objective, right-hand
sides and bounds set): a NaN, a complex number, an infinity other than a free
bound's or a free row's, a lower bound above its upper bound, a block size
that is not a whole number or an array of the wrong dimension is a
:class:`~gamelp.errors.ModelError`, one line naming the block and the entry,
so that no backend ever sees it.

Blocks are immutable (their arrays are read-only): change right-hand sides
and bounds with :meth:`Model.set_rhs` and :meth:`Model.set_bounds`, and the
objective with :meth:`Model.set_objective`.  These value setters patch the
cached :class:`MatrixForm` and log which flat rows and columns they touched
(:meth:`Model.changes_since`), so a persistent solver session (the HiGHS
backend's, ``solve(..., persistent=True)``) applies only the difference and
warm-starts; adding blocks is a structural change that such a session
answers with a full rebuild.
"""

from __future__ import annotations

import numbers
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

import numpy as np
import scipy.sparse as sp

from gamelp.display import Raw, Summarised, bounds_summary, counted, model_text
from gamelp.entries import as_vector, entry, real_array, refuse_non_finite
from gamelp.errors import ModelError, shown
from gamelp.form import Changes, ConeBlock, MatrixForm

__all__ = ["Changes", "ConeBlock", "ConstraintBlock", "MatrixForm", "Model", "VarBlock"]

VARIABLE_KINDS = ("continuous", "binary", "integer")
SENSES = ("<=", ">=", "==")
# The one infinite right-hand side a row may have: the one that leaves it free (a placeholder row set later).
FREE_RHS = {"<=": np.inf, ">=": -np.inf, "==": None}


@dataclass(frozen=True, eq=False, repr=False)
class VarBlock(Summarised):
    """A named block of ``size`` variables occupying ``start:start+size`` in the model."""

    name: str
    start: int
    size: int
    kind: str
    lb: np.ndarray
    ub: np.ndarray
    labels: tuple[str, ...] | None = None

    def _summary(self) -> dict:
        return {"name": self.name, "size": self.size, "kind": self.kind, "bounds": Raw(bounds_summary(self))}

    @property
    def slice(self) -> slice:
        """The block's columns in the variable vector."""
        return slice(self.start, self.start + self.size)


@dataclass(frozen=True, eq=False, repr=False)
class ConstraintBlock(Summarised):
    """``matrix @ x (sense) rhs`` over the whole variable vector, one row per constraint."""

    name: str
    start: int
    matrix: sp.csr_matrix
    sense: str
    rhs: np.ndarray
    labels: tuple[str, ...] | None = None

    def _summary(self) -> dict:
        return {"name": self.name, "rows": self.size, "sense": self.sense, "nonzeros": self.matrix.nnz}

    @property
    def size(self) -> int:
        """The number of rows."""
        return self.matrix.shape[0]

    @property
    def slice(self) -> slice:
        """The block's rows among all constraint rows."""
        return slice(self.start, self.start + self.size)


def _block_size(size, name: str) -> int:
    """The number of variables of block ``name``: a whole number >= 0 (``2.7`` is refused, not cut to 2)."""
    whole = isinstance(size, numbers.Integral) or (isinstance(size, numbers.Real) and float(size).is_integer())
    if isinstance(size, bool) or not whole or size < 0:
        raise ModelError(f"variable block {name!r}: size must be a whole number >= 0, got {shown(size)}")
    return int(size)


def _coefficients(coeffs, what: str) -> sp.csr_matrix:
    """A block's coefficients (dense, sparse or a scalar) as a CSR matrix of finite real numbers."""
    sparse = sp.issparse(coeffs)  # a flag, so that mypy keeps coeffs as given (csr_matrix takes any sparse input)
    if sparse:
        mat = sp.csr_matrix(coeffs)
        if np.iscomplexobj(mat.data):
            stored = mat.tocoo()
            at = np.flatnonzero(np.imag(stored.data))
            if at.size:
                where = entry((int(stored.row[at[0]]), int(stored.col[at[0]])))
                raise ModelError(f"{what}: entry {where} is a complex number, not a real one")
            mat = sp.csr_matrix((np.real(mat.data), mat.indices, mat.indptr), shape=mat.shape)
        mat = mat.astype(float)
    else:
        arr = real_array(coeffs, what)
        if arr.ndim > 2:
            raise ModelError(f"{what}: expected a matrix, got an array of shape {arr.shape}")
        mat = sp.csr_matrix(np.atleast_2d(arr))
    entries = mat.tocoo()  # row-major, so the first bad entry named is the first in reading order
    refuse_non_finite(entries.data, lambda i: (int(entries.row[i]), int(entries.col[i])), what)
    return mat


def _checked_bounds(name: str, size: int, kind: str, lb, ub) -> tuple[np.ndarray, np.ndarray]:
    """Block ``name``'s lower and upper bounds: finite but for -inf below and +inf above, lower <= upper."""
    lower = as_vector(lb, size, f"variable block {name!r} lower bounds", allow=-np.inf)
    upper = as_vector(ub, size, f"variable block {name!r} upper bounds", allow=np.inf)
    if kind == "binary":
        lower, upper = np.maximum(lower, 0.0), np.minimum(upper, 1.0)
        lower.setflags(write=False)
        upper.setflags(write=False)
    crossed = np.flatnonzero(lower > upper)
    if crossed.size:
        i = int(crossed[0])
        raise ModelError(
            f"variable block {name!r}: entry {i} has lower bound {lower[i]} above upper bound {upper[i]}"
            + (" (a binary variable's bounds are clipped to [0, 1])" if kind == "binary" else "")
        )
    return lower, upper


@dataclass(repr=False)
class Model(Summarised):
    """A linear / mixed-integer / second-order-cone model built from named blocks.

    ``repr`` is one line of sizes; ``str(model)`` and :meth:`pprint` show its algebra block by block.
    """

    name: str = "model"
    variables: dict[str, VarBlock] = field(default_factory=dict)
    constraints: dict[str, ConstraintBlock] = field(default_factory=dict)
    cones: dict[str, ConeBlock] = field(default_factory=dict)
    objective: dict[str, np.ndarray] = field(default_factory=dict)
    objective_constant: float = 0.0
    sense: str = "min"
    quadratic: dict[str, np.ndarray] = field(default_factory=dict)  # block -> diagonal q_j of 1/2 q_j x_j^2
    _form: MatrixForm | None = field(default=None, init=False, repr=False, compare=False)
    # The change log: every change bumps the revision; structural ones (add_*) also move
    # _structure; value setters stamp (kind, block) with it (see changes_since).
    _revision: int = field(default=0, init=False, repr=False, compare=False)
    _structure: int = field(default=0, init=False, repr=False, compare=False)
    _stamps: dict = field(default_factory=dict, init=False, repr=False, compare=False)
    # Persistent solver sessions by backend name, owned by the model so they die with it;
    # ``model.sessions.clear()`` frees them earlier.
    sessions: dict = field(default_factory=dict, init=False, repr=False, compare=False)

    # ----------------------------------------------------------------- building
    @property
    def num_variables(self) -> int:
        """The number of columns, over all variable blocks."""
        return sum(b.size for b in self.variables.values())

    @property
    def num_constraints(self) -> int:
        """The number of linear constraint rows, over all constraint blocks."""
        return sum(b.size for b in self.constraints.values())

    @property
    def is_mip(self) -> bool:
        """Whether any variable block is integer or binary."""
        return any(b.kind != "continuous" for b in self.variables.values())

    @property
    def is_qp(self) -> bool:
        """Whether the objective has a quadratic term."""
        return bool(self.quadratic)

    @property
    def has_cones(self) -> bool:
        """Whether the model has second-order cones."""
        return bool(self.cones)

    def add_variables(
        self,
        name: str,
        size: int,
        *,
        lb=0.0,
        ub=np.inf,
        kind: str = "continuous",
        labels: Sequence[str] | None = None,
    ) -> VarBlock:
        """Add a block of ``size`` variables; ``lb=-np.inf`` makes them free.

        Parameters
        ----------
        name : str
            The block's name, unique in the model (solutions are split by it).
        size : int
            The number of variables, a whole number >= 0.
        lb, ub : float or array_like
            Lower and upper bounds, a scalar for all or one per variable (default 0 and infinity): finite, but for
            ``-inf`` below and ``+inf`` above, and lower <= upper.
        kind : {"continuous", "integer", "binary"}
            The variables' kind; binary bounds are clipped to [0, 1].
        labels : sequence of str, optional
            One label per variable, used when the model is printed or exported.

        Returns
        -------
        VarBlock
            The block, to use as a key of the ``terms`` of constraints, cones and the objective.
        """
        if name in self.variables:
            raise ModelError(f"model {self.name!r}: variable block {name!r} already exists")
        if kind not in VARIABLE_KINDS:
            raise ModelError(f"variable block {name!r}: kind must be one of {VARIABLE_KINDS}, got {kind!r}")
        size = _block_size(size, name)
        lower, upper = _checked_bounds(name, size, kind, lb, ub)
        if labels is not None and len(labels) != size:
            raise ModelError(f"variable block {name!r}: {len(labels)} labels for {size} variables")
        block = VarBlock(
            name, self.num_variables, size, kind, lower, upper, tuple(labels) if labels is not None else None
        )
        self.variables[name] = block
        self._changed_structure()
        return block

    def _block(self, key: VarBlock | str) -> VarBlock:
        name = key.name if isinstance(key, VarBlock) else key
        try:
            return self.variables[name]
        except KeyError:
            raise ModelError(f"model {self.name!r}: unknown variable block {name!r}") from None

    def _assemble(self, terms: Mapping, rows: int | None, what: str) -> sp.csr_matrix:
        """Stack per-block coefficient matrices into one row block over all variables."""
        pieces = {}
        for key, coeffs in terms.items():
            block = self._block(key)
            mat = _coefficients(coeffs, f"{what}: coefficients of variable block {block.name!r}")
            if mat.shape[1] != block.size and mat.shape[0] == block.size and mat.shape[1] == 1:
                mat = mat.T.tocsr()
            if mat.shape[1] != block.size:
                raise ModelError(
                    f"{what}: coefficients for block {block.name!r} have "
                    f"{mat.shape[1]} columns, the block has {block.size} variables"
                )
            if rows is None:
                rows = mat.shape[0]
            if mat.shape[0] != rows:
                raise ModelError(f"{what}: block {block.name!r} has {mat.shape[0]} rows, expected {rows}")
            pieces[block.name] = mat
        if rows is None:
            raise ModelError(f"{what}: no terms given")
        columns = [pieces.get(b.name, sp.csr_matrix((rows, b.size))) for b in self.variables.values()]
        return sp.hstack(columns, format="csr") if columns else sp.csr_matrix((rows, 0))

    def add_constraints(
        self,
        name: str,
        terms: Mapping,
        sense: str,
        rhs=0.0,
        *,
        labels: Sequence[str] | None = None,
    ) -> ConstraintBlock:
        """Add ``sum_b terms[b] @ x_b (sense) rhs``; ``terms`` maps blocks (or names) to matrices.

        Parameters
        ----------
        name : str
            The block's name, unique in the model (duals are split by it).
        terms : mapping
            Variable block (or its name) to its coefficients: a dense or sparse matrix with one column per
            variable of the block and one row per constraint.
        sense : {"<=", ">=", "=="}
            The rows' sense.
        rhs : float or array_like
            The right-hand sides, a scalar for all rows or one per row: finite, but for the infinity that leaves a
            row free (``-inf`` on ``>=`` rows, ``+inf`` on ``<=`` rows).
        labels : sequence of str, optional
            One label per row.

        Returns
        -------
        ConstraintBlock
        """
        if name in self.constraints:
            raise ModelError(f"model {self.name!r}: constraint block {name!r} already exists")
        if sense not in SENSES:
            raise ModelError(f"constraint block {name!r}: sense must be one of {SENSES}, got {sense!r}")
        matrix = self._assemble(terms, None, f"constraint block {name!r}")
        rows = matrix.shape[0]
        block = ConstraintBlock(
            name,
            self.num_constraints,
            matrix,
            sense,
            as_vector(rhs, rows, f"constraint block {name!r} rhs", allow=FREE_RHS[sense]),
            tuple(labels) if labels is not None else None,
        )
        self.constraints[name] = block
        self._changed_structure()
        return block

    def add_cone(self, name: str, terms: Mapping, constant=0.0) -> ConeBlock:
        """Add the second-order cone ``u[0] >= ||u[1:]||_2`` with ``u = sum_b terms[b] @ x_b + constant``.

        Parameters
        ----------
        name : str
            The block's name, unique in the model.
        terms : mapping
            Variable block (or its name) to the coefficients of ``u``, one row per entry of ``u``.
        constant : float or array_like
            The constant part of ``u``.

        Returns
        -------
        ConeBlock
        """
        if name in self.cones:
            raise ModelError(f"model {self.name!r}: cone block {name!r} already exists")
        matrix = self._assemble(terms, None, f"cone block {name!r}")
        if matrix.shape[0] < 1:
            raise ModelError(f"cone block {name!r}: needs at least one row")
        block = ConeBlock(name, matrix, as_vector(constant, matrix.shape[0], f"cone block {name!r} constant"))
        self.cones[name] = block
        self._changed_structure()
        return block

    def set_objective(
        self, terms: Mapping, sense: str = "min", constant: float = 0.0, *, quadratic: Mapping | None = None
    ) -> None:
        """Set the objective ``sum_b terms[b] . x_b + 1/2 sum_b sum_j quadratic[b]_j x_bj^2 + constant``.

        Parameters
        ----------
        terms : mapping
            Variable block (or its name) to its cost vector; blocks not named cost 0.
        sense : {"min", "max"}
            Minimise or maximise.
        constant : float
            Added to the objective's value.
        quadratic : mapping, optional
            Variable block (or its name) to the diagonal ``q >= 0`` of a convex quadratic term
            ``1/2 sum_j q_j x_j^2`` (a scalar for all of the block); only with ``sense="min"``, on continuous
            blocks, and only on backends that take a quadratic objective (``QP`` in ``gamelp backends``).
        """
        if sense not in ("min", "max"):
            raise ModelError(f"model {self.name!r}: objective sense must be 'min' or 'max', got {sense!r}")
        objective = {}
        for key, coeffs in terms.items():
            block = self._block(key)
            objective[block.name] = as_vector(coeffs, block.size, f"objective coefficients of {block.name!r}")
        diagonal = self._quadratic_terms(quadratic or {}, sense)
        had_quadratic = bool(self.quadratic)
        constant = float(as_vector(constant, 1, f"model {self.name!r}: objective constant")[0])
        self.objective, self.sense, self.objective_constant = objective, sense, constant
        self.quadratic = diagonal
        if diagonal or had_quadratic:  # a quadratic term is structure: a persistent session rebuilds
            self._changed_structure()
            return
        self._changed_values(
            "objective", "", c=self._costs(), maximize=sense == "max", objective_constant=self.objective_constant
        )

    def _quadratic_terms(self, quadratic: Mapping, sense: str) -> dict[str, np.ndarray]:
        """Block name -> its checked diagonal of the quadratic term (convex: non-negative, minimised)."""
        diagonal = {}
        for key, weights in quadratic.items():
            block = self._block(key)
            what = f"quadratic objective weights of {block.name!r}"
            values = as_vector(weights, block.size, what)
            if not (np.isfinite(values).all() and (values >= 0).all()):
                raise ModelError(f"model {self.name!r}: {what} must be finite and >= 0 (a convex term)")
            if block.kind != "continuous":
                raise ModelError(f"model {self.name!r}: a quadratic term on the {block.kind} block {block.name!r}")
            if values.any():
                diagonal[block.name] = values
        if diagonal and sense != "min":
            raise ModelError(
                f"model {self.name!r}: a quadratic objective term must be minimised (sense='min'), got {sense!r}"
            )
        return diagonal

    def set_rhs(self, name: str, rhs) -> None:
        """Replace the right-hand sides of constraint block ``name`` (a scalar is broadcast).

        Parameters
        ----------
        name : str
            The constraint block.
        rhs : float or array_like
            The new right-hand sides; a persistent solve applies only this change.
        """
        try:
            block = self.constraints[name]
        except KeyError:
            raise ModelError(f"model {self.name!r}: unknown constraint block {name!r}") from None
        block = self.constraints[name] = replace(
            block, rhs=as_vector(rhs, block.size, f"constraint block {name!r} rhs", allow=FREE_RHS[block.sense])
        )
        self._changed_values("rhs", name, rhs=self._patched("rhs", block.slice, block.rhs))

    def set_bounds(self, name: str, lb=None, ub=None) -> None:
        """Replace the lower and / or upper bounds of variable block ``name`` (``None`` keeps them).

        Parameters
        ----------
        name : str
            The variable block.
        lb, ub : float or array_like, optional
            The new bounds; ``None`` keeps the current ones.
        """
        block = self._block(name)
        lower, upper = _checked_bounds(
            block.name, block.size, block.kind, block.lb if lb is None else lb, block.ub if ub is None else ub
        )
        block = self.variables[block.name] = replace(block, lb=lower, ub=upper)
        self._changed_values(
            "bounds",
            block.name,
            col_lb=self._patched("col_lb", block.slice, lower),
            col_ub=self._patched("col_ub", block.slice, upper),
        )

    def __getstate__(self) -> dict:
        """Copies leave the solver sessions behind: a copy of a model starts with none."""
        return {**self.__dict__, "sessions": {}}

    # ----------------------------------------------------------------- the change log
    def _changed_structure(self) -> None:
        self._revision += 1
        self._structure = self._revision
        self._form = None

    def _patched(self, field_name: str, where: slice, values: np.ndarray) -> np.ndarray | None:
        """The cached form's ``field_name`` with ``values`` at ``where`` (None when nothing is cached)."""
        if self._form is None:
            return None
        array = getattr(self._form, field_name).copy()
        array[where] = values
        array.setflags(write=False)
        return array

    def _changed_values(self, kind: str, block: str, **form_fields) -> None:
        """Log a value change of ``kind`` in ``block`` and patch the cached form with ``form_fields``."""
        self._revision += 1
        self._stamps[kind, block] = self._revision
        if self._form is not None:
            self._form = replace(self._form, **form_fields)

    @property
    def revision(self) -> int:
        """A counter every change moves forward: a session remembers the revision it has applied."""
        return self._revision

    def changes_since(self, revision: int) -> Changes | None:
        """What changed after ``revision``, or None if a structural change (a block added) came after it."""
        if self._structure > revision:
            return None
        newer = {key for key, stamp in self._stamps.items() if stamp > revision}

        def indices(blocks: dict, kind: str) -> np.ndarray:
            ranges = [np.arange(b.start, b.start + b.size) for name, b in blocks.items() if (kind, name) in newer]
            return np.concatenate(ranges) if ranges else np.zeros(0, dtype=np.int64)

        costs = np.arange(self.num_variables) if ("objective", "") in newer else np.zeros(0, dtype=np.int64)
        return Changes(
            indices(self.constraints, "rhs"), indices(self.variables, "bounds"), costs, ("objective", "") in newer
        )

    # ----------------------------------------------------------------- reading
    def matrix_form(self) -> MatrixForm:
        """Flatten the blocks into one sparse matrix, the form backends consume (cached until a change)."""
        if self._form is None:
            self._form = self._flatten()
        elif self._form.name != self.name:
            self._form = replace(self._form, name=self.name)
        return self._form

    def _costs(self) -> np.ndarray:
        """The objective coefficients over all variables (read-only)."""
        c = np.zeros(self.num_variables)
        for name, coeffs in self.objective.items():
            c[self.variables[name].slice] = coeffs
        c.setflags(write=False)
        return c

    def _flatten(self) -> MatrixForm:
        n = self.num_variables
        c = self._costs()
        blocks = list(self.constraints.values())
        # Blocks built before later variable blocks were added have fewer columns: pad them.
        matrices = [
            sp.csr_matrix((b.matrix.data, b.matrix.indices, b.matrix.indptr), shape=(b.size, n)) for b in blocks
        ]
        A = sp.vstack(matrices, format="csr") if matrices else sp.csr_matrix((0, n))
        sense_char = {"<=": "<", ">=": ">", "==": "="}
        row_sense = (
            np.concatenate([np.full(b.size, sense_char[b.sense]) for b in blocks])
            if blocks
            else np.array([], dtype="<U1")
        )
        rhs = np.concatenate([b.rhs for b in blocks]) if blocks else np.zeros(0)
        var_blocks = list(self.variables.values())
        col_lb = np.concatenate([b.lb for b in var_blocks]) if var_blocks else np.zeros(0)
        col_ub = np.concatenate([b.ub for b in var_blocks]) if var_blocks else np.zeros(0)
        integer = (
            np.concatenate([np.full(b.size, b.kind != "continuous") for b in var_blocks])
            if var_blocks
            else np.zeros(0, bool)
        )
        binary = (
            np.concatenate([np.full(b.size, b.kind == "binary") for b in var_blocks])
            if var_blocks
            else np.zeros(0, bool)
        )
        cones = tuple(
            ConeBlock(
                k.name,
                sp.csr_matrix((k.matrix.data, k.matrix.indices, k.matrix.indptr), shape=(k.matrix.shape[0], n)),
                k.constant,
            )
            for k in self.cones.values()
        )
        for array in (row_sense, rhs, col_lb, col_ub, integer, binary):
            array.setflags(write=False)  # the form is cached and shared: change the model, not the form
        quadratic = None
        if self.quadratic:
            quadratic = np.zeros(n)
            for name, weights in self.quadratic.items():
                quadratic[self.variables[name].slice] = weights
            quadratic.setflags(write=False)
        return MatrixForm(
            c=c,
            objective_constant=self.objective_constant,
            maximize=self.sense == "max",
            A=A,
            row_sense=row_sense,
            rhs=rhs,
            col_lb=col_lb,
            col_ub=col_ub,
            integer=integer,
            binary=binary,
            cones=cones,
            name=self.name,
            variable_slices={name: b.slice for name, b in self.variables.items()},
            row_slices={name: b.slice for name, b in self.constraints.items()},
            quadratic=quadratic,
        )

    def split_values(self, x: np.ndarray) -> dict[str, np.ndarray]:
        """Cut a full variable vector into one array per variable block."""
        return self.matrix_form().split_values(x)

    def full_vector(self, values: Mapping[str, np.ndarray]) -> np.ndarray:
        """One vector over all variables from per-block values (missing blocks at 0)."""
        for name in values:
            self._block(name)  # an unknown name is a ModelError
        return self.matrix_form().full_vector(values)

    # ----------------------------------------------------------------- solving and export
    def solve(self, backend: str = "auto", **options):
        """Solve on ``backend`` (``"auto"``, ``"highs"``, ``"gurobi"``, ``"pyomo:<solver>"``, ``"cvxpy:<SOLVER>"``).

        Parameters
        ----------
        backend : str
            The backend string; ``"auto"`` takes HiGHS for LPs and MIPs and Clarabel for models with cones.
        **options
            ``time_limit`` (seconds), ``mip_gap`` (relative), ``mip_abs_gap`` (absolute, in the objective's
            units), ``threads``, ``verbose``, ``start`` (block name to
            values, a MIP start), ``persistent`` (keep the solver's model for the next solve) and any
            solver-specific keyword.

        Returns
        -------
        Solution
            The status, objective and bound, values, duals and reduced costs by block, and the solver's log.

        Raises
        ------
        BackendError
            The backend cannot take the model (the message names those that can) or is not installed.
        SolveInterrupted
            Ctrl-C stopped the solve; it carries what the solver had.
        """
        from gamelp.backends import solve

        return solve(self, backend, **options)

    def to_pyomo(self):
        """The model as a ``pyomo.environ.ConcreteModel`` for users to extend."""
        from gamelp.deps import require

        require("pyomo", "Model.to_pyomo")
        from gamelp.backends.pyomo import build

        return build(self)

    def to_cvxpy(self):
        """The model as a ``cvxpy.Problem`` (with ``.var_blocks`` / ``.constraint_blocks``) to extend."""
        from gamelp.deps import require

        require("cvxpy", "Model.to_cvxpy")
        from gamelp.backends.cvxpy import build

        return build(self)

    def write(self, path: str) -> None:
        """Write the model as an ``.lp`` or ``.mps`` file (through HiGHS); cones are refused."""
        from gamelp.backends.highs import write

        write(self, path)

    # ----------------------------------------------------------------- showing
    def _summary(self) -> dict:
        kind = "MIP" if self.is_mip else "SOCP" if self.cones else "QP" if self.quadratic else "LP"
        return {
            "name": self.name,
            "kind": kind,
            "sense": self.sense,
            "variables": Raw(f"{self.num_variables} in {counted(len(self.variables), 'block')}"),
            "constraints": Raw(f"{self.num_constraints} in {counted(len(self.constraints), 'block')}"),
            "cones": len(self.cones) or None,
            "nonzeros": sum(block.matrix.nnz for block in self.constraints.values()),
        }

    def __str__(self) -> str:
        return model_text(self)

    def pprint(self, full: bool | None = None, file=None) -> None:
        """Print the model's algebra block by block with its labels (a summary of the blocks when large).

        ``full=None`` prints the algebra of models of up to 60 rows and a summary of larger ones (block sizes,
        nonzeros, coefficient ranges as HiGHS reports them); ``True`` / ``False`` force either.
        """
        print(model_text(self, full), file=file)
