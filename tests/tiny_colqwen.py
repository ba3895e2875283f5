"""A ColQwen2.5 with random weights, built offline: a locally trained byte-level BPE tokenizer with Qwen's
special tokens, the Qwen2-VL image processor, and a model config of the same structure as the real 3B one.
Tests use the tiny size; benchmarks/visual_embed.py also builds the real size to time it."""
from __future__ import annotations

from pathlib import Path

from docqa_desktop.vectors.torch_runtime import import_torchvision

SPECIALS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>", "<|vision_start|>", "<|vision_end|>",
            "<|vision_pad|>", "<|image_pad|>", "<|video_pad|>"]
TRAINING_TEXT = ["Describe the image.", "user", "What is the revenue in 2023?", "Where is the table about cats?",
                 "The quick brown fox jumps over the lazy dog.", "Which figure shows the results by year?"] * 20

SIZES = {
    "tiny": dict(text=dict(hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4,
                           num_key_value_heads=2, rope_parameters={"rope_type": "default", "rope_theta": 1e6,
                                                                   "mrope_section": [2, 3, 3]}),
                 vision=dict(depth=2, hidden_size=32, intermediate_size=64, num_heads=2, out_hidden_size=64,
                             fullatt_block_indexes=[1])),
    # Qwen2.5-VL-3B, the base of ColQwen2.5 v0.2
    "real": dict(text=dict(hidden_size=2048, intermediate_size=11008, num_hidden_layers=36, num_attention_heads=16,
                           num_key_value_heads=2, rope_parameters={"rope_type": "default", "rope_theta": 1e6,
                                                                   "mrope_section": [16, 24, 24]}),
                 vision=dict(depth=32, hidden_size=1280, intermediate_size=3420, num_heads=16, out_hidden_size=2048,
                             fullatt_block_indexes=[7, 15, 23, 31])),
}


def build(size: str = "tiny", seed: int = 0):
    """(model, processor) with random weights."""
    import_torchvision()
    import torch
    from colpali_engine.models import ColQwen2_5, ColQwen2_5_Processor
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast
    from transformers.models.qwen2_5_vl import Qwen2_5_VLConfig
    from transformers.models.qwen2_vl.image_processing_qwen2_vl import Qwen2VLImageProcessor
    from transformers.models.qwen2_vl.video_processing_qwen2_vl import Qwen2VLVideoProcessor

    torch.manual_seed(seed)
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    tok.train_from_iterator(TRAINING_TEXT, trainers.BpeTrainer(
        vocab_size=400, special_tokens=SPECIALS, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False))
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=tok, eos_token="<|endoftext|>", pad_token="<|endoftext|>",
                                        unk_token=None, additional_special_tokens=SPECIALS[1:])
    ids = {s: tokenizer.convert_tokens_to_ids(s) for s in SPECIALS}
    max_pixels = 768 * 28 * 28
    images = Qwen2VLImageProcessor(min_pixels=4 * 28 * 28, max_pixels=max_pixels,
                                   size={"shortest_edge": 4 * 28 * 28, "longest_edge": max_pixels},
                                   patch_size=14, temporal_patch_size=2, merge_size=2)
    processor = ColQwen2_5_Processor(image_processor=images, tokenizer=tokenizer,
                                     video_processor=Qwen2VLVideoProcessor())
    shape = SIZES[size]
    config = Qwen2_5_VLConfig(
        text_config=dict(vocab_size=len(tokenizer), max_position_embeddings=32768, bos_token_id=ids["<|endoftext|>"],
                         eos_token_id=ids["<|im_end|>"], pad_token_id=ids["<|endoftext|>"], **shape["text"]),
        vision_config=dict(patch_size=14, spatial_merge_size=2, temporal_patch_size=2, window_size=112,
                           **shape["vision"]),
        image_token_id=ids["<|image_pad|>"], video_token_id=ids["<|video_pad|>"],
        vision_start_token_id=ids["<|vision_start|>"], vision_end_token_id=ids["<|vision_end|>"])
    model = ColQwen2_5(config).eval()
    # Random init zeroes the padding token's embedding and the projection bias; padded positions would then
    # project to 0 and normalise to NaN. Trained checkpoints have non-zero values there.
    with torch.no_grad():
        model.language_model.embed_tokens.weight.normal_(0, 0.02)
        model.custom_text_proj.bias.normal_(0, 0.02)
        # Random init also leaves the vision tower's attention nearly uniform and weak beside the residual
        # stream, so vectors would hardly change if it attended wrongly (across windows, to padding): sharpen it
        # as training does (scores x64, output x10) for tests of the attention to see.
        for block in model.visual.blocks:
            block.attn.qkv.weight.mul_(8)
            block.attn.proj.weight.mul_(10)
    return model, processor


def save_tiny(folder: Path, seed: int = 0) -> Path:
    model, processor = build("tiny", seed)
    model.save_pretrained(folder)
    processor.save_pretrained(folder)
    return folder
