"""``python -m companion`` is the ``companion`` command."""

from companion.cli import main

main()
