"""gamelp.regret is a package of three modules; every public name of the former module is still importable from it,
and each is defined once (the package re-exports, it copies nothing)."""

import gamelp.regret as regret
from gamelp.regret import cfr, selfplay, simplex

FORMER_PUBLIC_NAMES = {
    simplex: [
        "Segments",
        "RegretMinimiser",
        "RegretMatching",
        "RegretMatchingPlus",
        "DiscountedRegretMatching",
        "PredictiveRegretMatchingPlus",
        "DiscountedRegretMatchingPlus",
        "PredictiveDiscountedRegretMatchingPlus",
        "MWU",
        "OMWU",
        "LocalRule",
        "LOCAL_MINIMISERS",
        "local_minimiser",
    ],
    cfr: ["TreeplexLevels", "CFR", "PredictiveCFR"],
    selfplay: [
        "AVERAGING",
        "PROGRESS_EVERY",
        "CHECK_EVERY",
        "Method",
        "METHODS",
        "RegretResult",
        "solve_regret",
        "self_play_matrix",
    ],
}


def test_every_former_public_name_is_the_one_of_its_module():
    for module, names in FORMER_PUBLIC_NAMES.items():
        for name in names:
            assert getattr(regret, name) is getattr(module, name), name
    assert set(regret.__all__) == {name for names in FORMER_PUBLIC_NAMES.values() for name in names} | {"RegretError"}
