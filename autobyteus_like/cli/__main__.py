"""``python -m autobyteus_like.cli``: the same as the ``autobyteus-like`` command."""

import sys

from autobyteus_like.cli._main import main

if __name__ == "__main__":
    sys.exit(main())
