"""Output shared by gamelp's commands: JSON on stdout and progress bars on stderr.

tqdm is imported only when a bar is made, so commands that show none never load it.
"""

from __future__ import annotations

import json
import sys


def print_json(payload) -> None:
    """Print ``payload`` as indented JSON; numpy numbers are written as floats."""
    print(json.dumps(payload, indent=2, default=float))


def sweep_progress():
    """A progress bar on stderr for a k-sweep; called as ``update(done, total)``."""
    from tqdm import tqdm

    bar = tqdm(unit="k", file=sys.stderr, leave=False)

    def update(done, total):
        bar.total = total
        bar.n = done
        bar.refresh()
        if done >= total:
            bar.close()

    return update


def regret_progress(total: int):
    """A progress bar on stderr for a regret run, showing the gap; called as ``update(t, gap)``."""
    from tqdm import tqdm

    bar = tqdm(total=total, unit="it", file=sys.stderr, leave=False, mininterval=0.5, disable=None)

    def update(done, gap):
        bar.n = done
        bar.set_postfix(gap=f"{gap:.2e}", refresh=True)
        if done >= total:
            bar.close()

    return update
