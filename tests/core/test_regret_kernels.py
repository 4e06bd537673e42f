"""CFR's inner loops (gamelp.regret.kernels): the C extension and its numpy twins give the same answers.

Each kernel is checked against its definition, written as a Python loop, on random treeplexes and segments and on
Kuhn's and Leduc's; the C side is skipped, with its reason, where the extension is not built. Whole self-play runs
on Kuhn and Leduc are compared between the two, and the numpy twins' one warning is checked in this process and in
a fresh interpreter that cannot import the extension.
"""

import logging
import subprocess
import sys
from itertools import pairwise

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gamelp import notices
from gamelp.game import load_game
from gamelp.regret import TreeplexLevels, _kernels_numpy, kernels, solve_regret
from gamelp.regret.simplex import Segments

C_MISSING = "the C extension gamelp.regret._kernels is not built here"


@pytest.fixture(params=["c", "numpy"])
def implementation(request):
    """Each implementation of the kernels in turn."""
    if request.param == "c":
        if kernels.compiled is None:
            pytest.skip(C_MISSING)
        return kernels.compiled
    return _kernels_numpy


def needs_c():
    if kernels.compiled is None:
        pytest.skip(C_MISSING)


# ---- the definitions, as Python loops -------------------------------------------------------------------------


def sequence_form_loop(parent, b):
    x = np.empty(len(parent))
    x[0] = 1.0
    for s in range(1, len(parent)):
        x[s] = b[s] * x[parent[s]]
    return x


def counterfactual_values_loop(parent, b, u):
    q = np.array(u, dtype=float)
    for s in range(len(parent) - 1, 0, -1):
        q[parent[s]] += b[s] * q[s]
    return q


def positive_part_loop(bounds, v):
    out = np.empty(len(v))
    for lo, hi in pairwise(bounds):
        positive = np.maximum(v[lo:hi], 0.0)
        total = positive.sum()
        out[lo:hi] = positive / total if total > 0 else 1.0 / (hi - lo)
    return out


def regret_loop(bounds, x, u):
    out = np.empty(len(u))
    for lo, hi in pairwise(bounds):
        out[lo:hi] = u[lo:hi] - x[lo:hi] @ u[lo:hi]
    return out


def run(function, *arrays):
    """``function(*arrays, out)`` with a new output array, returned."""
    out = np.full(arrays[-1].size, np.nan)
    function(*arrays, out)
    return out


# ---- random treeplexes and segments ---------------------------------------------------------------------------


@st.composite
def treeplexes(draw):
    """A parent array (each parent before its sequence; level order or not), local strategies and utilities."""
    n = draw(st.integers(1, 40))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    parent = np.array([0] + [int(rng.integers(0, s)) for s in range(1, n)], dtype=np.int64)
    if draw(st.booleans()):  # chains: a deep treeplex, one sequence a depth
        parent = np.maximum(np.arange(n, dtype=np.int64) - 1, 0)
    return parent, rng.uniform(0.0, 1.0, n), rng.normal(size=n)


@st.composite
def segmented(draw):
    """Bounds rising strictly from 0, and three vectors with negative, zero and NaN entries among them."""
    sizes = draw(st.lists(st.integers(1, 5), min_size=1, max_size=12))
    bounds = np.concatenate(([0], np.cumsum(sizes))).astype(np.int64)
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    v = np.round(rng.normal(size=bounds[-1]), 1)  # rounded: zeros and all-negative segments come up
    if draw(st.booleans()):
        v[rng.integers(v.size)] = np.nan
    x = rng.uniform(size=v.size)
    return bounds, v, x, rng.normal(size=v.size)


@settings(max_examples=60, deadline=None)
@given(treeplexes())
def test_the_treeplex_passes_follow_their_definitions(tree):
    parent, b, u = tree
    for kernel in (kernels.compiled, _kernels_numpy):
        if kernel is None:
            continue
        assert np.array_equal(run(kernel.sequence_form, parent, b), sequence_form_loop(parent, b))
        q = run(kernel.counterfactual_values, parent, b, u)
        assert np.allclose(q, counterfactual_values_loop(parent, b, u), rtol=1e-13, atol=1e-13)


@settings(max_examples=60, deadline=None)
@given(segmented())
def test_the_segment_reductions_follow_their_definitions(case):
    bounds, v, x, u = case
    for kernel in (kernels.compiled, _kernels_numpy):
        if kernel is None:
            continue
        np.testing.assert_allclose(run(kernel.positive_part, bounds, v), positive_part_loop(bounds, v), rtol=1e-14)
        np.testing.assert_allclose(run(kernel.regret, bounds, x, u), regret_loop(bounds, x, u), atol=1e-13)


@pytest.mark.parametrize("name", ["kuhn", "leduc"])
def test_c_and_numpy_agree_on_the_treeplexes_of_kuhn_and_leduc(name):
    needs_c()
    rng = np.random.default_rng(3)
    for treeplex in (load_game(name).pl1, load_game(name).pl2):
        levels = TreeplexLevels(treeplex)
        parent, bounds = levels.parent_position, levels.segments.bounds
        for _ in range(5):
            b = run(kernels.compiled.positive_part, bounds, rng.normal(size=levels.num_sequences))
            u, x = rng.normal(size=b.size), rng.uniform(size=b.size)
            for function, arrays in [
                ("sequence_form", (parent, b)),
                ("counterfactual_values", (parent, b, u)),
                ("positive_part", (bounds, u)),
                ("regret", (bounds, x, u)),
            ]:
                c, numpy = (
                    run(getattr(kernels.compiled, function), *arrays),
                    run(getattr(_kernels_numpy, function), *arrays),
                )
                np.testing.assert_allclose(numpy, c, rtol=1e-13, atol=1e-14, err_msg=function)


def test_the_passes_match_their_definitions_on_a_small_treeplex(implementation):
    """parent = (-, 0, 0, 1, 1): sequences 3 and 4 are the actions of a point below sequence 1."""
    parent = np.array([0, 0, 0, 1, 1])
    b = np.array([1.0, 0.25, 0.75, 0.5, 0.5])
    assert run(implementation.sequence_form, parent, b).tolist() == [1.0, 0.25, 0.75, 0.125, 0.125]
    q = run(implementation.counterfactual_values, parent, b, np.array([0.0, 1.0, 2.0, 4.0, 8.0]))
    assert q.tolist() == [0.25 * 7.0 + 0.75 * 2.0, 1.0 + 6.0, 2.0, 4.0, 8.0]  # V below sequence 1: (4 + 8) / 2
    assert run(implementation.sequence_form, np.array([0]), np.array([0.5])).tolist() == [1.0]  # the root alone


def test_the_segment_reductions_on_hand_worked_segments(implementation):
    bounds = np.array([0, 2, 5, 6])
    for v, expected in [
        ([1.0, 3.0, 0.0, -2.0, 0.0, 7.0], [0.25, 0.75, 1 / 3, 1 / 3, 1 / 3, 1.0]),
        ([-1.0, 2.0, 0.5, -4.0, 1.5, -7.0], [0, 1, 0.25, 0, 0.75, 1]),
        ([np.nan, 1.0, 0.5, 0.0, 1.5, -7.0], [0.5, 0.5, 0.25, 0, 0.75, 1]),  # a NaN makes its segment uniform
        ([1e-300, 0.0, 2.0, 0.0, 2.0, 5.0], [1.0, 0.0, 0.5, 0.0, 0.5, 1.0]),
    ]:
        assert run(implementation.positive_part, bounds, np.array(v)).tolist() == expected
    x, u = np.array([0.25, 0.75, 0.5, 0.0, 0.5, 1.0]), np.array([4.0, 8.0, 1.0, 9.0, 3.0, -2.0])
    assert run(implementation.regret, bounds, x, u).tolist() == [-3.0, 1.0, -1.0, 7.0, 1.0, 0.0]  # <x, u>: 7, 2, -2


@pytest.mark.parametrize(
    "function, arrays, message",
    [
        ("sequence_form", ([0, 0, 2], [1.0] * 3, [0.0] * 3), "sequence 2's parent 2 does not come before it"),
        ("sequence_form", ([0, -1], [1.0] * 2, [0.0] * 2), "parent -1 does not come"),
        ("counterfactual_values", ([0, 0, 1, 3], [1.0] * 4, [1.0] * 4, [0.0] * 4), "sequence 3's parent 3"),
        ("sequence_form", ([0, 0], [1.0] * 3, [0.0] * 3), "sequence_form: parent and the float64 arrays must have"),
        ("sequence_form", ([], [], []), "one common, non-zero length"),
        ("counterfactual_values", ([0, 0], [1.0] * 2, [1.0] * 3, [0.0] * 2), "float64 arrays must have one common"),
        ("sequence_form", ([0, 0], [1.0] * 2, [0.0]), "common length"),
        ("positive_part", ([0, 2, 2], [1.0] * 2, [0.0] * 2), "rise strictly"),
        (
            "positive_part",
            ([0, 1], [1.0] * 2, [0.0] * 2),
            "positive_part: the segment bounds must rise strictly from 0 to",
        ),
        ("positive_part", ([0], [], []), "rise strictly"),
        ("positive_part", ([0, 2], [1.0] * 2, [0.0] * 3), "common length"),
        ("regret", ([1, 2], [1.0] * 2, [1.0] * 2, [0.0] * 2), "regret: the segment bounds must rise strictly"),
        ("regret", ([0, 2, 1, 2], [1.0] * 2, [1.0] * 2, [0.0] * 2), "rise strictly"),
    ],
)
def test_both_refuse_indices_that_would_read_outside_the_arrays(implementation, function, arrays, message):
    index, *floats = arrays
    with pytest.raises(ValueError, match=message):
        getattr(implementation, function)(np.array(index, dtype=np.int64), *(np.array(a, dtype=float) for a in floats))


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda k: k.sequence_form(np.array([0, 0], dtype=np.int32), np.ones(2), np.empty(2)), "int64"),
        (lambda k: k.sequence_form(np.array([0, 0]), np.ones(2, dtype=np.float32), np.empty(2)), "float64"),
        (lambda k: k.sequence_form(np.array([0, 0]), np.ones((2, 1)), np.empty(2)), "one-dimensional"),
        (lambda k: k.sequence_form(np.array([0, 0]), np.ones(2)), "takes 3 arrays, got 2"),
    ],
)
def test_the_c_passes_refuse_other_buffers(call, message):
    """The C loops read raw buffers, so they check dtypes and shapes; numpy's indexing needs no such checks."""
    needs_c()
    with pytest.raises(TypeError, match=message):
        call(kernels.compiled)


def test_the_c_passes_write_only_writable_contiguous_arrays():
    needs_c()
    out = np.empty(2)
    out.flags.writeable = False
    with pytest.raises((TypeError, ValueError, BufferError), match="read-only"):
        kernels.compiled.sequence_form(np.array([0, 0]), np.ones(2), out)
    with pytest.raises((TypeError, ValueError, BufferError), match="contiguous"):
        kernels.compiled.sequence_form(np.array([0, 0]), np.ones(4)[::2], np.empty(2))


def test_the_numpy_twins_take_any_integer_parents_and_strided_arrays():
    parent, b = np.array([0, 0, 1], dtype=np.int32), np.array([9.0, 1.0, 0.5, 0.0, 0.25, 0.0])[::2]
    assert run(_kernels_numpy.sequence_form, parent, b).tolist() == [1.0, 0.5, 0.125]


# ---- whole runs -----------------------------------------------------------------------------------------------


def numpy_twins(monkeypatch):
    """From now on this test runs as installed without the extension: Segments and TreeplexLevels get numpy."""
    monkeypatch.setattr(kernels, "compiled", None)


@pytest.mark.parametrize(
    "name, method, iterations",
    [("kuhn", "pdcfr+", 3000), ("leduc", "cfr+", 100), ("leduc", "pcfr+", 100), ("leduc", "pdcfr+", 100)],
)
def test_self_play_runs_the_same_on_numpy(name, method, iterations, monkeypatch):
    """Kuhn and Leduc played on the numpy twins: the C run's strategies and gaps, to rounding.

    Only the order of a few sums differs, but regret matching amplifies rounding: on Leduc the runs part at the
    1e-6 level after a few hundred iterations (as they would with the C loops built by another compiler), which the
    next test allows for.
    """
    needs_c()
    reference = solve_regret(name, method, iterations)
    numpy_twins(monkeypatch)
    on_numpy = solve_regret(name, method, iterations)
    assert on_numpy.iterations == reference.iterations
    np.testing.assert_allclose(on_numpy.x, reference.x, atol=1e-10)
    np.testing.assert_allclose(on_numpy.y, reference.y, atol=1e-10)
    assert on_numpy.gap == pytest.approx(reference.gap, rel=1e-9, abs=1e-14)


def test_numpy_pdcfr_plus_reaches_1e_5_on_leduc_when_c_does(monkeypatch):
    needs_c()
    reference = solve_regret("leduc", "pdcfr+", 20_000, target_gap=1e-5)
    numpy_twins(monkeypatch)
    on_numpy = solve_regret("leduc", "pdcfr+", 20_000, target_gap=1e-5)
    assert on_numpy.converged and abs(on_numpy.iterations - reference.iterations) <= 0.05 * reference.iterations
    assert on_numpy.value == pytest.approx(reference.value, abs=1e-5)


# ---- the warning ----------------------------------------------------------------------------------------------


def test_without_the_extension_the_first_use_says_so_once(monkeypatch, caplog):
    monkeypatch.setattr(kernels, "compiled", None)
    notices.forget()
    with caplog.at_level(logging.WARNING, logger="gamelp"):
        assert Segments.simplex(3).kernels is _kernels_numpy
        TreeplexLevels(load_game("kuhn").pl1)
        solve_regret("kuhn", "cfr+", 10)
    assert [(record.name, record.levelno) for record in caplog.records] == [("gamelp", logging.WARNING)]
    message = caplog.records[0].getMessage()
    assert message == kernels.MISSING and "\n" not in message
    assert "C regret kernels" in message and "numpy" in message and f"{kernels.NUMPY_SLOWDOWN:g}x slower" in message


def test_with_the_extension_nothing_is_said(caplog):
    needs_c()
    notices.forget()
    with caplog.at_level(logging.DEBUG):
        assert Segments.simplex(2).kernels is kernels.compiled and kernels.COMPILED
    assert not caplog.records


HIDE_THE_EXTENSION = """
import sys
sys.modules["gamelp.regret._kernels"] = None  # import of the extension now raises ImportError
from gamelp.regret import kernels, solve_regret
print(kernels.COMPILED, file=sys.stderr)
for method in ("cfr+", "pdcfr+"):
    run = solve_regret("kuhn", method, 500)
    print(method, run.iterations, repr(run.gap))
"""


def test_a_missing_extension_says_so_once_on_stderr_and_the_runs_go_on():
    """A fresh interpreter that cannot import the extension: one warning on stderr, nothing on stdout but the runs."""
    done = subprocess.run([sys.executable, "-c", HIDE_THE_EXTENSION], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    notice, *rest = done.stderr.splitlines()[1:]
    assert done.stderr.startswith("False\n") and not rest
    assert notice.startswith("the C regret kernels (gamelp.regret._kernels) are not available (import of")
    assert notice.endswith(f"run on numpy instead, about {kernels.NUMPY_SLOWDOWN:g}x slower on Leduc")
    for line in done.stdout.splitlines():
        method, iterations, gap = line.split()
        expected = solve_regret("kuhn", method, 500)
        assert int(iterations) == expected.iterations and float(gap) == pytest.approx(expected.gap, rel=1e-6)
    assert len(done.stdout.splitlines()) == 2
