"""`python -m chat.cli ...` runs `scholar ...` (from a checkout, without the installed script)."""

import sys

from chat.cli.main import main

sys.exit(main())
