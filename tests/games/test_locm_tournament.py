"""LOCM drafter tournaments: executor and resume invariance, common random numbers, outputs, the matrix solve."""

from __future__ import annotations

import sqlite3

import numpy as np
import pytest

from gamelp import cli as gamelp_cli
from gamelp.errors import GamelpError
from gamelp.games.locm import tournament
from gamelp.games.locm.analysis import reference_mana_curve
from gamelp.games.locm.draft import RefereeSeeds, draft_offers
from gamelp.games.runner import Execution
from gamelp.matrix import MatrixGame

DRAFTERS = ["random", "icebox", "coac", "max-attack"]
SMALL = {"drafters": DRAFTERS, "battler": "max-attack", "matches": 8, "sets": 2, "seed": 11}


def quiet(**options) -> Execution:
    """How these small tournaments run: no progress bar, batches of 3 matches unless told otherwise."""
    return Execution(**{"progress": False, "batch_size": 3, **options})


def run(out, execution: Execution | None = None, **options):
    return tournament.run_tournament(**{**SMALL, "figures": False, **options}, out=out, execution=execution or quiet())


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    out = tmp_path_factory.mktemp("reference")
    return out, run(out, figures=True)


def same_outputs(a, b):
    for name in ("winrates.csv", "std.csv", "seats.csv", "mana_curves.csv", "similarity.csv"):
        assert (a / name).read_bytes() == (b / name).read_bytes(), name


def test_two_workers_give_identical_files(reference, tmp_path):
    out, _ = reference
    run(tmp_path, quiet(workers=2, batch_size=5))
    same_outputs(out, tmp_path)


def test_a_dask_cluster_gives_identical_files(reference, tmp_path):
    distributed = pytest.importorskip("dask.distributed")
    out, _ = reference
    with distributed.LocalCluster(
        n_workers=2, processes=False, threads_per_worker=1, dashboard_address=None
    ) as cluster:
        run(tmp_path, quiet(scheduler=cluster.scheduler_address))
    same_outputs(out, tmp_path)


def test_an_interrupted_and_a_truncated_run_resume_to_identical_files(reference, tmp_path):
    out, _ = reference
    seen = []

    def stop(batch, rows):
        seen.append(batch)
        if len(seen) == 4:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run(tmp_path, quiet(workers=2, on_batch=stop))
    assert not (tmp_path / "winrates.csv").exists()
    with pytest.raises(GamelpError, match="pass --resume"):
        run(tmp_path, quiet(resume=False))
    run(tmp_path)
    same_outputs(out, tmp_path)
    # a kill loses whole batches: drop a third of the rows, resume, and nothing changes
    with sqlite3.connect(tmp_path / tournament.STORE_NAME) as db:
        db.execute("DELETE FROM matches WHERE (pair + match) % 3 = 0")
    run(tmp_path)
    same_outputs(out, tmp_path)


def test_win_rates_are_constant_sum_with_labels(reference):
    out, result = reference
    game = MatrixGame.from_csv(out / "winrates.csv", std_path=out / "std.csv")
    assert list(game.row_labels) == list(game.col_labels) == DRAFTERS
    c = game.payoffs
    off = ~np.eye(4, dtype=bool)
    np.testing.assert_allclose((c + c.T)[off], 1.0)
    np.testing.assert_array_equal(np.diag(c), 0.5)
    np.testing.assert_array_equal(c, result.matrix.payoffs)
    assert result.matches == 6 * 16
    # pooled = mean of the two seats' rates (equal numbers of matches per seat)
    np.testing.assert_allclose(c[off], result.seat_rates.mean(axis=2)[off])
    assert (result.seat_matches[off] == 8).all()
    # std: the sd across the two sets, one per seat: |p0 - p1| / sqrt(2)
    p = result.seat_rates
    np.testing.assert_allclose(game.std[off], (np.abs(p[..., 0] - p[..., 1]) / np.sqrt(2))[off])


def test_common_random_numbers_across_pairs(reference):
    """Match m has one seed in every pair, and a deterministic drafter in the same seat picks the same cards."""
    out, _ = reference
    with sqlite3.connect(out / tournament.STORE_NAME) as db:
        rows = np.array(
            db.execute("SELECT pair, match, seed, choices0, choices1 FROM matches ORDER BY pair, match").fetchall(),
            dtype=np.int64,
        ).reshape(6, 16, 5)
    assert (rows[:, :, 2] == rows[0, :, 2]).all() and len(set(rows[0, :, 2])) == 16
    # pairs (0 random, 1 icebox) and (1 icebox, 2 coac): in set 0 icebox sits in seat 1, then in seat 0
    icebox_v_random, icebox_v_coac = rows[0, :8, 4], rows[3, :8, 3]
    assert rows[0, 0, 0] == 0 and rows[3, 0, 0] == 3
    # icebox is deterministic and seat-blind: the same offers give the same choices in both pairs
    np.testing.assert_array_equal(icebox_v_random, icebox_v_coac)


def test_choices_pack_and_rebuild_the_decks(reference):
    _, result = reference
    choices = np.random.default_rng(0).integers(3, size=(5, 30))
    packed = np.array([tournament.pack_choices(c) for c in choices])
    np.testing.assert_array_equal(tournament.unpack_choices(packed), choices)
    assert tournament.pack_choices([2] * 30) == 3**30 - 1
    np.testing.assert_allclose(result.mana_curves.sum(axis=1), 30)
    # max-attack takes creatures with the most attack: dearer decks than random's (Vieira (2020), Section 5.4.2)
    costs = np.arange(13)
    assert result.mana_curves[3] @ costs / 30 > result.mana_curves[0] @ costs / 30 + 0.5
    assert reference_mana_curve().sum() == pytest.approx(30)


def test_similarity_is_symmetric_and_random_agrees_a_third(reference):
    out, result = reference
    s = result.similarity
    np.testing.assert_array_equal(s, s.T)
    np.testing.assert_array_equal(np.diag(s), 1.0)
    assert all(0.15 < s[0, j] < 0.5 for j in (1, 2, 3))  # 240 turns each: about 1/3
    written = MatrixGame.from_csv(out / "similarity.csv")
    np.testing.assert_array_equal(written.payoffs, s)
    for figure in ("mana_curves.png", "similarity.png"):
        assert (out / figure).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_similarity_counts_equal_choices_by_hand(reference):
    """icebox v max-attack recomputed from the offers of the stored seeds and the stored choices."""
    out, result = reference
    with sqlite3.connect(out / tournament.STORE_NAME) as db:
        rows = db.execute("SELECT seed, choices0, choices1 FROM matches WHERE pair = 4").fetchall()
    agree = []
    for seed, c0, c1 in rows:
        offers = draft_offers(RefereeSeeds.from_seed(seed).draft)
        picks = tournament.unpack_choices(np.array([c0, c1]))
        cards = offers[np.arange(30)[None, :], picks]
        agree.append(np.mean(cards[0] == cards[1]))
    assert result.similarity[1, 3] == pytest.approx(np.mean(agree))


def test_matrix_solve_takes_the_outputs_as_they_are(reference, capsys):
    out, _ = reference
    assert gamelp_cli.main(["matrix", "solve", str(out / "winrates.csv"), "--unique"]) == 0
    shown = capsys.readouterr().out
    assert "value 0.500000" in shown and "verdict: " in shown  # a symmetric constant-sum game is worth 0.5
    assert (
        gamelp_cli.main(
            [
                "matrix",
                "solve",
                str(out / "winrates.csv"),
                "--std",
                str(out / "std.csv"),
                "--robust",
                "interval",
                "--radius",
                "1",
                "--unique",
            ]
        )
        == 0
    )
    assert "robust interval R=1" in capsys.readouterr().out


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--drafters", "random,bogus"], "unknown drafter 'bogus'"),
        (["--battler", "nobody"], "unknown LOCM battler 'nobody'"),
        (["--drafters", "random,random"], "two distinct drafters"),
        (["--matches", "0"], "argument --matches: must be between 1 and"),
        (["--sets", "3"], "the number of sets must be even"),
        (["--drafters", "random,scores:/nonexistent.csv"], "/nonexistent.csv"),
    ],
)
def test_bad_tournament_arguments_exit_2_in_one_line(tmp_path, capsys, argv, message):
    try:
        code = gamelp_cli.main(["locm", "tournament", "--out", str(tmp_path), "--quiet", *argv])
    except SystemExit as refused:  # refused by the parser itself
        code = refused.code
    err = capsys.readouterr().err
    assert code == 2 and message in err and err.count("\n") == 1


def test_cli_runs_and_resumes(tmp_path, capsys):
    argv = [
        "locm",
        "tournament",
        "--drafters",
        "random,icebox",
        "--matches",
        "4",
        "--sets",
        "2",
        "--seed",
        "2",
        "--out",
        str(tmp_path),
        "--quiet",
    ]
    assert gamelp_cli.main(argv) == 0
    assert "icebox" in capsys.readouterr().out
    assert gamelp_cli.main(argv) == 2
    assert "--resume" in capsys.readouterr().err
    assert gamelp_cli.main([*argv, "--resume"]) == 0
    argv[argv.index("--seed") + 1] = "3"
    assert gamelp_cli.main([*argv, "--resume"]) == 2
    assert "seed: stored 2, asked 3" in capsys.readouterr().err


def test_resume_refuses_a_retrained_policy_file(tmp_path):
    """A ``file:`` drafter's weights are part of the run, like a ``scores:`` table."""
    from gamelp.games.locm.policy import SeatPolicy, save_policy

    def policy(bias):
        return {seat: SeatPolicy((np.zeros((48, 3)),), (np.array([bias, 0.0, 0.0]),), "tanh") for seat in (0, 1)}

    path = tmp_path / "drafter.npz"
    save_policy(path, "immediate", policy(1.0))
    options = {"drafters": ["random", f"file:{path}"], "matches": 2}
    run(tmp_path / "out", **options)
    save_policy(path, "immediate", policy(-1.0))
    with pytest.raises(GamelpError, match="drafter_files"):
        run(tmp_path / "out", **options)
