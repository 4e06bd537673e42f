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
numpy arrays (:mod:`gamelp.games.locm.policy`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from gamelp.errors import LocmError
from gamelp.games.locm.battlers import make_battler
from gamelp.games.locm.draft import DRAFT_TURNS
from gamelp.games.locm.drafters import make_drafter
from gamelp.games.locm.env import DraftEnv
from gamelp.games.locm.match import play_match
from gamelp.games.locm.policy import POLICY_APPROACHES, LstmLayer, PolicyDrafter, SeatPolicy

CHECKPOINTS = 12


@dataclass(frozen=True)
class PPOSettings:
    """One seat's network and PPO hyperparameters (the rows of Tables A.2 and A.3)."""

    update: int          # episodes between refreshes of the opponent's frozen copy
    layers: int
    hidden: int
    activation: str      # tanh, relu or elu
    n_steps: int         # PPO batch, in steps
    minibatches: int
    epochs: int
    clip: float
    vf_coef: float
    ent_coef: float
    learning_rate: float


THESIS_SETTINGS = {  # (approach, battler) -> (first player, second player)
    ("immediate", "max-attack"): (PPOSettings(10, 3, 52, "elu", 300, 100, 3, 0.1, 0.5, 8.48e-3, 1.38e-4),
                                  PPOSettings(10, 1, 81, "tanh", 300, 150, 8, 0.1, 0.5, 6.34e-3, 1.62e-4)),
    ("history", "max-attack"): (PPOSettings(100, 1, 93, "tanh", 240, 120, 3, 0.3, 0.5, 6.59e-3, 3.68e-4),) * 2,
    ("lstm", "max-attack"): (PPOSettings(100, 3, 25, "tanh", 240, 1, 17, 0.1, 1.0, 2.06e-3, 4.57e-4),
                             PPOSettings(100, 1, 24, "tanh", 150, 1, 10, 0.1, 0.5, 5.39e-3, 4.01e-4)),
    ("immediate", "greedy"): (PPOSettings(1000, 1, 169, "elu", 270, 135, 20, 0.1, 1.0, 5.95e-3, 2.28e-4),
                              PPOSettings(1000, 1, 154, "tanh", 270, 135, 5, 0.1, 0.5, 7.93e-3, 1.74e-4)),
    ("history", "greedy"): (PPOSettings(100, 1, 199, "elu", 270, 135, 4, 0.3, 1.0, 7.23e-3, 6.16e-5),
                            PPOSettings(1000, 1, 199, "elu", 270, 135, 18, 0.1, 1.0, 4.36e-3, 5.00e-5)),
    ("lstm", "greedy"): (PPOSettings(1000, 3, 51, "tanh", 210, 1, 16, 0.1, 1.0, 8.55e-3, 1.11e-4),) * 2,
}
"""Table A.2 / A.3.  ``layers`` counts the LSTM layer for ``lstm``."""


@dataclass(frozen=True)
class TrainingResult:
    """The trained drafter (both seats) and its learning curve: rows (episodes trained, seat, win rate).

    A checkpoint falls at the end of the first round that reaches it, so with
    long rounds (``update`` episodes) the curve has fewer than twelve points.
    """

    drafter: PolicyDrafter
    curve: list[tuple[int, int, float]]


def _torch():
    import torch
    return torch


def _make_model(env, approach: str, settings: PPOSettings, seed: int):
    """A PPO model for one seat's environment (recurrent PPO for ``lstm``)."""
    torch = _torch()
    activation = {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU, "elu": torch.nn.ELU}[settings.activation]
    common = {"n_steps": settings.n_steps, "batch_size": settings.n_steps // settings.minibatches,
              "n_epochs": settings.epochs, "clip_range": settings.clip, "vf_coef": settings.vf_coef,
              "ent_coef": settings.ent_coef, "learning_rate": settings.learning_rate,
              "seed": seed, "device": "cpu", "verbose": 0}
    if approach == "lstm":
        from sb3_contrib import RecurrentPPO
        dense = [settings.hidden] * (settings.layers - 1)
        return RecurrentPPO("MlpLstmPolicy", env, **common, policy_kwargs={
            "lstm_hidden_size": settings.hidden, "n_lstm_layers": 1,
            "net_arch": {"pi": dense, "vf": dense}, "activation_fn": activation})
    from stable_baselines3 import PPO
    dense = [settings.hidden] * settings.layers
    return PPO("MlpPolicy", env, **common, policy_kwargs={"net_arch": {"pi": dense, "vf": dense},
                                                          "activation_fn": activation})


def export_policy(model, activation: str) -> SeatPolicy:
    """A PPO model's policy network as numpy arrays: its LSTM, hidden layers, then the action layer."""
    torch = _torch()

    def array(tensor) -> np.ndarray:
        return tensor.detach().numpy().astype(np.float64)

    linear = [layer for layer in model.policy.mlp_extractor.policy_net if isinstance(layer, torch.nn.Linear)]
    linear.append(model.policy.action_net)
    lstm = getattr(model.policy, "lstm_actor", None)
    return SeatPolicy(tuple(array(layer.weight).T for layer in linear), tuple(array(layer.bias) for layer in linear),
                      activation, None if lstm is None else LstmLayer(
                          array(lstm.weight_ih_l0), array(lstm.weight_hh_l0), array(lstm.bias_ih_l0 + lstm.bias_hh_l0)))


def evaluate(drafter, seat: int, battler_name: str, episodes: int, seed: int = 0) -> float:
    """Win rate of ``drafter`` from ``seat`` against the max-attack drafter over seeded full matches."""
    opponent, battler = make_drafter("max-attack"), make_battler(battler_name)
    wins = 0
    for match in range(episodes):
        pair = (drafter, opponent) if seat == 0 else (opponent, drafter)
        wins += play_match(*pair, battler, battler, seed=seed + match).winner == seat
    return wins / episodes


def train(approach: str = "immediate", battler: str = "max-attack", episodes: int = 30000, seed: int = 0,
          eval_episodes: int = 1000, settings: tuple[PPOSettings, PPOSettings] | None = None,
          progress: Callable[[int], None] | None = None) -> TrainingResult:
    """Self-play training of both seats' networks for ``episodes`` episodes each.

    ``progress(episodes_done)`` is called after every round.  The same seed
    gives the same networks (PPO seeds the environments from it; each seat's
    environment starts with a random opponent, replaced by the other seat's
    frozen network before the first step).
    """
    if approach not in POLICY_APPROACHES:
        raise LocmError(f"unknown trainable approach {approach!r}; expected one of {', '.join(POLICY_APPROACHES)}")
    if settings is None:
        if (approach, battler) not in THESIS_SETTINGS:
            raise LocmError(f"no published hyperparameters for {approach} with the {battler!r} battler")
        settings = THESIS_SETTINGS[approach, battler]
    _torch().set_num_threads(1)
    envs = [DraftEnv(approach, seat=seat, opponent="random", battler=battler) for seat in (0, 1)]
    models = [_make_model(envs[seat], approach, settings[seat], seed * 2 + seat) for seat in (0, 1)]

    def snapshot() -> PolicyDrafter:
        policies = {seat: export_policy(models[seat], settings[seat].activation) for seat in (0, 1)}
        return PolicyDrafter(f"{approach}-self-play", approach, policies)

    frozen = snapshot()
    for env in envs:
        env.opponent = frozen
    checkpoints = [round(episodes * (k + 1) / CHECKPOINTS) for k in range(CHECKPOINTS)]
    curve: list[tuple[int, int, float]] = []
    step = min(s.update for s in settings)
    for done in range(step, episodes + step, step):
        done = min(done, episodes)
        for seat in (0, 1):
            models[seat].learn(total_timesteps=done * DRAFT_TURNS - models[seat].num_timesteps,
                               reset_num_timesteps=False)
        frozen = snapshot()
        for seat, env in enumerate(envs):  # seat s's opponent is the other seat's copy, refreshed every update
            if done % settings[seat].update == 0:
                env.opponent = frozen
        if checkpoints and done >= checkpoints[0]:
            judged = snapshot()  # its own LSTM memory: the environments' opponent may be mid-draft
            curve.extend((done, seat, evaluate(judged, seat, battler, eval_episodes)) for seat in (0, 1))
            checkpoints = [episode for episode in checkpoints if episode > done]
        if progress:
            progress(done)
    return TrainingResult(snapshot(), curve)
