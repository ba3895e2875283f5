"""RAPTOR's clustering (Sarthi et al., 2024; the code MMRAG-DocQA's summary tree follows): reduce the embeddings'
dimensions, fit Gaussian mixtures with the number of components chosen by BIC, assign each node softly to every
component it belongs to with probability above a threshold; first over all nodes (global), then within each
global cluster (local); a cluster whose texts are too long to summarise at once is clustered again.

Dimensionality reduction is scikit-learn's PCA where RAPTOR uses UMAP: umap-learn (with pynndescent) compiles
its numba kernels in every new process (tens of seconds on two cores, paid again by each resumed prepare) and
its output varies with threading, while PCA is exact, deterministic and instant on a few thousand 384-d
vectors. The Gaussian mixtures and BIC are scikit-learn's, as in RAPTOR.
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np

from ..toolkit.batches import pack_in_order

SEED = 224  # RAPTOR's random_state for the BIC search


@dataclass(frozen=True)
class ClusterSettings:
    reduction_dims: int = 10
    threshold: float = 0.1
    max_clusters: int = 50


def reduce(vectors: np.ndarray, dims: int) -> np.ndarray:
    """The vectors projected on their first principal components (at most n - 2, as RAPTOR caps UMAP)."""
    from sklearn.decomposition import PCA

    n_components = min(dims, len(vectors) - 2, vectors.shape[1])
    if n_components < 1:
        return vectors
    return PCA(n_components=n_components, random_state=SEED).fit_transform(vectors)


def best_mixture(points: np.ndarray, max_clusters: int):
    """The Gaussian mixture with the lowest BIC over 1 to max_clusters components, fitted to `points`."""
    from sklearn.mixture import GaussianMixture

    best, best_bic = None, np.inf
    for n in range(1, min(max_clusters, len(points)) + 1):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # convergence warnings on tiny clusters change nothing here
            mixture = GaussianMixture(n_components=n, random_state=SEED).fit(points)
        bic = mixture.bic(points)
        if bic < best_bic:
            best, best_bic = mixture, bic
    return best


def best_component_count(points: np.ndarray, max_clusters: int) -> int:
    """The number of Gaussian components with the lowest BIC, from 1 to max_clusters."""
    return best_mixture(points, max_clusters).n_components


def soft_clusters(points: np.ndarray, settings: ClusterSettings) -> list[np.ndarray]:
    """Members (row indices) of each Gaussian component: every point whose probability of belonging to it is
    above the threshold. A point above the threshold nowhere joins its most likely component (RAPTOR would
    drop it from the layer)."""
    if len(points) <= 2:
        return [np.arange(len(points))]
    mixture = best_mixture(points, settings.max_clusters)  # fitted once: the BIC search's winner
    n = mixture.n_components
    probabilities = mixture.predict_proba(points)
    member = probabilities > settings.threshold
    member[np.arange(len(points)), probabilities.argmax(axis=1)] = True
    return [np.flatnonzero(member[:, j]) for j in range(n) if member[:, j].any()]


def cluster(vectors: np.ndarray, settings: ClusterSettings) -> list[np.ndarray]:
    """RAPTOR's perform_clustering: global clusters over reduced vectors, then local clusters within each global
    one that has more than reduction_dims + 1 members. Returns the members of every cluster."""
    clusters = []
    for members in soft_clusters(reduce(vectors, settings.reduction_dims), settings):
        if len(members) <= settings.reduction_dims + 1:
            clusters.append(members)
            continue
        local = soft_clusters(reduce(vectors[members], settings.reduction_dims), settings)
        clusters.extend(members[part] for part in local)
    return _distinct(clusters)


def clusters_within(vectors: np.ndarray, tokens: np.ndarray, max_tokens: int,
                    settings: ClusterSettings) -> list[np.ndarray]:
    """cluster(), with every cluster whose texts add up to more than `max_tokens` clustered again (RAPTOR's
    max_length_in_cluster). A cluster that clustering cannot split is cut into consecutive runs instead."""
    result = []
    for members in cluster(vectors, settings):
        if len(members) == 1 or tokens[members].sum() <= max_tokens:
            result.append(members)
        elif len(members) < len(vectors):
            result.extend(members[part] for part in clusters_within(vectors[members], tokens[members], max_tokens,
                                                                    settings))
        else:
            result.extend(consecutive_runs(members, tokens, max_tokens))
    return _distinct(result)


def consecutive_runs(members: np.ndarray, tokens: np.ndarray, max_tokens: int) -> list[np.ndarray]:
    """`members` in order, cut into runs of at most `max_tokens` (a single longer member is a run of its own)."""
    runs = pack_in_order(len(members), lambda run: tokens[members[run]].sum() <= max_tokens)
    return [members[run] for run in runs]


def _distinct(clusters: list[np.ndarray]) -> list[np.ndarray]:
    """Each set of members once (soft assignment can give two components the same members), in first order."""
    seen, out = set(), []
    for members in clusters:
        key = tuple(sorted(int(i) for i in members))
        if key not in seen:
            seen.add(key)
            out.append(np.array(key))
    return out
