"""``python -m mechdesign``: the command-line interface (the same as ``mechdesign``)."""

import sys

from .cli import main

sys.exit(main())
