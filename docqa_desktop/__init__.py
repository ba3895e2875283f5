"""DocQA Desktop: private, offline question answering over local PDF libraries."""
__version__ = "0.1.0"

from . import offline

offline.apply()  # before any library this package loads: see offline.py
