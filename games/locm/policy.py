"""Learned drafters as plain arrays: one network per seat, evaluated in numpy.

The Immediate, History and LSTM drafters of Vieira (2020), Section 4.2 are
policy networks over the card encoding of Section 4.3.3 (see
:func:`gamelp.games.locm.analysis.draft_observation`; LSTM sees what
Immediate sees).  LSTM's first layer is a long short-term memory layer
(PyTorch's gate order: input, forget, cell, output) whose state runs through
the draft; then hidden layers ``h = act(h @ W + b)``, then three logits, one
per offered card.  The drafter picks the greatest logit (the first on a
tie).  Trained with torch (:mod:`gamelp.games.locm.train`), the weights are
stored as a ``.npz`` file so that drafting needs neither torch nor pickles:

- ``format`` = ``gamelp-locm-draft-policy/1``, ``approach`` (``immediate``,
  ``history`` or ``lstm``), ``seats`` (the seats the file holds, 0 and/or 1);
- per seat ``s``: ``seat{s}/activation`` (``tanh``, ``relu`` or ``elu``) and
  ``seat{s}/weight{i}``, ``seat{s}/bias{i}`` for ``i = 0, 1, ...``, the last
  layer giving the three logits; for ``lstm`` also ``seat{s}/lstm_input``
  (4H, inputs), ``seat{s}/lstm_hidden`` (4H, H) and ``seat{s}/lstm_bias`` (4H,).

An LSTM drafter keeps each seat's memory between picks and starts afresh
when ``chosen`` is empty, the first turn of a draft: call ``pick`` once per
turn, in order, one draft at a time per seat.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from gamelp.games.errors import DraftPolicyError
from gamelp.games.locm.analysis import CARD_FEATURES, card_encoding, draft_observation
from gamelp.games.locm.draft import DRAFT_TURNS, OFFER_SIZE
from gamelp.io import atomic_write, read_npz

FORMAT = "gamelp-locm-draft-policy/1"
POLICY_APPROACHES = ("immediate", "history", "lstm")
LSTM_KEYS = ("lstm_input", "lstm_hidden", "lstm_bias")
ACTIVATIONS = {
    "tanh": np.tanh,
    "relu": lambda x: np.maximum(x, 0.0),
    "elu": lambda x: np.where(x > 0, x, np.expm1(np.minimum(x, 0.0))),
}


MAX_POLICY_BYTES = 64 << 20
"""Most array data a policy file may declare: the shipped policies hold under 0.4 MB, and even a History
network of two 4096-wide float64 layers needs under 40 MB; a header declaring more is refused before loading."""


def observation_size(approach: str) -> int:
    """Length of the flattened observation of ``approach``."""
    return ((DRAFT_TURNS if approach == "history" else 0) + OFFER_SIZE) * CARD_FEATURES


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + np.tanh(0.5 * x))


@dataclass(frozen=True)
class LstmLayer:
    """PyTorch's ``nn.LSTM`` (one layer): ``input`` (4H, inputs), ``hidden`` (4H, H), ``bias`` = b_ih + b_hh."""

    input: np.ndarray
    hidden: np.ndarray
    bias: np.ndarray

    def step(self, x: np.ndarray, state: tuple[np.ndarray, np.ndarray] | None):
        """One time step from ``state`` = (h, c) (zeros when None); returns the new (h, c)."""
        size = self.hidden.shape[1]
        h, c = state if state is not None else (np.zeros(size), np.zeros(size))
        gates = self.input @ x + self.hidden @ h + self.bias
        i, f, g, o = (gates[k * size : (k + 1) * size] for k in range(4))
        c = _sigmoid(f) * c + _sigmoid(i) * np.tanh(g)
        return _sigmoid(o) * np.tanh(c), c


@dataclass(frozen=True)
class SeatPolicy:
    """One seat's network.

    An optional LSTM layer, then ``weights[i]`` of shape (inputs, outputs) and ``biases[i]`` of shape (outputs,).
    """

    weights: tuple[np.ndarray, ...]
    biases: tuple[np.ndarray, ...]
    activation: str
    lstm: LstmLayer | None = None

    def forward(self, observation: np.ndarray, state=None):
        """The three logits and the LSTM's new state (None without an LSTM layer)."""
        if self.lstm is not None:
            state = self.lstm.step(observation, state)
            observation = state[0]
        return self.logits(observation), state

    def logits(self, features: np.ndarray) -> np.ndarray:
        """The logits of the layers after the LSTM (for Immediate and History: of the observation)."""
        hidden = features
        act = ACTIVATIONS[self.activation]
        for weight, bias in zip(self.weights[:-1], self.biases[:-1]):
            hidden = act(hidden @ weight + bias)
        return hidden @ self.weights[-1] + self.biases[-1]


class PolicyDrafter:
    """A learned drafter: picks the offered card of greatest logit under its seat's network.

    ``source`` names its file in error messages (default: ``name``).
    """

    def __init__(self, name: str, approach: str, policies: Mapping[int, SeatPolicy], source: str | None = None):
        self.name, self.approach, self.policies = name, approach, dict(policies)
        self.source = source or name
        self._encoding = card_encoding()
        self._memory: dict[int, tuple[np.ndarray, np.ndarray]] = {}  # seat -> LSTM state

    def require_seats(self, seats: Sequence[int]) -> None:
        """Refuse, naming the file, a drafter that holds no network for one of ``seats``."""
        missing = sorted(set(seats) - set(self.policies))
        if missing:
            raise DraftPolicyError(
                f"{self.source}: no policy for seat {', '.join(map(str, missing))} (it was "
                f"trained for seat(s) {', '.join(map(str, sorted(self.policies)))})"
            )

    def pick(self, offer: Sequence[int], chosen: Sequence[int], seat: int, rng: random.Random) -> int:
        """The pick (0, 1 or 2) with the greatest logit under this seat's network (an LSTM's state carries over)."""
        self.require_seats((seat,))
        policy = self.policies[seat]
        observation = draft_observation(self._encoding, offer, chosen, self.approach == "history")
        logits, self._memory[seat] = policy.forward(observation, self._memory.get(seat) if chosen else None)
        return int(np.argmax(logits))


def save_policy(path: str | Path, approach: str, policies: Mapping[int, SeatPolicy]) -> None:
    """Write ``policies`` (seat -> network) to ``path`` atomically (a temporary file, then a rename)."""
    arrays = {"format": np.array(FORMAT), "approach": np.array(approach), "seats": np.array(sorted(policies))}
    for seat, policy in policies.items():
        arrays[f"seat{seat}/activation"] = np.array(policy.activation)
        for i, (weight, bias) in enumerate(zip(policy.weights, policy.biases)):
            arrays[f"seat{seat}/weight{i}"] = np.asarray(weight, dtype=np.float32)
            arrays[f"seat{seat}/bias{i}"] = np.asarray(bias, dtype=np.float32)
        if policy.lstm is not None:
            for key, array in zip(LSTM_KEYS, (policy.lstm.input, policy.lstm.hidden, policy.lstm.bias)):
                arrays[f"seat{seat}/{key}"] = np.asarray(array, dtype=np.float32)
    with atomic_write(path, "wb") as stream:
        np.savez(stream, **arrays)


def load_policy(path: str | Path, name: str | None = None) -> PolicyDrafter:
    """Read a policy file; refuse a malformed one with one line naming the file."""
    arrays = read_npz(path, DraftPolicyError, MAX_POLICY_BYTES, "a draft policy file")

    def text(key: str) -> str:
        if key not in arrays or arrays[key].dtype.kind != "U" or arrays[key].ndim != 0:
            raise DraftPolicyError(f"{path}: no text entry {key!r}")
        return str(arrays[key])

    if text("format") != FORMAT:
        raise DraftPolicyError(f"{path}: format {text('format')!r}, expected {FORMAT!r}")
    approach = text("approach")
    if approach not in POLICY_APPROACHES:
        raise DraftPolicyError(f"{path}: approach {approach!r}, expected one of {', '.join(POLICY_APPROACHES)}")
    seats = arrays.get("seats", np.array([]))
    if seats.ndim != 1 or seats.dtype.kind not in "iu" or not 1 <= len(seats) <= 2 or not set(seats.tolist()) <= {0, 1}:
        raise DraftPolicyError(f"{path}: 'seats' must list seat 0 and/or seat 1")
    policies = {int(seat): _seat_policy(arrays, int(seat), approach, path, text) for seat in seats}
    return PolicyDrafter(name or f"file:{path}", approach, policies, source=str(path))


def _seat_policy(arrays: dict, seat: int, approach: str, path, text) -> SeatPolicy:
    activation = text(f"seat{seat}/activation")
    if activation not in ACTIVATIONS:
        raise DraftPolicyError(
            f"{path}: seat {seat}: activation {activation!r}, expected one of {', '.join(ACTIVATIONS)}"
        )
    inputs = observation_size(approach)
    lstm = None
    if approach == "lstm":
        lstm = _lstm_layer(arrays, seat, inputs, path)
        inputs = lstm.hidden.shape[1]
    weights, biases = [], []
    while f"seat{seat}/weight{len(weights)}" in arrays:
        i = len(weights)
        weight = _weights(arrays, f"seat{seat}/weight{i}", path)
        bias = _weights(arrays, f"seat{seat}/bias{i}", path) if f"seat{seat}/bias{i}" in arrays else None
        expected_rows = inputs if i == 0 else weights[-1].shape[1]
        if weight.ndim != 2 or weight.shape[0] != expected_rows:
            raise DraftPolicyError(
                f"{path}: seat {seat}: weight{i} has shape {weight.shape}, expected ({expected_rows}, n)"
            )
        if bias is None or bias.shape != (weight.shape[1],):
            raise DraftPolicyError(f"{path}: seat {seat}: bias{i} must have shape ({weight.shape[1]},)")
        weights.append(weight.astype(np.float64))
        biases.append(bias.astype(np.float64))
    if not weights or weights[-1].shape[1] != OFFER_SIZE:
        raise DraftPolicyError(f"{path}: seat {seat}: the last layer must give {OFFER_SIZE} logits")
    return SeatPolicy(tuple(weights), tuple(biases), activation, lstm)


def _lstm_layer(arrays: dict, seat: int, inputs: int, path) -> LstmLayer:
    missing = [key for key in LSTM_KEYS if f"seat{seat}/{key}" not in arrays]
    if missing:
        raise DraftPolicyError(f"{path}: seat {seat}: an lstm policy needs {', '.join(missing)}")
    input_weights, hidden_weights, bias = (_weights(arrays, f"seat{seat}/{key}", path) for key in LSTM_KEYS)
    size = hidden_weights.shape[-1] if hidden_weights.ndim == 2 else -1
    if (
        input_weights.shape != (4 * size, inputs)
        or hidden_weights.shape != (4 * size, size)
        or bias.shape != (4 * size,)
    ):
        raise DraftPolicyError(
            f"{path}: seat {seat}: lstm shapes {input_weights.shape}, {hidden_weights.shape}, "
            f"{bias.shape}; expected (4H, {inputs}), (4H, H), (4H,)"
        )
    return LstmLayer(input_weights, hidden_weights, bias)


def _weights(arrays: dict, key: str, path) -> np.ndarray:
    """``arrays[key]`` as float64, refused unless it is a floating-point array of finite numbers."""
    array = arrays[key]
    if array.dtype.kind != "f":
        raise DraftPolicyError(f"{path}: {key} is a {array.dtype} array, expected floating-point weights")
    if not np.all(np.isfinite(array)):
        bad = np.flatnonzero(~np.isfinite(array.ravel()))
        raise DraftPolicyError(
            f"{path}: {key} holds {len(bad)} non-finite weight(s) (NaN or infinite), the first at flat index {bad[0]}"
        )
    return array.astype(np.float64)
