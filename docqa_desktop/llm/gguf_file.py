"""Reads a GGUF file's header without loading it, so bad files fail with a clear reason, not a crash.

llama.cpp aborts the whole process on some malformed inputs; checking magic, metadata and tensor
bounds here first turns a truncated download or a wrong projector into a message naming the file.
"""
from __future__ import annotations

import math
import mmap
import re
import struct
from dataclasses import dataclass
from pathlib import Path

from .types import ModelError

GGUF_MAGIC = b"GGUF"


@dataclass(frozen=True)
class GgufHeader:
    path: Path
    architecture: str  # "llama", "qwen2vl", … ; "clip" for vision projectors
    name: str
    context_length: int  # 0 for projectors
    embedding_length: int  # text models: hidden size; projectors: size of the embeddings they emit
    has_chat_template: bool
    parameters: int = 0  # weights in all tensors: how a more capable model is told from a smaller one
    size_label: str = ""  # general.size_label as the publisher wrote it: "135M", "1.5B", "8x7B"; "" when absent
    parameter_count: int = 0  # general.parameter_count when the file states it, else 0
    licence: str = ""  # general.license as the publisher wrote it ("apache-2.0"); "" when absent

    @property
    def is_projector(self) -> bool:
        return self.architecture == "clip"

    @property
    def size(self) -> "ModelSize":
        """How big the model is, from what its file states: general.parameter_count, else general.size_label,
        else the weights counted in its tensors."""
        labelled = label_billions(self.size_label)
        billions = (self.parameter_count / 1e9 if self.parameter_count else labelled or self.parameters / 1e9)
        return ModelSize(billions, self.size_label if labelled else size_text(billions))


@dataclass(frozen=True)
class ModelSize:
    """A language model's size: billions of parameters (0.0 when unknown) and the label people know it by."""
    billions: float = 0.0
    label: str = ""  # "135M", "1.5B"; "" when unknown
    builtin: bool = False  # the model shipped inside the app (smaller than any method's floor when size unknown)

    def below(self, floor: float) -> bool:
        """Whether this model is smaller than `floor` billion parameters; a model of unknown size is only when it
        is the built-in one (a server's model or one the user imported is their choice)."""
        if floor <= 0:
            return False
        return self.billions < floor if self.billions else self.builtin


_SIZE_LABEL = re.compile(r"^(?:(\d+)x)?(\d+(?:\.\d+)?)([KMBT])", re.IGNORECASE)
_SCALE = {"K": 1e-6, "M": 1e-3, "B": 1.0, "T": 1e3}


def label_billions(label: str) -> float:
    """Billions of parameters in a size label: "135M" → 0.135, "1.5B" → 1.5, "8x7B" → 56; 0.0 when unreadable."""
    match = _SIZE_LABEL.match(label.strip())
    if not match:
        return 0.0
    experts, number, unit = match.groups()
    return int(experts or 1) * float(number) * _SCALE[unit.upper()]


def size_text(billions: float) -> str:
    """A size as people write it: 0.135 → "135M", 1.54 → "1.5B", 14.2 → "14B"; "" for 0."""
    if billions <= 0:
        return ""
    if billions < 1:
        return f"{billions * 1000:.0f}M"
    return f"{billions:.1f}".rstrip("0").rstrip(".") + "B" if billions < 10 else f"{billions:.0f}B"


def read_header(path: str | Path) -> GgufHeader:
    path = Path(path)
    if not path.exists():
        raise ModelError(f"model file {path} does not exist")
    if not path.is_file():
        raise ModelError(f"model file {path} is not a file")
    try:
        with path.open("rb") as handle:
            magic = handle.read(4)
    except OSError as exc:
        raise ModelError(f"model file {path} cannot be read: {exc.strerror or exc}") from exc
    if magic != GGUF_MAGIC:
        raise ModelError(f"model file {path} is not a GGUF model (it does not start with 'GGUF')")
    try:
        fields, data_end, parameters = _scan(path)
    except (struct.error, ValueError, UnicodeDecodeError, OSError) as exc:
        raise ModelError(f"model file {path} is damaged or truncated ({exc})") from exc
    size = path.stat().st_size
    if data_end > size:
        raise ModelError(f"model file {path} is truncated: its tensors need {data_end:,} bytes, the file has "
                         f"{size:,}; download it again")
    arch = str(fields.get("general.architecture", ""))
    if arch == "clip":
        embedding = int(fields.get("clip.vision.projection_dim", 0) or 0)
        context = 0
    else:
        embedding = int(fields.get(f"{arch}.embedding_length", 0) or 0)
        context = int(fields.get(f"{arch}.context_length", 0) or 0)
    return GgufHeader(path, arch, str(fields.get("general.name", path.stem)), context, embedding,
                      "tokenizer.chat_template" in fields, parameters, str(fields.get("general.size_label") or ""),
                      int(fields.get("general.parameter_count") or 0), str(fields.get("general.license") or ""))


# GGUF value types: scalar struct formats, 8 = string, 9 = array
_SCALARS = {0: "<B", 1: "<b", 2: "<H", 3: "<h", 4: "<I", 5: "<i", 6: "<f", 7: "<?", 10: "<Q", 11: "<q", 12: "<d"}
_STRING, _ARRAY = 8, 9
_MAX_VERSION = 3


def _scan(path: Path) -> tuple[dict, int, int]:
    """Scalar and string metadata, where the last tensor's data ends, and the number of weights.

    Hand-rolled: gguf.GGUFReader turns every tokenizer entry into a numpy view and takes 4-5 s on a
    49k-token vocabulary; stepping over arrays in the mapped file makes this milliseconds.
    """
    from gguf import GGML_QUANT_SIZES

    with path.open("rb") as handle, mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as data:
        read = _Reader(data)
        read.bytes(4)
        version = read.scalar("<I")
        if not 2 <= version <= _MAX_VERSION:
            raise ValueError(f"unsupported GGUF version {version}")
        n_tensors, n_fields = read.scalar("<Q"), read.scalar("<Q")
        fields = {}
        for _ in range(n_fields):
            key = read.string()
            fields[key] = read.value(read.scalar("<I"))
        end = parameters = 0
        for _ in range(n_tensors):
            read.string()
            dims = [read.scalar("<Q") for _ in range(read.scalar("<I"))]
            kind, offset = read.scalar("<I"), read.scalar("<Q")
            if kind not in GGML_QUANT_SIZES:
                raise ValueError(f"unknown tensor type {kind}")
            block, block_bytes = GGML_QUANT_SIZES[kind]
            end = max(end, offset + math.prod(dims) // block * block_bytes)
            parameters += math.prod(dims)
        alignment = int(fields.get("general.alignment", 32) or 32)
        data_start = -(-read.at // alignment) * alignment
    return fields, data_start + end, parameters


class _Reader:
    """Reads the header from the file's mapped bytes (struct.unpack_from: no read call per field)."""

    def __init__(self, data: mmap.mmap):
        self.data = data
        self.at = 0

    def bytes(self, n: int) -> bytes:
        if self.at + n > len(self.data):
            raise ValueError("unexpected end of file in the header")
        self.at += n
        return self.data[self.at - n:self.at]

    def scalar(self, fmt: str):
        if self.at + struct.calcsize(fmt) > len(self.data):
            raise ValueError("unexpected end of file in the header")
        value = struct.unpack_from(fmt, self.data, self.at)[0]
        self.at += struct.calcsize(fmt)
        return value

    def string(self) -> str:
        length = self.scalar("<Q")
        if length > 1 << 24:
            raise ValueError(f"implausible string length {length}")
        return self.bytes(length).decode("utf-8")

    def value(self, kind: int):
        if kind in _SCALARS:
            return self.scalar(_SCALARS[kind])
        if kind == _STRING:
            return self.string()
        if kind == _ARRAY:
            item, count = self.scalar("<I"), self.scalar("<Q")
            if item in _SCALARS:  # fixed-size items: one step
                self.at += count * struct.calcsize(_SCALARS[item])
            elif item == _STRING:  # a vocabulary: each string's length, then past it, never decoded
                for _ in range(count):
                    self.at += 8 + struct.unpack_from("<Q", self.data, self.at)[0]
            else:
                for _ in range(count):
                    self.value(item)
            return None  # vocabularies and merges are never needed here
        raise ValueError(f"unknown metadata type {kind}")


def check_pair(model: GgufHeader, projector: GgufHeader) -> None:
    """A vision projector must emit embeddings of the text model's width."""
    if not projector.is_projector:
        raise ModelError(f"{projector.path} is not a vision projector (its architecture is "
                         f"{projector.architecture!r}, expected 'clip')")
    if model.is_projector:
        raise ModelError(f"{model.path} is a vision projector, not a language model")
    if projector.embedding_length and model.embedding_length and projector.embedding_length != model.embedding_length:
        raise ModelError(f"vision projector {projector.path.name} does not match {model.path.name}: it emits "
                         f"{projector.embedding_length}-wide embeddings, the model expects {model.embedding_length}")
