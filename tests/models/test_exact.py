"""Exact certificates (gamelp.models.exact): the payoff rule, the rational checks, recovery by rounding and by basis."""

from fractions import Fraction

import numpy as np
import pytest
import scipy.sparse as sp

from gamelp.matrix import MatrixGame
from gamelp.models import exact
from gamelp.models.exact import (
    CertificateError,
    ExactMatrix,
    certify_equilibrium,
    rational_payoff,
    rational_payoffs,
    verify_equilibrium,
    verify_matrix_equilibrium,
)
from gamelp.models.nash import solve_equilibrium, solve_matrix_nash, solve_nash

# Leduc's value under the payoff rule (its payoffs are multiples of 1/30), found by the basis solve; the float LP
# agrees to 1e-9 (test_leduc_value_is_certified_from_the_basis_and_agrees_with_the_float_value).
LEDUC_VALUE = Fraction(-1454920850547486749701863871533, 16995463438839962469905132501930)


# ----------------------------------------------------------------------------- the payoff rule
@pytest.mark.parametrize(
    ("value", "rational"),
    [
        (0.03333333333333333, Fraction(1, 30)),
        (-1 / 3, Fraction(-1, 3)),
        (0.4596, Fraction(1149, 2500)),
        (0.5, Fraction(1, 2)),
        (3.0, Fraction(3)),
        (0.0, Fraction(0)),
        (1 / 999_983, Fraction(1, 999_983)),  # a prime denominator just under the cap
    ],
)
def test_a_payoff_is_the_smallest_denominator_fraction_that_rounds_to_it(value, rational):
    assert rational_payoff(value) == rational
    assert float(rational) == value


def test_a_payoff_no_small_fraction_explains_is_its_binary_value():
    value = 0.1 + 1e-13
    assert rational_payoff(value) == Fraction(value)
    assert Fraction(value).denominator > exact.MAX_PAYOFF_DENOMINATOR
    rationals, binary = rational_payoffs(np.array([value, 0.1, value, 1 / 30]))
    assert binary == 2 and list(rationals) == [Fraction(value), Fraction(1, 10), Fraction(value), Fraction(1, 30)]


# ----------------------------------------------------------------------------- exact sparse algebra
def test_exact_matrix_products_and_transpose_agree_with_the_floats():
    rng = np.random.default_rng(3)
    dense = np.where(rng.random((7, 5)) < 0.5, rng.integers(-9, 10, (7, 5)) / 6, 0.0)
    dense[3] = 0.0  # an empty row
    M = ExactMatrix.from_floats(dense)
    v = np.array([Fraction(int(k), 7) for k in rng.integers(-5, 6, 5)], dtype=object)
    w = np.array([Fraction(int(k), 11) for k in rng.integers(-5, 6, 7)], dtype=object)
    rationals = np.array([[rational_payoff(float(d)) for d in row] for row in dense], dtype=object)
    assert list(M.matvec(v)) == list(rationals @ v)
    assert list(M.T.matvec(w)) == list(rationals.T @ w)
    assert M.denominator == 6 and M.nnz == np.count_nonzero(dense)


def test_the_refinement_solves_an_integer_system_exactly():
    rng = np.random.default_rng(5)
    K = sp.csr_array(rng.integers(-4, 5, (30, 30)) * (rng.random((30, 30)) < 0.3) + 9 * np.eye(30, dtype=int))
    matrix = ExactMatrix.from_floats(K)
    rhs = np.array([Fraction(int(k), 3) for k in rng.integers(-9, 10, 30)], dtype=object)
    lu = sp.linalg.splu(sp.csc_array(matrix.floats))
    z = exact._solve_rational(matrix, lu.solve, rhs, "test system")
    assert list(matrix.matvec(z)) == list(rhs)
    assert max(q.denominator for q in z) > 10**6  # more than rounding the floats could have found


# ----------------------------------------------------------------------------- sequence-form games
def test_kuhn_is_certified_at_minus_one_eighteenth(kuhn):
    equilibrium = solve_equilibrium(kuhn, exact=True)
    certificate = equilibrium.certificate
    assert certificate.value == Fraction(-1, 18)
    assert "rounded" in certificate.recovery and certificate.binary_payoffs == 0 and certificate.payoffs == 30
    assert certificate.strategy_dict(0)["dJ_pl1:k"] == Fraction(2, 3)
    section = equilibrium.to_dict()["exact"]
    assert section["value"] == "-1/18" and section["strategy"]["dJ_pl1:b"] == "1/3"
    assert set(section["opponent_strategy"]) == set(kuhn.pl2.labels)
    assert section["payoff_rule"] == exact.PAYOFF_RULE


def test_player_twos_lp_certifies_the_same_value_as_its_own(kuhn):
    result = solve_nash(kuhn, 2, exact=True)
    assert result.certificate.value == Fraction(-1, 18)
    section = result.to_dict()["exact"]
    assert section["value"] == "1/18" and set(section["strategy"]) == set(kuhn.pl2.labels)


def test_without_exact_the_float_output_is_unchanged(kuhn):
    assert "exact" not in solve_equilibrium(kuhn).to_dict() and solve_nash(kuhn).certificate is None


def test_leduc_value_is_certified_from_the_basis_and_agrees_with_the_float_value(leduc):
    equilibrium = solve_equilibrium(leduc, exact=True)
    certificate = equilibrium.certificate
    assert certificate.recovery == "HiGHS's optimal basis solved exactly"
    assert certificate.value == LEDUC_VALUE
    assert abs(float(certificate.value) - equilibrium.value) < 1e-9
    assert solve_nash(leduc, 2, exact=True).certificate.value == LEDUC_VALUE


def test_the_basis_alone_certifies_kuhn_too(kuhn, monkeypatch):
    monkeypatch.setattr(exact, "ROUNDING_BOUNDS", ())
    certificate = solve_equilibrium(kuhn, exact=True).certificate
    assert certificate.value == Fraction(-1, 18) and certificate.recovery.startswith("HiGHS's optimal basis")


def test_a_changed_payoff_fails_the_value_check(kuhn):
    certificate = solve_equilibrium(kuhn, exact=True).certificate
    x, y = certificate.first, certificate.second
    payoffs = ExactMatrix.from_floats(kuhn.A)
    assert verify_equilibrium(kuhn, payoffs, x, y) == Fraction(-1, 18)
    rationals = payoffs.rationals()
    rationals[0] += Fraction(1, 10**9)  # a payoff both strategies reach (weight 2/3)
    changed = ExactMatrix.from_rationals(payoffs.floats, rationals)
    with pytest.raises(CertificateError, match="guarantees -1/18 but player 2's concedes"):
        verify_equilibrium(kuhn, changed, x, y)


def test_a_changed_strategy_weight_fails_a_check(kuhn):
    certificate = solve_equilibrium(kuhn, exact=True).certificate
    payoffs = ExactMatrix.from_floats(kuhn.A)
    x = certificate.first.copy()
    fold, call = kuhn.pl1.labels.index("dQ/kb_pl1:f"), kuhn.pl1.labels.index("dQ/kb_pl1:c")  # 1/3 and 2/3
    x[fold] += Fraction(1, 10**9)
    with pytest.raises(CertificateError, match="player 1's strategy gives the actions of 'dQ/kb_pl1'"):
        verify_equilibrium(kuhn, payoffs, x, certificate.second)
    x[call] -= Fraction(1, 10**9)  # back in the polytope, no longer optimal
    with pytest.raises(CertificateError, match="not an equilibrium in exact arithmetic"):
        verify_equilibrium(kuhn, payoffs, x, certificate.second)


def test_a_pair_no_recovery_can_certify_is_refused_naming_the_check(kuhn, monkeypatch):
    uniform = kuhn.pl1.uniform_strategy(), kuhn.pl2.uniform_strategy()
    wrong = tuple(np.array([Fraction(w).limit_denominator(100) for w in s], dtype=object) for s in uniform)
    monkeypatch.setattr(exact, "exact_basic_solution", lambda model: ({"x": wrong[0]}, {"best_response": -wrong[1]}))
    with pytest.raises(CertificateError, match="not an equilibrium in exact arithmetic"):
        certify_equilibrium(kuhn, *uniform)


# ----------------------------------------------------------------------------- matrix games
def test_rock_paper_scissors_is_certified_at_zero():
    game = MatrixGame([[0, -1, 1], [1, 0, -1], [-1, 1, 0]])
    for player, labels in (("row", game.row_labels), ("col", game.col_labels)):
        result = solve_matrix_nash(game, player, exact=True)
        assert result.certificate.value == 0
        assert result.to_dict()["exact"]["strategy"] == dict.fromkeys(labels, "1/3")


def test_the_shipped_deck_matrix_is_certified_at_one_half():
    game = MatrixGame.load("esche_8c")
    result = solve_matrix_nash(game, exact=True)
    assert result.value == pytest.approx(0.5) and result.certificate.value == Fraction(1, 2)
    thesis = solve_matrix_nash(game, "col", form="thesis", exact=True)
    assert thesis.certificate.value == Fraction(1, 2) and thesis.to_dict()["exact"]["value"] == "1/2"


def test_binary_payoffs_are_certified_through_the_basis():
    game = MatrixGame(np.random.default_rng(0).random((12, 9)))
    result = solve_matrix_nash(game, "col", exact=True)
    certificate = result.certificate
    assert certificate.binary_payoffs == 108 and certificate.recovery.startswith("HiGHS's optimal basis")
    assert abs(float(certificate.value) - result.value) < 1e-9


def test_a_changed_matrix_payoff_fails_the_check():
    game = MatrixGame([[0, -1, 1], [1, 0, -1], [-1, 1, 0]])
    third = np.array([Fraction(1, 3)] * 3, dtype=object)
    payoffs = ExactMatrix.from_floats(game.payoffs)
    assert verify_matrix_equilibrium(game, payoffs, third, third) == 0
    rationals = payoffs.rationals()
    rationals[0] += Fraction(1, 10**9)
    with pytest.raises(CertificateError, match="not an equilibrium"):
        verify_matrix_equilibrium(game, ExactMatrix.from_rationals(payoffs.floats, rationals), third, third)
    with pytest.raises(CertificateError, match="the column strategy has weights summing to"):
        verify_matrix_equilibrium(game, payoffs, third, third * Fraction(999_999_999, 10**9))


def test_reading_a_matrix_with_stored_zeros_leaves_it_as_it_was():
    stored = sp.csr_matrix((np.array([1.0, 0.0, 3.0]), np.array([0, 1, 1]), np.array([0, 2, 3])), shape=(2, 2))
    before = (stored.data.copy(), stored.indices.copy(), stored.indptr.copy())
    M = ExactMatrix.from_floats(stored)
    assert M.nnz == 2 and list(M.rationals()) == [1, 3]
    assert all(np.array_equal(a, b) for a, b in zip(before, (stored.data, stored.indices, stored.indptr)))
