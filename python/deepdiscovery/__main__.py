"""``python -m deepdiscovery``: the ``deepdiscovery`` command (see :mod:`deepdiscovery.cli`)."""

import sys

from deepdiscovery.cli import main

if __name__ == "__main__":
    sys.exit(main())
