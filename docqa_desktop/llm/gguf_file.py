"""Reads a GGUF file's header without loading it, so bad files fail with a clear reason, not a crash.

llama.cpp aborts the whole process on some malformed inputs; checking magic, metadata and tensor
bounds here first turns a truncated download or a wrong projector into a message naming the file.
"""
from __future__ import annotations

import math
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

    @property
    def is_projector(self) -> bool:
        return self.architecture == "clip"


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
                      "tokenizer.chat_template" in fields, parameters)


# GGUF value types: scalar struct formats, 8 = string, 9 = array
_SCALARS = {0: "<B", 1: "<b", 2: "<H", 3: "<h", 4: "<I", 5: "<i", 6: "<f", 7: "<?", 10: "<Q", 11: "<q", 12: "<d"}
_STRING, _ARRAY = 8, 9
_MAX_VERSION = 3


def _scan(path: Path) -> tuple[dict, int, int]:
    """Scalar and string metadata, where the last tensor's data ends, and the number of weights.

    Hand-rolled: gguf.GGUFReader turns every tokenizer entry into a numpy view and takes 4-5 s on a
    49k-token vocabulary; skipping arrays makes this milliseconds.
    """
    from gguf import GGML_QUANT_SIZES

    with path.open("rb") as handle:
        read = _Reader(handle)
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
        data_start = -(-handle.tell() // alignment) * alignment
    return fields, data_start + end, parameters


class _Reader:
    def __init__(self, handle):
        self.handle = handle

    def bytes(self, n: int) -> bytes:
        data = self.handle.read(n)
        if len(data) != n:
            raise ValueError("unexpected end of file in the header")
        return data

    def scalar(self, fmt: str):
        return struct.unpack(fmt, self.bytes(struct.calcsize(fmt)))[0]

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
            if item in _SCALARS:  # fixed-size items: one seek
                self.handle.seek(count * struct.calcsize(_SCALARS[item]), 1)
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
