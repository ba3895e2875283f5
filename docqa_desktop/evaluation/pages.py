"""Page metrics of SimpleDoc's appendix A.3: pages a method used against the gold evidence pages."""
from __future__ import annotations


def page_metrics(evidence: list[int] | tuple[int, ...], used: list[int]) -> dict[str, float] | None:
    """Recall, precision, F1 and all-hit for one question; None when there is no gold page
    (unanswerable questions have nothing to find, so they stay out of the averages)."""
    gold, seen = set(evidence), set(used)
    if not gold:
        return None
    hit = len(gold & seen)
    precision = hit / len(seen) if seen else 0.0
    recall = hit / len(gold)
    f1 = 2 * precision * recall / (precision + recall) if precision + recall > 0 else 0.0
    return {"recall": recall, "precision": precision, "f1": f1, "all_hit": float(gold <= seen)}
