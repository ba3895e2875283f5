"""DocQA Desktop: private, offline question answering over local PDF libraries."""
__version__ = "0.1.0"
