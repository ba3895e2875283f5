"""Reads a GGUF file's header without loading it, so bad files fail with a clear reason, not a crash.

llama.cpp aborts the whole process on some malformed inputs; checking magic, metadata and tensor
bounds here first turns a truncated download or a wrong projector into a message naming the file.
"""
from __future__ import annotations

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
    import gguf

    try:
        reader = gguf.GGUFReader(str(path))
    except Exception as exc:  # the reader raises ValueError/IndexError/struct errors on damage
        raise ModelError(f"model file {path} is damaged or truncated ({exc})") from exc
    _check_tensor_bounds(reader, path)
    fields = {key: _value(field) for key, field in reader.fields.items()}
    arch = str(fields.get("general.architecture", ""))
    if arch == "clip":
        embedding = int(fields.get("clip.vision.projection_dim", 0) or 0)
        context = 0
    else:
        embedding = int(fields.get(f"{arch}.embedding_length", 0) or 0)
        context = int(fields.get(f"{arch}.context_length", 0) or 0)
    return GgufHeader(path, arch, str(fields.get("general.name", path.stem)), context, embedding,
                      "tokenizer.chat_template" in fields)


def _check_tensor_bounds(reader, path: Path) -> None:
    size = path.stat().st_size
    for tensor in reader.tensors:
        if tensor.data_offset + tensor.n_bytes > size:
            raise ModelError(f"model file {path} is truncated: tensor {tensor.name} ends past the end of the "
                             f"file ({size:,} bytes); download it again")


def _value(field):
    try:
        return field.contents()
    except Exception:  # arrays of unusual types; we never need them
        return None


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
