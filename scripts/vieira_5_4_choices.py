"""Vieira (2020), Section 5.4.3: how often two drafters pick the same card, and a map of their choices.

Every drafter, published and learned, is shown the same referee offers
(``--drafts`` seeded drafts, half of them from each seat). For each pair the
script prints the share of turns on which both picked the same card
(Figure 5.4) beside the thesis's where it is published, then projects each
drafter's choices on their first three principal components and clusters the
points with k-means, k chosen by the silhouette score (Figure 5.5; the thesis
finds k = 5 over its ten drafters). ``--plot`` draws the first two components.

    python scripts/vieira_5_4_choices.py --drafts 2000 --plot choices.png
"""

from __future__ import annotations

import itertools
import random

import numpy as np

from gamelp.cli.args import OneLineParser, run_script
from gamelp.games.locm.analysis import FIGURE_5_4, choice_projection, choice_similarity, draft_choices
from gamelp.games.locm.draft import RefereeSeeds, draft_offers
from gamelp.games.locm.drafters import LEARNED_DRAFTERS, PUBLISHED_DRAFTERS, make_drafter


def all_choices(names, drafts: int, seed: int) -> dict[str, np.ndarray]:
    """Each drafter's picks on the same offers: the first half of the drafts from seat 0, the rest from seat 1."""
    offers = np.array([draft_offers(RefereeSeeds.from_seed(seed + k).draft) for k in range(drafts)])
    half = drafts // 2
    return {name: np.concatenate([draft_choices(make_drafter(name), offers[:half], 0, random.Random(seed)),
                                  draft_choices(make_drafter(name), offers[half:], 1, random.Random(seed + 1))])
            for name in names}


def clusters(points: dict[str, np.ndarray], seed: int) -> tuple[int, dict[str, int]]:
    """k-means on the projected choices, k in 2 .. n - 1 chosen by the silhouette score."""
    from sklearn.cluster import KMeans
    from sklearn.metrics import silhouette_score

    names = list(points)
    X = np.array([points[name] for name in names])
    best = (-2.0, 0, None)
    for k in range(2, len(names)):
        labels = KMeans(n_clusters=k, n_init=10, random_state=seed).fit_predict(X)
        score = silhouette_score(X, labels)
        if score > best[0]:
            best = (score, k, labels)
    return best[1], dict(zip(names, map(int, best[2])))


def main(argv=None) -> int:
    parser = OneLineParser(description=__doc__.splitlines()[0])
    parser.add_argument("--drafts", type=int, default=2000, help="seeded drafts (default %(default)s)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--learned", default=",".join(LEARNED_DRAFTERS),
                        help="learned drafters to include (default: %(default)s; '' for none)")
    parser.add_argument("--plot", help="PNG of the first two principal components")
    args = parser.parse_args(argv)
    if args.drafts < 2:
        parser.error("--drafts must be at least 2 (half of them from each seat)")

    names = [*PUBLISHED_DRAFTERS, *filter(None, args.learned.split(","))]
    choices = all_choices(names, args.drafts, args.seed)
    turns = choices[names[0]].size
    print(f"choice similarity over {turns:,} draft turns (%), ours beside Vieira (2020), Figure 5.4 / Section 5.4.3")
    print(f"{'drafter':>11} {'drafter':>11} {'ours':>7} {'thesis':>7}")
    for a, b in itertools.combinations(names, 2):
        published = FIGURE_5_4.get((a, b), FIGURE_5_4.get((b, a)))
        thesis = f"{published:7.2f}" if published is not None else f"{'':>7}"
        print(f"{a:>11} {b:>11} {100 * choice_similarity(choices[a], choices[b]):7.2f} {thesis}")

    points = choice_projection(choices, dimensions=3)
    k, label = clusters(points, args.seed)
    print(f"\nprincipal components of the choices (Figure 5.5), k-means with k = {k} by silhouette")
    for name in names:
        x, y, z = points[name]
        print(f"{name:>11} {x:8.3f} {y:8.3f} {z:8.3f}  cluster {label[name]}")
    if args.plot:
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(5.5, 4.5))
        for name in names:
            x, y, _ = points[name]
            ax.scatter(x, y, color=f"C{label[name]}")
            ax.annotate(name, (x, y), textcoords="offset points", xytext=(4, 4), fontsize=8)
        ax.set(xlabel="first component", ylabel="second component", title="Choices of each drafter (Figure 5.5)")
        fig.savefig(args.plot, dpi=110, bbox_inches="tight")
        print(f"wrote {args.plot}")
    return 0


if __name__ == "__main__":
    run_script(main)
