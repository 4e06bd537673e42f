"""The selected equilibrium (``select="min-norm"``, gamelp.models.select): one strategy on every backend.

Every installed backend returns the same selected strategies, both players', on Kuhn, Leduc and the Esche
deck game, to 1e-6 (measured: to the last bit), each verified by the exact step; the selected strategy is
optimal, checked without the solver (a best response; scipy's linprog for the value), and it is the minimiser:
no other optimal strategy found (the plain LP's optima of every backend) is shorter, nor any point between.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from scipy.optimize import linprog

from gamelp import available_backends
from gamelp.cli import main
from gamelp.errors import BackendError, ModelError
from gamelp.game import load_game
from gamelp.matrix import MatrixGame
from gamelp.model import Model
from gamelp.models.nash import sequence_form_lp, solve_equilibrium, solve_matrix_nash, solve_nash
from gamelp.models.select import polish, sequence_values

SELECT = "min-norm"
BACKENDS = {b.name: b for b in available_backends()}
LP_BACKENDS = [name for name, b in BACKENDS.items() if b.capabilities.lp and b.capabilities.accuracy <= 1e-6]
# Every installed backend; a first-order one (SCS) takes seconds on its QPs, so it is slow-marked.
ALL_BACKENDS = [
    pytest.param(name, marks=pytest.mark.slow) if b.capabilities.accuracy > 1e-6 else name
    for name, b in BACKENDS.items()
]
AGREEMENT = 1e-6


def assert_verified(selections) -> None:
    """Every selection is the exact step's verified point (not the QP's approximate one)."""
    for selection in selections:
        assert selection.polished, selection.note


@pytest.fixture(scope="module")
def kuhn():
    return load_game("kuhn")


@pytest.fixture(scope="module")
def leduc():
    return load_game("leduc")


@pytest.fixture(scope="module")
def esche():
    return MatrixGame.load("esche_8c")


@pytest.fixture(scope="module")
def kuhn_reference(kuhn):
    return solve_equilibrium(kuhn, "auto", select=SELECT)


def _sequence_value(game, player: int) -> float:
    """The game's value for ``player`` by scipy's linprog on the sequence-form LP (no gamelp backend)."""
    own, opp = game.player(player), game.player(3 - player)
    M = game.payoff_matrix(player).toarray()
    n, k = own.num_sequences, opp.num_decision_points + 1
    # Variables (x, v): max f_o^T v  s.t.  -M^T x + F_o^T v <= 0,  F_p x = f_p,  x >= 0.
    result = linprog(
        np.concatenate([np.zeros(n), -np.asarray(opp.f, dtype=float)]),
        A_ub=np.hstack([-M.T, opp.F.T.toarray() if hasattr(opp.F, "toarray") else opp.F.T]),
        b_ub=np.zeros(M.shape[1]),
        A_eq=np.hstack([own.F.toarray() if hasattr(own.F, "toarray") else own.F, np.zeros((own.F.shape[0], k))]),
        b_eq=own.f,
        bounds=[(0, None)] * n + [(None, None)] * k,
        method="highs-ds",
    )
    assert result.status == 0
    return -result.fun


@pytest.mark.parametrize("backend", ALL_BACKENDS)
def test_kuhn_selection_is_the_same_on_every_backend(kuhn, kuhn_reference, backend):
    selected = solve_equilibrium(kuhn, backend, select=SELECT)
    assert np.abs(selected.x - kuhn_reference.x).max() <= AGREEMENT
    assert np.abs(selected.y - kuhn_reference.y).max() <= AGREEMENT
    assert_verified(selected.result.selections + (selected.y_selection,))
    assert selected.to_dict()["select"] == SELECT
    assert [s["polished"] for s in selected.to_dict()["selection"]] == [True, True]


@pytest.mark.parametrize("player", [1, 2])
def test_kuhn_selection_is_optimal_and_both_players_agree(kuhn, kuhn_reference, player):
    value = _sequence_value(kuhn, player)
    assert value == pytest.approx(-1 / 18 if player == 1 else 1 / 18, abs=1e-12)
    alone = solve_nash(kuhn, player, select=SELECT)
    assert alone.value == pytest.approx(value, abs=1e-9)
    assert kuhn.guaranteed_value(player, alone.strategy) >= value - 1e-8  # a best response, not the solver
    assert np.abs(alone.strategy - kuhn_reference.strategy_of(player)).max() <= 1e-6
    assert kuhn_reference.gap <= 1e-8


@pytest.mark.parametrize("player", [1, 2])
def test_kuhn_selection_is_the_minimiser(kuhn, player):
    """Other optimal strategies (the plain LP's, which differ by backend) are no shorter, nor is any point between."""
    x = solve_nash(kuhn, player, select=SELECT).strategy
    value = _sequence_value(kuhn, player)
    others = [solve_nash(kuhn, player, b).strategy for b in LP_BACKENDS]
    spread = max(np.abs(z - x).max() for z in others)
    if player == 2:  # player 2's optimum is unique: the selection is that point
        assert spread <= 1e-6
        return
    assert spread > 1e-2  # player 1's face is more than a point
    for z in others:
        assert kuhn.guaranteed_value(player, z) >= value - 1e-8  # z is optimal too
        assert x @ (z - x) >= -1e-7  # first-order optimality of the minimum-norm point of a convex set
        for t in (1e-3, 0.1, 0.5, 1.0):
            assert x @ x <= (x + t * (z - x)) @ (x + t * (z - x)) + 1e-9


def test_kuhn_player_1_one_parameter_family(kuhn):
    """Player 1's optimal set: bet the jack with alpha in [0, 1/3]; the selection is its minimiser over alpha."""
    plain = [solve_nash(kuhn, 1, b).strategy for b in LP_BACKENDS]
    x = solve_nash(kuhn, 1, select=SELECT).strategy
    # Two distinct optima span the family's line; the selection minimises the norm on it (within the face).
    far = max(plain, key=lambda z: np.abs(z - x).max())
    ts = np.linspace(-0.2, 1.2, 29)
    points = [x + t * (far - x) for t in ts]
    optimal = [p for p in points if kuhn.pl1.infeasibility(p) < 1e-9 and kuhn.guaranteed_value(1, p) >= -1 / 18 - 1e-9]
    assert len(optimal) >= 10
    assert min(p @ p for p in optimal) >= x @ x - 1e-9


@pytest.mark.parametrize("backend", ALL_BACKENDS)
def test_esche_selection_is_the_same_on_every_backend(esche, backend):
    reference = solve_matrix_nash(esche, "row", select=SELECT)
    for player in ("row", "col"):
        selected = solve_matrix_nash(esche, player, backend, select=SELECT)
        assert_verified(selected.selections)
        for whose in ("row", "col"):
            assert np.abs(selected.strategy_of(whose) - reference.strategy_of(whose)).max() <= AGREEMENT
        assert selected.guaranteed_value == pytest.approx(reference.value, abs=1e-7)


def test_esche_selection_is_optimal_by_linprog(esche):
    C = esche.payoffs
    m, n = C.shape
    result = linprog(
        np.r_[np.zeros(m), -1.0],
        A_ub=np.hstack([-C.T, np.ones((n, 1))]),
        b_ub=np.zeros(n),
        A_eq=np.r_[np.ones(m), 0.0][None, :],
        b_eq=[1.0],
        bounds=[(0, None)] * m + [(None, None)],
        method="highs-ds",
    )
    selected = solve_matrix_nash(esche, "row", select=SELECT)
    assert (C.T @ selected.row_strategy).min() >= -result.fun - 1e-8
    assert (C @ selected.col_strategy).max() <= -result.fun + 1e-8


@pytest.fixture(scope="module")
def leduc_reference(leduc):
    return solve_equilibrium(leduc, "auto", select=SELECT)


@pytest.mark.parametrize(
    "backend", [name if name == "highs" else pytest.param(name, marks=pytest.mark.slow) for name in BACKENDS]
)
def test_leduc_selection_is_the_same_on_every_backend(leduc, leduc_reference, backend):
    """Leduc's face is ill-conditioned in the value (the QPs' points differ by 5e-5); the exact step makes them
    one.  A backend that cannot take the QP (the Gurobi pip licence: 200 variables) leaves it to ``auto``."""
    selected = solve_equilibrium(leduc, backend, select=SELECT)
    assert_verified(selected.result.selections + (selected.y_selection,))
    assert np.abs(selected.x - leduc_reference.x).max() <= AGREEMENT
    assert np.abs(selected.y - leduc_reference.y).max() <= AGREEMENT


def test_leduc_selection_is_optimal(leduc):
    selected = solve_equilibrium(leduc, select=SELECT)
    assert leduc.guaranteed_value(1, selected.x) >= selected.value - 1e-8
    assert leduc.guaranteed_value(2, selected.y) >= -selected.value - 1e-8
    plain = solve_nash(leduc, 1).strategy
    assert selected.x @ (plain - selected.x) >= -1e-7


def test_backends_without_qp_leave_the_qp_to_auto(kuhn):
    """HiGHS takes the LP; the QP goes to the first installed backend that takes QPs, and the result says so."""
    selected = solve_nash(kuhn, 1, "highs", select=SELECT)
    assert selected.solution.backend == "highs"
    (selection,) = selected.selections
    assert BACKENDS[selection.solution.backend].capabilities.qp
    assert selected.to_dict()["selection"][0]["qp_backend"] == selection.solution.backend


def test_without_a_qp_backend_select_is_refused_before_the_lp(kuhn, esche, monkeypatch):
    """With no installed backend that takes QPs, one line naming the extra, before any LP; plain solves unaffected."""
    import gamelp.models.nash as nash
    import gamelp.models.select as select_module

    def refuse(model, backend):
        raise BackendError(f"{backend} cannot take {model.name}")

    monkeypatch.setattr(select_module, "check", refuse)
    assert solve_nash(kuhn, 1).value == pytest.approx(-1 / 18)
    assert solve_equilibrium(kuhn).value == pytest.approx(-1 / 18)
    assert solve_matrix_nash(esche).select is None
    monkeypatch.setattr(nash, "solve_model", lambda *args, **kwargs: pytest.fail("the LP was solved"))
    refusal = r"select needs a backend that takes QPs: highs or cvxpy:CLARABEL$"
    for solve in (lambda: solve_nash(kuhn, 2, select=SELECT), lambda: solve_equilibrium(kuhn, select=SELECT)):
        with pytest.raises(BackendError, match=refusal):
            solve()


def test_the_default_install_selects_on_highs_alone(leduc, esche, monkeypatch):
    """With HiGHS the only QP backend (the core install), Leduc's and the Esche game's selections are verified,
    their QPs solved by HiGHS, and equal Clarabel's when it is installed."""
    import gamelp.models.select as select_module
    from gamelp.backends import check

    def highs_only(model, backend):
        if backend not in ("highs", "auto"):
            raise BackendError(f"{backend} is not installed here")
        return check(model, "highs")

    reference = {}
    if "cvxpy:CLARABEL" in BACKENDS:
        reference = {
            "leduc": solve_equilibrium(leduc, "cvxpy:CLARABEL", select=SELECT),
            "esche": solve_matrix_nash(esche, "row", "cvxpy:CLARABEL", select=SELECT),
        }

    def selections(result):
        return result.result.selections + (result.y_selection,) if name == "leduc" else result.selections

    monkeypatch.setattr(select_module, "check", highs_only)
    for name, result in (
        ("leduc", solve_equilibrium(leduc, select=SELECT)),
        ("esche", solve_matrix_nash(esche, "row", select=SELECT)),
    ):
        assert_verified(selections(result))
        assert {selection.qp_backend for selection in selections(result)} == {"highs"}
        if name in reference:
            for mine, theirs in zip(selections(result), selections(reference[name]), strict=True):
                assert np.abs(mine.strategy - theirs.strategy).max() <= AGREEMENT


def test_a_wrong_active_set_is_not_verified(kuhn, kuhn_reference):
    """The exact step from another optimal point (an LP vertex: a larger active set) gives that vertex back, which
    is optimal but not the minimiser: the KKT check refuses it; from the QP's point it verifies."""
    model = sequence_form_lp(kuhn, 1)
    form = model.matrix_form()
    value = -1 / 18
    values = sequence_values(kuhn, 1)
    vertex = solve_nash(kuhn, 1, "highs").strategy
    assert np.abs(vertex - kuhn_reference.x).max() > 1e-2
    step = polish(form, vertex, values, value)
    assert step.x is None and "not the minimiser" in step.why
    assert np.abs(polish(form, kuhn_reference.x, values, value).x - kuhn_reference.x).max() <= 1e-12


def test_unknown_rule_did_you_mean(kuhn):
    with pytest.raises(ModelError, match="did you mean 'min-norm'"):
        solve_nash(kuhn, 1, select="min-nrom")


def test_model_quadratic_term_is_checked():
    model = Model("toy")
    x = model.add_variables("x", 2)
    with pytest.raises(ModelError, match="must be finite and >= 0"):
        model.set_objective({}, quadratic={x: [-1.0, 1.0]})
    with pytest.raises(ModelError, match="must be minimised"):
        model.set_objective({x: [1.0, 1.0]}, sense="max", quadratic={x: 1.0})


def test_cli_select(capsys):
    assert main(["solve", "kuhn", "--select", "min-norm", "--player", "both", "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)  # exactly one JSON document
    assert payload["select"] == SELECT and payload["gap"] < 1e-8
    reference = solve_equilibrium(load_game("kuhn"), select=SELECT)
    assert payload["strategy"]["dJ_pl1:b"] == pytest.approx(reference.strategy_dict(1)["dJ_pl1:b"], abs=1e-9)
    assert main(["matrix", "solve", "esche_8c", "--select", "min-norm", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["select"] == SELECT


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["solve", "kuhn", "--select", "min-nrom"], "unknown selection rule 'min-nrom'; did you mean 'min-norm'?"),
        (["solve", "kuhn", "--select", "min-norm", "--unique"], "it cannot go with --unique"),
        (["solve", "kuhn", "--select", "min-norm", "--method", "cfr+"], "it cannot go with --method cfr+"),
        (
            ["matrix", "solve", "esche_8c", "--select", "min-norm", "--robust", "interval", "--radius", "0.1"],
            "--robust",
        ),
    ],
)
def test_cli_refusals_are_one_line(capsys, argv, message):
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = [line for line in captured.err.splitlines() if line.strip()]
    assert len(lines) == 1 and message in lines[0]


def test_exact_certifies_the_selected_pair(kuhn, kuhn_reference):
    """``exact=True`` with a selection certifies the selected strategies themselves, both players', as fractions:
    Kuhn's player 1 min-norm strategy is 71/96 check with the jack, and the certified pair is the selected one."""
    from fractions import Fraction

    exact = solve_equilibrium(kuhn, select=SELECT, exact=True)
    certificate = exact.result.certificate
    assert certificate.value == Fraction(-1, 18)
    assert certificate.strategy_dict(0)["dJ_pl1:k"] == Fraction(71, 96)
    for which, floats in ((0, kuhn_reference.x), (1, kuhn_reference.y)):
        fractions = np.array([float(f) for f in certificate.strategy_dict(which).values()])
        assert np.abs(fractions - floats).max() < 1e-12  # the selected pair, not the LP's vertex and duals


def test_exact_selection_of_leduc_solves_the_active_set_not_the_basis(leduc, monkeypatch):
    """Leduc's selected strategies are not fractions of denominators <= 10^6: the certificate solves each
    selection's active-set system exactly, never the LP's basis (which would certify another point); the pair is
    the selected one, and its value is the one the basis certifies on the plain LP."""
    import gamelp.models.exact as exact_module

    plain = solve_equilibrium(leduc, exact=True).result.certificate
    selected = solve_equilibrium(leduc, select=SELECT)
    monkeypatch.setattr(exact_module, "exact_basic_solution", lambda model: pytest.fail("the basis was solved"))
    certificate = solve_equilibrium(leduc, select=SELECT, exact=True).result.certificate
    assert certificate.recovery == exact_module.SELECTED_EXACTLY
    assert certificate.value == plain.value and certificate.value.denominator > 10**6
    for which, floats in ((0, selected.x), (1, selected.y)):
        fractions = np.array([float(f) for f in certificate.strategy_dict(which).values()])
        assert np.abs(fractions - floats).max() < 1e-9  # the floats: the KKT solve's, to 1e-11


def test_an_unverified_selection_has_no_exact_strategy(kuhn_reference):
    from dataclasses import replace

    from gamelp.models.exact import CertificateError
    from gamelp.models.select import exact_strategy

    unverified = replace(kuhn_reference.y_selection, polished=False, note="the QP's point: a test", active=None)
    with pytest.raises(CertificateError, match="not verified exactly: the QP's point: a test"):
        exact_strategy(unverified)


def test_cli_exact_selection(capsys):
    """``--exact --select``: the selected strategies as fractions; a matrix game's too."""
    assert main(["solve", "kuhn", "--select", "min-norm", "--exact", "--player", "both", "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["exact"]["value"] == "-1/18" and payload["exact"]["strategy"]["dJ_pl1:k"] == "71/96"
    assert main(["matrix", "solve", "esche_8c", "--select", "min-norm", "--exact", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["exact"]["value"] == "1/2"
    assert main(["solve", "leduc", "--select", "min-norm", "--exact", "--json"]) == 0
    assert "solved exactly" in json.loads(capsys.readouterr().out)["exact"]["recovery"]
