"""A one-line label that never widens its window: a long text is elided to the space it gets, and the whole
text is in its tooltip. Plain text only (file names and model output are shown as they are)."""
from __future__ import annotations

import html

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QPainter
from PySide6.QtWidgets import QSizePolicy, QWidget

MIN_WIDTH = 80  # what a long text asks of its window: the rest is elided


def plain_tooltip(text: str) -> str:
    """A tooltip that shows `text` as it is: Qt renders any tooltip that looks like HTML as HTML, so
    model output such as "<img src=…>" is escaped inside a paragraph that keeps its line breaks."""
    return f"<p style='white-space:pre-wrap'>{html.escape(text)}</p>"


class ElidedLabel(QWidget):
    """`set_text(name, rest)`: `name` (a file name) is elided in the middle so that `rest` (what is said about
    it: "— page 3 of 9") stays whole; when even `rest` does not fit, the end of the line is cut. text() is the
    whole line, as a QLabel's would be."""

    def __init__(self, text: str = "", parent: QWidget | None = None):
        super().__init__(parent)
        self._name, self._rest = text, ""
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        self.set_text(text)

    def set_text(self, name: str, rest: str = "") -> None:
        self._name, self._rest = name, rest
        self.setToolTip(plain_tooltip(self.text()) if self.elided() != self.text() else "")
        self.update()

    setText = set_text  # a drop-in for QLabel.setText

    def text(self) -> str:
        return self._name + self._rest

    def elided(self) -> str:
        """The line as shown at the current width."""
        metrics, width = self.fontMetrics(), self.contentsRect().width()
        if metrics.horizontalAdvance(self.text()) <= width:
            return self.text()
        room = width - metrics.horizontalAdvance(self._rest)
        if self._rest and room >= metrics.horizontalAdvance("…") * 6:  # the name keeps a few letters each side
            return metrics.elidedText(self._name, Qt.TextElideMode.ElideMiddle, room) + self._rest
        return metrics.elidedText(self.text(), Qt.TextElideMode.ElideRight, width)

    def sizeHint(self) -> QSize:
        metrics = self.fontMetrics()
        return QSize(metrics.horizontalAdvance(self.text()) + 4, metrics.height() + 4)

    def minimumSizeHint(self) -> QSize:
        return QSize(MIN_WIDTH, self.fontMetrics().height() + 4)

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self.setToolTip(plain_tooltip(self.text()) if self.elided() != self.text() else "")

    def paintEvent(self, event) -> None:
        painter = QPainter(self)
        painter.setPen(self.palette().windowText().color())
        painter.drawText(self.contentsRect(), Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                         self.elided())
        painter.end()
