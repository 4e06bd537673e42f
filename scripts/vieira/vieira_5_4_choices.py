"""Vieira (2020), Section 5.4.3: how often two drafters pick the same card, and a map of their choices.

Every drafter, published and learned, is shown the same referee offers
(``--drafts`` seeded drafts, half of them from each seat). For each pair the
script prints the share of turns on which both picked the same card
(Figure 5.4) beside the thesis's where it is published, then projects each
drafter's choices on their first three principal components and clusters the
points with k-means, k chosen by the silhouette score (Figure 5.5; the thesis
finds k = 5 over its ten drafters). ``--plot`` draws the first two components.

    python scripts/vieira/vieira_5_4_choices.py --drafts 2000 --plot choices.png
"""

import itertools
import random
from dataclasses import dataclass

import numpy as np

from gamelp.cli.args import OneLineParser, integer, plot_path, run_script
from gamelp.games.locm.analysis import FIGURE_5_4, choice_projection, choice_similarity, draft_choices
from gamelp.games.locm.draft import RefereeSeeds, draft_offers
from gamelp.games.locm.drafters import LEARNED_DRAFTERS, PUBLISHED_DRAFTERS, make_drafter


def all_choices(names, drafts: int, seed: int) -> dict[str, np.ndarray]:
    """Each drafter's picks on the same offers: the first half of the drafts from seat 0, the rest from seat 1."""
    offers = np.array([draft_offers(RefereeSeeds.from_seed(seed + k).draft) for k in range(drafts)])
    half = drafts // 2
    return {
        name: np.concatenate(
            [
                draft_choices(make_drafter(name), offers[:half], 0, random.Random(seed)),
                draft_choices(make_drafter(name), offers[half:], 1, random.Random(seed + 1)),
            ]
        )
        for name in names
    }


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


@dataclass
class ChoiceSimilarity:
    """The share of turns (%) on which two drafters picked the same card, and the thesis's where published."""

    a: str
    b: str
    ours: float
    thesis: float | None


@dataclass
class DrafterChoices:
    """Figure 5.4's similarities and Figure 5.5's map: each drafter's first three components and its cluster."""

    turns: int
    similarity: list[ChoiceSimilarity]
    k: int
    points: dict[str, tuple[float, float, float]]
    clusters: dict[str, int]
    plot: str | None


def build_parser() -> OneLineParser:
    parser = OneLineParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--drafts",
        type=integer(2),
        default=2000,
        help="seeded drafts, at least 2: half of them from each seat (default %(default)s)",
    )
    parser.add_argument("--seed", type=integer(0), default=0, help="seed of the drafts (default %(default)s)")
    parser.add_argument(
        "--learned",
        default=",".join(LEARNED_DRAFTERS),
        help="learned drafters to include (default: %(default)s; '' for none)",
    )
    parser.add_argument("--plot", type=plot_path, help="PNG of the first two principal components")
    return parser


def main(argv: list[str] | None = None) -> DrafterChoices:
    args = build_parser().parse_args(argv)
    names = [*PUBLISHED_DRAFTERS, *filter(None, args.learned.split(","))]
    choices = all_choices(names, args.drafts, args.seed)
    similarity = [
        ChoiceSimilarity(
            a, b, 100 * float(choice_similarity(choices[a], choices[b])), FIGURE_5_4.get((a, b), FIGURE_5_4.get((b, a)))
        )
        for a, b in itertools.combinations(names, 2)
    ]
    points = choice_projection(choices, dimensions=3)
    k, label = clusters(points, args.seed)
    if args.plot:
        from matplotlib.figure import Figure

        from gamelp.io import atomic_path

        fig = Figure(figsize=(5.5, 4.5))
        ax = fig.subplots()
        for name in names:
            x, y, _ = points[name]
            ax.scatter(x, y, color=f"C{label[name]}")
            ax.annotate(name, (x, y), textcoords="offset points", xytext=(4, 4), fontsize=8)
        ax.set(xlabel="first component", ylabel="second component", title="Choices of each drafter (Figure 5.5)")
        with atomic_path(args.plot) as temporary:
            fig.savefig(temporary, dpi=110, bbox_inches="tight")
    return DrafterChoices(
        int(choices[names[0]].size),
        similarity,
        k,
        {name: tuple(float(v) for v in points[name]) for name in names},
        label,
        args.plot,
    )


def report(result: DrafterChoices) -> None:
    print(
        f"choice similarity over {result.turns:,} draft turns (%), ours beside Vieira (2020), Figure 5.4 / "
        "Section 5.4.3"
    )
    print(f"{'drafter':>11} {'drafter':>11} {'ours':>7} {'thesis':>7}")
    for pair in result.similarity:
        thesis = f"{pair.thesis:7.2f}" if pair.thesis is not None else f"{'':>7}"
        print(f"{pair.a:>11} {pair.b:>11} {pair.ours:7.2f} {thesis}")
    print(f"\nprincipal components of the choices (Figure 5.5), k-means with k = {result.k} by silhouette")
    for name, (x, y, z) in result.points.items():
        print(f"{name:>11} {x:8.3f} {y:8.3f} {z:8.3f}  cluster {result.clusters[name]}")
    if result.plot:
        print(f"wrote {result.plot}")


if __name__ == "__main__":
    run_script(main, report)
