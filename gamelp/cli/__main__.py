"""``python -m gamelp.cli ...`` runs the ``gamelp`` command."""

import sys

from gamelp.cli import main

sys.exit(main())
