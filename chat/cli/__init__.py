"""`scholar`, the command line: main.py parses and dispatches; each bigger subcommand has its own module."""

from chat.cli.main import main

__all__ = ["main"]
