"""Self-play PPO training of the Immediate, History and LSTM drafters (Vieira (2020), Sections 4.2 and 5.1).

Two networks, one per seat, train with Stable-Baselines3's PPO (LSTM: the
recurrent PPO of sb3-contrib, whose first layer is the LSTM) in the draft
environment (:class:`gamelp.games.locm.env.DraftEnv`, one battle per
episode).  Each plays against a frozen copy of the other; every ``update``
episodes (per seat, Appendix A) both copies are refreshed with the newest
networks.  Twelve times during training (Section 5.1) both networks, picking
their greatest logit, play ``eval_episodes`` full matches against the
max-attack drafter, from their own seat, with the same match seeds at every
checkpoint; the win rates make the learning curve (Figure 5.1).

The default hyperparameters are the thesis's best sets (Appendix A, Tables
A.2 for the max-attack battler and A.3 for greedy).  PPO's batch is
``n_steps`` steps of one environment, split into ``minibatches``.  torch,
stable-baselines3 and sb3-contrib are imported here only: the trained networks leave as
numpy arrays (:mod:`gamelp.games.locm.policy`), and the module imports
gymnasium only when it trains, so ``gamelp locm`` lists ``train`` without it.
"""

from __future__ import annotations

import csv
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from gamelp.argtypes import MAX_COUNT, MAX_SEED, finite_float, integer
from gamelp.deps import require
from gamelp.display import Summarised
from gamelp.errors import OutputError
from gamelp.games.errors import LocmError
from gamelp.games.locm.battlers import make_battler
from gamelp.games.locm.draft import DRAFT_TURNS
from gamelp.games.locm.drafters import make_drafter
from gamelp.games.locm.match import play_match
from gamelp.games.locm.policy import POLICY_APPROACHES, LstmLayer, PolicyDrafter, SeatPolicy
from gamelp.io import atomic_write, check_writable

CHECKPOINTS = 12


@dataclass(frozen=True)
class PPOSettings:
    """One seat's network and PPO hyperparameters (the rows of Tables A.2 and A.3)."""

    update: int  # episodes between refreshes of the opponent's frozen copy
    layers: int
    hidden: int
    activation: str  # tanh, relu or elu
    n_steps: int  # PPO batch, in steps
    minibatches: int
    epochs: int
    clip: float
    vf_coef: float
    ent_coef: float
    learning_rate: float


THESIS_SETTINGS = {  # (approach, battler) -> (first player, second player)
    ("immediate", "max-attack"): (
        PPOSettings(10, 3, 52, "elu", 300, 100, 3, 0.1, 0.5, 8.48e-3, 1.38e-4),
        PPOSettings(10, 1, 81, "tanh", 300, 150, 8, 0.1, 0.5, 6.34e-3, 1.62e-4),
    ),
    ("history", "max-attack"): (PPOSettings(100, 1, 93, "tanh", 240, 120, 3, 0.3, 0.5, 6.59e-3, 3.68e-4),) * 2,
    ("lstm", "max-attack"): (
        PPOSettings(100, 3, 25, "tanh", 240, 1, 17, 0.1, 1.0, 2.06e-3, 4.57e-4),
        PPOSettings(100, 1, 24, "tanh", 150, 1, 10, 0.1, 0.5, 5.39e-3, 4.01e-4),
    ),
    ("immediate", "greedy"): (
        PPOSettings(1000, 1, 169, "elu", 270, 135, 20, 0.1, 1.0, 5.95e-3, 2.28e-4),
        PPOSettings(1000, 1, 154, "tanh", 270, 135, 5, 0.1, 0.5, 7.93e-3, 1.74e-4),
    ),
    ("history", "greedy"): (
        PPOSettings(100, 1, 199, "elu", 270, 135, 4, 0.3, 1.0, 7.23e-3, 6.16e-5),
        PPOSettings(1000, 1, 199, "elu", 270, 135, 18, 0.1, 1.0, 4.36e-3, 5.00e-5),
    ),
    ("lstm", "greedy"): (PPOSettings(1000, 3, 51, "tanh", 210, 1, 16, 0.1, 1.0, 8.55e-3, 1.11e-4),) * 2,
}
"""Table A.2 / A.3.  ``layers`` counts the LSTM layer for ``lstm``."""


@dataclass(frozen=True, repr=False)
class TrainingResult(Summarised):
    """The trained drafter (both seats) and its learning curve: rows (episodes trained, seat, win rate).

    A checkpoint falls at the end of the first round that reaches it, so with
    long rounds (``update`` episodes) the curve has fewer than twelve points.
    """

    drafter: PolicyDrafter
    curve: list[tuple[int, int, float]]

    def _summary(self) -> dict:
        return {
            "drafter": self.drafter.name,
            "approach": self.drafter.approach,
            "checkpoints": len(self.curve),
            "episodes": self.curve[-1][0] if self.curve else None,
            "last_win_rate": self.curve[-1][2] if self.curve else None,
        }


def require_training_packages(approach: str = "immediate", plot: bool = False) -> None:
    """Refuse in one line, before any work, when a package training needs is missing (the ``rl`` extra)."""
    what = "training a learned drafter"
    for module in ("torch", "gymnasium", "stable_baselines3", *(("sb3_contrib",) if approach == "lstm" else ())):
        require(module, what)
    if plot:
        require("matplotlib", f"{what}'s learning curve (curve.png)")


def _torch():
    require("torch", "training a learned drafter")
    import torch

    return torch


def _make_model(env, approach: str, settings: PPOSettings, seed: int):
    """A PPO model for one seat's environment or vectorised environments (recurrent PPO for ``lstm``).

    The batch of ``settings.n_steps`` steps is split evenly over the environments.
    """
    torch = _torch()
    activation = {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU, "elu": torch.nn.ELU}[settings.activation]
    n_envs = getattr(env, "num_envs", 1)
    n_steps = max(1, settings.n_steps // n_envs)
    common = {
        "n_steps": n_steps,
        "batch_size": max(1, n_steps * n_envs // settings.minibatches),
        "n_epochs": settings.epochs,
        "clip_range": settings.clip,
        "vf_coef": settings.vf_coef,
        "ent_coef": settings.ent_coef,
        "learning_rate": settings.learning_rate,
        "seed": seed,
        "device": "cpu",
        "verbose": 0,
    }
    if approach == "lstm":
        from sb3_contrib import RecurrentPPO

        dense = [settings.hidden] * (settings.layers - 1)
        return RecurrentPPO(
            "MlpLstmPolicy",
            env,
            **common,
            policy_kwargs={
                "lstm_hidden_size": settings.hidden,
                "n_lstm_layers": 1,
                "net_arch": {"pi": dense, "vf": dense},
                "activation_fn": activation,
            },
        )
    from stable_baselines3 import PPO

    dense = [settings.hidden] * settings.layers
    return PPO(
        "MlpPolicy", env, **common, policy_kwargs={"net_arch": {"pi": dense, "vf": dense}, "activation_fn": activation}
    )


def export_policy(model, activation: str) -> SeatPolicy:
    """A PPO model's policy network as numpy arrays: its LSTM, hidden layers, then the action layer."""
    torch = _torch()

    def array(tensor) -> np.ndarray:
        return tensor.detach().numpy().astype(np.float64)

    linear = [layer for layer in model.policy.mlp_extractor.policy_net if isinstance(layer, torch.nn.Linear)]
    linear.append(model.policy.action_net)
    lstm = getattr(model.policy, "lstm_actor", None)
    return SeatPolicy(
        tuple(array(layer.weight).T for layer in linear),
        tuple(array(layer.bias) for layer in linear),
        activation,
        None
        if lstm is None
        else LstmLayer(array(lstm.weight_ih_l0), array(lstm.weight_hh_l0), array(lstm.bias_ih_l0 + lstm.bias_hh_l0)),
    )


def evaluate(drafter, seat: int, battler_name: str, episodes: int, seed: int = 0) -> float:
    """Win rate of ``drafter`` from ``seat`` against the max-attack drafter over seeded full matches."""
    opponent, battler = make_drafter("max-attack"), make_battler(battler_name)
    wins = 0
    for match in range(episodes):
        pair = (drafter, opponent) if seat == 0 else (opponent, drafter)
        wins += play_match(*pair, battler, battler, seed=seed + match).winner == seat
    return wins / episodes


def train(
    approach: str = "immediate",
    battler: str = "max-attack",
    episodes: int = 30000,
    seed: int = 0,
    eval_episodes: int = 1000,
    settings: tuple[PPOSettings, PPOSettings] | None = None,
    progress: Callable[[int], None] | None = None,
    n_envs: int = 1,
    battles: int = 1,
) -> TrainingResult:
    """Self-play training of both seats' networks for ``episodes`` episodes each.

    Each seat steps ``n_envs`` environments in lockstep (Stable-Baselines3's
    ``DummyVecEnv``, one process: the networks act on all of them in one
    call); each episode's reward comes from ``battles`` battles of the two
    decks (Section 4.1).  ``progress(episodes_done)`` is called after every round.  The
    same seed gives the same networks (PPO seeds the environments from it;
    each seat's environments start with a random opponent, replaced by the
    other seat's frozen network before the first step).
    """
    require_training_packages(approach)
    if approach not in POLICY_APPROACHES:
        raise LocmError(f"unknown trainable approach {approach!r}; expected one of {', '.join(POLICY_APPROACHES)}")
    if settings is None:
        if (approach, battler) not in THESIS_SETTINGS:
            raise LocmError(f"no published hyperparameters for {approach} with the {battler!r} battler")
        settings = THESIS_SETTINGS[approach, battler]
    if n_envs < 1:
        raise LocmError(f"n_envs must be at least 1, not {n_envs!r}")
    from stable_baselines3.common.vec_env import DummyVecEnv

    from gamelp.games.locm.env import DraftEnv  # gymnasium, like torch, comes with the rl extra

    _torch().set_num_threads(1)
    envs = [
        DummyVecEnv(
            [lambda seat=seat: DraftEnv(approach, seat=seat, opponent="random", battler=battler, battles=battles)]
            * n_envs
        )
        for seat in (0, 1)
    ]
    models = [_make_model(envs[seat], approach, settings[seat], seed * 2 + seat) for seat in (0, 1)]

    def snapshot() -> PolicyDrafter:
        policies = {seat: export_policy(models[seat], settings[seat].activation) for seat in (0, 1)}
        return PolicyDrafter(f"{approach}-self-play", approach, policies)

    def face(env, frozen: PolicyDrafter) -> None:
        """Every environment of ``env`` drafts against its own copy of ``frozen`` (an LSTM copy has memory)."""
        for index in range(env.num_envs):
            env.set_attr("opponent", PolicyDrafter(frozen.name, approach, frozen.policies), indices=index)

    frozen = snapshot()
    for env in envs:
        face(env, frozen)
    checkpoints = [round(episodes * (k + 1) / CHECKPOINTS) for k in range(CHECKPOINTS)]
    curve: list[tuple[int, int, float]] = []
    step = min(s.update for s in settings)
    for done in range(step, episodes + step, step):
        done = min(done, episodes)
        for seat in (0, 1):
            models[seat].learn(
                total_timesteps=done * DRAFT_TURNS - models[seat].num_timesteps, reset_num_timesteps=False
            )
        frozen = snapshot()
        for seat, env in enumerate(envs):  # seat s's opponent is the other seat's copy, refreshed every update
            if done % settings[seat].update == 0:
                face(env, frozen)
        if checkpoints and done >= checkpoints[0]:
            judged = snapshot()  # its own LSTM memory: the environments' opponent may be mid-draft
            curve.extend((done, seat, evaluate(judged, seat, battler, eval_episodes)) for seat in (0, 1))
            checkpoints = [episode for episode in checkpoints if episode > done]
        if progress:
            progress(done)
    return TrainingResult(snapshot(), curve)


def write_curve(curve: list[tuple[int, int, float]], path) -> None:
    """The learning curve as CSV rows ``episodes,seat,win_rate``, written atomically."""
    with atomic_write(path, newline="") as stream:
        writer = csv.writer(stream)
        writer.writerow(["episodes", "seat", "win_rate"])
        writer.writerows(curve)


def plot_curve(curve: list[tuple[int, int, float]], title: str, path) -> None:
    """Figure 5.1's kind: each seat's win rate against max-attack over training, and their mean dashed."""
    require("matplotlib", "plotting a learning curve")
    from matplotlib.figure import Figure

    from gamelp.plots import save_figure

    rates = {(episodes, seat): rate for episodes, seat, rate in curve}
    points = sorted({episodes for episodes, _, _ in curve})
    figure = Figure(figsize=(6, 4))
    axis = figure.subplots()
    for seat, label in ((0, "1st player"), (1, "2nd player")):
        axis.plot(points, [rates[episodes, seat] for episodes in points], marker="o", label=label)
    axis.plot(points, [(rates[e, 0] + rates[e, 1]) / 2 for e in points], linestyle="--", label="mean")
    axis.set_xlabel("training episodes per seat")
    axis.set_ylabel("win rate against max-attack")
    axis.set_title(title)
    axis.legend()
    save_figure(figure, path)


def curve_table(curve: list[tuple[int, int, float]]) -> str:
    """The learning curve as a text table: episodes, each seat's win rate and their mean, in %."""
    rates = {(episodes, seat): rate for episodes, seat, rate in curve}
    lines = [f"{'episodes':>9}  {'1st player':>10}  {'2nd player':>10}  {'mean':>6}"]
    for episodes in sorted({episodes for episodes, _, _ in curve}):
        first, second = rates[episodes, 0], rates[episodes, 1]
        lines.append(f"{episodes:>9}  {100 * first:9.1f}%  {100 * second:9.1f}%  {50 * (first + second):5.1f}%")
    return "\n".join(lines)


@dataclass(frozen=True)
class TrainingSession:
    """A finished :func:`train_session`: what was trained, its learning curve and where its files are."""

    approach: str
    battler: str
    episodes: int
    seconds: float
    curve: list[tuple[int, int, float]]
    out: Path

    @property
    def policy(self) -> Path:
        """The trained policy's file, ``out/policy.npz``."""
        return self.out / "policy.npz"

    def report(self) -> str:
        """The session as text: the time, the learning curve's table and the files written."""
        return (
            f"{self.approach} with {self.battler}: {self.episodes} episodes per seat in {self.seconds:.0f} s\n"
            f"{curve_table(self.curve)}\n"
            f"wrote {self.policy} (draft with it as file:{self.policy}), "
            f"{self.out / 'curve.csv'}, {self.out / 'curve.png'}"
        )


def train_session(
    approach: str,
    battler: str,
    episodes: int,
    out,
    seed: int = 0,
    eval_episodes: int = 1000,
    minibatches: int | None = None,
    learning_rate_scale: float = 1.0,
    n_envs: int = 1,
    battles: int = 1,
    progress: bool = True,
) -> TrainingSession:
    """Train, then write in ``out``: ``policy.npz`` (both seats), ``curve.csv`` and ``curve.png``.

    ``minibatches`` replaces the thesis's number of PPO mini-batches and
    ``learning_rate_scale`` multiplies its learning rates, for both seats.
    """
    from tqdm import tqdm

    from gamelp.games.locm.policy import save_policy

    require_training_packages(approach, plot=True)
    for name, value in (
        ("episodes", episodes),
        ("eval episodes", eval_episodes),
        ("environments", n_envs),
        ("battles", battles),
    ):
        if value < 1:
            raise LocmError(f"{name} must be at least 1, not {value}")
    if (minibatches is not None and minibatches < 1) or not learning_rate_scale > 0:
        raise LocmError("minibatches must be at least 1 and the learning-rate scale positive")
    if (approach, battler) not in THESIS_SETTINGS:
        raise LocmError(f"no published hyperparameters for {approach!r} with the {battler!r} battler")
    settings = tuple(
        replace(
            seat, minibatches=minibatches or seat.minibatches, learning_rate=seat.learning_rate * learning_rate_scale
        )
        for seat in THESIS_SETTINGS[approach, battler]
    )
    for seat in settings:  # PPO's mini-batches hold two steps at least (Stable-Baselines3 refuses fewer)
        batch = max(1, seat.n_steps // n_envs) * n_envs
        if batch // seat.minibatches < 2:
            raise LocmError(
                f"{seat.minibatches} minibatches: PPO's batch of {batch} steps splits into at most {batch // 2}"
            )
    out = Path(out)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OutputError(f"{out}: cannot create the output directory ({exc.strerror or exc})") from None
    check_writable(out / "policy.npz")
    start = time.perf_counter()
    with tqdm(total=episodes, unit="episode", desc=f"{approach}/{battler}", disable=not progress) as bar:
        result = train(
            approach,
            battler,
            episodes,
            seed=seed,
            eval_episodes=eval_episodes,
            settings=settings,
            progress=lambda done: bar.update(done - bar.n),
            n_envs=n_envs,
            battles=battles,
        )
    seconds = time.perf_counter() - start
    save_policy(out / "policy.npz", approach, result.drafter.policies)
    write_curve(result.curve, out / "curve.csv")
    plot_curve(result.curve, f"{approach} drafter, {battler} battler", out / "curve.png")
    return TrainingSession(approach, battler, episodes, seconds, list(result.curve), out)


def add_train_arguments(parser, default_out: str | None = None) -> None:
    """The options of ``gamelp locm train`` (and of ``scripts/vieira/vieira_5_1_training.py``) on ``parser``."""
    parser.add_argument(
        "--approach",
        choices=POLICY_APPROACHES,
        default="immediate",
        help="drafter approach, Vieira (2020), Section 4.2 (default %(default)s)",
    )
    parser.add_argument(
        "--battler",
        choices=["max-attack", "greedy"],
        default="max-attack",
        help="battler of both decks during training (default %(default)s)",
    )
    parser.add_argument(
        "--episodes", type=integer(1, MAX_COUNT), default=30000, help="training episodes per seat (default %(default)s)"
    )
    parser.add_argument(
        "--eval-episodes",
        type=integer(1, MAX_COUNT),
        default=1000,
        help="matches per checkpoint and seat against max-attack (default %(default)s)",
    )
    parser.add_argument(
        "--minibatches",
        type=integer(1, MAX_COUNT),
        help="PPO mini-batches per batch for both seats (default: the thesis's)",
    )
    parser.add_argument(
        "--learning-rate-scale",
        type=finite_float(0.0, strict=True, high=1e3),  # the rates times 1e3 are already far past any that learns
        default=1.0,
        help="multiplies the thesis's learning rates of both seats (default %(default)s)",
    )
    parser.add_argument(
        "--envs", type=integer(1, 1024), default=1, help="environments per seat, stepped together (default %(default)s)"
    )
    parser.add_argument(
        "--battles",
        type=integer(1, MAX_COUNT),
        default=1,
        help="battles that score each training episode's deck (default %(default)s)",
    )
    parser.add_argument("--seed", type=integer(0, MAX_SEED // 2), default=0, help="training seed (default %(default)s)")
    parser.add_argument(
        "--out",
        metavar="DIR",
        default=default_out,
        required=default_out is None,
        help="output directory" + (f" (default {default_out})" if default_out else ""),
    )
    parser.add_argument("--quiet", action="store_true", help="no progress bar")


def train_from_args(args) -> TrainingSession:
    """:func:`train_session` with the options of :func:`add_train_arguments`."""
    return train_session(
        args.approach,
        args.battler,
        args.episodes,
        args.out,
        seed=args.seed,
        eval_episodes=args.eval_episodes,
        minibatches=args.minibatches,
        learning_rate_scale=args.learning_rate_scale,
        n_envs=args.envs,
        battles=args.battles,
        progress=not args.quiet,
    )


def run_train(args) -> int:
    """``gamelp locm train``: train with the options of :func:`add_train_arguments`; print the session's report."""
    print(train_from_args(args).report())
    return 0
