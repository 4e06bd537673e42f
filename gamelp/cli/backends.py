"""The ``gamelp backends`` command: every registered solver backend, whether it is installed, what it takes."""

from __future__ import annotations

import argparse

from gamelp.cli.output import print_json


def add_subparser(commands) -> argparse.ArgumentParser:
    """Add ``backends`` to the main parser's sub-commands."""
    backends = commands.add_parser("backends", help="list the solver backends, installed or not, and what each takes")
    backends.add_argument("--json", action="store_true", help="print JSON")
    backends.set_defaults(func=run_backends)
    return backends


def run_backends(args: argparse.Namespace) -> int:
    """``gamelp backends``: list every registered backend, whether it is installed, and how to install it."""
    from gamelp.backends import listing

    rows = listing()  # read from the registry and package metadata: no solver package is imported
    if args.json:
        print_json(rows)
    else:
        for row in rows:
            print(
                f"{row['name']:26s} {'installed' if row['installed'] else 'missing  '}  "
                f"{', '.join(row['capabilities'])}"
                + (f"  ({row['solver_version']})" if row["installed"] else "")
                + (f"({row['install']})" if row["install"] else "")
            )
    return 0
