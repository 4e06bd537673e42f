"""Robust Nash LPs: nominal at R = 0, monotone guarantees, closed forms equal to the conic dual counterpart."""

from importlib import resources

import numpy as np
import pytest
import scipy.sparse as sp

from gamelp.errors import ModelError
from gamelp.matrix import MatrixGame
from gamelp.models.nash import solve_matrix_nash
from gamelp.models.robust import conic_set, ellipsoidal_set, interval_set, robust_lp, solve_robust, worst_case_value

ESCHE = resources.files("gamelp.games").joinpath("data", "esche_8c_payoffs.csv")
CONE_BACKENDS = ["cvxpy:CLARABEL", "gurobi"]


def binomial(game: MatrixGame, n: int = 200) -> MatrixGame:
    C = game.payoffs
    return MatrixGame(C, game.row_labels, game.col_labels, std=np.sqrt(C * (1 - C) / n))


@pytest.fixture(scope="module")
def esche16():
    """Appendix B with binomial deviations, reduced to the 16 undominated decks (the thesis's Table 3.5 set)."""
    return binomial(MatrixGame.from_csv(ESCHE)).reduce_dominated()[0]


@pytest.fixture(scope="module")
def small():
    """A 6 x 6 sub-game with uneven deviations: small enough for Gurobi's size-limited cone models."""
    rng = np.random.default_rng(3)
    C = rng.uniform(0.2, 0.8, size=(6, 6))
    return MatrixGame(
        C, [f"r{i}" for i in range(6)], [f"c{j}" for j in range(6)], std=rng.uniform(0.0, 0.08, size=(6, 6))
    )


@pytest.mark.parametrize("kind, backend", [("interval", "highs"), ("ellipsoidal", "cvxpy:CLARABEL")])
def test_radius_zero_is_the_nominal_game(esche16, kind, backend):
    robust = solve_robust(esche16, kind, 0.0, backend=backend)
    nominal = solve_matrix_nash(esche16, "row", "highs")
    assert robust.value == pytest.approx(0.5, abs=1e-7)
    assert robust.guaranteed_value == pytest.approx(robust.nominal_value, abs=1e-9)
    assert np.abs(robust.strategy - nominal.row_strategy).max() < 1e-5


@pytest.mark.parametrize("player", ["row", "col"])
def test_guarantee_is_monotone_in_radius_and_below_nominal(esche16, player):
    radii = [0.0, 0.5, 1.0, 2.0, 3.0]
    nominal = solve_matrix_nash(esche16, player).value
    sign = 1.0 if player == "row" else -1.0  # the column player's worst case is a larger payoff to the row
    for kind, backend in (("interval", "highs"), ("ellipsoidal", "cvxpy:CLARABEL")):
        values = [solve_robust(esche16, kind, r, player=player, backend=backend) for r in radii]
        for result in values:
            assert result.guaranteed_value == pytest.approx(result.value, abs=1e-6)  # certified = recomputed
            assert sign * result.guaranteed_value <= sign * result.nominal_value + 1e-9
            assert sign * result.value <= sign * nominal + 1e-7
        steps = np.diff([sign * r.value for r in values])
        assert np.all(steps <= 1e-7) and steps.sum() < -0.01
    # The ball of radius R lies inside the box of radius R: the interval guarantee is the lower one.
    assert (
        sign * solve_robust(esche16, "interval", 2.0, player=player).value
        <= sign * solve_robust(esche16, "ellipsoidal", 2.0, player=player, backend="cvxpy:CLARABEL").value + 1e-7
    )


def test_symmetric_game_column_player_mirrors_row_player(esche16):
    # C + C^T = 1 and a symmetric Delta: the column player's robust problem is the row player's, mirrored.
    for kind, backend in (("interval", "highs"), ("ellipsoidal", "cvxpy:CLARABEL")):
        row = solve_robust(esche16, kind, 2.0, backend=backend)
        col = solve_robust(esche16, kind, 2.0, player="col", backend=backend)
        assert row.value + col.value == pytest.approx(1.0, abs=1e-6)


def test_interval_closed_form_by_hand():
    game = MatrixGame([[0.6, 0.3], [0.4, 0.7]], std=[[0.1, 0.0], [0.0, 0.1]])
    result = solve_robust(game, "interval", 1.0)
    assert result.value == pytest.approx(0.45, abs=1e-9)
    assert result.strategy.tolist() == pytest.approx([0.5, 0.5], abs=1e-9)
    # Ellipsoid: c_j^T p - ||delta_j o p|| with p = (1/2, 1/2) is 0.5 - 0.05 and 0.5 - 0.05.
    assert worst_case_value(game, [0.5, 0.5], "ellipsoidal", 1.0) == pytest.approx(0.45)


@pytest.mark.parametrize("backend", CONE_BACKENDS)
@pytest.mark.parametrize("player", ["row", "col"])
def test_interval_through_the_conic_form(esche16, backend, player):
    scope = "column" if player == "row" else "row"
    closed = solve_robust(esche16, "interval", 2.0, player=player, backend=backend)
    conic = solve_robust(
        esche16, "conic", player=player, backend=backend, uncertainty=interval_set(esche16.shape, 2.0, scope)
    )
    assert conic.value == pytest.approx(closed.value, abs=1e-6)
    assert conic.guaranteed_value == pytest.approx(closed.guaranteed_value, abs=1e-6)
    assert worst_case_value(esche16, conic.strategy, "interval", 2.0, player=player) == pytest.approx(
        closed.value, abs=1e-6
    )


@pytest.mark.parametrize("backend", CONE_BACKENDS)
@pytest.mark.parametrize("player", ["row", "col"])
def test_ellipsoidal_through_the_conic_form(small, backend, player):
    scope = "column" if player == "row" else "row"
    direct = solve_robust(small, "ellipsoidal", 2.0, player=player, backend=backend)
    conic = solve_robust(
        small, "conic", player=player, backend=backend, uncertainty=ellipsoidal_set(small.shape, 2.0, scope)
    )
    assert conic.value == pytest.approx(direct.value, abs=1e-6)
    # Optimal strategies need not be unique: each must secure the common value on the ellipsoid.
    assert worst_case_value(small, conic.strategy, "ellipsoidal", 2.0, player=player) == pytest.approx(
        direct.value, abs=1e-6
    )
    assert direct.guaranteed_value == pytest.approx(direct.value, abs=1e-6)
    assert conic.guaranteed_value == pytest.approx(conic.value, abs=1e-6)


def test_thesis_vec_norm_set_equals_per_column_balls(small):
    # ||vec zeta|| <= R (one Lorentz cone over all 36 entries) gives the same robust LP as per-column balls.
    whole = solve_robust(small, "conic", backend="cvxpy:CLARABEL", uncertainty=ellipsoidal_set(small.shape, 2.0))
    direct = solve_robust(small, "ellipsoidal", 2.0, backend="cvxpy:CLARABEL")
    assert whole.value == pytest.approx(direct.value, abs=1e-6)


def test_thesis_form_matches_general_form(esche16):
    for kind, backend in (("interval", "highs"), ("ellipsoidal", "cvxpy:CLARABEL")):
        for player in ("row", "col"):
            general = solve_robust(esche16, kind, 3.0, player=player, backend=backend)
            thesis = solve_robust(esche16, kind, 3.0, player=player, form="thesis", backend=backend)
            assert thesis.value == pytest.approx(general.value, abs=1e-6)


def test_general_conic_product_set(small):
    """Box and ball at once: K = orthant x Lorentz per column; its guarantee beats either set alone."""
    m, n = small.shape
    blocks = []
    for j in range(n):
        P = sp.vstack([sp.identity(m), -sp.identity(m), sp.csr_matrix((1, m)), sp.identity(m)], format="csr")
        r = np.concatenate([np.full(2 * m, 1.0), [2.0], np.zeros(m)])
        blocks.append((np.arange(j * m, (j + 1) * m), P, r))
    # Assemble the per-column blocks into one matrix-wide P on vec(zeta) (block diagonal), as the thesis writes it.
    P = sp.block_diag([b[1] for b in blocks], format="csr")
    r = np.concatenate([b[2] for b in blocks])
    cones = [c for _ in range(n) for c in (("orthant", 2 * m), ("lorentz", m + 1))]
    both = solve_robust(small, "conic", backend="cvxpy:CLARABEL", uncertainty=conic_set((m, n), P, r, cones))
    box = solve_robust(small, "interval", 1.0)
    ball = solve_robust(small, "ellipsoidal", 2.0, backend="cvxpy:CLARABEL")
    assert both.guaranteed_value == pytest.approx(both.value, abs=1e-6)  # inner problem solved separately
    assert both.value >= max(box.value, ball.value) - 1e-7
    assert both.value <= solve_matrix_nash(small).value + 1e-9


def test_errors(small):
    bare = MatrixGame(small.payoffs)
    with pytest.raises(ModelError, match="standard deviations"):
        robust_lp(bare, "interval", 1.0)
    with pytest.raises(ModelError, match="uncertainty set"):
        robust_lp(small, "conic")
    with pytest.raises(ModelError, match="non-negative"):
        robust_lp(small, "interval", -1.0)
    with pytest.raises(ModelError, match="overlap"):
        conic_set((2, 2), sp.identity(4), np.ones(4), [("orthant", 4)]).__class__(
            (2, 2), interval_set((2, 2), 1.0).blocks + interval_set((2, 2), 1.0).blocks
        )
    with pytest.raises(ModelError, match="cones cover"):
        conic_set((2, 2), sp.identity(4), np.ones(4), [("orthant", 3)])


@pytest.mark.parametrize("form", ["general", "thesis"])
@pytest.mark.parametrize("player", ["row", "col"])
def test_json_ready_summary_names_the_set_and_the_strategy(small, player, form):
    result = solve_robust(small, "interval", 1.0, player=player, form=form)
    assert set(result.model.variables) >= {"x"} and not {"p", "q", "w", "y"} & set(result.model.variables)
    summary = result.to_dict()
    assert (summary["player"], summary["form"], summary["robust"], summary["radius"], summary["backend"]) == (
        player,
        form,
        "interval",
        1.0,
        "highs",
    )
    assert summary["value"] == pytest.approx(summary["guaranteed_value"], abs=1e-7)
    assert list(summary["strategy"]) == list(small.row_labels if player == "row" else small.col_labels)
    assert sum(summary["strategy"].values()) == pytest.approx(1.0)
