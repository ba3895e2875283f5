"""What this machine can run: CPU cores, RAM, GPUs, and whether llama.cpp was built to use them."""
from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass, field

from .. import host


@dataclass(frozen=True)
class Gpu:
    name: str
    memory_gb: float
    free_gb: float
    vendor: str  # nvidia | apple


# SimpleDoc on the 1.5B Q4_K_M (1.1 GB of weights) took 170-260 s a question on 2 CPU cores (benchmarks/RESULTS.md):
# about 200 s per GB of weights there. Generation is memory-bound, so time grows with the weights; more cores
# divide it up to the memory bandwidth.
SECONDS_PER_GB_ON_TWO_CORES = 200.0

# On a GPU that holds the model, a question is SimpleDoc's mean tokens (benchmarks/eval-dev-1.5b: 139 questions, a
# 5.8-call mean) at the rates llama.cpp reached with every layer on an H200 (the GPU check of 2026-11-26,
# benchmarks/results/gpu_check-h200-2026-11-26.json): a
# random 7.6 B-parameter Qwen2.5-7B in F16 (15.2 GB) read a 4,000-token prompt at 6,927 tokens/s and wrote 171
# tokens/s. Reading a prompt is arithmetic, so it scales with parameters; writing reads every weight per token,
# so it scales with their bytes.
SIMPLEDOC_PROMPT_TOKENS, SIMPLEDOC_OUTPUT_TOKENS = 5047, 648
H200_PROMPT_PARAMETER_TOKENS_PER_S = 6927 * 7.6e9
H200_WEIGHT_BYTES_PER_S = 171 * 15.2e9
Q4_K_M_BITS_PER_PARAMETER = 4.85  # the parameters of a file whose count is not known
# Cards slower than the H200, by their memory bandwidth on the makers' sheets (not measured here): HBM data-centre
# cards are about as quick; a workstation card (an RTX 4090's 1.0 TB/s against the H200's 4.8) about 4 times
# slower, Apple silicon (0.1-0.8 TB/s) about 10 times.
DATA_CENTRE_CARDS = ("H100", "H200", "H800", "GH200", "B100", "B200", "A100", "A800")
SLOWER_THAN_H200 = {"data-centre": 1.0, "nvidia": 4.0, "apple": 10.0}


@dataclass(frozen=True)
class Workload:
    """What a method asks of the language model per question, for estimating its time before it has run here:
    seconds per GB of weights on 2 CPU cores (measured), and its tokens for the GPU figure."""
    name: str
    cpu_seconds_per_gb: float  # on 2 CPU cores
    prompt_tokens: int
    output_tokens: int
    reads_images: bool  # a vision model's encoder works too (its weights count)


# SimpleDoc: several calls over pages (the figures above); a vision model reads page images with its encoder.
SIMPLEDOC = Workload("SimpleDoc", SECONDS_PER_GB_ON_TWO_CORES, SIMPLEDOC_PROMPT_TOKENS, SIMPLEDOC_OUTPUT_TOKENS, True)
# The cascade: the quoted reader first (no model), then one short grammar-constrained choice among its candidates.
# Measured: the 1.5B Q4_K_M (1,066 MB) on 2 idle cores read 1,205 prompt tokens and wrote 8 in 13.6 s; ~10 output
# tokens at most. A text call: no image encoder.
CASCADE_PROMPT_TOKENS, CASCADE_OUTPUT_TOKENS = 1205, 10
CASCADE = Workload("cascade", 13.6 / (1066 / 1024), CASCADE_PROMPT_TOKENS, CASCADE_OUTPUT_TOKENS, False)


def _token_rates(a: Workload, b: Workload) -> tuple[float, float]:
    """Seconds per GB of weights for each prompt token read and each token written on 2 CPU cores: the two
    workloads' measured figures solved together (reading a prompt is batched, ~27 times cheaper a token), so that a
    single call's time can be told from its tokens (the machine's measured speed, Hardware.call_seconds)."""
    det = a.prompt_tokens * b.output_tokens - b.prompt_tokens * a.output_tokens
    prompt = (a.cpu_seconds_per_gb * b.output_tokens - b.cpu_seconds_per_gb * a.output_tokens) / det
    output = (a.prompt_tokens * b.cpu_seconds_per_gb - b.prompt_tokens * a.cpu_seconds_per_gb) / det
    return prompt, output


CPU_PROMPT_S_PER_GB, CPU_OUTPUT_S_PER_GB = _token_rates(CASCADE, SIMPLEDOC)


@dataclass(frozen=True)
class Hardware:
    cpu_cores: int
    ram_gb: float
    gpus: tuple[Gpu, ...] = field(default_factory=tuple)
    llama_gpu_offload: bool = False  # llama.cpp built with CUDA/Metal/Vulkan/…
    # this machine's measured time over the reference figures' for the same calls (service/question_time.py):
    # 2.0 when the models that ran here took twice what the figures say; 1.0 before any did
    speed: float = 1.0

    @property
    def gpu_memory_gb(self) -> float:
        return max((g.memory_gb for g in self.gpus), default=0.0)

    @property
    def uses_gpu(self) -> bool:
        return bool(self.gpus) and self.llama_gpu_offload

    def default_threads(self) -> int:
        # llama.cpp's threads spin-wait: leaving one core free keeps the app and indexing responsive,
        # and on a busy 2-core machine one thread generates ~4x faster than two.
        return max(1, self.cpu_cores - 1)

    def seconds_per_question(self, weights_mb: float, memory_gb: float = 0.0, parameters_b: float = 0.0,
                             workload: Workload = SIMPLEDOC) -> float:
        """A rough expectation of a method's time per question (`workload`: SimpleDoc's unless given) with a model
        of this size (and the memory it needs to run, its billions of parameters when known), for choosing one:
        on the GPU when it fits there, else on the CPU cores; the reference figures times this machine's measured
        speed."""
        if self.on_gpu(memory_gb):
            reference = self._gpu_seconds(weights_mb * 2**20, parameters_b * 1e9, workload.prompt_tokens,
                                          workload.output_tokens)
        else:
            reference = workload.cpu_seconds_per_gb * weights_mb / 1024 * self._cpu_share
        return reference * self.speed

    def call_seconds(self, weights_mb: float, memory_gb: float, prompt_tokens: int, output_tokens: int) -> float:
        """What one call reading `prompt_tokens` and writing `output_tokens` takes by the reference figures (not
        this machine's speed): what a call measured here is weighed against."""
        if self.on_gpu(memory_gb):
            return self._gpu_seconds(weights_mb * 2**20, 0.0, prompt_tokens, output_tokens)
        per_gb = CPU_PROMPT_S_PER_GB * prompt_tokens + CPU_OUTPUT_S_PER_GB * output_tokens
        return per_gb * weights_mb / 1024 * self._cpu_share

    def on_gpu(self, memory_gb: float) -> bool:
        """Whether llama.cpp runs a model needing `memory_gb` on the GPU here."""
        return self.uses_gpu and memory_gb <= self.gpu_memory_gb

    @property
    def _cpu_share(self) -> float:
        # the figures are 2 cores'; more divide the time up to the memory bandwidth (~8)
        return 2 / min(max(1, self.cpu_cores), 8)

    def _gpu_seconds(self, weight_bytes: float, parameters: float, prompt_tokens: int, output_tokens: int) -> float:
        parameters = parameters or weight_bytes * 8 / Q4_K_M_BITS_PER_PARAMETER
        on_h200 = (prompt_tokens * parameters / H200_PROMPT_PARAMETER_TOKENS_PER_S
                   + output_tokens * weight_bytes / H200_WEIGHT_BYTES_PER_S)
        return on_h200 * SLOWER_THAN_H200[card_class(max(self.gpus, key=lambda g: g.memory_gb))]

    def describe(self) -> str:
        gpus = ", ".join(f"{g.name} ({g.memory_gb:.0f} GB, {g.free_gb:.0f} GB free)" for g in self.gpus) or "none"
        offload = "yes" if self.llama_gpu_offload else "no (CPU-only build)"
        return (f"CPU cores: {self.cpu_cores}   RAM: {self.ram_gb:.1f} GB   GPU: {gpus}   "
                f"llama.cpp GPU support: {offload}")


def card_class(gpu: Gpu) -> str:
    """data-centre (HBM, H200-class), nvidia (a workstation or gaming card) or apple."""
    if gpu.vendor == "nvidia" and any(name in gpu.name.upper() for name in DATA_CENTRE_CARDS):
        return "data-centre"
    return gpu.vendor


def detect() -> Hardware:
    return Hardware(cpu_cores=host.usable_cores(), ram_gb=host.ram_gb(), gpus=tuple(_nvidia_gpus() + _apple_gpu()),
                    llama_gpu_offload=_llama_gpu_offload())


def _nvidia_gpus() -> list[Gpu]:
    tool = shutil.which("nvidia-smi")
    if not tool:
        return []
    try:
        out = subprocess.run([tool, "--query-gpu=name,memory.total,memory.free", "--format=csv,noheader,nounits"],
                             capture_output=True, text=True, timeout=10, check=True).stdout
    except (subprocess.SubprocessError, OSError):
        return []
    gpus = []
    for line in out.strip().splitlines():
        name, total, free = (part.strip() for part in line.rsplit(",", 2))
        try:
            gpus.append(Gpu(name, float(total) / 1024, float(free) / 1024, "nvidia"))
        except ValueError:
            continue
    return gpus


def _apple_gpu() -> list[Gpu]:
    # Apple silicon shares RAM with its GPU; Metal can use about three quarters of it.
    if host.apple_silicon():
        usable = host.ram_gb() * 0.75
        return [Gpu("Apple silicon GPU", usable, usable, "apple")]
    return []


def _llama_gpu_offload() -> bool:
    try:
        import llama_cpp
    except ImportError:
        return False
    return bool(llama_cpp.llama_supports_gpu_offload())
