"""The main window opened and closed in a process of its own, as a restart of the app does
(tests/test_gui_window_state.py): prints its layout as JSON, as it opened ("shown") and, with --arrange, after the
user's changes ("arranged"): the window resized, the library panel widened, a column widened, another sorted by,
the reasoning trace's rows given most of its height.

    python tests/window_session.py HOME [--arrange]

Run it with a screen larger than the window (QT_QPA_PLATFORM=offscreen:configfile=… for offscreen's default
800 × 800 is narrower than the window may be: the window would be fitted to it).
"""
from __future__ import annotations

import json
import sys
import time

ARRANGED_SIZE = (1500, 900)
STATUS_WIDTH = 130


def settle(app, seconds: float = 0.3) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        app.processEvents()
        time.sleep(0.01)


def layout(window) -> dict:
    from docqa_desktop.ui.library_panel import STATUS

    header = window.library.tree.header()
    return {"size": window.size().toTuple(), "position": window.pos().toTuple(), "panels": window.panels.sizes(),
            "status_width": header.sectionSize(STATUS),
            "sorted_by": [header.sortIndicatorSection(), header.sortIndicatorOrder().value],
            "trace": window.answer_view.trace_panel.sizes()}


def main(home: str, arrange: bool) -> int:
    from PySide6.QtCore import Qt

    from conftest import make_settings
    from docqa_desktop.service import Service
    from docqa_desktop.ui.app import make_app, open_main_window
    from docqa_desktop.ui.library_panel import STATUS, YEAR

    app = make_app([])
    with Service(make_settings(home, layout=False, dense=False)) as service:
        window = open_main_window(service)
        settle(app)
        said = {"shown": layout(window)}
        if arrange:
            window.resize(*ARRANGED_SIZE)
            window.move(40, 30)
            settle(app)
            total = sum(window.panels.sizes())
            window.panels.setSizes([total, 1, 1])  # the library as wide as the others' minimums let it be
            window.library.tree.header().resizeSection(STATUS, STATUS_WIDTH)
            window.library.tree.sortByColumn(YEAR, Qt.SortOrder.DescendingOrder)
            trace = window.answer_view.trace_panel
            trace.setSizes([3 * sum(trace.sizes()) // 4, sum(trace.sizes()) // 4])  # the rows dragged taller
            settle(app)
            said["arranged"] = layout(window)
        window.close()
        settle(app, 0.1)
    print(json.dumps(said), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], "--arrange" in sys.argv[2:]))
