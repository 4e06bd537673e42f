"""The built site typesets its formulas without a network: every page's MathJax is a file of the site itself.

Usage: python .ci/check_site_math.py SITE (the output directory of the documentation build). Each HTML page
that loads a MathJax script must load it by a relative path (as sphinx-mathjax-offline sets it, under
_static/mathjax/), never from an address such as a CDN's, and the file must be in the site. At least the
pages with formulas must load one (docs/guide/sequence-form.md has display formulas), so a build that drops
the scripts fails too.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

SCRIPT = re.compile(r"<script\b[^>]*\bsrc=\"([^\"]*mathjax[^\"]*)\"", re.IGNORECASE)


def main(site: Path) -> int:
    """Check every page of SITE; the number of problems found (0: all typeset offline)."""
    problems, loading = [], []
    for page in sorted(site.rglob("*.html")):
        for src in SCRIPT.findall(page.read_text(encoding="utf-8")):
            loading.append(page)
            where = (page.parent / src.split("?")[0]).resolve()
            if "://" in src or src.startswith("//"):
                problems.append(f"{page.relative_to(site)}: MathJax from the network: {src}")
            elif not where.is_relative_to((site / "_static").resolve()) or not where.is_file():
                problems.append(f"{page.relative_to(site)}: MathJax not in the site's _static/: {src}")
    if site / "guide" / "sequence-form.html" not in loading:
        problems.append("guide/sequence-form.html (display formulas) loads no MathJax")
    for problem in problems:
        print(problem, file=sys.stderr)
    print(f"offline MathJax: {len(set(loading))} pages checked, {len(problems)} problems")
    return len(problems)


if __name__ == "__main__":
    sys.exit(1 if main(Path(sys.argv[1])) else 0)
