"""Random-weight GGUFs of Qwen2.5-VL-7B, written with the `gguf` package: its text model (llama.cpp's `qwen2vl`,
the Qwen2.5-7B shape with M-RoPE) and its vision projector (libmtmd's `qwen2.5vl_merger`: 32 windowed blocks, a full
one every 8th, RMS norms, SiLU-gated MLPs).

Speed does not depend on the weights, so one random block per tensor shape is shared by every layer: writing the
7B model needs ~3 GB of RAM instead of 15, and the file is still the real size. The vocabulary is byte tokens plus
placeholders up to the real vocabulary size (the prompt is fed as token ids; the chat template's text falls back
to byte tokens).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

# Qwen2.5-VL-7B-Instruct's config.json: its text model (Qwen2.5-7B's shape) and its vision tower
QWEN25_7B = dict(n_embd=3584, n_ff=18944, n_layer=28, n_head=28, n_head_kv=4, n_vocab=152064, context=32768,
                 rope_sections=(16, 24, 24, 0))
TINY = dict(n_embd=256, n_ff=512, n_layer=2, n_head=4, n_head_kv=2, n_vocab=1024, context=8192,
            rope_sections=(8, 12, 12, 0))
QWEN25_VL_VISION = dict(d=1280, n_ff=3420, n_layer=32, n_head=16, n_wa_pattern=8)
TINY_VISION = dict(d=32, n_ff=64, n_layer=4, n_head=2, n_wa_pattern=2)
# what libmtmd's chat handler fills: its media marker arrives as a text part
CHAT_TEMPLATE = ("{% for m in messages %}<|im_start|>{{ m['role'] }}\n{% if m['content'] is string %}{{ m['content'] }}"
                 "{% else %}{% for c in m['content'] %}{{ c['text'] }}{% endfor %}{% endif %}<|im_end|>\n{% endfor %}"
                 "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}")


def _shared_random(seed: int):
    """random(*shape) -> one float16 block per shape, the same for every layer."""
    rng = np.random.default_rng(seed)
    blocks: dict[tuple, np.ndarray] = {}

    def random(*shape, std=0.02):
        if shape not in blocks:
            blocks[shape] = (rng.standard_normal(shape, np.float32) * std).astype(np.float16)
        return blocks[shape]
    return random


def write(path: Path, n_embd: int, n_ff: int, n_layer: int, n_head: int, n_head_kv: int, n_vocab: int,
          context: int, rope_sections: tuple[int, ...], seed: int = 0) -> Path:
    import gguf

    random = _shared_random(seed)
    kv = n_head_kv * (n_embd // n_head)
    w = gguf.GGUFWriter(str(path), "qwen2vl")
    w.add_name("random-qwen2.5-vl-text"); w.add_file_type(gguf.LlamaFileType.MOSTLY_F16)
    w.add_rope_dimension_sections(list(rope_sections))  # M-RoPE: sums to half a head
    w.add_chat_template(CHAT_TEMPLATE)
    w.add_block_count(n_layer); w.add_context_length(context); w.add_embedding_length(n_embd)
    w.add_feed_forward_length(n_ff); w.add_head_count(n_head); w.add_head_count_kv(n_head_kv)
    w.add_layer_norm_rms_eps(1e-6); w.add_rope_freq_base(1e6)
    kinds = gguf.TokenType
    tokens = [f"<0x{b:02X}>" for b in range(256)] + ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
    types = [kinds.BYTE] * 256 + [kinds.CONTROL] * 3
    tokens += [f"<unused{i}>" for i in range(n_vocab - len(tokens))]
    types += [kinds.NORMAL] * (n_vocab - len(types))
    w.add_tokenizer_model("llama"); w.add_tokenizer_pre("default")
    w.add_token_list(tokens); w.add_token_scores([0.0] * n_vocab); w.add_token_types(types)
    w.add_bos_token_id(256); w.add_eos_token_id(258); w.add_add_bos_token(False)
    w.add_tensor("token_embd.weight", random(n_vocab, n_embd, std=1.0))
    w.add_tensor("output_norm.weight", np.ones(n_embd, np.float32))
    w.add_tensor("output.weight", random(n_vocab, n_embd, std=0.5))
    for i in range(n_layer):
        p = f"blk.{i}."
        w.add_tensor(p + "attn_norm.weight", np.ones(n_embd, np.float32))
        w.add_tensor(p + "ffn_norm.weight", np.ones(n_embd, np.float32))
        w.add_tensor(p + "attn_q.weight", random(n_embd, n_embd))
        w.add_tensor(p + "attn_k.weight", random(kv, n_embd))
        w.add_tensor(p + "attn_v.weight", random(kv, n_embd))
        w.add_tensor(p + "attn_output.weight", random(n_embd, n_embd))
        w.add_tensor(p + "attn_q.bias", np.zeros(n_embd, np.float32))
        w.add_tensor(p + "attn_k.bias", np.zeros(kv, np.float32))
        w.add_tensor(p + "attn_v.bias", np.zeros(kv, np.float32))
        w.add_tensor(p + "ffn_gate.weight", random(n_ff, n_embd))
        w.add_tensor(p + "ffn_up.weight", random(n_ff, n_embd))
        w.add_tensor(p + "ffn_down.weight", random(n_embd, n_ff))
    w.write_header_to_file(); w.write_kv_data_to_file(); w.write_tensors_to_file(); w.close()
    return path


def write_projector(path: Path, n_embd_text: int, d: int, n_ff: int, n_layer: int, n_head: int, n_wa_pattern: int,
                    patch: int = 14, seed: int = 1) -> Path:
    """The vision projector (mmproj) for a text model `n_embd_text` wide, as llama.cpp's converter writes
    Qwen2.5-VL's: the Conv3D patch embedding split in two, q/k/v split, and the 2 x 2 merger MLP."""
    import gguf

    random = _shared_random(seed)
    w = gguf.GGUFWriter(str(path), "clip")
    w.add_type("mmproj"); w.add_name("random-qwen2.5-vl-mmproj"); w.add_file_type(gguf.LlamaFileType.MOSTLY_F16)
    w.add_bool("clip.has_vision_encoder", True)
    w.add_string("clip.projector_type", "qwen2.5vl_merger")
    w.add_bool("clip.use_silu", True)
    for key, value in (("projection_dim", n_embd_text), ("image_size", 560), ("patch_size", patch),
                       ("embedding_length", d), ("feed_forward_length", n_ff), ("block_count", n_layer),
                       ("attention.head_count", n_head), ("n_wa_pattern", n_wa_pattern)):
        w.add_uint32(f"clip.vision.{key}", value)
    w.add_float32("clip.vision.attention.layer_norm_epsilon", 1e-6)
    w.add_array("clip.vision.image_mean", [0.48145466, 0.4578275, 0.40821073])
    w.add_array("clip.vision.image_std", [0.26862954, 0.26130258, 0.27577711])
    w.add_tensor("v.patch_embd.weight", random(d, 3, patch, patch))
    w.add_tensor("v.patch_embd.weight.1", random(d, 3, patch, patch))
    for i in range(n_layer):
        p = f"v.blk.{i}."
        for name in ("attn_q", "attn_k", "attn_v", "attn_out"):
            w.add_tensor(p + name + ".weight", random(d, d))
            w.add_tensor(p + name + ".bias", np.zeros(d, np.float32))
        for name, shape in (("ffn_gate", (n_ff, d)), ("ffn_up", (n_ff, d)), ("ffn_down", (d, n_ff))):
            w.add_tensor(p + name + ".weight", random(*shape))
            w.add_tensor(p + name + ".bias", np.zeros(shape[0], np.float32))
        for name in ("ln1", "ln2"):
            w.add_tensor(p + name + ".weight", np.ones(d, np.float32))
    w.add_tensor("v.post_ln.weight", np.ones(d, np.float32))
    merged = d * 4  # 2 x 2 spatial merge
    w.add_tensor("mm.0.weight", random(merged, merged)); w.add_tensor("mm.0.bias", np.zeros(merged, np.float32))
    w.add_tensor("mm.2.weight", random(n_embd_text, merged))
    w.add_tensor("mm.2.bias", np.zeros(n_embd_text, np.float32))
    w.write_header_to_file(); w.write_kv_data_to_file(); w.write_tensors_to_file(); w.close()
    return path
