"""64-bit keys of byte strings, for joins and duplicate checks on large arrays.

A key is a *filter*, never an identity: equal strings always have equal keys,
and every use (duplicate check, qrels lookup) confirms a key match by
comparing the strings themselves, so a collision can cost time but never
change a result. Ids that leave a function are exact (indices into tables of
distinct strings).
"""
from __future__ import annotations

import numpy as np

_M1 = np.uint64(0x9E3779B97F4A7C15)
_M2 = np.uint64(0xBF58476D1CE4E5B9)
_M3 = np.uint64(0x94D049BB133111EB)


def string_keys(s: np.ndarray) -> np.ndarray:
    """uint64 key of every element of the numpy bytes array ``s``.

    The same string gives the same key whatever the array's width (NUL
    padding contributes nothing). Cost: a few vectorised passes over
    ``ceil(width / 8)`` strided 8-byte words, in blocks of ``_BLOCK`` rows so
    the temporaries stay small.
    """
    n = len(s)
    out = np.empty(n, dtype=np.uint64)
    if n == 0:
        return out
    s = np.ascontiguousarray(s)
    for a in range(0, n, _BLOCK):
        _keys_into(s[a: a + _BLOCK], out[a: a + _BLOCK])
    return out


_BLOCK = 1 << 20


def _keys_into(s: np.ndarray, h: np.ndarray) -> None:
    n = len(s)
    w = s.dtype.itemsize
    flat = s.view(np.uint8).reshape(-1)
    words: list[np.ndarray] = []
    if w < 8:
        pad = np.zeros((n, 8), dtype=np.uint8)
        pad[:, :w] = flat.reshape(n, w)
        words.append(pad.view("<u8").reshape(-1))
    else:
        for i in range(w // 8):
            words.append(np.ndarray((n,), dtype="<u8", buffer=flat, offset=8 * i, strides=(w,)))
        r = w % 8
        if r:
            tail = np.ndarray((n,), dtype="<u8", buffer=flat, offset=w - 8, strides=(w,))
            words.append(tail >> np.uint64(8 * (8 - r)))
    np.multiply(words[0], _M1, out=h)
    for i, wd in enumerate(words[1:], 1):
        x = wd * (_M2 + np.uint64(2 * i))
        x ^= x >> np.uint64(31)
        h += x
    h ^= h >> np.uint64(29)
    h *= _M3
    h ^= h >> np.uint64(32)


def group_keys(group: np.ndarray, keys: np.ndarray, ngroups: int) -> np.ndarray:
    """Combine a group index (< ``ngroups``) and string keys into one uint64.

    The group occupies the high bits, so sorting the result sorts by group
    first; the low bits hold the top bits of the string key.
    """
    bits = max(int(ngroups - 1).bit_length(), 1)
    out = group.astype(np.uint64)
    out <<= np.uint64(64 - bits)
    out |= keys >> np.uint64(bits)
    return out


def factorize_bytes(s: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(uniques, codes)`` with ``uniques`` sorted in byte order (as ``np.unique``);
    ``codes`` int32 (int64 beyond 2**31 elements).

    Fast when equal values come in contiguous blocks (query ids in a run or
    qrels file): only the block heads are sorted.
    """
    n = len(s)
    if n == 0:
        return s[:0], np.zeros(0, dtype=np.int64)
    heads = np.flatnonzero(np.concatenate([[True], s[1:] != s[:-1]]))
    code_t = np.int32 if n < 2**31 else np.int64
    if len(heads) > n // 4:
        uniq, inv = np.unique(s, return_inverse=True)
        return uniq, inv.astype(code_t).reshape(-1)
    uniq, inv = np.unique(s[heads], return_inverse=True)
    lengths = np.diff(np.append(heads, n))
    return uniq, np.repeat(inv.astype(code_t).reshape(-1), lengths)


def judgment_grouping(qid: np.ndarray, docno: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(qids, counts, key, order)`` of judgment arrays: sorted distinct query ids,
    judgments per query, and the (query, docno) group keys (:func:`group_keys`)
    sorted, ``order`` the stable permutation that sorts them."""
    qids, codes = factorize_bytes(qid)
    nq = len(qids)
    ck = group_keys(codes, string_keys(docno), max(nq, 1))
    order = np.argsort(ck, kind="stable")
    if len(order) < 2**31:
        order = order.astype(np.int32)
    counts = np.bincount(codes, minlength=nq)
    return qids, counts, ck[order], order


def exact_pair_keys(ga: np.ndarray, da: np.ndarray, gb: np.ndarray, db: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Exact int64 keys of the (group, docno) pairs of two sides.

    Docnos of both sides are numbered by one byte-order ``np.unique``, so equal
    keys mean equal (group, docno) — no hashing, no collisions.
    """
    alld = np.concatenate([da, db]) if len(db) else da
    _, inv = np.unique(alld, return_inverse=True)
    inv = inv.reshape(-1).astype(np.int64)
    nd = int(inv.max()) + 1 if len(inv) else 1
    return (np.asarray(ga, dtype=np.int64) * nd + inv[: len(da)],
            np.asarray(gb, dtype=np.int64) * nd + inv[len(da):])


def lookup_sorted(sorted_keys: np.ndarray, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(found, index)``: for each of ``keys``, whether it is in ``sorted_keys``
    and its position there (clipped to a valid index where not found)."""
    if not len(sorted_keys):
        return np.zeros(len(keys), dtype=bool), np.zeros(len(keys), dtype=np.int64)
    h = np.searchsorted(sorted_keys, keys)
    hc = np.minimum(h, len(sorted_keys) - 1)
    return (h < len(sorted_keys)) & (sorted_keys[hc] == keys), hc
