import numpy as np
import pytest

from docqa_desktop.index.embedder import MiniLMEmbedder, bundled_model_dir
from docqa_desktop.visual.torch_runtime import import_torchvision

pytestmark = pytest.mark.model  # the MiniLM embedder, and sentence-transformers on torch


def test_numpy_minilm_matches_sentence_transformers():
    import_torchvision()  # sentence-transformers imports transformers, which imports the CPU-incompatible torchvision
    from sentence_transformers import SentenceTransformer

    texts = ["Best Buy reported revenue of 46.3 billion dollars in fiscal 2023.",
             "The last ferry to Gull Island leaves at 18:40.", "ok",
             " ".join(["a long passage about solar panels and salt spray"] * 40)]  # truncated at 256 tokens
    ours = MiniLMEmbedder().embed(texts)
    reference = SentenceTransformer(str(bundled_model_dir()), device="cpu").encode(texts, normalize_embeddings=True)
    cosine = (ours * reference).sum(1)
    assert cosine.min() > 0.9999, cosine


def test_embeddings_rank_paraphrases_above_unrelated_text():
    e = MiniLMEmbedder()
    q, near, far = e.embed(["When does the final boat to the island depart?",
                            "The last ferry to Gull Island leaves at 18:40.",
                            "Inverter B was replaced after a storm surge."])
    assert q @ near > q @ far + 0.1


def test_batching_and_order_do_not_change_results():
    e = MiniLMEmbedder(batch_size=2)
    texts = ["short", "a somewhat longer sentence about documents", "mid length text here"]
    together = e.embed(texts)
    alone = np.vstack([e.embed([t]) for t in texts])
    assert np.allclose(together, alone, atol=1e-5)
