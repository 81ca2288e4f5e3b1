"""``python -m genreport``: the command line."""

from genreport.commands.cli import entry

entry()
