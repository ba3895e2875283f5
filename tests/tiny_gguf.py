"""Tiny random-weight GGUF models for tests, written with numpy + gguf (adapted from
../shared/recipes/gen_tiny_gguf.py): a Qwen2-VL text model and its vision projector (~470 KB together)
that llama.cpp loads and runs through libmtmd. Their output is noise; the plumbing is real.
"""
from __future__ import annotations

from pathlib import Path

import gguf
import numpy as np

CHAT_TEMPLATE = (
    "{% for message in messages %}<|im_start|>{{ message['role'] }}\n"
    "{% if message['content'] is string %}{{ message['content'] }}"
    "{% else %}{% for c in message['content'] %}"
    "{% if c['type'] == 'text' %}{{ c['text'] }}{% else %}<|vision_start|><|image_pad|><|vision_end|>{% endif %}"
    "{% endfor %}{% endif %}<|im_end|>\n{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)
SPECIALS = ["<|im_start|>", "<|im_end|>", "<|vision_start|>", "<|vision_end|>", "<|image_pad|>"]
WORDS = ["the", "of", "and", "to", "in", "is", "page", "pages", "document", "summary", "selected",
         "answer", "true", "false", "null", "table", "figure", "text", "image", "yes", "no"]


def write_vlm(folder: Path, seed: int = 0, projector_width: int = 64, size_label: str = "",
              licence: str = "") -> tuple[Path, Path]:
    """(text model, projector). A projector_width other than 64 makes a pair that does not match. `size_label`
    (general.size_label, e.g. "3B"): the size the methods' model floor reads, for a stand-in of a real model;
    without one the floor counts its few weights. `licence`: general.license, as a publisher writes it."""
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    # 8k context: a random model writes every reply to its longest, so a method's full prompt and reply must fit
    labelled = "".join(f"-{part}" for part in (size_label, licence) if part)
    model = folder / f"tiny-qwen2vl-8k{labelled}.gguf"
    projector = folder / f"tiny-qwen2vl-mmproj-{projector_width}.gguf"
    if not model.exists():
        _write_text(model, rng, context=8192, size_label=size_label, licence=licence)
    if not projector.exists():
        _write_projector(projector, rng, projector_width)
    return model, projector


def _vocab():
    kinds = gguf.TokenType
    tokens, scores, types = ["<unk>", "<s>", "</s>"], [0.0, 0.0, 0.0], [kinds.UNKNOWN, kinds.CONTROL, kinds.CONTROL]
    for special in SPECIALS:
        tokens.append(special); scores.append(0.0); types.append(kinds.CONTROL)
    for byte in range(256):
        tokens.append(f"<0x{byte:02X}>"); scores.append(0.0); types.append(kinds.BYTE)
    pieces = ["\u2581"] + [chr(c) for c in range(33, 127)] + ["\u2581" + chr(c) for c in range(33, 127)]
    pieces += ["\u2581" + w for w in WORDS] + WORDS
    for i, piece in enumerate(pieces):
        tokens.append(piece); scores.append(-i / 1000.0 - (0.0 if len(piece) > 1 else 5.0)); types.append(kinds.NORMAL)
    return tokens, scores, types


def _random(rng, *shape, std=0.02):
    return (rng.standard_normal(shape) * std).astype(np.float16)


def _write_text(path: Path, rng, n_embd=64, n_ff=128, n_layer=2, n_head=4, n_head_kv=2, context=4096, size_label="",
                licence=""):
    tokens, scores, types = _vocab()
    vocab, head_dim = len(tokens), n_embd // n_head
    w = gguf.GGUFWriter(str(path), "qwen2vl")
    w.add_name("tiny-random-qwen2vl")
    if size_label:
        w.add_size_label(size_label)
    if licence:
        w.add_license(licence)
    w.add_block_count(n_layer); w.add_context_length(context); w.add_embedding_length(n_embd)
    w.add_feed_forward_length(n_ff); w.add_head_count(n_head); w.add_head_count_kv(n_head_kv)
    w.add_layer_norm_rms_eps(1e-6); w.add_rope_freq_base(10000.0)
    w.add_file_type(gguf.LlamaFileType.MOSTLY_F16)
    w.add_rope_dimension_sections([2, 3, 3, 0])  # M-RoPE sections, summing to head_dim / 2
    w.add_tokenizer_model("llama"); w.add_tokenizer_pre("default")
    w.add_token_list(tokens); w.add_token_scores(scores); w.add_token_types(types)
    w.add_bos_token_id(1); w.add_eos_token_id(tokens.index("<|im_end|>"))
    w.add_add_bos_token(False); w.add_add_eos_token(False)
    w.add_chat_template(CHAT_TEMPLATE)
    w.add_tensor("token_embd.weight", _random(rng, vocab, n_embd, std=1.0))
    w.add_tensor("output_norm.weight", np.ones(n_embd, np.float32))
    w.add_tensor("output.weight", _random(rng, vocab, n_embd, std=0.5))
    for i in range(n_layer):
        p = f"blk.{i}."
        w.add_tensor(p + "attn_norm.weight", np.ones(n_embd, np.float32))
        w.add_tensor(p + "ffn_norm.weight", np.ones(n_embd, np.float32))
        w.add_tensor(p + "attn_q.weight", _random(rng, n_embd, n_embd))
        w.add_tensor(p + "attn_k.weight", _random(rng, n_head_kv * head_dim, n_embd))
        w.add_tensor(p + "attn_v.weight", _random(rng, n_head_kv * head_dim, n_embd))
        w.add_tensor(p + "attn_output.weight", _random(rng, n_embd, n_embd))
        w.add_tensor(p + "attn_q.bias", np.zeros(n_embd, np.float32))
        w.add_tensor(p + "attn_k.bias", np.zeros(n_head_kv * head_dim, np.float32))
        w.add_tensor(p + "attn_v.bias", np.zeros(n_head_kv * head_dim, np.float32))
        w.add_tensor(p + "ffn_gate.weight", _random(rng, n_ff, n_embd))
        w.add_tensor(p + "ffn_up.weight", _random(rng, n_ff, n_embd))
        w.add_tensor(p + "ffn_down.weight", _random(rng, n_embd, n_ff))
    _finish(w)


def _write_projector(path: Path, rng, n_embd_text: int, d=32, n_ff=64, n_layer=3, n_head=2, patch=14):
    w = gguf.GGUFWriter(str(path), "clip")
    w.add_type("mmproj")
    w.add_file_type(gguf.LlamaFileType.MOSTLY_F16)
    w.add_bool("clip.has_vision_encoder", True)
    w.add_uint32("clip.vision.projection_dim", n_embd_text)
    w.add_uint32("clip.vision.image_size", 560)
    w.add_uint32("clip.vision.patch_size", patch)
    w.add_uint32("clip.vision.embedding_length", d)
    w.add_uint32("clip.vision.feed_forward_length", n_ff)
    w.add_uint32("clip.vision.block_count", n_layer)
    w.add_uint32("clip.vision.attention.head_count", n_head)
    w.add_array("clip.vision.image_mean", [0.48145466, 0.4578275, 0.40821073])
    w.add_array("clip.vision.image_std", [0.26862954, 0.26130258, 0.27577711])
    w.add_string("clip.projector_type", "qwen2vl_merger")
    w.add_float32("clip.vision.attention.layer_norm_epsilon", 1e-6)
    for i in range(n_layer):
        p = f"v.blk.{i}."
        for name in ("attn_q", "attn_k", "attn_v", "attn_out"):
            w.add_tensor(p + name + ".weight", _random(rng, d, d)); w.add_tensor(p + name + ".bias", np.zeros(d, np.float32))
        w.add_tensor(p + "ffn_up.weight", _random(rng, n_ff, d)); w.add_tensor(p + "ffn_up.bias", np.zeros(n_ff, np.float32))
        w.add_tensor(p + "ffn_down.weight", _random(rng, d, n_ff)); w.add_tensor(p + "ffn_down.bias", np.zeros(d, np.float32))
        for name in ("ln1", "ln2"):
            w.add_tensor(p + name + ".weight", np.ones(d, np.float32)); w.add_tensor(p + name + ".bias", np.zeros(d, np.float32))
    w.add_tensor("v.post_ln.weight", np.ones(d, np.float32)); w.add_tensor("v.post_ln.bias", np.zeros(d, np.float32))
    merged = d * 4  # 2 × 2 spatial merge
    w.add_tensor("mm.0.weight", _random(rng, merged, merged)); w.add_tensor("mm.0.bias", np.zeros(merged, np.float32))
    w.add_tensor("mm.2.weight", _random(rng, n_embd_text, merged)); w.add_tensor("mm.2.bias", np.zeros(n_embd_text, np.float32))
    # the temporal Conv3D (2 frames) split into two Conv2D kernels, torch layout (out, in, kh, kw)
    w.add_tensor("v.patch_embd.weight", _random(rng, d, 3, patch, patch))
    w.add_tensor("v.patch_embd.weight.1", _random(rng, d, 3, patch, patch))
    _finish(w)


def _finish(writer) -> None:
    writer.write_header_to_file(); writer.write_kv_data_to_file(); writer.write_tensors_to_file(); writer.close()


def write_header_only(path: Path, weights: int, name: str = "big-text-model", size_label: str = "",
                      licence: str = "") -> Path:
    """A text-model GGUF whose header declares `weights` weights (one Q8_0 tensor) and whose data is a hole in a
    sparse file: what the model manager reads (header, size, checksum) without the disk space. llama.cpp cannot
    run it; tests about choosing between installed models need no more. `size_label`: general.size_label
    ("1.5B"), the size the method floor reads before counting the weights; `licence`: general.license."""
    qtype = gguf.GGMLQuantizationType.Q8_0
    block, block_bytes = gguf.GGML_QUANT_SIZES[qtype]
    weights = -(-weights // block) * block
    w = gguf.GGUFWriter(str(path), "llama")
    w.add_name(name)
    if size_label:
        w.add_size_label(size_label)
    if licence:
        w.add_license(licence)
    w.add_context_length(4096); w.add_embedding_length(block)
    w.add_chat_template(CHAT_TEMPLATE)
    w.add_tensor_info("token_embd.weight", [weights // block, block_bytes], np.dtype(np.uint8), weights // block * block_bytes,
                      raw_dtype=qtype)
    w.write_header_to_file(); w.write_kv_data_to_file(); w.write_ti_data_to_file(); w.close()
    with path.open("r+b") as handle:  # pad to the alignment, then leave the tensor's data as a hole
        handle.truncate(-(-path.stat().st_size // 32) * 32 + weights // block * block_bytes)
    return path
