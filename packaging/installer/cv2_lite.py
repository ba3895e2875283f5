"""The part of OpenCV's Python API that RapidOCR (rapidocr-onnxruntime 1.4, index/ocr.py's engine) calls, in numpy
and Pillow. The Linux package ships this file as site-packages/cv2.py instead of OpenCV (160 MB): see
packaging/installer/bundle.py. Development installs keep the real OpenCV, which tests/test_cv2_lite.py compares this
module with, function by function and on the scanned memo; benchmarks/ocr_without_opencv.py reads the OCR'd pages
with each.

What RapidOCR calls, and how closely this follows OpenCV 5:
- resize, bilinear: OpenCV's pixel-centre mapping, and for 8-bit images its 11-bit weights and rounding (bit for bit).
- warpPerspective, bicubic (a = -0.75) or bilinear, computed in float32 as OpenCV 4.11 and later do (a grey level
  apart on 1 pixel in 25,000); getPerspectiveTransform; rotate.
- dilate, copyMakeBorder (constant), cvtColor (grey or RGB to BGR), the bitwise and saturating helpers of its image
  loader; fillPoly (the inside and the 8-connected lines along the edges: the same pixels for a polygon inside the
  image) and mean with a mask.
- findContours (RETR_LIST): each border, outer and hole, as its convex hull, not its traced chain. RapidOCR reads a
  contour only through minAreaRect, which depends on the hull alone; contourArea or drawing a contour would be wrong
  with it, so neither is offered.
- minAreaRect (the rectangle of least area, one side on a hull edge; of two with the same area OpenCV's float32
  rounding picks one, this the first found) and boxPoints.
Anything else is absent: AttributeError or NotImplementedError names it rather than a silent approximation.
"""
from __future__ import annotations

import numpy as np
from PIL import Image, ImageDraw

__version__ = "0.0.0+docqa.lite"  # not OpenCV: a subset for RapidOCR

INTER_LINEAR, INTER_CUBIC = 1, 2
BORDER_CONSTANT, BORDER_REPLICATE = 0, 1
COLOR_RGB2BGR = COLOR_BGR2RGB = 4
COLOR_GRAY2BGR = COLOR_GRAY2RGB = 8
RETR_LIST = 1
CHAIN_APPROX_SIMPLE = 2
ROTATE_90_CLOCKWISE, ROTATE_180, ROTATE_90_COUNTERCLOCKWISE = 0, 1, 2

_WEIGHT_BITS = 11  # resize: an 8-bit image's bilinear weights are multiples of 1/2048, as OpenCV's


def _unsupported(what: str) -> NotImplementedError:
    return NotImplementedError(f"cv2_lite (the package's OpenCV subset for RapidOCR) has no {what}")


def _scalar(value, channels: int) -> np.ndarray:
    """An OpenCV scalar (a number or up to four) as one value per channel: missing ones are 0."""
    values = [0.0] if value is None else list(np.ravel(np.asarray(value, dtype=np.float64)))
    return np.array((values + [0.0] * 4)[:channels])


# -- geometry of resampling ---------------------------------------------------------------------------------------

def _source_positions(size_in: int, size_out: int) -> np.ndarray:
    """Where each output pixel's centre falls in the source, in float32 as OpenCV computes it."""
    scale = 1.0 / (size_out / size_in)
    return ((np.arange(size_out, dtype=np.float64) + 0.5) * scale - 0.5).astype(np.float32)


def _linear_taps(size_in: int, size_out: int, clamp_weight: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For each output index: the two source indices and the second one's weight. Along a row OpenCV moves a
    position outside the image onto its edge (weight 0); down the columns it keeps the weight and repeats the edge
    row instead, which rounds differently in 8 bits."""
    x = _source_positions(size_in, size_out)
    first = np.floor(x).astype(np.int64)
    frac = (x - first).astype(np.float32)
    if clamp_weight:
        frac[(first < 0) | (first >= size_in - 1)] = 0
        first = np.clip(first, 0, size_in - 1)
    return np.clip(first, 0, size_in - 1), np.clip(first + 1, 0, size_in - 1), frac


def _resize_linear(src: np.ndarray, width: int, height: int) -> np.ndarray:
    h, w = src.shape[:2]
    channels = src.shape[2] if src.ndim == 3 else 1
    x0, x1, fx = _linear_taps(w, width, clamp_weight=True)
    y0, y1, fy = _linear_taps(h, height, clamp_weight=False)
    rows, where = np.unique(np.concatenate([y0, y1]), return_inverse=True)  # only the source rows read
    flat = src[rows].reshape(len(rows), w * channels)  # a row of pixels as one run of values: np.take is quick
    lanes = np.arange(channels)
    first = np.take(flat, (x0[:, None] * channels + lanes).ravel(), axis=1)
    second = np.take(flat, (x1[:, None] * channels + lanes).ravel(), axis=1)
    shape = (height, width, channels) if src.ndim == 3 else (height, width)
    if src.dtype == np.uint8:
        # 11-bit weights; the vertical sum in OpenCV's vectorised form: each row's share truncated to 16 bits first
        one = 1 << _WEIGHT_BITS
        ax = np.repeat(np.round(fx * one).astype(np.int32), channels)
        by = np.round(fy * one).astype(np.int32)[:, None]
        across = first.astype(np.int32) * (one - ax) + second.astype(np.int32) * ax
        across >>= 4  # < 2**15: the products below fit in 32 bits
        down = (((one - by) * across[where[:height]]) >> 16) + ((by * across[where[height:]]) >> 16)
        down += 2
        down >>= 2
        return np.clip(down, 0, 255).astype(np.uint8).reshape(shape)
    ax = np.repeat(fx, channels)
    by = fy[:, None]
    across = first.astype(np.float32) * (1 - ax) + second.astype(np.float32) * ax
    return (across[where[:height]] * (1 - by) + across[where[height:]] * by).astype(src.dtype).reshape(shape)


def _resize_half(src: np.ndarray, width: int, height: int) -> np.ndarray:
    """Exactly half each side: the mean of each 2x2 block (OpenCV's bilinear resize does the same there)."""
    blocks = src[:height * 2, :width * 2].astype(np.float64)
    mean = (blocks[0::2, 0::2] + blocks[1::2, 0::2] + blocks[0::2, 1::2] + blocks[1::2, 1::2]) / 4
    if src.dtype == np.uint8:
        return np.floor(mean + 0.5).astype(np.uint8)
    return mean.astype(src.dtype)


def resize(src, dsize, dst=None, fx=0.0, fy=0.0, interpolation=INTER_LINEAR):
    src = np.asarray(src)
    h, w = src.shape[:2]
    width, height = (int(dsize[0]), int(dsize[1])) if dsize and dsize[0] and dsize[1] else \
        (int(round(w * fx)), int(round(h * fy)))
    if width <= 0 or height <= 0 or w == 0 or h == 0:
        raise ValueError(f"resize: cannot resize a {w}x{h} image to {width}x{height}")
    if (width, height) == (w, h):
        return src.copy()
    if interpolation != INTER_LINEAR:
        raise _unsupported(f"resize interpolation {interpolation}")
    if w == 2 * width and h == 2 * height:
        return _resize_half(src, width, height)
    return _resize_linear(src, width, height)


def _cubic_weights(t: np.ndarray) -> np.ndarray:
    """The four bicubic weights (a = -0.75) for offsets t in [0, 1), shape (..., 4), in float32 as OpenCV."""
    a = np.float32(-0.75)
    t = t.astype(np.float32)
    w0 = ((a * (t + 1) - 5 * a) * (t + 1) + 8 * a) * (t + 1) - 4 * a
    w1 = ((a + 2) * t - (a + 3)) * t * t + 1
    w2 = ((a + 2) * (1 - t) - (a + 3)) * (1 - t) * (1 - t) + 1
    return np.stack([w0, w1, w2, 1 - w0 - w1 - w2], axis=-1).astype(np.float32)


def warpPerspective(src, M, dsize, dst=None, flags=INTER_LINEAR, borderMode=BORDER_CONSTANT, borderValue=0):
    """dst(x, y) = src(M^-1 (x, y)), bicubic or bilinear, the border replicated or constant; computed in float32
    and rounded, as OpenCV 4.11 and later do."""
    src = np.asarray(src)
    if flags not in (INTER_LINEAR, INTER_CUBIC):
        raise _unsupported(f"warpPerspective flags {flags}")
    if borderMode not in (BORDER_REPLICATE, BORDER_CONSTANT):
        raise _unsupported(f"warpPerspective border mode {borderMode}")
    width, height = int(dsize[0]), int(dsize[1])
    h, w = src.shape[:2]
    inverse = np.linalg.inv(np.asarray(M, dtype=np.float64))
    shift = np.round(inverse[:2, 2])
    if np.allclose(inverse, [[1, 0, shift[0]], [0, 1, shift[1]], [0, 0, 1]], rtol=0, atol=1e-9):
        # a whole-pixel shift (an upright text box): every weight but the pixel's own is 0, so copy
        return _shifted(src, int(shift[0]), int(shift[1]), width, height, borderMode, borderValue)
    m = inverse.astype(np.float32)
    gx, gy = np.meshgrid(np.arange(width, dtype=np.float32), np.arange(height, dtype=np.float32))
    sw = m[2, 0] * gx + m[2, 1] * gy + m[2, 2]
    sw = np.where(sw != 0, sw, np.float32(1))
    sx = (m[0, 0] * gx + m[0, 1] * gy + m[0, 2]) / sw
    sy = (m[1, 0] * gx + m[1, 1] * gy + m[1, 2]) / sw
    bound = np.float32(1 << 30)
    sx, sy = np.clip(sx, -bound, bound), np.clip(sy, -bound, bound)
    ix, iy = np.floor(sx).astype(np.int64), np.floor(sy).astype(np.int64)
    tx, ty = (sx - ix).astype(np.float32), (sy - iy).astype(np.float32)
    if flags == INTER_CUBIC:
        offsets = np.arange(-1, 3)
        wx, wy = _cubic_weights(tx), _cubic_weights(ty)
    else:
        offsets = np.arange(0, 2)
        wx, wy = np.stack([1 - tx, tx], axis=-1), np.stack([1 - ty, ty], axis=-1)
    channels = src.shape[2] if src.ndim == 3 else 1
    flat = src.reshape(-1)
    lanes = np.arange(channels)
    fill = _scalar(borderValue, channels).astype(np.float32)
    total = None
    for i, dy in enumerate(offsets):  # a row of taps at a time, summed across, then down the column
        rows = iy + dy
        row_start = np.clip(rows, 0, h - 1) * w
        across = None
        for j, dx in enumerate(offsets):
            cols = ix + dx
            index = (row_start + np.clip(cols, 0, w - 1))[..., None] * channels + lanes
            tap = np.take(flat, index).astype(np.float32)
            if borderMode == BORDER_CONSTANT:
                outside = (rows < 0) | (rows >= h) | (cols < 0) | (cols >= w)
                tap[outside] = fill
            term = tap * wx[..., j, None]
            across = term if across is None else across + term
        term = across * wy[..., i, None]
        total = term if total is None else total + term
    total = total.reshape(*total.shape[:2], *src.shape[2:])
    if src.dtype == np.uint8:
        return np.clip(np.round(total), 0, 255).astype(np.uint8)
    return total.astype(src.dtype)


def _shifted(src: np.ndarray, dx: int, dy: int, width: int, height: int, border: int, value) -> np.ndarray:
    h, w = src.shape[:2]
    cols, rows = np.arange(width) + dx, np.arange(height) + dy
    out = src[np.clip(rows, 0, h - 1)][:, np.clip(cols, 0, w - 1)]
    if border == BORDER_CONSTANT:
        outside = ((rows < 0) | (rows >= h))[:, None] | ((cols < 0) | (cols >= w))[None, :]
        fill = _scalar(value, src.shape[2] if src.ndim == 3 else 1).astype(src.dtype)
        out[outside] = fill if src.ndim == 3 else fill[0]
    return out


def getPerspectiveTransform(src, dst, solveMethod=None):
    """The 3x3 homography taking the four points `src` to `dst`."""
    src = np.asarray(src, dtype=np.float64).reshape(4, 2)
    dst = np.asarray(dst, dtype=np.float64).reshape(4, 2)
    a = np.zeros((8, 8))
    b = np.zeros(8)
    for i, ((x, y), (u, v)) in enumerate(zip(src, dst)):
        a[i] = [x, y, 1, 0, 0, 0, -x * u, -y * u]
        a[i + 4] = [0, 0, 0, x, y, 1, -x * v, -y * v]
        b[i], b[i + 4] = u, v
    h = np.linalg.solve(a, b)
    return np.append(h, 1.0).reshape(3, 3)


def rotate(src, rotateCode):
    turns = {ROTATE_90_CLOCKWISE: -1, ROTATE_180: 2, ROTATE_90_COUNTERCLOCKWISE: 1}[rotateCode]
    return np.ascontiguousarray(np.rot90(src, turns))


# -- pixels ---------------------------------------------------------------------------------------------------------

def copyMakeBorder(src, top, bottom, left, right, borderType, dst=None, value=None):
    src = np.asarray(src)
    if borderType != BORDER_CONSTANT:
        raise _unsupported(f"copyMakeBorder border type {borderType}")
    out = np.empty((src.shape[0] + top + bottom, src.shape[1] + left + right, *src.shape[2:]), dtype=src.dtype)
    fill = _scalar(value, src.shape[2] if src.ndim == 3 else 1).astype(src.dtype)
    out[...] = fill if src.ndim == 3 else fill[0]
    out[top:top + src.shape[0], left:left + src.shape[1]] = src
    return out


def cvtColor(src, code, dst=None, dstCn=0):
    src = np.asarray(src)
    if code == COLOR_GRAY2BGR:
        grey = src[..., 0] if src.ndim == 3 else src
        return np.repeat(grey[..., None], 3, axis=2)
    if code == COLOR_RGB2BGR:
        return np.ascontiguousarray(src[..., ::-1])
    raise _unsupported(f"cvtColor code {code}")


def split(m):
    m = np.asarray(m)
    return tuple(np.ascontiguousarray(m[..., i]) for i in range(m.shape[2]))


def merge(mv):
    return np.stack(list(mv), axis=-1)


def _masked(result, mask):
    if mask is None:
        return result
    keep = np.asarray(mask) != 0
    return np.where(keep[..., None] if result.ndim == 3 else keep, result, 0).astype(result.dtype)


def bitwise_not(src, dst=None, mask=None):
    return _masked(np.bitwise_not(np.asarray(src)), mask)


def bitwise_and(src1, src2, dst=None, mask=None):
    return _masked(np.bitwise_and(np.asarray(src1), np.asarray(src2)), mask)


def add(src1, src2, dst=None, mask=None, dtype=-1):
    a = np.asarray(src1)
    total = a.astype(np.int64) + np.asarray(src2).astype(np.int64)
    if a.dtype == np.uint8:
        total = np.clip(total, 0, 255)
    return _masked(total.astype(a.dtype), mask)


def dilate(src, kernel, dst=None, anchor=None, iterations=1, borderType=None, borderValue=None):
    """The maximum over the kernel's non-zero cells, the anchor at the kernel's centre; outside the image counts
    as nothing (OpenCV's default border for dilation)."""
    src = np.asarray(src)
    kernel = np.asarray(kernel)
    kh, kw = kernel.shape[:2]
    ay, ax = (kh // 2, kw // 2) if anchor is None or tuple(anchor) == (-1, -1) else (anchor[1], anchor[0])
    out = src
    for _ in range(iterations):
        low = np.iinfo(src.dtype).min if np.issubdtype(src.dtype, np.integer) else -np.inf
        padded = np.pad(out, [(ay, kh - 1 - ay), (ax, kw - 1 - ax)] + [(0, 0)] * (src.ndim - 2),
                        constant_values=low)
        result = np.full_like(out, low)
        h, w = out.shape[:2]
        for i, j in zip(*np.nonzero(kernel)):
            np.maximum(result, padded[i:i + h, j:j + w], out=result)
        out = result
    return out


def _line(p0, p1) -> tuple[np.ndarray, np.ndarray]:
    """The pixels of an 8-connected line between integer points, drawn left to right with the minor coordinate's
    ties rounded back towards the start (Bresenham's choice, as OpenCV's lines)."""
    (x0, y0), (x1, y1) = (p0, p1) if p0[0] <= p1[0] else (p1, p0)
    dx, dy = x1 - x0, y1 - y0
    steps = max(dx, abs(dy))
    k = np.arange(steps + 1)
    if steps == 0:
        return k + x0, k + y0
    minor = np.ceil(min(dx, abs(dy)) * k / steps - 0.5).astype(np.int64)
    if abs(dy) > dx:
        return x0 + minor, y0 + np.sign(dy) * k
    return x0 + k, y0 + np.sign(dy) * minor


def fillPoly(img, pts, color, lineType=8, shift=0, offset=None):
    """Fills each polygon of integer points in `img`, in place as OpenCV does: its inside (Pillow's scanline fill)
    and the 8-connected lines along its edges."""
    if shift:
        raise _unsupported("fillPoly with shift")
    h, w = img.shape[:2]
    canvas = Image.new("L", (w, h), 0)
    draw = ImageDraw.Draw(canvas)
    edges = []
    for polygon in pts:
        points = [(int(x), int(y)) for x, y in np.asarray(polygon).reshape(-1, 2)]
        if len(points) >= 3:
            draw.polygon(points, fill=1)
        edges += [(points[i], points[(i + 1) % len(points)]) for i in range(len(points))]
    where = np.array(canvas, dtype=bool)
    for p0, p1 in edges:
        xs, ys = _line(p0, p1)
        seen = (xs >= 0) & (xs < w) & (ys >= 0) & (ys < h)
        where[ys[seen], xs[seen]] = True
    img[where] = color if np.ndim(color) == 0 or img.ndim == 3 else np.asarray(color).ravel()[0]
    return img


def mean(src, mask=None):
    """Per channel mean over the mask's non-zero pixels, as a 4-tuple."""
    src = np.asarray(src, dtype=np.float64)
    if mask is not None:
        keep = np.asarray(mask) != 0
        src = src[keep]
    else:
        src = src.reshape(-1, *src.shape[2:])
    if src.size == 0:
        return (0.0, 0.0, 0.0, 0.0)
    values = np.atleast_1d(src.mean(axis=0)).tolist()
    return tuple(values + [0.0] * (4 - len(values)))


# -- contours -------------------------------------------------------------------------------------------------------

def _runs(bitmap: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Horizontal runs of non-zero pixels: row, first column, column after the last; in raster order."""
    h, w = bitmap.shape
    edged = np.zeros((h, w + 2), dtype=np.int8)
    edged[:, 1:-1] = bitmap != 0
    change = np.diff(edged, axis=1)
    start_rows, starts = np.nonzero(change == 1)
    _, ends = np.nonzero(change == -1)
    return start_rows, starts, ends


def _label_runs(rows, starts, ends, width: int, diagonal: bool) -> np.ndarray:
    """Component labels of the runs: runs in adjacent rows touching side by side, or also at a corner when
    `diagonal` (8-connectivity)."""
    n = len(rows)
    labels = np.arange(n)
    if n == 0:
        return labels
    stride = width + 2
    start_keys = rows * stride + starts
    end_keys = rows * stride + ends
    reach = 0 if diagonal else 1  # 4-connectivity needs a shared column, 8 a shared corner too
    below = (rows + 1) * stride
    first = np.searchsorted(end_keys, below + starts + reach, side="left")
    last = np.searchsorted(start_keys, below + ends - reach, side="right") - 1
    counts = np.maximum(last - first + 1, 0)
    upper = np.repeat(np.arange(n), counts)
    lower = np.repeat(first, counts) + (np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts))
    while True:  # lowest label over each edge, then pointer jumping, until nothing changes
        low = np.minimum(labels[upper], labels[lower])
        before = labels.copy()
        np.minimum.at(labels, upper, low)
        np.minimum.at(labels, lower, low)
        while True:
            jumped = labels[labels]
            if np.array_equal(jumped, labels):
                break
            labels = jumped
        if np.array_equal(before, labels):
            return labels


def _sorted_unique(points: np.ndarray) -> np.ndarray:
    """The distinct points, sorted by x then y."""
    pts = points[np.lexsort((points[:, 1], points[:, 0]))]
    keep = np.ones(len(pts), dtype=bool)
    keep[1:] = np.any(pts[1:] != pts[:-1], axis=1)
    return pts[keep]


def _hull(points: np.ndarray) -> np.ndarray:
    """Convex hull (Andrew's monotone chain) of integer or float points, of their type, counter-clockwise in image
    coordinates, collinear points dropped."""
    pts = _sorted_unique(points)
    if len(pts) <= 2:
        return pts

    def half(seq):
        chain: list = []
        for p in seq:
            while len(chain) >= 2 and ((chain[-1][0] - chain[-2][0]) * (p[1] - chain[-2][1])
                                       - (chain[-1][1] - chain[-2][1]) * (p[0] - chain[-2][0])) <= 0:
                chain.pop()
            chain.append(p)
        return chain

    listed = [tuple(p) for p in pts.tolist()]
    lower, upper = half(listed), half(listed[::-1])
    return np.array(lower[:-1] + upper[:-1], dtype=pts.dtype)


def _grouped_hulls(labels: np.ndarray, points: np.ndarray) -> list[np.ndarray]:
    """The convex hull of each label's points, in order of each label's first point (raster order)."""
    order = np.argsort(labels, kind="stable")
    labels, points = labels[order], points[order]
    cuts = np.flatnonzero(np.diff(labels)) + 1
    groups = np.split(points, cuts)
    groups.sort(key=lambda g: (g[:, 1].min(), g[g[:, 1] == g[:, 1].min(), 0].min()))
    return [_hull(g) for g in groups]


def _run_ends(rows, starts, ends) -> np.ndarray:
    """Both end pixels of each run, (x, y): the hull of a set of runs is the hull of their ends."""
    return np.concatenate([np.stack([starts, rows], axis=1), np.stack([ends - 1, rows], axis=1)])


def findContours(image, mode, method, contours=None, hierarchy=None, offset=None):
    """RETR_LIST: the borders of the non-zero regions (8-connected) and of their holes (4-connected zero regions they
    enclose; outside the image counts as zero), each as its convex hull: (contours, hierarchy without links)."""
    if mode != RETR_LIST:
        raise _unsupported(f"findContours mode {mode}")
    if method != CHAIN_APPROX_SIMPLE:
        raise _unsupported(f"findContours method {method}")
    bitmap = np.asarray(image) != 0
    h, w = bitmap.shape
    rows, starts, ends = _runs(bitmap)
    labels = _label_runs(rows, starts, ends, w, diagonal=True)
    found = _grouped_hulls(np.concatenate([labels, labels]), _run_ends(rows, starts, ends)) if len(rows) else []
    found += _hole_hulls(bitmap)
    shaped = tuple(c.reshape(-1, 1, 2).astype(np.int32) for c in found)
    links = np.full((1, len(shaped), 4), -1, dtype=np.int32)
    return shaped, (links if shaped else None)


def _hole_hulls(bitmap: np.ndarray) -> list[np.ndarray]:
    """For each hole (a 4-connected zero region not reaching outside the image), the hull of the non-zero pixels
    sharing a side with it: where its border runs."""
    h, w = bitmap.shape
    framed = np.ones((h + 2, w + 2), dtype=bool)
    framed[1:-1, 1:-1] = ~bitmap
    rows, starts, ends = _runs(framed)
    if not len(rows):
        return []
    labels = _label_runs(rows, starts, ends, w + 2, diagonal=False)
    outside = labels[0]  # the frame's top row is the first run
    holes = labels != outside
    if not holes.any():
        return []
    canvas = np.full((h + 2, w + 2), -1, dtype=np.int64)
    lengths = (ends - starts)[holes]
    pixel_rows = np.repeat(rows[holes], lengths)
    pixel_cols = np.repeat(starts[holes], lengths) + (np.arange(lengths.sum())
                                                      - np.repeat(np.cumsum(lengths) - lengths, lengths))
    canvas[pixel_rows, pixel_cols] = np.repeat(labels[holes], lengths)
    inside = np.zeros((h + 2, w + 2), dtype=bool)
    inside[1:-1, 1:-1] = bitmap
    point_labels, points = [], []
    for dy, dx in ((-1, 0), (1, 0), (0, -1), (0, 1)):
        beside = np.roll(np.roll(canvas, -dy, axis=0), -dx, axis=1)
        ys, xs = np.nonzero(inside & (beside >= 0))
        point_labels.append(beside[ys, xs])
        points.append(np.stack([xs - 1, ys - 1], axis=1))
    return _grouped_hulls(np.concatenate(point_labels), np.concatenate(points))


def minAreaRect(points):
    """The rotated rectangle of least area around the points: ((centre x, centre y), (width, height), angle in
    degrees of its width side), one side along an edge of the points' convex hull."""
    pts = np.asarray(points, dtype=np.float64).reshape(-1, 2)
    if len(pts) == 0:
        return (0.0, 0.0), (0.0, 0.0), 0.0
    hull = _hull(pts)
    if len(hull) == 1:
        return (float(hull[0, 0]), float(hull[0, 1])), (0.0, 0.0), 0.0
    if len(hull) == 2:
        (x0, y0), (x1, y1) = hull
        angle = np.degrees(np.arctan2(y1 - y0, x1 - x0))
        return ((x0 + x1) / 2, (y0 + y1) / 2), (float(np.hypot(x1 - x0, y1 - y0)), 0.0), float(angle)
    edges = np.roll(hull, -1, axis=0) - hull
    lengths = np.hypot(edges[:, 0], edges[:, 1])
    keep = lengths > 0
    ux, uy = edges[keep, 0] / lengths[keep], edges[keep, 1] / lengths[keep]
    along = hull[:, 0][None, :] * ux[:, None] + hull[:, 1][None, :] * uy[:, None]
    across = -hull[:, 0][None, :] * uy[:, None] + hull[:, 1][None, :] * ux[:, None]
    widths = along.max(axis=1) - along.min(axis=1)
    heights = across.max(axis=1) - across.min(axis=1)
    best = int(np.argmin(widths * heights))
    a_mid = (along[best].max() + along[best].min()) / 2
    c_mid = (across[best].max() + across[best].min()) / 2
    cx = a_mid * ux[best] - c_mid * uy[best]
    cy = a_mid * uy[best] + c_mid * ux[best]
    angle = float(np.degrees(np.arctan2(uy[best], ux[best])))
    return (float(cx), float(cy)), (float(widths[best]), float(heights[best])), angle


def boxPoints(box):
    """The four corners of a rotated rectangle (as minAreaRect returns it), float32, (4, 2)."""
    (cx, cy), (width, height), angle = box
    theta = np.radians(angle)
    ux, uy = np.cos(theta), np.sin(theta)
    half_w = np.array([ux, uy]) * width / 2
    half_h = np.array([-uy, ux]) * height / 2
    centre = np.array([cx, cy])
    corners = [centre - half_w + half_h, centre - half_w - half_h, centre + half_w - half_h, centre + half_w + half_h]
    return np.array(corners, dtype=np.float32)
