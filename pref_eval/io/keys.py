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


def distinct(keys: np.ndarray) -> np.ndarray:
    """``np.unique(keys)`` of a 1-D array (sorted distinct values, same dtype), by the faster way.

    numpy's hashed ``unique`` is fast when values repeat a lot (codes of a few
    thousand names) and slow when most are distinct, where a sort wins; above
    65,536 elements a sample of ~4,096 decides (the hashed way is the compiled kernels' hash table
    for integers, :func:`factorize`). Up to 65,536 elements a sort is
    used: there the difference is microseconds, and numpy 2's plain
    ``np.unique`` imports ``numpy.ma`` on its first call (it asks
    ``np.ma.is_masked``), 10-15 ms of every command's start-up (issue #13).
    The result is the same either way: integer, boolean, byte and string
    arrays, and floating-point arrays without NaN (of 0.0 and -0.0 the first in
    sorted order is kept); complex, object and NaN-holding arrays, where
    ``np.unique`` has rules of its own, go to ``np.unique``.
    """
    keys = np.asarray(keys)
    n = len(keys)
    if keys.dtype.kind in "cO" or keys.ndim != 1:
        return np.unique(keys)
    sample = None if n <= 1 << 16 else _sorted_distinct(keys[:: n >> 12])
    if sample is None or len(sample) > 1 << 10:
        s = _sorted_distinct(keys)
        return np.unique(keys) if s is None else s
    kern = _kernels()  # the kernels' hash table: as fast, and no numpy.ma either
    if kern is not None and (keys.dtype.kind in "iu" or (keys.dtype == np.float64 and not np.isnan(keys).any())):
        # 64-bit patterns with equal values equal: integers widened (uint64 wraps: a bijection), floats + 0.0
        # (-0.0 becomes 0.0); the first occurrence of each is kept, as the sort path keeps it
        bits = (keys.astype(np.int64) if keys.dtype.kind in "iu" else (keys + 0.0).view(np.int64))
        codes = np.empty(n, dtype=np.int64)
        first = np.empty(n, dtype=np.int64)
        nu = kern.factorize(np.ascontiguousarray(bits), codes, first)
        return np.sort(keys[first[:nu]], kind="stable")
    s = _sorted_distinct(keys)  # without the kernels (a checkout not built): a sort, still no numpy.ma
    return np.unique(keys) if s is None else s


def _sorted_distinct(keys: np.ndarray) -> np.ndarray | None:
    """The sorted distinct values of a 1-D array by a stable sort, or None for floats holding NaN (NaNs sort
    last; ``np.unique`` merges them by rules of its own)."""
    s = np.sort(keys, kind="stable")
    if len(s) and s.dtype.kind == "f" and np.isnan(s[-1]):
        return None
    return s[np.concatenate([[True], s[1:] != s[:-1]])] if len(s) else s


def factorize(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(distinct(keys), positions(uniq, keys))`` -- the sorted distinct keys and each key's index
    among them (``np.unique(keys, return_inverse=True)``) -- of a 1-D 64-bit integer array.

    With the compiled kernels (``pref_eval._kernels.factorize``: one pass through a hash table,
    codes in order of first occurrence) only the distinct keys are sorted and the codes renumbered;
    without them (or ``PREF_EVAL_PURE_PYTHON``), :func:`distinct` and :func:`positions`. The same
    arrays either way.
    """
    keys = np.asarray(keys)
    kern = _kernels()
    if kern is None or keys.ndim != 1 or keys.dtype.kind not in "iu" or keys.dtype.itemsize != 8:
        uniq = distinct(keys)
        return uniq, positions(uniq, keys)
    keys = np.ascontiguousarray(keys)
    n = len(keys)
    codes = np.empty(n, dtype=np.int64)
    first = np.empty(n, dtype=np.int64)
    nu = kern.factorize(keys.view(np.int64), codes, first)
    u = keys[first[:nu]]
    order = np.argsort(u)  # distinct: any sort gives the one order
    rank = np.empty(nu, dtype=np.int64)
    rank[order] = np.arange(nu)
    return u[order], rank[codes]


def _kernels():
    """The compiled kernels (``pref_eval._kernels``), or None (:func:`pref_eval.native.kernels`)."""
    from ..native import kernels

    return kernels()


_GOLDEN = np.uint64(0x9E3779B97F4A7C15)  # Knuth's multiplicative hash constant (2**64 / golden ratio)


def positions(uniq: np.ndarray, keys: np.ndarray) -> np.ndarray:
    """``np.searchsorted(uniq, keys)`` for 64-bit integer ``keys`` that all occur in ``uniq``
    (sorted, distinct), through a hash table instead of a binary search.

    The table has 4-8 slots per distinct key, addressed by Fibonacci hashing
    (Knuth, TAOCP vol. 3, 6.4: the top bits of ``key * 0x9E3779B97F4A7C15``),
    collisions resolved by linear probing; both the insertion and the lookups
    run in vectorised rounds (few: the table is at most 1/4 full). A key is
    confirmed by comparing it with ``uniq`` at the slot's position, so the
    result is exact. Several times faster than the binary search on large
    arrays (one random access instead of ``log2(len(uniq))``). A key not in
    ``uniq`` raises ``ValueError``. Other dtypes use ``np.searchsorted``.
    """
    nu = len(uniq)
    if nu == 0 or uniq.dtype.kind not in "iu" or uniq.dtype.itemsize != 8 or keys.dtype != uniq.dtype:
        return np.searchsorted(uniq, keys)
    u = uniq.view(np.uint64)
    bits = max(nu.bit_length() + 2, 4)
    mask = np.int64((1 << bits) - 1)
    shift = np.uint64(64 - bits)
    table = np.full(1 << bits, -1, dtype=np.int64)
    todo = np.arange(nu)
    slot = ((u * _GOLDEN) >> shift).astype(np.int64)
    while len(todo):  # place every distinct key in a free slot (a round per probe step)
        free = table[slot] < 0
        table[slot[free]] = todo[free]  # of several keys aimed at one free slot, one wins
        placed = table[slot] == todo
        todo, slot = todo[~placed], (slot[~placed] + 1) & mask
    k = np.ascontiguousarray(keys).view(np.uint64)
    h = k * _GOLDEN
    h >>= shift
    slot = h.astype(np.int64)
    del h
    out = table[slot]
    bad = np.flatnonzero((out < 0) | (u[out] != k))
    while len(bad):
        if (out[bad] < 0).any():
            raise ValueError("a key is not among the distinct keys")
        slot[bad] = (slot[bad] + 1) & mask
        out[bad] = table[slot[bad]]
        bad = bad[(out[bad] < 0) | (u[out[bad]] != k[bad])]
    return out
