"""The incremental bandit implementations against a full recomputation from the definitions.

pref_eval.zelo.bandits keeps per-step state incrementally (the judged pairs and their win
counts) for speed; here each step is recomputed from the whole win matrix B as the papers
state it (Wu and Liu 2016, Algorithm 1; Li et al. 2020, Algorithm 1), drawing the same random
numbers in the same order. The result and the generator's final state (how much it drew) must
agree exactly, on small random matrices with ties and on Yan et al.'s cases.
"""
from __future__ import annotations

import numpy as np
import pytest

from pref_eval.zelo.bandits import case_matrix, double_thompson, merge_dts


def _matrix(seed: int, K: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    U = rng.choice([0.5, 0.75, 0.25, 1.0, 0.0, 0.6, 0.9], size=(K, K))
    M = np.triu(U, 1) + np.tril(1 - U.T, -1)
    np.fill_diagonal(M, 0.5)
    return M


def _pick(rng, idx):
    return int(idx[rng.integers(len(idx))]) if len(idx) > 1 else int(idx[0])


def _ties(v):
    return np.flatnonzero(v == v.max())


def _reference_dts(M, T, alpha, rng):
    """DTS, every step from B: U/L from B/N ± sqrt(α ln t / N), θ⁽¹⁾ > 1/2 for all pairs i < k
    (a fair coin from one byte string when N = 0, else Binomial(B_ik + B_ki + 1, 1/2) < B_ik + 1
    in the order the pairs were first judged), θ⁽²⁾ ~ Beta(B_i,a₁ + 1, B_a₁,i + 1)."""
    K = len(M)
    B = np.zeros((K, K), dtype=np.int64)
    order: list[tuple[int, int]] = []  # pairs i < k in the order of their first judgment
    for t in range(1, T + 1):
        N = B + B.T
        upper_copeland = np.zeros(K)
        for i in range(K):
            for k in range(K):
                if i == k:
                    continue
                if N[i, k] == 0:
                    upper_copeland[i] += 1  # x/0 := 1 in U
                    continue
                p = B[min(i, k), max(i, k)] / N[i, k]  # B_ik / N_ik for i < k; 1 - that for i > k
                p = p if i < k else 1 - p
                upper_copeland[i] += p + np.sqrt(alpha * np.log(t) / N[i, k]) > 0.5
        C = _ties(upper_copeland)
        n_pairs = K * (K - 1) // 2
        coins = np.unpackbits(np.frombuffer(rng.bytes((n_pairs + 7) // 8), dtype=np.uint8))[:n_pairs]
        above = np.zeros((K, K), dtype=bool)
        pos = 0
        for i in range(K):
            for k in range(i + 1, K):
                above[i, k] = coins[pos]
                pos += 1
        if order:
            a = np.array([B[i, k] for i, k in order]) + 1
            b = np.array([B[k, i] for i, k in order]) + 1
            for (i, k), x in zip(order, rng.binomial(a + b - 1, 0.5) < a, strict=True):
                above[i, k] = x
        copeland = np.array([sum(above[i, k] if i < k else not above[k, i] for k in range(K) if k != i)
                             for i in range(K)])
        c = copeland[C]
        a1 = _pick(rng, C[c == c.max()])
        th2 = rng.beta(B[:, a1] + 1, B[a1, :] + 1)
        th2[a1] = 0.5
        low = np.array([B[i, a1] / N[i, a1] - np.sqrt(alpha * np.log(t) / N[i, a1]) if N[i, a1] else 0.0
                        for i in range(K)])
        low[a1] = 0.5
        cand = np.flatnonzero(low <= 0.5)
        a2 = _pick(rng, cand[_ties(th2[cand])])
        if a1 != a2:
            if N[a1, a2] == 0:
                order.append((min(a1, a2), max(a1, a2)))
            w, l_ = (a1, a2) if rng.random() < M[a1, a2] else (a2, a1)
            B[w, l_] += 1
    N = B + B.T
    return _ties(B.sum(axis=1)).tolist(), int(np.triu(N, 1).max()) if K > 1 else 0


CASES = [(s, 2 + s % 7, 40 + 5 * s) for s in range(8)]


@pytest.mark.parametrize("seed,K,T", CASES)
def test_dts_equals_full_recomputation(seed, K, T):
    M = _matrix(seed, K)
    r1, r2 = np.random.default_rng(seed), np.random.default_rng(seed)
    got = double_thompson(M, T, rng=r1)
    assert (got.best.tolist(), got.max_pair) == _reference_dts(M, T, 0.8 ** 7, r2)
    assert got.comparisons == T
    assert r1.bit_generator.state == r2.bit_generator.state  # the same draws, no more, no fewer


def test_dts_equals_full_recomputation_on_case_b():
    M = case_matrix("B", 12)
    r1, r2 = np.random.default_rng(7), np.random.default_rng(7)
    got = double_thompson(M, 80, rng=r1)
    assert (got.best.tolist(), got.max_pair) == _reference_dts(M, 80, 0.8 ** 7, r2)
    assert r1.bit_generator.state == r2.bit_generator.state


def _reference_merge_dts(M, T, alpha, batch, C, rng):
    """MergeDTS, every step from B: batches of a random permutation; in batch s = t mod #batches
    drop every arm j with U_ji = B_ji/N_ji + sqrt(α ln(t + C)/N_ji) < 1/2 for a judged pair; a lone
    arm joins the next batch; θ⁽¹⁾_ij > 1/2 drawn for the whole batch matrix (row-major) and used for
    i < j, θ⁽¹⁾_ji = 1 − θ⁽¹⁾_ij; a₁ the Copeland winner of θ⁽¹⁾, a₂ = argmax_j θ⁽²⁾_j,a₁."""
    K = len(M)
    B = np.zeros((K, K), dtype=np.int64)
    perm = rng.permutation(K)
    batches = [list(perm[i:i + batch]) for i in range(0, K, batch)]
    for t in range(1, T + 1):
        if len(batches) == 1 and len(batches[0]) == 1:
            continue
        s = t % len(batches)
        arms = batches[s]
        gone = set()
        for j in arms:
            for i in arms:
                n = B[j, i] + B[i, j]
                if i != j and n and B[j, i] / n + np.sqrt(alpha * np.log(t + C) / n) < 0.5:
                    gone.add(j)
        arms = batches[s] = [j for j in arms if j not in gone]
        if len(arms) == 1:
            if len(batches) > 1:
                nxt = (s + 1) % len(batches)
                batches[nxt] = batches[nxt] + arms
                del batches[s]
            continue
        Bb = B[np.ix_(arms, arms)]
        draw = rng.binomial(Bb + Bb.T + 1, 0.5) < Bb + 1
        n = len(arms)
        copeland = np.array([sum(draw[i, k] if i < k else not draw[k, i] for k in range(n) if k != i)
                             for i in range(n)])
        c1 = _pick(rng, _ties(copeland))
        th2 = rng.beta(Bb[:, c1] + 1, Bb[c1, :] + 1)
        th2[c1] = 0.5
        c2 = _pick(rng, _ties(th2))
        a1, a2 = int(arms[c1]), int(arms[c2])
        if a1 != a2:
            w, l_ = (a1, a2) if rng.random() < M[a1, a2] else (a2, a1)
            B[w, l_] += 1
    alive = np.sort(np.concatenate([np.array(x, dtype=np.int64) for x in batches]))
    N = B + B.T
    return alive[_ties(B[alive].sum(axis=1))].tolist(), int(np.triu(N, 1).max()) if K > 1 else 0


@pytest.mark.parametrize("seed,K,T", [(s, 2 + 3 * s, 60 + 20 * s) for s in range(8)])
@pytest.mark.parametrize("batch,C", [(3, 0.0), (4, 10.0), (16, 4_000_000)])
def test_merge_dts_equals_full_recomputation(seed, K, T, batch, C):
    M = _matrix(seed, K)
    r1, r2 = np.random.default_rng(seed), np.random.default_rng(seed)
    got = merge_dts(M, T, alpha=0.8 ** 6, batch=batch, C=C, rng=r1)
    assert (got.best.tolist(), got.max_pair) == _reference_merge_dts(M, T, 0.8 ** 6, batch, C, r2)
    assert r1.bit_generator.state == r2.bit_generator.state
