"""The learned reader's shipped weights (issue 53): what benchmarks/reader/train.py makes from the committed candidates
file, trained on the features the reader computes, and a calibration and threshold that behave as said."""
from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import numpy as np
import pytest

from docqa_desktop.answers import sureness
from docqa_desktop.methods.extractive.evidence import FEATURES
from docqa_desktop.methods.extractive.scorer import WEIGHTS, calibrated, from_json, shipped

READER = Path(__file__).resolve().parent.parent / "benchmarks" / "reader"


def _train():
    sys.path.insert(0, str(READER))
    spec = importlib.util.spec_from_file_location("reader_train", READER / "train.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow  # five folds of training (~7 s)
def test_the_shipped_weights_are_what_the_script_makes_from_the_committed_data():
    made = _train().weights_json()
    on_disk = json.loads(WEIGHTS.read_text(encoding="utf-8"))
    on_disk.pop("commit")
    assert on_disk.keys() == made.keys() and on_disk["trained_on"] == made["trained_on"]
    assert on_disk["features"] == made["features"]
    for key in ("mean", "scale", "coef", "intercept", "calibration", "threshold"):
        # the same figures up to the last printed digits: another BLAS may round a solve's last bit otherwise
        assert np.allclose(on_disk[key], made[key], rtol=0, atol=1e-4), key
    assert made["trained_on"]["documents"] >= 50 and made["trained_on"]["questions"] >= 600


def test_the_weights_are_for_the_features_the_reader_computes():
    scorer = shipped()
    assert scorer.features == FEATURES and len(scorer.coef) == len(FEATURES)
    data = json.loads(WEIGHTS.read_text(encoding="utf-8"))
    try:
        from_json({**data, "features": ["a feature since renamed"] + data["features"][1:]})
    except ValueError as exc:
        assert "train.py" in str(exc)
    else:
        raise AssertionError("weights for a feature the reader does not compute were accepted")
    reordered = {key: value[::-1] if key in ("features", "mean", "scale", "coef") else value
                 for key, value in data.items()}
    assert np.array_equal(from_json(reordered).coef, scorer.coef)  # matched by name, not by place
    older = {key: value[1:] if key in ("features", "mean", "scale", "coef") else value for key, value in data.items()}
    widened = from_json(older)  # trained before the first feature was added: it weighs nothing, the rest as trained
    assert widened.coef[0] == 0 and np.array_equal(widened.coef[1:], scorer.coef[1:])


def test_the_probability_grows_with_the_best_score_and_never_falls_with_its_margin():
    calibration = shipped().calibration
    assert calibrated(calibration, 3.0, 2.0, 0.0) > calibrated(calibration, 0.0, 2.0, 0.0)
    assert calibrated(calibration, 3.0, 3.0, 0.0) >= calibrated(calibration, 3.0, 0.1, 0.0)


def test_the_threshold_is_chosen_where_precision_holds():
    train = _train()
    probability = np.array([0.99, 0.97, 0.95, 0.9, 0.8, 0.7] + [0.1] * 30)
    right = np.array([1, 1, 1, 1, 0, 1] + [0] * 30, dtype=float)
    train.MIN_ANSWERED = 3
    assert train.threshold_for(probability, right, precision=0.95) == 0.9  # 4 of 4; 0.8 would make 4 of 5
    assert train.threshold_for(probability, right, precision=0.8) == 0.7  # 5 of 6
    assert train.threshold_for(np.array([0.9] * 5), np.zeros(5), precision=0.95) == 1.0


def test_sureness_says_the_probability_in_words():
    assert sureness(0.97) == "very likely right, p = 0.97"
    assert sureness(0.42).startswith("more likely wrong")
