"""`python -m docqa_desktop` opens the desktop app (`docqa gui`); with arguments it is the CLI."""
import sys

from .cli import main

sys.exit(main(sys.argv[1:] or ["gui"]))
