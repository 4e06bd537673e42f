"""Robust Nash LPs of a matrix game whose payoffs are estimates with standard deviations.

Esche (2018), Section 2.4, after Ben-Tal and Nemirovski, *Lectures on
Modern Convex Optimization* (SIAM 2001).  The payoff matrix is only known to
lie in an uncertainty set around the estimate ``C-hat`` with deviations
``Delta``::

    U = { C-hat + zeta o Delta : zeta in Z }

and a player's strategy must satisfy its Nash-LP constraints for every ``C``
in ``U``.  With the row player's constraints ``c_j^T p >= v`` (general form,
any payoffs) or ``c_j^T x >= 1`` (thesis form, needs a positive value) and
the column player's ``(c^i)^T q <= w`` (or ``C y <= e``), three sets:

* interval, ``|zeta_ij| <= R``: the closed form ``(C-hat - R Delta)^T p >= v e``
  (``(C-hat + R Delta) q <= w e`` for the column player);
* ellipsoidal, ``||vec zeta||_2 <= R`` (the thesis's Section 3.2): each
  constraint only sees its own column (row) of ``zeta``, so it is
  ``c-hat_j^T p - R ||delta_j o p||_2 >= v``, one second-order cone per column
  (per row for the column player, ``c-hat^i q + R ||delta^i o q|| <= w``);
* general conic, ``Z = {zeta : P vec(zeta) + r in K}`` with ``K`` a product of
  non-negative orthants and Lorentz cones: by conic duality the constraint
  ``min_{zeta in Z} (c-hat_j + zeta_j o delta_j)^T p >= v`` holds iff some
  ``eta_j`` satisfies the dual counterpart

      c-hat_j^T p - v - r^T eta_j >= 0,   P^T eta_j = A_j^T p,   eta_j in K,

  where ``A_j vec(zeta) = zeta_j o delta_j`` (the thesis's derivation, with
  ``1`` in place of ``v`` in its form).  ``vec`` stacks the columns of
  ``zeta`` (index ``(i, j) -> j m + i``).  A :class:`ConicUncertainty` is a
  product of such sets over disjoint groups of entries (the whole matrix, each
  column or each row), so constraint ``k`` only gets multipliers for the
  groups it touches.  :func:`interval_set` and :func:`ellipsoidal_set` build
  the ``P, r, K`` of the first two sets, so either can be solved both ways.

Lorentz cones follow gamelp's convention: rows ``(t, s)`` with ``t >= ||s||_2``.
Each result carries the strategy's guaranteed value (the worst case over the
set), computed apart from the robust LP: in closed form for interval and
ellipsoidal sets, by solving the inner minimisation for a conic set.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from gamelp.backends import DEFAULT_BACKEND
from gamelp.display import Raw, Summarised, frame, result_summary, shape_text
from gamelp.errors import ModelError, SolveError
from gamelp.matrix import MatrixGame
from gamelp.model import Model
from gamelp.models.nash import MATRIX_FORMS, PLAYERS, STRATEGY_BLOCK, VALUE_BLOCK, opponent_of, player_labels
from gamelp.solution import INFEASIBLE, INFEASIBLE_OR_UNBOUNDED, UNBOUNDED, Solution

KINDS = ("interval", "ellipsoidal", "conic")
CONE_KINDS = ("orthant", "lorentz")
SCOPES = ("matrix", "column", "row")


# ----------------------------------------------------------------------------- uncertainty sets
@dataclass(frozen=True, repr=False)
class UncertaintyBlock(Summarised):
    """``P zeta[entries] + r in K`` for one group of entries of ``vec(zeta)``.

    ``cones`` splits the rows of ``P`` into consecutive pieces, each
    ``("orthant", size)`` or ``("lorentz", size)``.
    """

    entries: np.ndarray
    P: sp.csr_matrix
    r: np.ndarray
    cones: tuple[tuple[str, int], ...]

    def _summary(self) -> dict:
        kinds = sorted({kind for kind, _ in self.cones})
        return {"entries": self.entries.size, "rows": self.r.size, "cones": Raw(f"{len(self.cones)} {'/'.join(kinds)}")}


@dataclass(frozen=True, repr=False)
class ConicUncertainty(Summarised):
    """``{zeta : P_b zeta[entries_b] + r_b in K_b for every block b}`` over an ``m x n`` matrix ``zeta``.

    Entries in no block are fixed at zero (certain payoffs).
    """

    shape: tuple[int, int]
    blocks: tuple[UncertaintyBlock, ...]
    description: str = "conic"

    def _summary(self) -> dict:
        return {
            "description": self.description,
            "shape": Raw(shape_text(self.shape)),
            "blocks": len(self.blocks),
            "entries": sum(block.entries.size for block in self.blocks),
        }

    def __post_init__(self):
        size = self.shape[0] * self.shape[1]
        seen = np.zeros(size, dtype=bool)
        for b, block in enumerate(self.blocks):
            entries = np.asarray(block.entries)
            if entries.size and (entries.min() < 0 or entries.max() >= size):
                raise ModelError(f"uncertainty block {b}: entries outside vec(zeta) of size {size}")
            if seen[entries].any():
                raise ModelError(f"uncertainty block {b}: entries overlap an earlier block")
            seen[entries] = True
            if block.P.shape != (block.r.size, entries.size):
                raise ModelError(
                    f"uncertainty block {b}: P has shape {block.P.shape}, expected ({block.r.size}, {entries.size})"
                )
            if sum(size for _, size in block.cones) != block.r.size:
                raise ModelError(
                    f"uncertainty block {b}: the cones cover "
                    f"{sum(size for _, size in block.cones)} rows, P has {block.r.size}"
                )
            for kind, size_ in block.cones:
                if kind not in CONE_KINDS or size_ < 1:
                    raise ModelError(f"uncertainty block {b}: bad cone ({kind!r}, {size_})")


def conic_set(shape: tuple[int, int], P, r, cones) -> ConicUncertainty:
    """The thesis's general set ``{zeta : P vec(zeta) + r in K}`` (one block over the whole matrix)."""
    m, n = shape
    P = sp.csr_matrix(P, dtype=float)
    block = UncertaintyBlock(
        np.arange(m * n), P, np.asarray(r, dtype=float).ravel(), tuple((kind, int(size)) for kind, size in cones)
    )
    return ConicUncertainty((m, n), (block,), "conic")


def _groups(shape: tuple[int, int], scope: str) -> list[np.ndarray]:
    m, n = shape
    index = np.arange(m * n).reshape(n, m).T  # index[i, j] = j m + i
    if scope == "matrix":
        return [index.T.ravel()]
    if scope == "column":
        return [index[:, j] for j in range(n)]
    if scope == "row":
        return [index[i, :] for i in range(m)]
    raise ModelError(f"scope must be one of {SCOPES}, got {scope!r}")


def interval_set(shape: tuple[int, int], radius: float, scope: str = "column") -> ConicUncertainty:
    """``|zeta_ij| <= R`` as ``[I; -I] zeta + R e >= 0`` (the same set for every scope)."""
    blocks = []
    for entries in _groups(shape, scope):
        s = entries.size
        P = sp.vstack([sp.identity(s), -sp.identity(s)], format="csr")
        blocks.append(UncertaintyBlock(entries, P, np.full(2 * s, float(radius)), (("orthant", 2 * s),)))
    return ConicUncertainty((shape[0], shape[1]), tuple(blocks), f"interval R={radius:g} ({scope})")


def ellipsoidal_set(shape: tuple[int, int], radius: float, scope: str = "matrix") -> ConicUncertainty:
    """``||zeta_group||_2 <= R`` per group as ``(R, zeta) in Lorentz``; ``matrix`` is the thesis's set.

    For the row player ``matrix`` and ``column`` give the same robust LP (each
    constraint sees one column), for the column player ``matrix`` and ``row``.
    """
    blocks = []
    for entries in _groups(shape, scope):
        s = entries.size
        P = sp.vstack([sp.csr_matrix((1, s)), sp.identity(s)], format="csr")
        r = np.zeros(s + 1)
        r[0] = radius
        blocks.append(UncertaintyBlock(entries, P, r, (("lorentz", s + 1),)))
    return ConicUncertainty((shape[0], shape[1]), tuple(blocks), f"ellipsoidal R={radius:g} ({scope})")


# ----------------------------------------------------------------------------- the robust LPs
@dataclass(frozen=True)  # pragma: no mutate: never assigned to
class _Rows:
    """The player's constraints as ``a_k^T z + sign * sum_l delta_kl zeta[vec_kl] z_l  >=  t_k``."""

    nominal: np.ndarray  # K x |z|, rows a_k
    delta: np.ndarray  # K x |z|
    vec_index: np.ndarray  # K x |z|, position in vec(zeta) of the entry multiplying z_l in row k
    sign: float


def _rows(game: MatrixGame, player: str) -> _Rows:
    m, n = game.shape
    index = np.arange(m * n).reshape(n, m).T
    if game.std is None:
        raise ModelError("robust LPs need the payoffs' standard deviations (MatrixGame std, e.g. --std FILE)")
    if player == "row":
        return _Rows(game.payoffs.T, game.std.T, index.T, 1.0)
    return _Rows(-game.payoffs, game.std, index, -1.0)


def _base_model(game: MatrixGame, player: str, form: str, name: str):
    """Strategy block, the value term of each robust row and the objective, per player and form."""
    if player not in PLAYERS:
        raise ModelError(f"player must be one of {PLAYERS}, got {player!r}")
    if form not in MATRIX_FORMS:
        raise ModelError(f"form must be one of {MATRIX_FORMS}, got {form!r}")
    labels = player_labels(game, player)
    model = Model(f"robust_{name}_{form}_{player}")
    size = len(labels)
    if form == "general":
        z = model.add_variables(STRATEGY_BLOCK, size, lb=0.0, labels=labels)
        value = model.add_variables(VALUE_BLOCK, 1, lb=-np.inf, labels=("value",))
        model.add_constraints("simplex", {z: np.ones((1, size))}, "==", 1.0)
        model.set_objective({value: [1.0]}, sense="max" if player == "row" else "min")
        # t_k = v (row) or -v (column): moved to the left-hand side as -v or +v.
        terms = {value: np.full((_num_rows(game, player), 1), -1.0 if player == "row" else 1.0)}
        return model, z, terms, 0.0
    z = model.add_variables(STRATEGY_BLOCK, size, lb=0.0, labels=labels)
    model.set_objective({z: np.ones(size)}, sense="min" if player == "row" else "max")
    return model, z, {}, 1.0 if player == "row" else -1.0


def _num_rows(game: MatrixGame, player: str) -> int:
    return game.shape[1] if player == "row" else game.shape[0]


def robust_lp(
    game: MatrixGame,
    kind: str,
    radius: float = 0.0,
    *,
    player: str = "row",
    form: str = "general",
    uncertainty: ConicUncertainty | None = None,
) -> Model:
    """The robust Nash LP of ``player``: ``kind`` is interval / ellipsoidal (radius) or conic (uncertainty)."""
    if kind not in KINDS:
        raise ModelError(f"robust kind must be one of {KINDS}, got {kind!r}")
    if kind == "conic":
        _conic_set(uncertainty)  # refuses a missing set before anything is built
    if kind != "conic" and not radius >= 0:
        raise ModelError(f"the radius must be non-negative, got {radius}")
    rows = _rows(game, player)
    model, z, terms, rhs = _base_model(game, player, form, kind)
    if kind == "interval":
        opponent = player_labels(game, opponent_of(player))  # a robust row per opponent's action
        model.add_constraints("robust", {z: rows.nominal - radius * rows.delta, **terms}, ">=", rhs, labels=opponent)
    elif kind == "ellipsoidal":
        _add_ellipsoidal(model, z, terms, rhs, rows, radius)
    else:
        _add_dual_counterpart(model, z, terms, rhs, rows, _conic_set(uncertainty), game.shape)
    return model


def _conic_set(uncertainty: ConicUncertainty | None) -> ConicUncertainty:
    """The uncertainty set a conic robust LP or guarantee needs."""
    if uncertainty is None:
        raise ModelError("the conic robust LP needs an uncertainty set (see interval_set, ellipsoidal_set, conic_set)")
    return uncertainty


def _add_ellipsoidal(model: Model, z, terms: dict, rhs: float, rows: _Rows, radius: float) -> None:
    """One cone per robust row: ``(a_k^T z - t_k,  R delta_k o z)`` in the Lorentz cone."""
    for k in range(rows.nominal.shape[0]):
        uncertain = np.flatnonzero(rows.delta[k])
        head = {z: rows.nominal[k][None, :]}
        head.update({block: coeffs[k][None, :] for block, coeffs in terms.items()})
        scale = sp.csr_matrix(
            (radius * rows.delta[k, uncertain], (np.arange(uncertain.size), uncertain)), shape=(uncertain.size, z.size)
        )
        matrix = {
            block: sp.vstack([sp.csr_matrix(coeffs), sp.csr_matrix((uncertain.size, block.size))])
            for block, coeffs in head.items()
        }
        matrix[z] = sp.vstack([sp.csr_matrix(head[z]), scale], format="csr")
        model.add_cone(f"robust_{k}", matrix, np.concatenate([[-rhs], np.zeros(uncertain.size)]))


def _touched(uncertainty: ConicUncertainty, rows: _Rows) -> list[list[tuple[int, np.ndarray, np.ndarray]]]:
    """For each robust row k: (block, positions within the block, variable l) of the entries it sees."""
    owner = np.full(uncertainty.shape[0] * uncertainty.shape[1], -1)
    position = np.zeros_like(owner)
    for b, block in enumerate(uncertainty.blocks):
        owner[block.entries] = b
        position[block.entries] = np.arange(block.entries.size)
    touched = []
    for k in range(rows.nominal.shape[0]):
        variables = np.flatnonzero((rows.delta[k] != 0) & (owner[rows.vec_index[k]] >= 0))
        blocks = owner[rows.vec_index[k, variables]]
        touched.append(
            [
                (int(b), position[rows.vec_index[k, variables[blocks == b]]], variables[blocks == b])
                for b in np.unique(blocks)
            ]
        )
    return touched


def _add_dual_counterpart(
    model: Model, z, terms: dict, rhs: float, rows: _Rows, uncertainty: ConicUncertainty, shape: tuple[int, int]
) -> None:
    """``a_k^T z - t_k - sum_b r_b^T eta_kb >= 0``,  ``P_b^T eta_kb = sign * (delta o z)`` on block b."""
    if uncertainty.shape != tuple(shape):
        raise ModelError(f"the uncertainty set is for a {uncertainty.shape} matrix, the game is {shape}")
    touched = _touched(uncertainty, rows)
    pieces = [(k, b, pos, var) for k, items in enumerate(touched) for b, pos, var in items]
    sizes = [uncertainty.blocks[b].r.size for _, b, _, _ in pieces]
    offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(int)
    if not pieces:  # no row sees an uncertain entry: the nominal constraints
        model.add_constraints("robust", {z: rows.nominal, **terms}, ">=", rhs)
        return
    lower = np.concatenate([_cone_lower(uncertainty.blocks[b]) for _, b, _, _ in pieces])
    eta = model.add_variables("eta", int(offsets[-1]), lb=lower)
    K = rows.nominal.shape[0]
    r_rows, r_cols, r_vals = [], [], []
    eq_eta, eq_z, eq_count = [], [], 0
    for piece, (k, b, pos, var) in enumerate(pieces):
        block = uncertainty.blocks[b]
        cols = np.arange(offsets[piece], offsets[piece + 1])
        r_rows.append(np.full(cols.size, k))
        r_cols.append(cols)
        r_vals.append(block.r)
        PT = block.P.T.tocoo()
        eq_eta.append((PT.row + eq_count, cols[PT.col], PT.data))
        eq_z.append((pos + eq_count, var, -rows.sign * rows.delta[k, var]))
        eq_count += block.entries.size
        for start, (kind, size) in zip(np.cumsum([0] + [s for _, s in block.cones]), block.cones):
            if kind == "lorentz":
                picks = sp.csr_matrix(
                    (np.ones(size), (np.arange(size), cols[start : start + size])), shape=(size, eta.size)
                )
                model.add_cone(f"eta_{k}_{b}_{start}", {eta: picks})
    robust = {z: rows.nominal, **terms}
    robust[eta] = -sp.csr_matrix(
        (np.concatenate(r_vals), (np.concatenate(r_rows), np.concatenate(r_cols))), shape=(K, eta.size)
    )
    join = lambda parts, shape: sp.csr_matrix(  # noqa: E731 - a local COO assembler
        (
            np.concatenate([p[2] for p in parts]),
            (np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])),
        ),
        shape=shape,
    )
    model.add_constraints(
        "counterpart", {eta: join(eq_eta, (eq_count, eta.size)), z: join(eq_z, (eq_count, z.size))}, "==", 0.0
    )
    model.add_constraints("robust", robust, ">=", rhs)


def _cone_lower(block: UncertaintyBlock) -> np.ndarray:
    return np.concatenate([np.full(size, 0.0 if kind == "orthant" else -np.inf) for kind, size in block.cones])


# ----------------------------------------------------------------------------- guarantees
def worst_case_value(
    game: MatrixGame,
    strategy: np.ndarray,
    kind: str,
    radius: float = 0.0,
    *,
    player: str = "row",
    uncertainty: ConicUncertainty | None = None,
    backend: str = DEFAULT_BACKEND,
) -> float:
    """The payoff ``strategy`` guarantees for ``player`` against every matrix of the set and every reply.

    Interval: ``min_j ((C - R Delta)^T p)_j`` (``max_i ((C + R Delta) q)_i``
    for the column player); ellipsoidal: ``min_j c_j^T p - R ||delta_j o p||``;
    conic: the inner minimisation over the set, solved on ``backend`` (``auto``, as every model function:
    HiGHS for a set of orthant pieces, an LP; Clarabel for one with Lorentz cones).
    """
    rows = _rows(game, player)
    z = np.asarray(strategy, dtype=float)
    nominal = rows.nominal @ z
    if kind == "interval":
        worst = nominal - radius * rows.delta @ z
    elif kind == "ellipsoidal":
        worst = nominal - radius * np.linalg.norm(rows.delta * z[None, :], axis=1)
    elif kind == "conic":
        worst = nominal + _inner_minima(rows, z, _conic_set(uncertainty), backend)
    else:
        raise ModelError(f"robust kind must be one of {KINDS}, got {kind!r}")
    return float(worst.min()) if player == "row" else float(-worst.min())


def _inner_minima(rows: _Rows, z: np.ndarray, uncertainty: ConicUncertainty, backend: str) -> np.ndarray:
    """``min_{zeta in Z} sign * sum_l delta_kl zeta[vec_kl] z_l`` for every row k (one separable model)."""
    touched = _touched(uncertainty, rows)
    model = Model("robust_worst_case")
    objective_parts = []
    for k, items in enumerate(touched):
        for b, pos, var in items:
            block = uncertainty.blocks[b]
            sigma = model.add_variables(f"sigma_{k}_{b}", block.entries.size, lb=-np.inf)
            coeffs = np.zeros(block.entries.size)
            coeffs[pos] = rows.sign * rows.delta[k, var] * z[var]
            objective_parts.append((k, sigma, coeffs))
            start = 0
            for kind, size in block.cones:
                piece = block.P[start : start + size]
                if kind == "orthant":
                    model.add_constraints(f"set_{k}_{b}_{start}", {sigma: piece}, ">=", -block.r[start : start + size])
                else:
                    model.add_cone(f"set_{k}_{b}_{start}", {sigma: piece}, block.r[start : start + size])
                start += size
    minima = np.zeros(rows.nominal.shape[0])
    if not objective_parts:
        return minima
    model.set_objective({sigma: coeffs for _, sigma, coeffs in objective_parts}, sense="min")
    solution = model.solve(backend)
    if not solution.optimal:
        raise SolveError(
            f"worst case over the uncertainty set on {backend}: {solution.status} (is the set bounded and non-empty?)"
        )
    for k, sigma, coeffs in objective_parts:
        minima[k] += coeffs @ solution.values[sigma.name]
    return minima


# ----------------------------------------------------------------------------- solving
@dataclass(repr=False)
class RobustResult(Summarised):
    """A solved robust LP: the value it certifies, the strategy and its independently computed guarantee.

    Values are in the row player's payoff (the column player's is what it
    concedes at most).  ``nominal_value`` is the strategy's guarantee on
    ``C-hat`` itself.
    """

    game: MatrixGame
    player: str
    form: str
    kind: str
    radius: float
    value: float
    strategy: np.ndarray
    guaranteed_value: float
    nominal_value: float
    solution: Solution
    model: Model
    uncertainty: ConicUncertainty | None = None

    @property
    def labels(self) -> tuple[str, ...]:
        """The solved player's action labels."""
        return player_labels(self.game, self.player)

    def strategy_dict(self) -> dict[str, float]:
        """Label -> probability, zeros included."""
        return dict(zip(self.labels, self.strategy.tolist()))

    def _summary(self) -> dict:
        return {
            **result_summary(
                self,
                None,
                game=Raw(shape_text(self.game.shape)),
                player=self.player,
                robust=self.kind,
                radius=self.radius,
            ),
            "guaranteed_value": self.guaranteed_value,
            "nominal_value": self.nominal_value,
        }

    def _entries(self):
        return f"{self.player} strategy", self.strategy_dict().items()

    def to_frame(self):
        """The strategy by label as a pandas DataFrame: action, probability."""
        return frame({"action": self.labels, "probability": self.strategy}, "a strategy table")

    def to_dict(self) -> dict:
        """JSON-ready summary: value, status, backend, player, form, the uncertainty set and the strategy."""
        return {
            "value": self.value,
            "status": self.solution.status,
            "backend": self.solution.backend,
            "solver_version": self.solution.solver_version,
            "player": self.player,
            "form": self.form,
            "robust": self.kind,
            "radius": self.radius,
            "guaranteed_value": self.guaranteed_value,
            "nominal_value": self.nominal_value,
            "strategy": self.strategy_dict(),
        }


def solve_robust(
    game: MatrixGame,
    kind: str,
    radius: float = 0.0,
    *,
    player: str = "row",
    form: str = "general",
    uncertainty: ConicUncertainty | None = None,
    backend: str = DEFAULT_BACKEND,
    guarantee_backend: str = DEFAULT_BACKEND,
    **options,
) -> RobustResult:
    """Solve the robust LP and check the strategy's worst case apart from it (conic sets on ``guarantee_backend``)."""
    model = robust_lp(game, kind, radius, player=player, form=form, uncertainty=uncertainty)
    solution = model.solve(backend, **options)
    if not solution.optimal:
        if form == "thesis" and solution.status in (INFEASIBLE, UNBOUNDED, INFEASIBLE_OR_UNBOUNDED):
            raise SolveError(
                f"{model.name} on {backend}: the LP is {solution.status}: the robust value is not "
                "positive, which the thesis form needs; use form='general'"
            )
        raise SolveError(f"{model.name} on {backend}: no optimum ({solution.status})")
    raw = np.clip(solution.values[STRATEGY_BLOCK], 0.0, None)  # a feasible point's z sums to 1 or covers every row
    strategy = raw / raw.sum()
    value = float(solution.objective) if form == "general" else 1.0 / float(solution.objective)
    guaranteed = worst_case_value(
        game, strategy, kind, radius, player=player, uncertainty=uncertainty, backend=guarantee_backend
    )
    nominal = worst_case_value(game, strategy, "interval", 0.0, player=player)
    return RobustResult(
        game, player, form, kind, float(radius), value, strategy, guaranteed, nominal, solution, model, uncertainty
    )
