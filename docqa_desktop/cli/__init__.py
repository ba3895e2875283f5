"""`docqa`: the command line, a client of the service facade only (tests/test_layers.py checks).

One module per command group — library (index, watch, remove, repair, status), pages (search, render),
asking (ask, methods, prepare), history (history, export), evaluation (eval), models, app (gui) — each with
`add_parsers(sub, common)`; main.py builds the parser from them and catches the product's errors in one place.
"""
from .main import main

__all__ = ["main"]
