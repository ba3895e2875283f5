"""Renders the app's SVG icon (docqa_desktop/ui/docqa-desktop.svg) into the files Briefcase asks for beside
packaging/icons/docqa-desktop: .ico (Windows), .icns (macOS) and -SIZE.png (Linux).

    QT_QPA_PLATFORM=offscreen .venv/bin/python packaging/icons/make_icons.py
"""
from __future__ import annotations

from pathlib import Path

from PIL import Image
from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication, QImage, QPainter
from PySide6.QtSvg import QSvgRenderer

HERE = Path(__file__).resolve().parent
SVG = HERE.parents[1] / "docqa_desktop" / "ui" / "docqa-desktop.svg"
SIZES = (16, 32, 64, 128, 256, 512, 1024)


def render(size: int) -> Path:
    image = QImage(size, size, QImage.Format.Format_ARGB32)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    QSvgRenderer(str(SVG)).render(painter)
    painter.end()
    path = HERE / f"docqa-desktop-{size}.png"
    image.save(str(path))
    return path


def main() -> None:
    app = QGuiApplication([])  # noqa: F841 -- QPainter needs one
    pngs = {size: render(size) for size in SIZES}
    largest = Image.open(pngs[1024])
    largest.save(HERE / "docqa-desktop.ico", sizes=[(s, s) for s in SIZES if s <= 256])
    largest.save(HERE / "docqa-desktop.icns")
    for size in (64, 1024):  # Linux takes 16-512; the rest were only sources
        pngs[size].unlink() if size == 1024 else None


if __name__ == "__main__":
    main()
