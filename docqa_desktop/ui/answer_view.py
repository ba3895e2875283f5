"""An answer with numbered citation chips, thumbnails of the pages the model read, and the trace; while a question
runs, that question with what the method is doing and the text written so far (never the previous answer)."""
from __future__ import annotations

import html

from PySide6.QtCore import QEvent, QSize, Qt, QUrl, Signal
from PySide6.QtGui import QColor, QIcon, QPainter, QPixmap
from PySide6.QtWidgets import QListWidget, QListWidgetItem, QTextBrowser, QToolButton, QVBoxLayout, QWidget

from ..answers import Answer
from ..progress import Progress, describe
from ..presentation import WARNING_COLOUR, confidence_line, proof_html, shown_text
from .trace_panel import TracePanel


def answer_html(answer: Answer, earlier: list[Answer] = ()) -> str:
    """The answer text, then one chip per citation linking to `cite:N`; a follow-up's earlier turns come first,
    smaller, their chips linking to `cite:T-N` (citations stay with the answer they belong to). Model output,
    page text, file names and errors are untrusted: all are escaped, so they show as text and the only links
    are ours."""
    meta = (f"{answer.status.label} · {answer.method} · {', '.join(answer.models) or 'no model'} · "
            f"{answer.iterations} round(s) · "
            f"{len(answer.calls)} model calls · {answer.prompt_tokens + answer.output_tokens:,} tokens · "
            f"{answer.seconds:.1f} s")
    error = _error(answer.error) if answer.error else ""
    # only an answer the method stands behind is set large; an unverified draft, passages and "not found" say so
    # first, in the warning colour, and their text is in normal size and weight
    verdict = ("" if answer.status.confident
               else f'<p style="color:{WARNING_COLOUR}"><b>{html.escape(answer.status.verdict)}</b></p>')
    size = "large" if answer.status.confident else "medium"
    return (earlier_html(earlier) + f'<h3 style="margin-bottom:2px">{html.escape(answer.question)}</h3>'
            f'{verdict}<p style="font-size:{size}">{_paragraph(shown_text(answer))}</p>{_confidence(answer)}'
            f'{proof_html(answer)}{read_as_html(answer)}{error}{_chips(answer, "")}<p style="color:gray">{meta}</p>')


def _confidence(answer: Answer) -> str:
    line = confidence_line(answer)
    return f'<p style="color:gray">{html.escape(line)}</p>' if line else ""


def read_as_html(answer: Answer) -> str:
    """A follow-up as the app read it, its thread's subject and period written in; nothing when it was read as
    typed."""
    return (f'<p style="color:gray">Read as: {html.escape(answer.standalone_question)}</p>'
            if answer.standalone_question else "")


def earlier_html(earlier: list[Answer]) -> str:
    """The thread's earlier questions and answers, compact, each with its own citations."""
    return "".join(f'<p style="margin-bottom:0"><b>{html.escape(a.question)}</b></p><p style="margin-top:2px">'
                   f'{_paragraph(shown_text(a))}</p>{_chips(a, f"{t}-")}<hr>' for t, a in enumerate(earlier, 1))


def asking_html(question: str, earlier: list[Answer] = (), step: str = "", text: str = "", error: str = "") -> str:
    """A question being answered: the thread's earlier turns, the question, what the model has written so far,
    and what the method is doing (in grey) or why it failed (in red)."""
    written = f'<p style="font-size:large">{_paragraph(text)}<span style="color:gray"> ▍</span></p>' if text else ""
    status = _error(error) if error else f'<p style="color:gray">{html.escape(step)}</p>'
    return earlier_html(earlier) + f'<h3 style="margin-bottom:2px">{html.escape(question)}</h3>{written}{status}'


def step_line(progress: Progress) -> str:
    """'Writing page summaries 3/10 · ~4 min left…': what the method is doing, with counts and the time left."""
    message = describe(progress)
    return message[:1].upper() + message[1:] + "…"


def _error(message: str) -> str:
    return f'<p style="color:#c0392b">{html.escape(message)}</p>'


def _paragraph(text: str) -> str:
    return html.escape(text).replace(chr(10), "<br>")


def _chips(answer: Answer, prefix: str) -> str:
    return "".join(
        f'<p style="margin:4px 0"><a href="cite:{prefix}{n}" style="text-decoration:none">'
        f'<b>&nbsp;[{n}]&nbsp;</b></a> {html.escape(c.source)} — <i>“{html.escape(c.quote)}”</i></p>'
        for n, c in enumerate(answer.citations, 1))


def framed(png: bytes, size: QSize) -> QPixmap:
    """A page thumbnail scaled into `size` with a thin frame, so white pages stand out on white lists."""
    pixmap = QPixmap()
    pixmap.loadFromData(png)
    pixmap = pixmap.scaled(size, Qt.AspectRatioMode.KeepAspectRatio, Qt.TransformationMode.SmoothTransformation)
    painter = QPainter(pixmap)
    painter.setPen(QColor(150, 150, 150))
    painter.drawRect(0, 0, pixmap.width() - 1, pixmap.height() - 1)
    painter.end()
    return pixmap


def _short(name: str, keep: int = 16) -> str:
    stem = name.rsplit(".", 1)[0]
    return stem if len(stem) <= keep else stem[:keep - 1] + "…"


class AnswerView(QWidget):
    citation_clicked = Signal(object)  # Citation
    page_clicked = Signal(str, int)  # document path, page

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.answer: Answer | None = None  # None while a question runs: nothing to cite, copy or export
        self.earlier: list[Answer] = []  # the thread's answers before this one
        self.asking = ""  # the question running, shown until its answer comes ("" when an answer is shown)
        self.step = ""  # what its method is doing
        self.written = ""  # what the model has written of its answer so far
        self.text = QTextBrowser()
        self.text.setOpenLinks(False)
        self.text.anchorClicked.connect(self._anchor)
        self.text.setPlaceholderText("Answers appear here, with numbered citations you can click.")
        self.pages = QListWidget()
        self.pages.setViewMode(QListWidget.ViewMode.IconMode)
        self.pages.setIconSize(QSize(110, 110))
        self.pages.setGridSize(QSize(140, 150))
        self.pages.setFixedHeight(172)
        self.pages.setFlow(QListWidget.Flow.LeftToRight)
        self.pages.setWrapping(False)
        self.pages.setMovement(QListWidget.Movement.Static)
        self.pages.setUniformItemSizes(True)
        self.pages.setWordWrap(True)
        self.pages.setToolTip("Pages the model read; click one to open it")
        self.pages.itemClicked.connect(self._page)
        self.trace_toggle = QToolButton()
        self.trace_toggle.setText("Reasoning trace")
        self.trace_toggle.setCheckable(True)
        self.trace_toggle.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.trace_toggle.setArrowType(Qt.ArrowType.RightArrow)
        self.trace_toggle.toggled.connect(self._toggle_trace)
        self.trace_panel = TracePanel()  # the calls' rows, and the chosen one's output whole at the full width
        self.trace = self.trace_panel.tree
        self.trace_panel.setVisible(False)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.text, 3)
        layout.addWidget(self.pages)
        layout.addWidget(self.trace_toggle)
        layout.addWidget(self.trace_panel, 2)
        self.pages.setVisible(False)  # until an answer has pages and calls to show
        self.trace_toggle.setVisible(False)

    def show_question(self, question: str, earlier: list[Answer] = ()) -> None:
        """A new question: the previous answer goes at once (its pages and trace too), the question shows with
        its progress (show_step, show_partial) until show_answer or show_failure."""
        self.answer, self.earlier = None, list(earlier)
        self.asking, self.step, self.written = question, "Starting…", ""
        self.pages.clear()
        self.pages.setVisible(False)
        self.trace_panel.clear()
        self.trace_panel.setVisible(False)
        self.trace_toggle.setVisible(False)
        self._show_asking()

    def show_step(self, progress: Progress) -> None:
        """What the method is doing for the question shown."""
        if self.asking:
            self.step = step_line(progress)
            self._show_asking()

    def show_stopping(self) -> None:
        if self.asking:
            self.step = "Stopping…"
            self._show_asking()

    def show_partial(self, question: str, text: str, earlier: list[Answer] = ()) -> None:
        """The answer as far as the model has written it (streaming); show_answer replaces it."""
        if question != self.asking:  # streamed without show_question first (a caller of the view alone)
            self.show_question(question, earlier)
        self.step, self.written = "Writing…", text
        self._show_asking()

    def show_failure(self, message: str) -> None:
        """The question shown did not get an answer: why, in its place (what was streamed is no answer)."""
        if self.asking:
            self.text.setHtml(asking_html(self.asking, self.earlier, error=message))
            self._scroll_to_end()
            self.asking = ""

    def _show_asking(self) -> None:
        self.text.setHtml(asking_html(self.asking, self.earlier, self.step, self.written))
        self._scroll_to_end()

    def _scroll_to_end(self) -> None:
        bar = self.text.verticalScrollBar()  # the newest turn of a thread is the last
        bar.setValue(bar.maximum())

    def show_answer(self, answer: Answer, earlier: list[Answer] = ()) -> None:
        self.answer, self.earlier, self.asking = answer, list(earlier), ""
        self.text.setHtml(answer_html(answer, self.earlier))
        self._scroll_to_end()
        self.pages.clear()
        placeholder = QPixmap(self.pages.iconSize())  # the right size from the start: the list lays out once
        placeholder.fill(Qt.GlobalColor.transparent)
        for ref in answer.pages_used:
            item = QListWidgetItem(f"{_short(ref.doc)} p.{ref.page}")
            item.setData(Qt.ItemDataRole.UserRole, (ref.path, ref.page))
            item.setToolTip(f"{ref.doc} page {ref.page}")
            item.setIcon(QIcon(placeholder))
            self.pages.addItem(item)
        self.pages.setVisible(bool(answer.pages_used))
        traced = bool(answer.calls or answer.notes)
        self.trace_toggle.setVisible(traced)
        self.trace_panel.setVisible(traced and self.trace_toggle.isChecked())  # hidden while a question ran
        self.trace_panel.show_trace(answer)

    def changeEvent(self, event) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange and self.answer is not None:
            self.text.setHtml(answer_html(self.answer, self.earlier))  # links take the new scheme's colour
        elif event.type() == QEvent.Type.PaletteChange and self.asking:
            self._show_asking()

    def set_thumbnail(self, path: str, page: int, png: bytes) -> None:
        for i in range(self.pages.count()):
            item = self.pages.item(i)
            if item.data(Qt.ItemDataRole.UserRole) == (path, page):
                item.setIcon(QIcon(framed(png, self.pages.iconSize())))

    def _anchor(self, url: QUrl) -> None:
        if url.scheme() != "cite" or not self.answer:
            return
        turn, _, n = (url.path() or url.toString().split(":", 1)[1]).rpartition("-")
        answer = self.earlier[int(turn) - 1] if turn and 1 <= int(turn) <= len(self.earlier) else self.answer
        if 1 <= int(n) <= len(answer.citations):
            self.citation_clicked.emit(answer.citations[int(n) - 1])

    def _page(self, item: QListWidgetItem) -> None:
        path, page = item.data(Qt.ItemDataRole.UserRole)
        self.page_clicked.emit(path, page)

    def _toggle_trace(self, shown: bool) -> None:
        self.trace_panel.setVisible(shown)
        self.trace_toggle.setArrowType(Qt.ArrowType.DownArrow if shown else Qt.ArrowType.RightArrow)


