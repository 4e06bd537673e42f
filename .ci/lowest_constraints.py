"""Print pip constraints that hold gamelp's direct dependencies at the lowest versions pyproject.toml admits.

uv resolves ``pyproject.toml`` with the extras the tests use (test, and rl for the training tests) at
``--resolution lowest-direct``: each direct dependency at the lowest release
that satisfies its declared range, ships a wheel for this Python and
installs beside the others, the transitive ones at their newest.  Two changes follow for this machine:
torch keeps the pin of ``.ci/constraints.txt`` (the CPU build on disk; no
other version installs without a download of several GB), so the CUDA
packages that PyPI's torch wheel lists (``nvidia-*``, ``triton``) are left
out.  With ``--build`` it prints instead the lowest versions ``[build-system]``
declares, for ``pip install --build-constraint``: the declared minimum of
setuptools then builds the C extension.
"""

import re
import subprocess
import sys
import tomllib
from pathlib import Path

CUDA_ONLY = re.compile(r"^(nvidia-|triton==)")


def main() -> None:
    if sys.argv[1:] == ["--build"]:
        for requirement in tomllib.loads(Path("pyproject.toml").read_text())["build-system"]["requires"]:
            print(requirement.replace(">=", "=="))
        return
    resolved = subprocess.run(
        [
            "uv",
            "pip",
            "compile",
            "pyproject.toml",
            "--extra",
            "test",
            "--extra",
            "rl",
            "--resolution",
            "lowest-direct",
            "--python-version",
            f"{sys.version_info.major}.{sys.version_info.minor}",
            "-c",
            ".ci/constraints.txt",
            "--only-binary",
            ":all:",
            "--no-header",
            "--no-annotate",
            "--quiet",
        ],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    for line in resolved.splitlines():
        if line.strip() and not CUDA_ONLY.match(line):
            print(line.strip())


if __name__ == "__main__":
    main()
