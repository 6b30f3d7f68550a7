"""``python -m lexcodecs.cli``: the ``lexcodecs`` command (as ``python -m lexcodecs``)."""

import sys

from .command import main

if __name__ == "__main__":
    sys.exit(main())
