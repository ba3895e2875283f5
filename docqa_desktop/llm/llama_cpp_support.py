"""What the bundled llama.cpp can run: the model architectures and vision-projector types it knows.

The installed llama-cpp-python ships compiled libraries only, whose string tables hold the names but not as a list
(the linker folds a name into the tail of a longer one: "qwen2" is stored inside "rwkv6qwen2"). So the lists are
copied, as they are, from the sources of the pinned version:

    llama-cpp-python 0.3.36 sdist (`pip download llama-cpp-python==0.3.36 --no-deps --no-binary :all:`)
    vendor/llama.cpp/src/llama-arch.cpp        LLM_ARCH_NAMES        -> ARCHITECTURES ("clip": a projector file)
    vendor/llama.cpp/tools/mtmd/clip-impl.h    PROJECTOR_TYPE_NAMES  -> PROJECTOR_TYPES

tests/test_catalog_licences.py checks every catalog model against them, that the installed llama-cpp-python is
this version, and that each name is in the installed libraries' string tables (libllama, libmtmd).
"""
from __future__ import annotations

VERSION = "0.3.36"

ARCHITECTURES = frozenset({
    "clip", "llama", "llama4", "deci", "falcon", "grok", "gpt2", "gptj", "gptneox", "mpt", "baichuan", "starcoder",
    "refact", "bert", "modern-bert", "nomic-bert", "nomic-bert-moe", "neo-bert", "jina-bert-v2", "jina-bert-v3",
    "eurobert", "bloom", "stablelm", "qwen", "qwen2", "qwen2moe", "qwen2vl", "qwen3", "qwen3moe", "qwen3next",
    "qwen3vl", "qwen3vlmoe", "qwen35", "qwen35moe", "qwen4exp", "phi2", "phi3", "phimoe", "plamo", "plamo2",
    "plamo3", "codeshell", "orion", "internlm2", "minicpm", "minicpm3", "gemma", "gemma2", "gemma3", "gemma3n",
    "gemma4", "gemma4-assistant", "gemma-embedding", "starcoder2", "mamba", "mamba2", "maple", "jamba", "falcon-h1",
    "xverse", "command-r", "cohere2", "cohere2moe", "dbrx", "olmo", "olmo2", "olmoe", "muse-glimmer", "openelm",
    "arctic", "deepseek", "deepseek2", "deepseek2-ocr", "deepseek32", "deepseek4", "chatglm", "glm4", "glm4moe",
    "glm-dsa", "bitnet", "t5", "t5encoder", "jais", "jais2", "nemotron", "nemotron_h", "nemotron_h_moe", "exaone",
    "exaone4", "exaone-moe", "rwkv6", "rwkv6qwen2", "rwkv7", "arwkv7", "granite", "granitemoe", "granitehybrid",
    "graniteswitch", "granite_swa", "chameleon", "wavtokenizer-dec", "plm", "bailingmoe", "bailingmoe2",
    "bailingmoe3", "dots1", "dots3note", "arcee", "afmoe", "laguna", "ernie4_5", "ernie4_5-moe", "hunyuan-moe",
    "hunyuan-dense", "hunyuan_vl", "hy_v3", "hy_v4", "smollm3", "gpt-oss", "lfm2", "lfm2moe", "dream",
    "smallthinker", "llada", "llada-moe", "seed_oss", "grovemoe", "apertus", "minimax-01", "hrm_text", "minimax-m2",
    "minimax-m3", "cogvlm", "rnd1", "pangu-embedded", "mistral3", "eagle3", "dflash", "mistral4", "paddleocr",
    "mimo2", "step35", "spark2_5", "llama-embed", "maincoder", "kimi-linear", "kimi-k3", "glm5-next", "talkie",
    "mellum", "nanbeige", "qwen3tts", "pockettts"
})

PROJECTOR_TYPES = frozenset({
    "mlp", "ldp", "ldpv2", "resampler", "adapter", "qwen2vl_merger", "qwen2.5vl_merger", "qwen3vl_merger",
    "ling3vl", "step3vl", "gemma3", "gemma3nv", "gemma3na", "gemma4v", "gemma4a", "gemma4uv", "gemma4ua", "phi4",
    "idefics3", "pixtral", "ultravox", "internvl", "llama4", "qwen2a", "qwen3a", "glma", "qwen2.5o", "voxtral",
    "meralion", "musicflamingo", "lfm2", "kimivl", "paddleocr", "lightonocr", "cogvlm", "janus_pro", "dots_ocr",
    "dots3note_v", "dots3note_a", "deepseekocr", "deepseekocr2", "deepseek4v", "lfm2a", "glm4v", "glm5v", "youtuvl",
    "yasa2", "kimik25", "nemotron_v2_vl", "exaone4_5", "hunyuanvl", "minicpmv4_6", "granite_speech", "mimovl",
    "minimax_m3", "granite4_vision", "mimo_audio", "parakeet", "qwen3tts_spkenc", "qwen3tts_gen",
    "pockettts_spkenc", "pockettts_gen", "muse-glimmer"
})
