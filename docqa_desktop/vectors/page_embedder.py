"""Page and query embeddings with ColQwen2.5 (colpali-engine): one 128-d vector per image patch and per token.

CUDA in bfloat16 with SDPA when there is a GPU, float32 on the CPU (bfloat16 measured slower there). Pages are
capped to a visual-token budget: fewer patches, proportionally less compute, less detail. The vision tower attends
with one call per layer instead of one per window (vectors/vision_attention.py). On a GPU the pages are patched there
too, the vision MLP is widened for the fast kernels (vectors/aligned_mlp.py) and the RMS norms are fused
(fused_norms.py); CUDA graphs (vision_graphs.py) and compiled layers (compiled_layers.py) are settings, off by
default.
"""
from __future__ import annotations

import json
import logging
import threading
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..errors import ModelError
from ..progress import Cancelled, check_cancel
from ..pdf.page_images import PIXELS_PER_TOKEN
from .torch_runtime import import_torchvision
from .aligned_mlp import align_vision_mlp
from .compiled_layers import OFF as COMPILE_OFF, use_compiled_layers
from .fused_norms import fuse_rms_norms
from .vision_attention import AUTO, use_vision_attention
from .vision_graphs import OFF as GRAPHS_OFF, capturing, use_vision_graphs

log = logging.getLogger(__name__)
# checkpoints' processor configs carry max_pixels, which transformers passes per call and warns about; the
# budget below sets it and size["longest_edge"] to the same value, so the warning says nothing useful
warnings.filterwarnings("ignore", message="Passing `min_pixels` and `max_pixels`", category=FutureWarning)

VISUAL_TOKEN_BUDGETS = (256, 512, 768, 1024)
# GPU memory a page's activations take per visual token in bfloat16, with a 2x margin: the first GPU check
# peaked at 13.3 GiB for 16 pages of 768 tokens and 34 GiB for 64, over ~7.5 GiB of weights (~0.4 MiB a token)
ACTIVATION_BYTES_PER_TOKEN = 2**20


class EmbedderError(ModelError):
    pass


@dataclass(frozen=True)
class PreparedPages:
    """Page images through the processor (on the CPU), ready for the model: prepared on a worker thread while
    the model embeds the previous batch."""
    images: list
    inputs: object  # the processor's BatchFeature


@dataclass(frozen=True)
class PageVectors:
    """One page's embedding: every token's vector, and which vector describes each cell of the patch grid."""
    vectors: np.ndarray  # [n, 128] float32, L2-normalised
    grid: tuple[int, int]  # (rows, columns) of visual tokens over the page image
    patch_rows: np.ndarray  # [rows * columns] int32: row of `vectors` for each grid cell, row-major

    def __post_init__(self):
        if len(self.patch_rows) != self.grid[0] * self.grid[1]:
            raise ValueError(f"patch map has {len(self.patch_rows)} cells for a {self.grid} grid")


class PageEmbedder:
    """A loaded ColQwen2.5 model and processor."""

    def __init__(self, model, processor, *, name: str, device: str, visual_tokens: int = 768, pool_factor: int = 1,
                 vision_attention: str = AUTO, vision_graphs: str = GRAPHS_OFF, compile_layers: str = COMPILE_OFF,
                 max_batch: int = 16):
        import torch

        self.torch, self.model, self.processor = torch, model, processor
        self.name, self.device = name, device
        self.visual_tokens, self.pool_factor = visual_tokens, pool_factor
        self.preprocess_device = device if device.startswith("cuda") else None  # where the pages are patched
        processor.image_processor.max_pixels = visual_tokens * PIXELS_PER_TOKEN
        processor.image_processor.size["longest_edge"] = visual_tokens * PIXELS_PER_TOKEN
        self.set_vision_attention(vision_attention)
        self.set_vision_graphs(vision_graphs)
        self.set_compiled_layers(compile_layers)
        self.batch_size = self._initial_batch(max_batch)
        # A page takes up to a minute on a CPU: checking between layers makes Cancel take effect in ~2 s.
        self.cancel: threading.Event | None = None
        for module in model.modules():
            if isinstance(module, torch.nn.ModuleList):
                for layer in module:
                    layer.register_forward_pre_hook(self._stop_if_cancelled)

    def _stop_if_cancelled(self, _module, _inputs) -> None:
        check_cancel(self.cancel)  # raises Cancelled inside the model, between two layers

    @classmethod
    def load(cls, folder: str | Path, *, base_folder: str | Path | None = None, device: str = "auto",
             visual_tokens: int = 768, pool_factor: int = 1, threads: int | None = None,
             name: str | None = None, cpu_int8: bool = False, vision_attention: str = AUTO,
             vision_graphs: str = GRAPHS_OFF, compile_layers: str = COMPILE_OFF, max_batch: int = 16,
             tune_for_gpu: bool = True) -> "PageEmbedder":
        """From a transformers folder, or a LoRA adapter folder over `base_folder` (how vidore publishes
        ColQwen2.5). Never touches the network. On a GPU the vision MLP is widened for the fast kernels
        (aligned_mlp.py) and the RMS norms fused (fused_norms.py) unless `tune_for_gpu` is False (the GPU check's
        baseline)."""
        folder = Path(folder)
        import_torchvision()
        import torch
        from colpali_engine.models import ColQwen2_5, ColQwen2_5_Processor

        if threads:
            torch.set_num_threads(threads)
        device = ("cuda" if torch.cuda.is_available() else "cpu") if device == "auto" else device
        dtype = torch.bfloat16 if device.startswith("cuda") else torch.float32
        weights = _weights_folder(folder, base_folder)
        try:
            model = ColQwen2_5.from_pretrained(str(weights), dtype=dtype, local_files_only=True,
                                               device_map=device, attn_implementation="sdpa").eval()
            if weights != folder:
                model.load_adapter(str(folder))
            processor = ColQwen2_5_Processor.from_pretrained(str(folder), local_files_only=True)
            if cpu_int8 and device == "cpu":
                quantize_linear_layers(model)
            if tune_for_gpu and device.startswith("cuda"):
                align_vision_mlp(model)
                fuse_rms_norms(model)
        except Exception as exc:  # noqa: BLE001 -- damaged files fail in safetensors, torch, json, peft alike
            raise EmbedderError(f"cannot load the page embedder in {folder}: {exc}") from exc
        return cls(model, processor, name=name or folder.name, device=device, visual_tokens=visual_tokens,
                   pool_factor=pool_factor, vision_attention=vision_attention, vision_graphs=vision_graphs,
                   compile_layers=compile_layers, max_batch=max_batch)

    def set_vision_attention(self, mode: str) -> None:
        """auto | padded | per_window (transformers' own, one call per window): vectors agree to a cosine of 0.999."""
        use_vision_attention(self.model, mode)
        self.vision_attention = mode

    def set_vision_graphs(self, mode: str) -> None:
        """on (on CUDA: the vision tower's blocks replayed from CUDA graphs, vision_graphs.py) | off (eager)."""
        self.graphs = use_vision_graphs(self.model, mode, self.device)

    def set_compiled_layers(self, mode: str) -> None:
        """on (the vision blocks and language-model layers compiled by torch.compile, compiled_layers.py) | off."""
        self.layers_compiled = use_compiled_layers(self.model, mode)

    def _initial_batch(self, max_batch: int) -> int:
        if not self.device.startswith("cuda"):
            return 1  # the CPU gains nothing from batching, and one page per step keeps progress and cancel prompt
        free, _total = self.torch.cuda.mem_get_info()
        return max(1, min(max_batch, int(free * 0.9 / (self.visual_tokens * ACTIVATION_BYTES_PER_TOKEN))))

    # -- pages ------------------------------------------------------------------------------------

    def embed_pages(self, images: list) -> list[PageVectors]:
        """Embed PIL images; on running out of GPU memory, retry with smaller batches (remembered)."""
        out: list[PageVectors] = []
        start = 0
        while start < len(images):
            batch = images[start:start + self.batch_size]
            try:
                out.extend(self._embed_batch(batch))
            except Cancelled:
                raise
            except Exception as exc:  # noqa: BLE001 -- torch raises OutOfMemoryError or RuntimeError by backend
                self._shrink_batch_after(exc)
                continue
            start += len(batch)
        return out

    def prepare(self, images: list) -> PreparedPages:
        """What comes before the model (decoding, resizing, patching; on a GPU the patching runs there): safe on
        another thread while the model embeds the previous batch."""
        return PreparedPages(images, self._processed(images))

    def _processed(self, images: list):
        """colpali's process_images, less its last step: it pads the pages' patches into one [pages, most patches,
        1176] float32 tensor on the CPU, a further copy of ~14 MB a page at 768 visual tokens (a quarter of the
        CPU's share); _embed_inputs pads them on the model's device instead."""
        images = [image if image.mode == "RGB" else image.convert("RGB") for image in images]
        # on a GPU the normalising and patching run there (the processor's torchvision backend): a page crosses
        # to the GPU as its 8-bit pixels, not as 14 MB of float patches
        if not self.preprocess_device:
            return self._processor_call(images)
        resized = [self._resized_on_cpu(image) for image in images]
        with capturing:  # GPU work from this thread would break a CUDA graph being captured on another
            return self._processor_call(resized, device=self.preprocess_device, do_resize=False)

    def _processor_call(self, images: list, **options):
        return self.processor(text=[self.processor.visual_prompt_prefix] * len(images), images=images,
                              padding="longest", return_tensors="pt", **options)

    def _resized_on_cpu(self, image):
        """The processor's own resize, on the CPU: CUDA's bicubic rounds pixels differently from the CPU's, which
        moved vectors to a cosine of 0.9963 (H200, 2026-11-28); the rest of the patching is exact on either."""
        import torch
        from transformers.image_utils import SizeDict

        processor = self.processor.image_processor
        size = processor.size if isinstance(processor.size, SizeDict) else SizeDict(**processor.size)  # 5.24 / 5.17
        pixels = torch.from_numpy(np.array(image)).permute(2, 0, 1)[None]  # [1, 3, height, width] uint8, writable
        factor = processor.patch_size * processor.merge_size
        return processor.resize(pixels, size=size, resample=processor.resample, factor=factor)[0]

    def embed_prepared(self, prepared: PreparedPages) -> list[PageVectors]:
        """embed_pages for pages already through prepare(): the same vectors."""
        if len(prepared.images) <= self.batch_size:
            try:
                return self._embed_inputs(prepared.inputs)
            except Cancelled:
                raise
            except Exception as exc:  # noqa: BLE001 -- as in embed_pages
                self._shrink_batch_after(exc)
        return self.embed_pages(prepared.images)

    def _shrink_batch_after(self, exc: Exception) -> None:
        """Halve the batch after running out of GPU memory; any other failure, or one at one page, is raised."""
        if not _out_of_memory(exc) or self.batch_size == 1:
            raise exc
        self.batch_size = max(1, self.batch_size // 2)
        log.warning("page embedder out of memory; batch size now %d", self.batch_size)
        self._free_cache()

    def _embed_batch(self, images: list) -> list[PageVectors]:
        return self._embed_inputs(self._processed(images))

    def _embed_inputs(self, inputs) -> list[PageVectors]:
        torch = self.torch
        inputs = dict(inputs.to(self.device))  # a copy: the prepared pages stay as they were (already there on a GPU)
        patches = (inputs["image_grid_thw"][:, 1] * inputs["image_grid_thw"][:, 2]).tolist()
        inputs["pixel_values"] = torch.nn.utils.rnn.pad_sequence(  # the layout ColQwen2_5.forward takes apart
            torch.split(inputs["pixel_values"], patches), batch_first=True)
        with torch.inference_mode():
            embeddings = self.model(**inputs).float().cpu()
        merge = self.processor.image_processor.merge_size
        pages = []
        for i, (_t, height, width) in enumerate(inputs["image_grid_thw"].tolist()):
            kept = inputs["attention_mask"][i].bool().cpu()
            ids = inputs["input_ids"][i].cpu()[kept]
            vectors = embeddings[i][kept].numpy()
            image_rows = np.flatnonzero((ids == self.processor.image_token_id).numpy()).astype(np.int32)
            grid = (height // merge, width // merge)
            pages.append(self._pooled(PageVectors(vectors, grid, image_rows)))
        return pages

    def _pooled(self, page: PageVectors) -> PageVectors:
        """Hierarchical token pooling (colpali-engine): ~pool_factor times fewer vectors, each grid cell
        pointing at its cluster's vector."""
        if self.pool_factor <= 1:
            return page
        from colpali_engine.compression.token_pooling import HierarchicalTokenPooler

        result = HierarchicalTokenPooler().pool_embeddings([self.torch.from_numpy(page.vectors)],
                                                            pool_factor=self.pool_factor, return_dict=True)
        clusters = result.cluster_id_to_indices[0]
        cluster_of = np.empty(len(page.vectors), np.int32)
        for row, cluster in enumerate(c for c in sorted(clusters) if clusters[c][0].numel()):
            cluster_of[clusters[cluster][0].numpy()] = row
        pooled = result.pooled_embeddings[0].float().numpy()
        return PageVectors(np.ascontiguousarray(pooled), page.grid, cluster_of[page.patch_rows])

    # -- queries ----------------------------------------------------------------------------------

    def embed_query(self, text: str) -> np.ndarray:
        """[tokens, 128] float32 for one query."""
        torch = self.torch
        inputs = self.processor.process_queries([text]).to(self.device)
        with torch.inference_mode():
            embedding = self.model(**inputs).float().cpu()[0]
        return embedding[inputs["attention_mask"][0].bool().cpu()].numpy()

    def _free_cache(self) -> None:
        if self.device.startswith("cuda"):
            self.torch.cuda.empty_cache()


def quantize_linear_layers(model) -> None:
    """int8 weights for every linear layer (torch dynamic quantization), in place: on a CPU about 1.3x faster
    for ~2 % score drift (benchmarks/results/visual_embed-real-int8.json), and 4x less memory for weights."""
    import torch
    from torch.ao.quantization import quantize_dynamic

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch deprecates its quantized tensors in favour of torchao
        quantize_dynamic(model, {torch.nn.Linear}, dtype=torch.qint8, inplace=True)


def _weights_folder(folder: Path, base_folder) -> Path:
    adapter = folder / "adapter_config.json"
    if not adapter.exists():
        return folder
    if base_folder is None:
        base = json.loads(adapter.read_text(encoding="utf-8")).get("base_model_name_or_path", "?")
        raise EmbedderError(f"{folder} is an adapter over {base}; its base model folder is needed too")
    return Path(base_folder)


def _out_of_memory(exc: BaseException) -> bool:
    return type(exc).__name__ == "OutOfMemoryError" or "out of memory" in str(exc).lower()
