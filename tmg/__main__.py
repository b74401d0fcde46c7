"""`python -m tmg …`: the same as the `tmg` command."""

import sys

from tmg.cli import main

sys.exit(main())
