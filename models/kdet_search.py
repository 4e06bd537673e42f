"""The k-determinism sweep by a branch-and-bound over decision points on one persistent HiGHS LP.

``P_p(k)`` (the homework's k-determinism problem; :mod:`gamelp.models.determinism`)
asks for the best strategy of player ``p`` that plays one action whenever it
reaches at least ``k`` of its decision points.  Its big-M MIP relaxes to the
Nash LP at every ``k`` (the convex hull of the strategies with ``k`` pure
points is the whole strategy polytope), so a generic MIP solver proves its
bounds only by branching.  This module branches on the decision points
themselves and bounds with facts about ``P(k)``:

* **Faces.**  "``j`` plays ``a`` whenever reached" is ``x[jb] = 0`` for every
  other action ``b`` (the polytope row of ``j`` then gives ``x[ja] = x[p_j]``):
  column upper bounds only.  One ``highspy.Highs`` holds the Nash LP; a node
  changes the bounds of the columns that differ from the last node and
  re-solves by dual simplex from its parent's basis.
* **Branching.**  A node fixes some points' actions and designates some points
  as *mixing* (not counted).  At most ``capacity = |J| - k - #mixing`` more
  points may mix.  Its LP optimum ``x`` that is deterministic at ``k`` points
  or more (unreached points count) solves the node.  Otherwise a point ``j``
  mixed in ``x`` splits the node into "``j`` plays ``a``" for each action and
  "``j`` mixes" (``capacity - 1``; same LP).
* **Forcing.**  Let ``phi[j]`` be the node LP with ``j`` also pure (best
  action).  A point with ``phi[j]`` at or below the cutoff cannot be pure in any
  improving strategy below the node: it is designated mixing without a branch,
  and a node with more such points than its capacity is pruned.  Children only
  add fixings, so ``phi`` only falls down the tree and the designation is
  inherited.
* **The top end.**  ``P(|J|)`` is the deterministic ILP; HiGHS solves it
  directly (:meth:`KdetSearch.solve_top`), which gives its exact value and
  an incumbent for every ``k``.
* **Across k.**  ``V(k)`` is non-increasing: every strategy found is an
  incumbent for every ``k`` up to its determinism, and a bound proved at ``k``
  holds for every larger ``k``.  ``P(k)`` is searched only to the cutoff
  ``incumbent + tolerance`` (relative ``rel_gap``, absolute ``abs_gap``), so a
  search proves "within the gap", not the exact optimum, unless the gaps are 0.

A search stopped by its time limit reports the largest bound of its open
nodes.  Every point of the sweep carries the strategy that attains its value,
so the value and the determinism can be checked without a solver.

:func:`sweep_kdet` is the one place that chooses between this search and the
MIP sweep (:func:`gamelp.models.determinism.k_sweep`) for a caller: the
``gamelp kdet --sweep`` command and the scripts call it with a method name.
"""

from __future__ import annotations

import heapq
import itertools
import time
from dataclasses import dataclass
from typing import Any, cast

import highspy
import numpy as np

from gamelp.backends import DEFAULT_BACKEND
from gamelp.backends import get as get_backend
from gamelp.backends.highs import _highs_lp, new_highs
from gamelp.errors import ModelError, SolveError
from gamelp.game import SequenceFormGame
from gamelp.models.determinism import DETERMINISM_TOL, KSweep, SweepPoint, k_sweep
from gamelp.models.kdet_envelope import lagrangian_envelope
from gamelp.models.nash import sequence_form_lp
from gamelp.units import normalised

UNDECIDED = -1
MIXING = -2  # pragma: no mutate: equal to UNDECIDED it only slows the search (no forced designations)


def mixed_points(own, x: np.ndarray, tol: float = DETERMINISM_TOL) -> np.ndarray:
    """Boolean mask of the decision points where ``x`` mixes (no action carries the whole reach)."""
    best = np.maximum.reduceat(x, own.starts)
    return best < x[own.parents] - tol


class FaceLP:
    """The Nash LP of one player in one persistent HiGHS model; faces are set by column upper bounds.

    ``choice[j]`` >= 0 restricts decision point ``j`` to that action; any
    other entry leaves ``j`` free.  ``solve`` re-solves from ``basis`` (dual
    simplex warm start) and returns ``(value, x, basis)``, or ``None`` when
    the face is infeasible (it never is: every face holds a pure strategy).
    """

    def __init__(self, game: SequenceFormGame, player: int):
        self.own = game.player(player)
        model = sequence_form_lp(game, player)
        self.highs = new_highs()
        if self.highs.passModel(_highs_lp(model.matrix_form())) != highspy.HighsStatus.kOk:
            raise SolveError(f"{model.name}: HiGHS refused the model")
        self.first_x = model.variables["x"].slice.start  # 0 today: x is the model's first block
        self.upper = np.full(self.own.num_sequences, np.inf)
        self.solves = 0

    def upper_bounds(self, choice: np.ndarray) -> np.ndarray:
        """Column upper bounds for the face ``choice``: the other actions of a fixed decision point are bounded at 0."""
        own = self.own
        upper = np.full(own.num_sequences, np.inf)
        fixed = np.flatnonzero(choice >= 0)
        if fixed.size:
            upper[1:][np.isin(own.decision_point_of[1:], fixed)] = 0.0
            upper[own.starts[fixed] + choice[fixed]] = np.inf
        return upper

    def solve(self, choice: np.ndarray, basis=None):
        """The LP on the face ``choice``, warm-started from ``basis``: ``(value, x, basis)``, or None if not optimal."""
        upper = self.upper_bounds(choice)
        changed = np.flatnonzero(upper != self.upper)
        if changed.size:
            self.highs.changeColsBounds(
                changed.size,
                (changed + self.first_x).astype(np.int32),  # pragma: no mutate: first_x is 0 while x comes first
                np.zeros(changed.size),
                upper[changed],
            )
            self.upper = upper
        if basis is not None:
            self.highs.setBasis(basis)
        self.highs.run()
        self.solves += 1
        if self.highs.getModelStatus() != highspy.HighsModelStatus.kOptimal:
            return None
        x = np.asarray(self.highs.getSolution().col_value)[self.first_x : self.first_x + self.own.num_sequences]
        x = np.clip(x, 0.0, None)
        x[0] = 1.0
        return self.highs.getInfo().objective_function_value, x, self.highs.getBasis()


@dataclass
class _Node:
    choice: np.ndarray  # per decision point: action index, UNDECIDED or MIXING
    basis: object  # the parent's optimal basis (None at the root)
    bound: float  # upper bound on the node's value, known before solving it
    hint: np.ndarray  # per point, an upper bound on the LP with it pure: tests the likely forced points first
    same_lp: tuple | None = None  # a "mixes" child: the parent's LP result and forcing trials, still exact


class KdetSearch:
    """Incumbents for every ``k`` and the search that proves ``P(k)`` within the gap (module docstring)."""

    def __init__(self, game: SequenceFormGame, player: int, *, rel_gap: float = 0.01, abs_gap: float = 1e-4):
        self.game, self.player = game, player
        self.own = game.player(player)
        self.total = self.own.num_decision_points
        self.lp = FaceLP(game, player)
        self.rel_gap, self.abs_gap = rel_gap, abs_gap
        self.value = np.full(self.total + 1, -np.inf)  # best value found with determinism >= k
        self.strategy: list[np.ndarray | None] = [None] * self.value.size
        self.nodes = 0

    def tolerance(self, value: float) -> float:
        """The gap allowed at ``value``: the larger of the relative and the absolute gap."""
        return max(self.rel_gap * abs(value), self.abs_gap)

    def cutoff(self, k: int) -> float:
        """Nodes of ``P(k)`` bounded at or below this cannot improve the incumbent beyond the gap."""
        return self.value[k] + self.tolerance(self.value[k])

    def offer(self, value: float, x: np.ndarray) -> None:
        """A strategy: an incumbent for every k up to its determinism."""
        reached = self.total - int(mixed_points(self.own, x).sum())
        better = np.flatnonzero(self.value[: reached + 1] < value)
        for k in better:
            self.value[k] = value
            self.strategy[k] = x

    def _solve(self, choice, basis):
        result = self.lp.solve(choice, basis)
        if result is None:
            raise SolveError(
                f"{self.game.name} player {self.player}: a face LP of the k-determinism search "
                f"has no optimum ({self.lp.highs.getModelStatus()})"
            )
        self.offer(result[0], result[1])
        return result

    def solve_root(self) -> float:
        """The Nash LP (its value bounds ``V(k)`` for every ``k``), then a greedy dive to a pure strategy.

        The dive makes one more point pure per step, the point and action
        whose LP keeps the most value; every step's strategy is an incumbent
        for every ``k`` up to its determinism.  The LP values of earlier steps
        bound those of later ones (fixings only lower them), so candidates are
        re-solved best stale value first and a step stops at the first
        candidate whose fresh value beats every stale one (lazy greedy).
        """
        own = self.own
        choice = np.full(self.total, UNDECIDED)
        nash_value, x, basis = self._solve(choice, None)
        stale = np.full(own.num_sequences, np.inf)  # per sequence ja: bound on the LP with j playing a
        mixed = mixed_points(own, x)
        while mixed.any():
            sequences = np.flatnonzero(np.isin(own.decision_point_of, np.flatnonzero(mixed & (choice == UNDECIDED))))
            best_value, best = -np.inf, None  # best: (choice, LP result) of the best candidate
            for s in sequences[np.argsort(-stale[sequences], kind="stable")]:
                if stale[s] <= best_value:
                    break
                trial = choice.copy()
                trial[own.decision_point_of[s]] = s - own.starts[own.decision_point_of[s]]
                result = self._solve(trial, basis)
                stale[s] = result[0]
                if result[0] > best_value:
                    best_value, best = result[0], (trial, result)
            if best is None:  # a mixed point has candidates, and the first one's finite LP value beats -inf
                raise SolveError(f"{self.game.name} player {self.player}: the greedy dive found no candidate")
            choice, (_, x, basis) = best
            mixed = mixed_points(own, x)
        return nash_value

    def solve_top(self, time_limit: float | None = None) -> float:
        """``P(|J|)`` exactly: the deterministic ILP on HiGHS, whose cuts on binary ``x`` close it fast.

        The search alone bounds ``P(|J|)`` poorly (on Leduc the forcing bound
        stays near the LP value while the optimum is far below), but every
        strategy of ``P(|J|)`` is a 0/1 vector, the case HiGHS's cutting planes
        handle.  Its strategy is re-solved as a face LP (one action per point)
        and offered as an incumbent; returns HiGHS's proved bound (infinity if
        ``time_limit`` stopped it before any strategy).
        """
        from gamelp.models.determinism import solve_deterministic

        try:
            top = solve_deterministic(self.game, self.player, "highs", mip_gap=self.rel_gap, time_limit=time_limit)
        except SolveError:
            return np.inf
        self.polish(top.strategy)
        bound = cast(float, top.solution.objective_bound)  # HiGHS always reports its dual bound (+inf before one)
        return max(bound, top.value)

    def polish(self, x: np.ndarray) -> None:
        """Re-solve the face of ``x`` (its pure points fixed to their actions) and offer the optimum."""
        choice = np.array([int(np.argmax(x[start:end])) for start, end in zip(self.own.starts, self.own.ends)])
        choice[mixed_points(self.own, x)] = UNDECIDED
        self._solve(choice, None)

    def prove(self, k: int, deadline: float = np.inf, clock=time.perf_counter) -> float:
        """Search ``P(k)`` best bound first until every node is below the cutoff; returns the proved bound.

        Best first, the largest open bound falls as the search runs (depth
        first, a sibling of the root's children stays open at the LP value
        until the end).  Ties go to the node with more points decided.

        Once ``clock()`` passes ``deadline`` the search stops and returns the
        largest bound among the nodes still open.
        """
        order = itertools.count()
        heap: list[tuple[float, int, int, _Node]] = []  # (-bound, -points decided, insertion order, node)

        def push(children):
            for child in children:
                decided = int((child.choice != UNDECIDED).sum())
                heapq.heappush(heap, (-child.bound, -decided, next(order), child))

        push([_Node(np.full(self.total, UNDECIDED), None, np.inf, np.full(self.total, np.inf))])
        while heap:
            if clock() > deadline:
                return max(self.cutoff(k), -heap[0][0])
            node = heapq.heappop(heap)[-1]
            if node.bound <= self.cutoff(k):
                continue
            self.nodes += 1
            if node.same_lp:
                push(self._branch(k, node, *node.same_lp))
                continue
            value, x, basis = self._solve(node.choice, node.basis)
            mixed = mixed_points(self.own, x)
            if value <= self.cutoff(k):
                continue  # pruned; an x feasible for P(k) solves it: offered above, it lifted the cutoff past value
            node.bound = value
            push(self._branch(k, node, value, basis, self._forcing(k, node, mixed, basis)))
        return self.cutoff(k)

    def _forcing(self, k: int, node: _Node, mixed: np.ndarray, basis) -> dict | None:
        """Test the mixed undecided points, likely forced ones first; designate the forced ones as mixing.

        Returns point -> [(LP value with the point playing a, a), ...] for the
        points that may stay pure (a test stops at the first action above the
        cutoff), or None when the forced points exceed the node's capacity.
        """
        own, choice = self.own, node.choice
        capacity = self.total - k - int((choice == MIXING).sum())
        candidates = np.flatnonzero(mixed & (choice == UNDECIDED))
        forcing = {}
        for j in candidates[np.argsort(node.hint[candidates], kind="stable")]:
            trials = []
            for a in range(own.ends[j] - own.starts[j]):
                trial = choice.copy()
                trial[j] = a
                value = self._solve(trial, basis)[0]
                trials.append((value, a))
                if value > self.cutoff(k):
                    break  # j can stay pure in an improving strategy: not forced
            node.hint[j] = max(trials)[0]
            if node.hint[j] <= self.cutoff(k):
                choice[j] = MIXING
                capacity -= 1
                if capacity < 0:
                    return None
            else:
                forcing[j] = trials
        return forcing

    def _branch(self, k: int, node: _Node, value: float, basis, forcing: dict | None) -> list[_Node]:
        """Split on the undecided point whose best pure action costs most: "plays a" for each a, "mixes".

        Each child carries its bound: the exact LP value of its face where a
        forcing trial computed it, else the parent's value.  The
        "mixes" child keeps this LP, so it reuses the forcing trials.
        """
        if not forcing:
            return []
        own, choice = self.own, node.choice
        capacity = self.total - k - int((choice == MIXING).sum())
        point = min(forcing, key=lambda j: max(forcing[j])[0])
        tried = {a: bound for bound, a in forcing[point]}
        children = []
        if capacity >= 1:
            mixing = choice.copy()
            mixing[point] = MIXING
            rest = {j: trials for j, trials in forcing.items() if j != point}
            children.append(_Node(mixing, basis, value, node.hint.copy(), (value, basis, rest)))
        actions = sorted(range(own.ends[point] - own.starts[point]), key=lambda a: tried.get(a, value))
        for a in actions:
            pure = choice.copy()
            pure[point] = a
            children.append(_Node(pure, basis, tried.get(a, value), node.hint.copy()))
        return children


def search_sweep(
    game: SequenceFormGame,
    player: int = 1,
    *,
    rel_gap: float = 0.01,
    abs_gap: float = 1e-4,
    time_limit: float | None = None,
    patience: int | None = None,
    envelope: float | None = None,
    clock=time.perf_counter,
    progress=None,
) -> KSweep:
    """``V(k)`` for ``k = 0..|J|`` within the gap, by :class:`KdetSearch`; ``time_limit`` is per ``k``.

    ``time_limit`` is measured on ``clock`` (wall time by default; pass
    ``time.process_time`` for CPU time, which a loaded machine does not stretch).
    ``k`` runs upwards; each ``P(k)`` is searched only if no bound proved at a
    smaller ``k`` already puts it within the gap.  With ``patience``, searching
    stops after that many searches in a row ended at the time limit without
    lowering the bound carried from ``k - 1`` (a larger ``k`` is harder, so its
    search would most likely end the same way); the remaining ``k`` keep the
    carried bound.  ``progress`` (optional) is called with ``(k_done, k_total)``.
    With ``envelope`` (seconds per Lagrangian MIP), :func:`gamelp.models.kdet_envelope.lagrangian_envelope`
    runs first: its strategies are offered as incumbents and its bound caps every ``k``.

    The search runs on the payoffs divided by their range (:func:`gamelp.units.normalised`): its HiGHS
    model never sees a coefficient HiGHS would drop, ``abs_gap`` is relative to the payoff range, and
    values and bounds are multiplied back, so the curve does not depend on the payoffs' units.

    The points' flags are :class:`~gamelp.models.determinism.SweepPoint`'s, as in the MIP sweep: ``k = 0``
    is solved by the Nash LP (its seconds include the greedy dive, whose strategies serve every ``k``),
    ``k = |J|`` by the deterministic ILP (and a search if its bound is not within the gap), any other ``k``
    by a search, where the bound carried from ``k - 1`` is not already within the gap.
    """
    began = time.perf_counter()
    game, unit = normalised(game)
    search = KdetSearch(game, player, rel_gap=rel_gap, abs_gap=abs_gap)
    total = search.total
    ks = range(total + 1)
    bound = np.full(len(ks), np.inf)
    searched = np.zeros(len(ks), dtype=bool)
    spent = np.zeros(len(ks))  # seconds solving at each k
    source: list[int | None] = [None] * len(ks)  # the k whose solve proved bound[k] (None: the envelope)
    started = time.perf_counter()
    nash_value = search.solve_root()  # P(0) exactly; bounds every k
    spent[0] = time.perf_counter() - started
    started = time.perf_counter()
    top_bound = search.solve_top(time_limit)  # bounds k = total only
    spent[total] = time.perf_counter() - started
    envelope_bound = np.full(len(ks), np.inf)
    if envelope is not None:
        known = {id(x): x for x in search.strategy if x is not None}.values()  # the dive's and the ILP's
        lines = lagrangian_envelope(game, player, time_limit=envelope, strategies=list(known))
        envelope_bound = lines.bounds()
        for point in lines.points:
            search.polish(point.x)
    fruitless = 0  # searches in a row stopped by the time limit without lowering the carried bound
    for k in ks:
        proved, source[k] = (bound[k - 1], source[k - 1]) if k else (nash_value, 0)
        if k == total and top_bound <= proved:
            proved, source[k] = top_bound, total
        if envelope_bound[k] < proved:
            proved, source[k] = envelope_bound[k], None
        if proved > search.cutoff(k) and (patience is None or fruitless < patience):
            deadline = np.inf if time_limit is None else clock() + time_limit
            started = time.perf_counter()
            found = search.prove(k, deadline, clock)
            spent[k] += time.perf_counter() - started
            fruitless = fruitless + 1 if found >= proved else 0  # searched: proved > cutoff, so found is too
            if found <= proved:
                proved, source[k] = found, k
            searched[k] = True
        bound[k] = proved
        if progress:
            progress(k + 1, len(ks))
    points = []
    for k in ks:
        x = search.strategy[k]
        if x is None:  # the root's dive offers a pure strategy, an incumbent for every k
            raise SolveError(f"{game.name} player {player}: no strategy known for k = {k}")
        value = float(search.value[k])
        here = SweepPoint(
            k,
            value,
            float(max(bound[k], value)),
            bool(searched[k]) or k in (0, total),  # the Nash LP solves P(0), the ILP P(|J|)
            search.total - int(mixed_points(search.own, x).sum()),
            dict(zip(search.own.labels, x.tolist())),
            seconds=float(spent[k]),
            source=source[k],
        )
        here.proven = here.within(rel_gap, abs_gap)
        points.append(here)
    return KSweep(
        player,
        points,
        int(searched.sum()),
        search.lp.solves,
        time.perf_counter() - began,
        nodes=search.nodes,
        backend="highs",
        solver_version=get_backend("highs").version(),
    ).rescaled(unit)


SWEEP_METHODS = ("search", "mip")
"""The methods of :func:`sweep_kdet`: the branch-and-bound search of this module, or the MIP sweep."""

SEARCH_ABS_GAP = 1e-9
"""The search's absolute gap when :func:`sweep_kdet` is given none (relative to the payoff range): as tight as a
MIP solver's own default, where :func:`search_sweep`'s 1e-4 is a benchmark's target."""

_ON_HIGHS = ("auto", "highs")  # the backends the search runs on (auto picks HiGHS where no other is asked)


def sweep_kdet(
    game: SequenceFormGame,
    player: int = 1,
    method: str | None = None,
    *,
    backend: str = DEFAULT_BACKEND,
    rel_gap: float = 1e-6,
    abs_gap: float | None = None,
    time_limit: float | None = None,
    patience: int | None = None,
    envelope: float | None = None,
    clock=None,
    verbose: bool = False,
    progress=None,
    **options: Any,
) -> KSweep:
    """``V(k)`` for ``k = 0..|J|`` by ``method``: ``"search"`` (:func:`search_sweep`) or ``"mip"`` (:func:`k_sweep`).

    ``method`` None: the search where ``backend`` is HiGHS (``"auto"`` or ``"highs"``), the MIP sweep
    on ``backend`` anywhere else; the search runs on HiGHS only, so it refuses another backend.  Both take
    the relative gap ``rel_gap``, the absolute ``abs_gap`` near 0 (relative to the payoff range; None:
    :data:`SEARCH_ABS_GAP` for the search, the solver's own for the MIPs), ``time_limit`` (seconds per
    ``k`` of the search, per MIP of the sweep) and ``progress``.  ``patience``, ``envelope`` and
    ``clock`` (the clock of the time limit; wall time by default) steer the search and are refused with
    the MIPs; ``verbose`` (the solver's log) and ``options`` (solver options such as ``threads``) go to
    the MIPs, the search has none.  The sweep is the called function's, unchanged.
    """
    if method is None:
        method = "search" if backend in _ON_HIGHS else "mip"
    if method == "search":
        if backend not in _ON_HIGHS:
            raise ModelError(f"the search runs on HiGHS only, not on backend {backend!r}; use the method mip")
        if options:
            raise ModelError(f"the search takes no solver options ({', '.join(options)}): they are the MIPs'")
        return search_sweep(
            game,
            player,
            rel_gap=rel_gap,
            abs_gap=SEARCH_ABS_GAP if abs_gap is None else abs_gap,
            time_limit=time_limit,
            patience=patience,
            envelope=envelope,
            clock=time.perf_counter if clock is None else clock,
            progress=progress,
        )
    if method != "mip":
        raise ModelError(f"unknown k-sweep method {method!r}: expected one of {', '.join(SWEEP_METHODS)}")
    steering = [
        name for name, value in (("patience", patience), ("envelope", envelope), ("clock", clock)) if value is not None
    ]
    if steering:
        raise ModelError(f"{', '.join(steering)}: only the search takes it (method search), not the MIPs (method mip)")
    return k_sweep(
        game,
        player,
        backend,
        mip_gap=rel_gap,
        abs_gap=abs_gap,
        time_limit=time_limit,
        verbose=verbose,
        progress=progress,
        **options,
    )
