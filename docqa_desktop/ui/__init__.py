"""The PySide6 desktop app. The only package that imports Qt; it talks to the core through Service."""
