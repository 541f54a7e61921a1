"""`python -m dashboard` runs the command line."""

from dashboard.cli.main import main

raise SystemExit(main())
