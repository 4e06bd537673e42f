"""Print pip constraints that hold gamelp's direct dependencies at the lowest versions pyproject.toml admits.

uv resolves ``pyproject.toml`` with every extra the tests use at
``--resolution lowest-direct``: each direct dependency at the lowest release
that satisfies its declared range, ships a wheel for this Python and
installs beside the others, the transitive ones at their newest.  Two changes follow for this machine:
torch keeps the pin of ``.ci/constraints.txt`` (the CPU build on disk; no
other version installs without a download of several GB), so the CUDA
packages that PyPI's torch wheel lists (``nvidia-*``, ``triton``) are left
out; and the build backend is held at the lowest version ``[build-system]``
declares, so the declared minimum also builds the C extension (and is the one
installed where a runtime dependency asks for it too).
"""

import re
import subprocess
import sys
import tomllib
from pathlib import Path

CUDA_ONLY = re.compile(r"^(nvidia-|triton==)")


def main() -> None:
    constraints = Path(".ci/constraints.txt")
    resolved = subprocess.run(
        ["uv", "pip", "compile", "pyproject.toml", "--extra", "test", "--resolution", "lowest-direct",
         "--python-version", f"{sys.version_info.major}.{sys.version_info.minor}", "-c", str(constraints),
         "--only-binary", ":all:", "--no-header", "--no-annotate", "--quiet"],
        check=True, capture_output=True, text=True).stdout
    build = [re.sub(r">=", "==", r) for r in tomllib.loads(Path("pyproject.toml").read_text())["build-system"]["requires"]]
    build_names = {re.match(r"[\w.-]+", pin).group(0) for pin in build}
    for line in resolved.splitlines():
        name = re.match(r"[\w.-]*", line).group(0)
        if name and not CUDA_ONLY.match(line) and name not in build_names:
            print(line.strip())
    print("\n".join(build))


if __name__ == "__main__":
    main()
