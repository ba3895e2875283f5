"""A random-weight GGUF of the Qwen2.5 text architecture (llama.cpp's `qwen2`), written with the `gguf` package.

Speed does not depend on the weights, so one random block per tensor shape is shared by every layer: writing the
7B model needs ~3 GB of RAM instead of 15, and the file is still the real size. The vocabulary is byte tokens plus
placeholders up to the real vocabulary size (the prompt is fed as token ids, never as text).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

# Qwen2.5-7B-Instruct's config.json
QWEN25_7B = dict(n_embd=3584, n_ff=18944, n_layer=28, n_head=28, n_head_kv=4, n_vocab=152064, context=32768)
TINY = dict(n_embd=256, n_ff=512, n_layer=2, n_head=4, n_head_kv=2, n_vocab=1024, context=8192)


def write(path: Path, n_embd: int, n_ff: int, n_layer: int, n_head: int, n_head_kv: int, n_vocab: int,
          context: int, seed: int = 0) -> Path:
    import gguf

    rng = np.random.default_rng(seed)
    blocks: dict[tuple, np.ndarray] = {}

    def random(*shape, std=0.02):
        if shape not in blocks:
            blocks[shape] = (rng.standard_normal(shape, np.float32) * std).astype(np.float16)
        return blocks[shape]

    kv = n_head_kv * (n_embd // n_head)
    w = gguf.GGUFWriter(str(path), "qwen2")
    w.add_name("random-qwen2.5-text"); w.add_file_type(gguf.LlamaFileType.MOSTLY_F16)
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
