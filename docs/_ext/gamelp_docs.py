"""Sphinx directives that read gamelp itself, so that the pages they fill cannot drift from the code.

``gamelp-backends``: the backend capability table, one row per backend of the registry
(:func:`gamelp.backends.registered_backends`), in the order ``auto`` prefers them, with what each takes and
whether it was installed where the site was built.

``gamelp-backend-families``: one row per registered backend family, read from its descriptor
(:class:`gamelp.backends.registry.BackendFamily`): its backend strings, its solver, the library its module
imports and the extra that installs it.
"""

from __future__ import annotations

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.util.docutils import SphinxDirective

CAPABILITIES = ("LP", "MIP", "SOC", "QP", "duals", "MIP start", "time limit", "persistent")


def _table(header: list[str], rows: list[list[str]]) -> nodes.table:
    """A docutils table with a header row and text cells."""
    table = nodes.table(classes=["gamelp-backends"])
    group = nodes.tgroup(cols=len(header))
    table += group
    group.extend(nodes.colspec(colwidth=1) for _ in header)
    head, body = nodes.thead(), nodes.tbody()
    group += head
    group += body
    for target, cells in ((head, [header]), (body, rows)):
        for cells_of_row in cells:
            row = nodes.row()
            for text in cells_of_row:
                entry = nodes.entry()
                entry += nodes.paragraph(text=text)
                row += entry
            target += row
    return table


class BackendTable(SphinxDirective):
    """``gamelp-backends``: the registry's backends and their capabilities."""

    def run(self) -> list[nodes.Node]:
        """The table: a row per registered backend, "?" for the capabilities of a family not installed here."""
        from gamelp.backends import MissingBackend, library, registered_backends
        from gamelp.deps import install_hint

        rows = []
        for backend in registered_backends():
            if isinstance(backend, MissingBackend):
                rows.append(
                    [backend.name, f"not installed: {install_hint(library(backend.name))}"] + ["?"] * len(CAPABILITIES)
                )
                continue
            names = backend.capabilities.names()
            rows.append(
                [backend.name, backend.version() if backend.available() else "solver missing"]
                + ["yes" if name in names else "" for name in CAPABILITIES]
            )
        return [_table(["backend", "solver here", *CAPABILITIES], rows)]


class FamilyTable(SphinxDirective):
    """``gamelp-backend-families``: the registered families, as their descriptors declare them."""

    def run(self) -> list[nodes.Node]:
        """The table: a row per family, in the order they are registered (no solver package imported)."""
        from gamelp.backends.registry import families

        rows = [
            [family.usage, family.summary, family.library, f"{family.extra} extra" if family.extra else "core"]
            for family in families()
        ]
        return [_table(["backend string", "solver", "library", "install"], rows)]


def setup(app: Sphinx) -> dict:
    """Register the directives."""
    app.add_directive("gamelp-backends", BackendTable)
    app.add_directive("gamelp-backend-families", FamilyTable)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
