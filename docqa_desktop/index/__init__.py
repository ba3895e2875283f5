"""Turning PDFs on disk into rows in the store: scan, parse, OCR, layout, chunk, index, watch."""
