"""packaging/installer/cv2_lite.py, the numpy/Pillow stand-in for OpenCV the Linux package ships as cv2.py, against
the real OpenCV that a development install has (rapidocr-onnxruntime requires it): each function RapidOCR calls, on
the inputs RapidOCR gives it, and the app's OCR of the scanned memo read through each."""
from __future__ import annotations

import importlib.util
import json
import subprocess
import sys

import numpy as np
import pytest

from conftest import ROOT, SAMPLES

cv2 = pytest.importorskip("cv2")
LITE_PATH = ROOT / "packaging" / "installer" / "cv2_lite.py"
_spec = importlib.util.spec_from_file_location("cv2_lite", LITE_PATH)
lite = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(lite)


@pytest.fixture
def rng():
    return np.random.default_rng(56)


def smooth_image(rng, h: int, w: int, channels: int = 3) -> np.ndarray:
    """Noise blurred into shapes: interpolation differences show on gradients, not on flat colour."""
    noise = rng.integers(0, 256, (h, w, channels), dtype=np.uint8)
    return cv2.GaussianBlur(noise, (5, 5), 2)


def test_resize_is_opencvs_bilinear_bit_for_bit(rng):
    # the page to the detector's multiple of 32, a text line to the recogniser's height of 48, exact halves, grey
    cases = [((1210, 935, 3), (928, 1216)), ((31, 412, 3), (638, 48)), ((100, 80, 3), (40, 50)), ((29, 7), (13, 48))]
    cases += [((int(rng.integers(2, 200)), int(rng.integers(2, 200)), 3),
               (int(rng.integers(1, 300)), int(rng.integers(1, 300)))) for _ in range(40)]
    for shape, size in cases:
        image = rng.integers(0, 256, shape, dtype=np.uint8)
        assert np.array_equal(lite.resize(image, size), cv2.resize(image, size)), (shape, size)
        floats = image.astype(np.float32) / 255
        assert np.allclose(lite.resize(floats, size), cv2.resize(floats, size), atol=1e-4), (shape, size)


def test_warp_perspective_crops_a_turned_text_box_as_opencv_does(rng):
    page = smooth_image(rng, 300, 400)
    different = total = 0
    for _ in range(40):
        centre = (rng.uniform(0, 400), rng.uniform(0, 300))
        quad = cv2.boxPoints((centre, (rng.uniform(10, 250), rng.uniform(8, 40)), rng.uniform(-30, 30)))
        width = int(np.linalg.norm(quad[0] - quad[1])) or 1
        height = int(np.linalg.norm(quad[1] - quad[2])) or 1
        upright = np.float32([[0, height], [0, 0], [width, 0], [width, height]])
        matrix = cv2.getPerspectiveTransform(quad.astype(np.float32), upright)
        assert np.allclose(lite.getPerspectiveTransform(quad, upright), matrix, rtol=1e-4, atol=1e-6)
        theirs = cv2.warpPerspective(page, matrix, (width, height), flags=cv2.INTER_CUBIC,
                                     borderMode=cv2.BORDER_REPLICATE).astype(int)
        ours = lite.warpPerspective(page, matrix, (width, height), flags=lite.INTER_CUBIC,
                                    borderMode=lite.BORDER_REPLICATE).astype(int)
        assert np.abs(theirs - ours).max() <= 1  # float32 rounding, one grey level at most
        different += int((theirs != ours).sum())
        total += theirs.size
    assert different / total < 1e-3


def test_an_upright_box_is_cut_out_exactly_border_included(rng):
    page = smooth_image(rng, 60, 80)
    shift = np.float64([[1, 0, 5], [0, 1, -3], [0, 0, 1]])  # the crop starts 3 rows above the page: replicated
    for border in (cv2.BORDER_REPLICATE, cv2.BORDER_CONSTANT):
        theirs = cv2.warpPerspective(page, shift, (90, 20), flags=cv2.INTER_CUBIC, borderMode=border)
        ours = lite.warpPerspective(page, shift, (90, 20), flags=lite.INTER_CUBIC, borderMode=border)
        assert np.array_equal(theirs, ours), border


def hulls(contours) -> list:
    return sorted(tuple(sorted(map(tuple, cv2.convexHull(c).reshape(-1, 2).tolist()))) for c in contours)


def test_contours_have_opencvs_hulls_holes_and_edges_included(rng):
    for trial in range(120):
        h, w = (int(v) for v in rng.integers(5, 70, 2))
        bitmap = (rng.random((h, w)) < rng.uniform(0.2, 0.8)).astype(np.uint8)
        if trial % 2:
            bitmap = cv2.dilate(bitmap, np.ones((2, 2)))
        if trial % 3 == 0:  # closed shapes: rings with holes, blobs inside them
            bitmap = cv2.morphologyEx(bitmap, cv2.MORPH_CLOSE, np.ones((3, 3)))
        theirs, _ = cv2.findContours(bitmap * 255, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
        ours, _ = lite.findContours(bitmap * 255, lite.RETR_LIST, lite.CHAIN_APPROX_SIMPLE)
        assert hulls(ours) == hulls(theirs), trial


def test_min_area_rect_finds_a_rectangle_of_opencvs_area(rng):
    same = 0
    for _ in range(200):
        points = rng.integers(0, 100, (int(rng.integers(3, 30)), 1, 2)).astype(np.int32)
        theirs, ours = cv2.minAreaRect(points), lite.minAreaRect(points)
        (w1, h1), (w2, h2) = theirs[1], ours[1]
        assert w1 * h1 == pytest.approx(w2 * h2, rel=1e-4, abs=1e-3)
        # two rectangles of the same least area (integer points make such ties): OpenCV's float32 rounding picks
        # one, this module the first found; otherwise the same rectangle
        if min(w1, h1) == pytest.approx(min(w2, h2), rel=1e-4, abs=1e-3):
            same += 1
            assert np.allclose(np.sort(cv2.boxPoints(theirs), axis=0), np.sort(lite.boxPoints(ours), axis=0),
                               atol=2e-3)
    assert same > 180


def test_fill_poly_and_mean_score_a_box_as_opencv(rng):
    pred = rng.random((70, 70)).astype(np.float32)
    for _ in range(300):
        box = cv2.boxPoints(((rng.uniform(15, 55), rng.uniform(15, 55)), (rng.uniform(2, 30), rng.uniform(1, 12)),
                             rng.choice([0.0, rng.uniform(-90, 90)])))
        polygon = box.reshape(1, -1, 2).astype(np.int32)
        if polygon.min() < 0 or polygon.max() >= 70:
            continue
        theirs, ours = np.zeros((70, 70), np.uint8), np.zeros((70, 70), np.uint8)
        cv2.fillPoly(theirs, polygon, 1)
        lite.fillPoly(ours, polygon, 1)
        assert np.array_equal(theirs, ours), polygon.tolist()
        assert lite.mean(pred, ours)[0] == pytest.approx(cv2.mean(pred, theirs)[0], rel=1e-6)


def test_the_small_operations_agree(rng):
    bitmap = (rng.random((40, 50)) < 0.3).astype(np.uint8)
    kernel = np.array([[1, 1], [1, 1]])  # RapidOCR's dilation
    assert np.array_equal(lite.dilate(bitmap, kernel), cv2.dilate(bitmap, kernel))
    image = smooth_image(rng, 20, 30)
    grey = image[..., 0].copy()
    assert np.array_equal(lite.cvtColor(grey, lite.COLOR_GRAY2BGR), cv2.cvtColor(grey, cv2.COLOR_GRAY2BGR))
    assert np.array_equal(lite.cvtColor(image, lite.COLOR_RGB2BGR), cv2.cvtColor(image, cv2.COLOR_RGB2BGR))
    assert np.array_equal(lite.rotate(image, 1), cv2.rotate(image, 1))
    assert np.array_equal(lite.copyMakeBorder(image, 4, 4, 0, 0, lite.BORDER_CONSTANT, value=(0, 0, 0)),
                          cv2.copyMakeBorder(image, 4, 4, 0, 0, cv2.BORDER_CONSTANT, value=(0, 0, 0)))
    alpha = rng.integers(0, 256, (20, 30), dtype=np.uint8)
    assert np.array_equal(lite.bitwise_and(image, image, mask=alpha), cv2.bitwise_and(image, image, mask=alpha))
    assert np.array_equal(lite.add(image, image), cv2.add(image, image))
    assert np.array_equal(lite.merge(lite.split(image)[::-1]), cv2.merge(cv2.split(image)[::-1]))


def test_what_it_lacks_is_said_not_approximated():
    image = np.zeros((8, 8, 3), np.uint8)
    with pytest.raises(NotImplementedError, match="resize interpolation"):
        lite.resize(image, (4, 4), interpolation=lite.INTER_CUBIC)
    with pytest.raises(NotImplementedError, match="findContours mode"):
        lite.findContours(image[..., 0], 0, lite.CHAIN_APPROX_SIMPLE)  # RETR_EXTERNAL: no traced borders here
    with pytest.raises(AttributeError):
        lite.contourArea  # noqa: B018  (a hull's area is not the contour's)


READ_MEMO = """
import importlib.util, json, sys
if sys.argv[1] == "lite":
    spec = importlib.util.spec_from_file_location("cv2", sys.argv[2])
    sys.modules["cv2"] = module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
import pymupdf
from docqa_desktop.index.ocr import ocr_page
with pymupdf.open(sys.argv[3]) as doc:
    text, words = ocr_page(doc[0], 110, "cpu")
import cv2
print(json.dumps({"text": text, "boxes": [w.bbox for w in words], "cv2": cv2.__file__}))
"""


@pytest.mark.model
def test_the_scanned_memo_reads_the_same_without_opencv():
    def read(variant: str) -> dict:
        done = subprocess.run([sys.executable, "-c", READ_MEMO, variant, str(LITE_PATH),
                               str(SAMPLES / "ferry-memo-scanned.pdf")], capture_output=True, text=True, cwd=ROOT,
                              timeout=300)
        assert done.returncode == 0, done.stderr[-2000:]
        return json.loads(done.stdout.splitlines()[-1])

    with_opencv, without = read("opencv"), read("lite")
    assert without["cv2"] == str(LITE_PATH) and with_opencv["cv2"] != str(LITE_PATH)
    assert "The last ferry to Gull Island leaves at 18:40." in without["text"]
    assert without["text"] == with_opencv["text"]
    assert np.allclose(without["boxes"], with_opencv["boxes"], atol=1.0)  # points: a pixel at 110 dpi is 0.65
