import numpy as np
import pytest

from docqa_desktop.vectors.text_embedder import MiniLMEmbedder, TorchMiniLMEmbedder, bundled_model_dir
from docqa_desktop.vectors.torch_runtime import import_torchvision
from conftest import corpus_pdf

pytestmark = pytest.mark.model  # the MiniLM embedder, and sentence-transformers on torch


@pytest.mark.parametrize("embedder", [MiniLMEmbedder, TorchMiniLMEmbedder])
def test_minilm_matches_sentence_transformers(embedder):
    import_torchvision()  # sentence-transformers imports transformers, which imports the CPU-incompatible torchvision
    from sentence_transformers import SentenceTransformer

    texts = ["Best Buy reported revenue of 46.3 billion dollars in fiscal 2023.",
             "The last ferry to Gull Island leaves at 18:40.", "ok",
             " ".join(["a long passage about solar panels and salt spray"] * 40)]  # truncated at 256 tokens
    ours = embedder().embed(texts)
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


def test_bulk_and_query_embedders_agree_on_corpus_chunks():
    """The index stores torch's vectors and searches them with numpy's query vectors: the two must not drift."""
    import pymupdf

    from docqa_desktop.index.chunking import chunk_page

    with pymupdf.open(corpus_pdf("BESTBUY_2023_10K.pdf")) as doc:
        texts = [c.text for page in doc.pages(0, 6) for c in chunk_page(page.number + 1, page.get_text())]
    assert len(texts) > 20
    cosine = (MiniLMEmbedder().embed(texts) * TorchMiniLMEmbedder(batch_size=7).embed(texts)).sum(1)
    assert cosine.min() > 0.9999, cosine.min()


def test_texts_embedded_lately_come_from_the_cache_with_the_same_vectors(monkeypatch):
    from docqa_desktop.vectors.text_embedder import MiniLMEmbedder

    embedder = MiniLMEmbedder()
    embedder.recent_texts = 3
    first = embedder.embed(["solar plant output", "harbour ferry times", "solar plant output"])
    computed = []
    real = MiniLMEmbedder._embed_uncached
    monkeypatch.setattr(MiniLMEmbedder, "_embed_uncached",
                        lambda self, texts: computed.append(list(texts)) or real(self, texts))
    again = embedder.embed(["harbour ferry times", "quarterly revenue", "solar plant output"])
    assert computed == [["quarterly revenue"]]  # the two others were remembered; a repeat in one call is one text
    assert np.array_equal(again[0], first[1]) and np.array_equal(again[2], first[0])
    assert np.allclose(again[1], real(embedder, ["quarterly revenue"])[0], atol=1e-6)
    embedder.embed(["one", "two"])  # the cache keeps the three texts used last
    computed.clear()
    embedder.embed(["harbour ferry times"])
    assert computed == [["harbour ferry times"]]
