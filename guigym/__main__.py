"""``python -m guigym``: the ``guigym`` command (``list``, ``demo``, ``export``, ``play``, ``bench``)."""

from guigym.cli import main

raise SystemExit(main())
