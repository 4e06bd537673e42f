"""The shipped learned drafters: they load without torch, draft legally and deterministically, and are trained."""

import random
import subprocess
import sys

import pytest

from gamelp.games.locm.battlers import make_battler
from gamelp.games.locm.draft import DRAFT_TURNS, RefereeSeeds, draft_offers
from gamelp.games.locm.drafters import LEARNED_DRAFTERS, drafter_file, make_drafter
from gamelp.games.locm.match import play_match
from gamelp.games.locm.policy import PolicyDrafter
from gamelp.games.locm.tournament import DrafterTournament, run_tournament
from gamelp.games.runner import Execution


def draft(drafter, seat: int, seed: int) -> list[int]:
    """The positions ``drafter`` picks from seat ``seat`` over one referee draft."""
    rng = random.Random(seed)
    chosen, picks = [], []
    for offer in draft_offers(RefereeSeeds.from_seed(seed).draft):
        pick = drafter.pick(tuple(offer.tolist()), tuple(chosen), seat, rng)
        picks.append(pick)
        chosen.append(int(offer[pick]))
    return picks


@pytest.mark.parametrize("name", sorted(LEARNED_DRAFTERS))
def test_shipped_policies_load_for_both_seats_and_are_small(name):
    drafter = make_drafter(name)
    assert isinstance(drafter, PolicyDrafter) and drafter.name == name and drafter.approach == name
    assert sorted(drafter.policies) == [0, 1]
    assert drafter_file(name).stat().st_size < 500_000  # History: two 528 x 93 float32 layers


@pytest.mark.parametrize("name", sorted(LEARNED_DRAFTERS))
def test_shipped_policies_pick_legal_cards_deterministically(name):
    drafter, again = make_drafter(name), make_drafter(name)
    for seat in (0, 1):
        for seed in (3, 4):
            picks = draft(drafter, seat, seed)
            assert len(picks) == DRAFT_TURNS and set(picks) <= {0, 1, 2}
            assert picks == draft(again, seat, seed)  # a fresh copy: the same picks
            assert picks == draft(drafter, seat, seed)  # the memory (LSTM) starts afresh with every draft
    assert draft(drafter, 0, 3) != draft(drafter, 0, 4)


def test_the_shipped_immediate_drafter_beats_max_attack():
    """Trained, not random: the max-attack drafter wins about 45% against a random one (Vieira (2020), Fig. 5.2)."""
    battler, learned, max_attack = make_battler("max-attack"), make_drafter("immediate"), make_drafter("max-attack")
    wins = 0
    for match in range(200):
        seat = match % 2
        pair = (learned, max_attack) if seat == 0 else (max_attack, learned)
        wins += play_match(*pair, battler, battler, seed=match).winner == seat
    assert wins / 200 > 0.6


def test_the_tournament_resolves_the_shipped_names_and_records_their_files(tmp_path):
    names = [*sorted(LEARNED_DRAFTERS), "icebox"]
    tournament = DrafterTournament(names, "max-attack", matches=2, sets=2, seed=0)
    assert set(tournament.params["drafter_files"]) == set(LEARNED_DRAFTERS)
    result = run_tournament(names, matches=2, sets=2, out=tmp_path, figures=False, execution=Execution(progress=False))
    assert result.drafters == tuple(names) and result.matches == 4 * len(tournament.pairs)


def test_drafting_with_shipped_drafters_imports_neither_torch_nor_gymnasium():
    """The tournament and ``gamelp locm play`` (whose group also lists ``train``) need no ``rl`` extra."""
    script = (
        "import sys\n"
        "from gamelp import cli\n"
        "from gamelp.games.locm.tournament import run_tournament\n"
        "from gamelp.games.runner import Execution\n"
        "run_tournament(['immediate', 'random'], matches=2, sets=2, execution=Execution(progress=False))\n"
        "assert cli.main(['locm', 'play', '--drafters', 'immediate,icebox']) == 0\n"
        "loaded = [m for m in ('torch', 'stable_baselines3', 'sb3_contrib', 'gymnasium') if m in sys.modules]\n"
        "assert not loaded, loaded\n"
    )
    subprocess.run([sys.executable, "-c", script], check=True, capture_output=True)
