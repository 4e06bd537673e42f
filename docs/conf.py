"""Sphinx configuration of gamelp's documentation site (build: python -m sphinx -W --keep-going -b html docs OUT)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent / "_ext"))

project = "gamelp"
author = "the gamelp authors"
copyright = "the gamelp authors"

extensions = [
    "myst_nb",  # Markdown pages (MyST) and the quick-start notebook (a MyST text notebook), executed
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",  # NumPy-style docstrings
    "sphinx.ext.mathjax",
    "sphinx-mathjax-offline",  # MathJax 3.2.2 copied into the site's _static/mathjax: formulas typeset offline
    "sphinxarg.ext",  # the command-line reference from gamelp's argparse parsers
    "gamelp_docs",  # the backend table from the registry
]

exclude_patterns = ["_build", "_ext", "README.md"]
suppress_warnings = ["myst.header"]  # the reproduction notes start their numbered sections at level 2

html_theme = "furo"
html_title = "gamelp"
html_static_path = ["_static"]
html_css_files = ["gamelp.css"]

myst_enable_extensions = ["dollarmath", "colon_fence", "deflist"]
myst_heading_anchors = 3

# The quick-start notebook runs while the site builds (a few seconds), so the outputs shown are the current code's.
nb_execution_mode = "force"
nb_execution_timeout = 120
nb_execution_raise_on_error = True
nb_merge_streams = True

autodoc_default_options = {"members": True, "member-order": "bysource"}
autodoc_typehints = "description"
autodoc_typehints_format = "short"
napoleon_google_docstring = False
napoleon_numpy_docstring = True

# The formulas are typeset in the reader's browser by the MathJax that sphinx-mathjax-offline copies into the
# built site (_static/mathjax/tex-chtml.js, MathJax 3.2.2; it sets mathjax_path), so a page needs no network.
# Its configuration is MathJax 3's: myst-parser adds its processHtmlClass to whichever of mathjax3_config and
# mathjax4_config is set, and to mathjax4_config (Sphinx 9's default, MathJax 4) when neither is.
mathjax3_config = {"options": {}}
