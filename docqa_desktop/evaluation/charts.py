"""The report's two PNG charts: accuracy by evidence source per method, and cost against accuracy.

matplotlib is the optional "charts" component: imported when charts are drawn, and without it the report is
written without them and says why (charts_missing)."""
from __future__ import annotations

import importlib.util
from pathlib import Path

from ..components import missing_message

ACCURACY_BY_SOURCE = "accuracy_by_source.png"
COST_VS_ACCURACY = "cost_vs_accuracy.png"


def charts_missing() -> str:
    """Why no charts can be drawn ("" when they can)."""
    try:
        found = importlib.util.find_spec("matplotlib") is not None
    except (ImportError, ValueError):
        found = False
    return "" if found else missing_message("charts")


def write_charts(out_dir: Path, figures: dict[str, dict]) -> list[str]:
    if not figures or charts_missing():
        return []
    _accuracy_by_source(out_dir / ACCURACY_BY_SOURCE, figures)
    _cost_vs_accuracy(out_dir / COST_VS_ACCURACY, figures)
    return [ACCURACY_BY_SOURCE, COST_VS_ACCURACY]


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")  # files only: no display, no GUI toolkit
    import matplotlib.pyplot as plt

    return plt


def _accuracy_by_source(path: Path, figures: dict[str, dict]) -> None:
    plt = _pyplot()
    groups = sorted({s for f in figures.values() for s in f["by_source"]}) + ["unanswerable", "overall"]
    width = 0.8 / len(figures)
    fig, ax = plt.subplots(figsize=(max(6.0, 1.3 * len(groups)), 4.0), dpi=120)
    for i, (method, f) in enumerate(figures.items()):
        values = [_group(f, g)[0] for g in groups]
        xs = [x + (i - (len(figures) - 1) / 2) * width for x in range(len(groups))]
        bars = ax.bar(xs, [100 * (v or 0) for v in values], width, label=method)
        ax.bar_label(bars, labels=["–" if v is None else f"{100 * v:.0f}" for v in values], fontsize=7, padding=2)
    counts = [max(_group(f, g)[1] for f in figures.values()) for g in groups]
    ax.set_xticks(range(len(groups)), [f"{g.replace(' (', chr(10) + '(')}\nn={n}" for g, n in zip(groups, counts)],
                  fontsize=8)
    ax.set_ylabel("generalized accuracy %")
    ax.set_ylim(0, 110)  # headroom for the value labels
    ax.set_yticks(range(0, 101, 20))
    ax.set_title("Accuracy by evidence source")
    ax.legend(fontsize=8)
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def _group(figures: dict, group: str) -> tuple[float | None, int]:
    """(accuracy, questions) of an evidence source, the unanswerable questions or all of them."""
    if group == "overall":
        return figures["accuracy"], figures["questions"]
    if group == "unanswerable":
        return figures["by_kind"]["unanswerable"]
    return figures["by_source"].get(group, (None, 0))


def _cost_vs_accuracy(path: Path, figures: dict[str, dict]) -> None:
    plt = _pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(9.0, 3.8), dpi=120)
    costs = (("seconds_p50", "median latency per question (s)"),
             ("prompt_tokens", "prompt + output tokens per question"))
    for ax, (key, label) in zip(axes, costs):
        for method, f in figures.items():
            x = f[key] if key != "prompt_tokens" else (f["prompt_tokens"] or 0) + (f["output_tokens"] or 0)
            ax.scatter([x], [100 * f["accuracy"]], s=60)
            ax.annotate(method, (x, 100 * f["accuracy"]), textcoords="offset points", xytext=(6, 4), fontsize=8)
        ax.set_xlabel(label)
        ax.set_ylabel("generalized accuracy %")
        ax.set_ylim(0, 100)
        ax.set_xlim(0, 1.25 * max(ax.get_xlim()[1], 1))  # room for the labels
        ax.grid(alpha=0.3)
    fig.suptitle("Cost against accuracy")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
