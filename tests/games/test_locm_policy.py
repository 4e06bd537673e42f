"""Learned drafters: numpy inference equal to the trained torch networks, policy files, seeded self-play training."""

import itertools
import random
import re
import subprocess
import sys

import numpy as np
import pytest
from conftest import needs_rl

from gamelp import cli as gamelp_cli
from gamelp.games.errors import DraftPolicyError, LocmError
from gamelp.games.locm.analysis import card_encoding, draft_observation
from gamelp.games.locm.drafters import make_drafter
from gamelp.games.locm.env import DraftEnv
from gamelp.games.locm.policy import LstmLayer, SeatPolicy, load_policy, observation_size, save_policy
from gamelp.games.locm.train import CHECKPOINTS, PPOSettings, _make_model, export_policy, train

RNG = random.Random(0)
TINY = PPOSettings(
    update=2,
    layers=1,
    hidden=8,
    activation="tanh",
    n_steps=60,
    minibatches=1,
    epochs=1,
    clip=0.2,
    vf_coef=0.5,
    ent_coef=0.0,
    learning_rate=1e-3,
)


def _random_policy(inputs, hidden, activation, seed):
    rng = np.random.default_rng(seed)
    sizes = [inputs, *hidden, 3]
    return SeatPolicy(
        tuple(rng.normal(size=(a, b)) * 0.3 for a, b in itertools.pairwise(sizes)),
        tuple(rng.normal(size=b) * 0.1 for b in sizes[1:]),
        activation,
    )


@needs_rl
@pytest.mark.parametrize("activation", ["elu", "tanh", "relu"])
@pytest.mark.parametrize("approach", ["immediate", "history"])
def test_numpy_logits_equal_the_torch_policy(activation, approach):
    import torch

    env = DraftEnv(approach)
    settings = PPOSettings(10, 2, 12, activation, 60, 1, 1, 0.1, 0.5, 0.0, 1e-3)
    model = _make_model(env, approach, settings, seed=3)
    policy = export_policy(model, activation)
    observations = np.array([env.reset(seed=seed)[0] for seed in range(20)])
    with torch.no_grad():
        expected = model.policy.get_distribution(torch.as_tensor(observations)).distribution.logits.numpy()
    # The distribution's logits are normalised (log-softmax): compare up to a constant per row.
    ours = np.array([policy.logits(observation) for observation in observations])
    np.testing.assert_allclose(
        ours - ours.max(axis=1, keepdims=True), expected - expected.max(axis=1, keepdims=True), atol=1e-5
    )
    assert [int(np.argmax(row)) for row in ours] == model.predict(observations, deterministic=True)[0].tolist()


@needs_rl
@pytest.mark.parametrize("layers", [1, 3])  # Table A.2: the LSTM alone (2nd player), or with two dense layers
def test_numpy_lstm_equals_the_recurrent_torch_policy_through_a_draft(tmp_path, layers):
    import torch

    env = DraftEnv("lstm")
    model = _make_model(env, "lstm", PPOSettings(10, layers, 6, "tanh", 30, 1, 1, 0.1, 0.5, 0.0, 1e-3), seed=4)
    policy = export_policy(model, "tanh")
    assert policy.lstm is not None and len(policy.weights) == layers
    path = tmp_path / "lstm.npz"
    save_policy(path, "lstm", {0: policy})
    drafter = load_policy(path)
    size = model.policy.lstm_actor.hidden_size
    for seed in (1, 2):  # two drafts: the memory starts afresh on the second
        observation, _ = env.reset(seed=seed)
        state, torch_state, chosen = None, (torch.zeros(1, 1, size), torch.zeros(1, 1, size)), []
        for turn in range(30):
            with torch.no_grad():
                distribution, torch_state = model.policy.get_distribution(
                    torch.as_tensor(observation[None]), torch_state, torch.tensor([float(turn == 0)])
                )
            expected = distribution.distribution.logits.numpy()[0]
            ours, state = policy.forward(observation, state)
            np.testing.assert_allclose(ours - ours.max(), expected - expected.max(), atol=1e-5)
            offer = tuple(env.offers[turn].tolist())
            choice = drafter.pick(offer, tuple(chosen), 0, RNG)
            assert choice == int(np.argmax(expected))
            chosen.append(offer[choice])
            observation, *_ = env.step(choice)


def test_lstm_policy_file_with_a_bad_memory_is_refused(tmp_path):
    path = tmp_path / "bad_lstm.npz"
    lstm = LstmLayer(np.zeros((16, 48)), np.zeros((16, 5)), np.zeros(16))  # 4H = 16 but H = 5
    save_policy(path, "lstm", {1: SeatPolicy((np.zeros((5, 3)),), (np.zeros(3),), "tanh", lstm)})
    with pytest.raises(LocmError, match=r"bad_lstm.npz: seat 1: lstm shapes \(16, 48\), \(16, 5\), \(16,\)"):
        load_policy(path)
    no_memory = tmp_path / "no_memory.npz"
    save_policy(no_memory, "lstm", {0: _random_policy(48, [], "tanh", 0)})
    with pytest.raises(LocmError, match="no_memory.npz: seat 0: an lstm policy needs lstm_input"):
        load_policy(no_memory)


def test_policy_file_round_trip_and_pick(tmp_path):
    policies = {seat: _random_policy(observation_size("history"), [16], "elu", seat) for seat in (0, 1)}
    path = tmp_path / "history.npz"
    save_policy(path, "history", policies)
    drafter = make_drafter(f"file:{path}")
    assert drafter.name == f"file:{path}" and drafter.approach == "history"
    offer, chosen = (5, 117, 62), (1, 3, 151)
    observation = draft_observation(card_encoding(), offer, chosen, True)
    for seat in (0, 1):
        np.testing.assert_allclose(
            drafter.policies[seat].logits(observation), policies[seat].logits(observation), rtol=1e-5
        )  # stored as float32
        assert drafter.pick(offer, chosen, seat, RNG) == int(np.argmax(policies[seat].logits(observation)))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["history.npz"]  # no temporary file left


def test_policy_for_one_seat_refuses_the_other(tmp_path):
    path = tmp_path / "first.npz"
    save_policy(path, "immediate", {0: _random_policy(48, [], "tanh", 0)})
    drafter = load_policy(path)
    assert drafter.pick((1, 2, 3), (), 0, RNG) in (0, 1, 2)
    with pytest.raises(
        DraftPolicyError, match=re.escape(f"{path}: no policy for seat 1 (it was trained for seat(s) 0)")
    ) as error:
        drafter.pick((1, 2, 3), (), 1, RNG)
    assert "\n" not in str(error.value)


@pytest.mark.parametrize(
    "argv",
    [
        ["play", "--drafters", "random,{drafter}"],  # drafting for seat 1
        ["tournament", "--drafters", "random,{drafter}"],  # a tournament drafts for both seats
    ],
)
def test_commands_refuse_a_policy_trained_for_the_other_seat_in_one_line(tmp_path, capsys, argv):
    path = tmp_path / "first.npz"
    save_policy(path, "immediate", {0: _random_policy(48, [], "tanh", 0)})
    argv = [arg.format(drafter=f"file:{path}") for arg in argv]
    assert gamelp_cli.main(["locm", *argv, *(["--out", str(tmp_path / "out")] if "tournament" in argv else [])]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{path}: no policy for seat 1" in err
    assert gamelp_cli.main(["locm", "play", "--drafters", f"file:{path},random"]) == 0  # its own seat is fine


def test_commands_refuse_a_policy_of_the_wrong_shape_in_one_line(tmp_path, capsys):
    path = tmp_path / "wrong_shape.npz"
    save_policy(path, "history", {seat: _random_policy(48, [8], "tanh", seat) for seat in (0, 1)})
    for argv in (
        ["play", "--drafters", f"file:{path},random"],
        ["tournament", "--drafters", f"random,file:{path}", "--out", str(tmp_path / "out")],
    ):
        assert gamelp_cli.main(["locm", *argv]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and f"{path}: seat 0: weight0 has shape (48, 8), expected (528, n)" in err


def test_bad_policy_files_are_refused_naming_the_file(tmp_path):
    wrong_shape = tmp_path / "wrong_shape.npz"
    save_policy(wrong_shape, "history", {0: _random_policy(48, [8], "tanh", 0)})  # an immediate-sized input
    with pytest.raises(LocmError, match=r"wrong_shape.npz: seat 0: weight0 has shape \(48, 8\), expected \(528, n\)"):
        load_policy(wrong_shape)
    four_logits = tmp_path / "four.npz"
    save_policy(four_logits, "immediate", {1: SeatPolicy((np.zeros((48, 4)),), (np.zeros(4),), "tanh")})
    with pytest.raises(LocmError, match="four.npz: seat 1: the last layer must give 3 logits"):
        load_policy(four_logits)
    not_npz = tmp_path / "notes.npz"
    not_npz.write_text("hello")
    with pytest.raises(LocmError, match="notes.npz: not a draft policy file"):
        make_drafter(f"file:{not_npz}")
    other = tmp_path / "other.npz"
    np.savez(other, format=np.array("something else"))
    with pytest.raises(LocmError, match="other.npz: format 'something else'"):
        load_policy(other)


def test_drafting_with_a_policy_file_never_imports_torch(tmp_path):
    path = tmp_path / "immediate.npz"
    save_policy(path, "immediate", {seat: _random_policy(48, [8], "elu", seat) for seat in (0, 1)})
    script = (
        "import random, sys\n"
        "from gamelp.games.locm.battlers import make_battler\n"
        "from gamelp.games.locm.drafters import make_drafter\n"
        "from gamelp.games.locm.match import play_match\n"
        "b = make_battler('max-attack')\n"
        f"play_match(make_drafter('file:{path}'), make_drafter('icebox'), b, b, seed=1)\n"
        "assert 'torch' not in sys.modules and 'stable_baselines3' not in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", script], check=True)


@pytest.mark.slow
@needs_rl
@pytest.mark.parametrize("approach, n_envs", [("immediate", 1), ("lstm", 1), ("immediate", 2), ("lstm", 2)])
def test_seeded_self_play_gives_the_same_networks_twice(approach, n_envs):
    def run(seed):
        return train(
            approach,
            "max-attack",
            episodes=12,
            seed=seed,
            eval_episodes=2,
            settings=(TINY, TINY),
            n_envs=n_envs,
            battles=2,
        )

    first, again, other = run(5), run(5), run(6)
    for seat in (0, 1):
        for a, b, c in zip(
            first.drafter.policies[seat].weights,
            again.drafter.policies[seat].weights,
            other.drafter.policies[seat].weights,
        ):
            np.testing.assert_array_equal(a, b)
            assert not np.array_equal(a, c)
    assert first.curve == again.curve
    # Twelve checkpoints (one per episode) met at the ends of rounds of 2 episodes.
    assert CHECKPOINTS == 12
    assert [row[:2] for row in first.curve] == [
        (episodes, seat) for episodes in (2, 4, 6, 8, 10, 12) for seat in (0, 1)
    ]
    assert all(row[2] in (0.0, 0.5, 1.0) for row in first.curve)


@needs_rl
def test_train_command_writes_both_seats_and_the_curve_and_refuses_bad_input(tmp_path, capsys):
    out = tmp_path / "run"
    argv = [
        "locm",
        "train",
        "--episodes",
        "20",
        "--eval-episodes",
        "2",
        "--minibatches",
        "2",
        "--envs",
        "2",
        "--battles",
        "3",
        "--seed",
        "1",
        "--out",
        str(out),
        "--quiet",
    ]
    assert gamelp_cli.main(argv) == 0
    assert "20 episodes per seat" in capsys.readouterr().out
    drafter = make_drafter(f"file:{out / 'policy.npz'}")
    assert sorted(drafter.policies) == [0, 1] and drafter.approach == "immediate"
    assert (out / "curve.csv").read_text().splitlines()[0] == "episodes,seat,win_rate"
    assert (out / "curve.png").stat().st_size > 0
    for bad, message in (
        (["--episodes", "0"], "argument --episodes: must be between 1 and"),
        (["--envs", "0"], "argument --envs: must be between 1 and"),
        (
            ["--approach", "lstm", "--battler", "greedy", "--out", str(out / "policy.npz")],
            "policy.npz: cannot create the output directory",
        ),
    ):
        try:
            code = gamelp_cli.main([*argv, *bad])
        except SystemExit as refused:  # refused by the parser itself
            code = refused.code
        assert code == 2
        err = capsys.readouterr().err
        assert message in err and err.count("\n") == 1


# ---- hostile policy files (issue 23, items 7 and 13) ----
def _policy_arrays(approach="immediate"):
    """The arrays ``save_policy`` writes for a small one-seat policy of ``approach``."""
    arrays = {
        "format": np.array("gamelp-locm-draft-policy/1"),
        "approach": np.array(approach),
        "seats": np.array([0]),
        "seat0/activation": np.array("tanh"),
    }
    policy = _random_policy(48 if approach != "lstm" else 4, [], "tanh", 0)
    arrays["seat0/weight0"], arrays["seat0/bias0"] = policy.weights[0].astype(np.float32), policy.biases[0]
    if approach == "lstm":
        arrays.update(
            {
                "seat0/lstm_input": np.zeros((16, 48)),
                "seat0/lstm_hidden": np.zeros((16, 4)),
                "seat0/lstm_bias": np.zeros(16),
            }
        )
    return arrays


def _forged_member(shape, dtype="<f8", data=b""):
    """The bytes of a .npy member whose header declares ``shape`` and ``dtype``, followed by ``data``."""
    header = repr({"descr": dtype, "fortran_order": False, "shape": tuple(shape)}).encode("latin1")
    header += b" " * (-(len(header) + 11) % 64) + b"\n"
    return b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header + data


def _write_with_member(path, arrays, name, member):
    import zipfile

    np.savez(path, **arrays)
    with zipfile.ZipFile(path, "a") as archive:
        archive.writestr(f"{name}.npy", member)


_BAD_POLICIES = {  # name: (arrays changed from _policy_arrays, the fault in the message)
    "missing bias": (lambda a: a.pop("seat0/bias0"), "seat 0: bias0 must have shape (3,)"),
    "missing activation": (lambda a: a.pop("seat0/activation"), "no text entry 'seat0/activation'"),
    "integer weights": (
        lambda a: a.update({"seat0/weight0": np.ones((48, 3), dtype=np.int64)}),
        "seat0/weight0 is a int64 array, expected floating-point weights",
    ),
    "text weights": (
        lambda a: a.update({"seat0/weight0": np.array("x" * 10)}),
        "seat0/weight0 is a <U10 array, expected floating-point weights",
    ),
    "complex bias": (lambda a: a.update({"seat0/bias0": np.ones(3, dtype=complex)}), "seat0/bias0 is a complex128"),
    "float seats": (lambda a: a.update({"seats": np.array([0.0])}), "'seats' must list seat 0 and/or seat 1"),
    "text format": (lambda a: a.update({"format": np.array(1)}), "no text entry 'format'"),
    "1-d weight": (lambda a: a.update({"seat0/weight0": np.zeros(48)}), "weight0 has shape (48,), expected (48, n)"),
    "3-d weight": (lambda a: a.update({"seat0/weight0": np.zeros((48, 3, 1))}), "weight0 has shape (48, 3, 1)"),
    "NaN weight": (
        lambda a: a["seat0/weight0"].__setitem__((5, 1), np.nan),
        "seat0/weight0 holds 1 non-finite weight(s) (NaN or infinite), the first at flat index 16",
    ),
    "infinite bias": (lambda a: a["seat0/bias0"].__setitem__(2, -np.inf), "seat0/bias0 holds 1 non-finite weight"),
}


@pytest.mark.parametrize("case", sorted(_BAD_POLICIES))
def test_malformed_policy_arrays_are_refused_in_one_line(tmp_path, capsys, case):
    change, fault = _BAD_POLICIES[case]
    arrays = _policy_arrays()
    change(arrays)
    path = tmp_path / "bad.npz"
    np.savez(path, **arrays)
    with pytest.raises(DraftPolicyError, match=re.escape(f"{path}: ")) as error:
        load_policy(path)
    assert fault in str(error.value)
    assert gamelp_cli.main(["locm", "play", "--drafters", f"file:{path},random"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and fault in err and str(path) in err


@pytest.mark.parametrize(
    "change, fault",
    [
        (lambda a: a.update({"seat0/lstm_hidden": np.zeros(16)}), "lstm shapes (16, 48), (16,), (16,)"),
        (lambda a: a.update({"seat0/lstm_hidden": np.array(0.0)}), "lstm shapes (16, 48), (), (16,)"),
        (lambda a: a.update({"seat0/lstm_bias": np.full(16, np.nan)}), "seat0/lstm_bias holds 16 non-finite weight(s)"),
        (lambda a: a.update({"seat0/lstm_input": np.zeros((16, 48), dtype=np.int8)}), "seat0/lstm_input is a int8"),
    ],
)
def test_malformed_lstm_arrays_are_refused(tmp_path, change, fault):
    arrays = _policy_arrays("lstm")
    np.savez(tmp_path / "good.npz", **arrays)
    load_policy(tmp_path / "good.npz")  # the unchanged arrays are a valid policy
    change(arrays)
    np.savez(tmp_path / "bad.npz", **arrays)
    with pytest.raises(DraftPolicyError, match=re.escape(f"{tmp_path / 'bad.npz'}: ")) as error:
        load_policy(tmp_path / "bad.npz")
    assert fault in str(error.value)


@pytest.mark.parametrize(
    "shape, dtype, data, fault",
    [
        (
            (1 << 40, 1 << 3),
            "<f8",
            b"\0" * 64,
            "its header declares (1099511627776, 8) float64, 70,368,744,177,664 bytes, more than the",
        ),  # 64 TiB declared in a file of a kilobyte
        ((1 << 37,), "<f8", b"", "more than the"),  # 1 TiB
        ((48, 3), "<f8", b"\0" * 8, "its header declares 1,152 bytes of data, the file holds 8"),
        ((2, 3), "<f8", b"\0" * 1000, "its header declares 48 bytes of data, the file holds 1,000"),
        ((-2, -3), "<f8", b"\0" * 48, "its header declares the shape (-2, -3)"),
        ((3,), "|O", b"\0" * 24, "it holds pickled objects, refused unread"),
        ((3,), [("a", "<f8")], b"\0" * 24, "unsupported dtype"),
        ((3,), "<M8[s]", b"\0" * 24, "unsupported dtype datetime64[s]"),
    ],
)
def test_declared_array_sizes_are_checked_before_loading(tmp_path, capsys, shape, dtype, data, fault):
    path = tmp_path / "forged.npz"
    arrays = _policy_arrays()
    del arrays["seat0/weight0"]
    _write_with_member(path, arrays, "seat0/weight0", _forged_member(shape, dtype, data))
    with pytest.raises(
        DraftPolicyError, match=re.escape(f"{path}: not a draft policy file (array 'seat0/weight0': ")
    ) as error:
        load_policy(path)
    assert fault in str(error.value)
    assert gamelp_cli.main(["locm", "play", "--drafters", f"random,file:{path}"]) == 2
    assert capsys.readouterr().err.count("\n") == 1


def test_the_policy_size_limit_counts_all_arrays_and_the_shipped_policies_load(tmp_path, monkeypatch):
    from importlib import resources

    from gamelp.games.locm import policy

    for approach in ("immediate", "history", "lstm"):
        load_policy(resources.files("gamelp.games.locm").joinpath("data", f"policy-{approach}-max-attack.npz"))
    arrays = _policy_arrays()
    np.savez(tmp_path / "p.npz", **arrays)
    total = sum(a.nbytes for a in arrays.values())
    monkeypatch.setattr(policy, "MAX_POLICY_BYTES", total)
    load_policy(tmp_path / "p.npz")
    monkeypatch.setattr(policy, "MAX_POLICY_BYTES", total - 1)
    with pytest.raises(DraftPolicyError, match="more than the .* bytes left of the limit"):
        load_policy(tmp_path / "p.npz")


def test_a_policy_fifo_is_refused_unread(tmp_path):
    import os

    os.mkfifo(tmp_path / "pipe.npz")
    with pytest.raises(DraftPolicyError, match="it is a named pipe, not a regular file"):
        load_policy(tmp_path / "pipe.npz")
