"""The one number grammar of every TREC reader (fast pyarrow path and tokenizer fallback alike).

trec_eval reads numbers with C's ``atol``/``atof``: an optional sign and decimal digits. Python's
``int``/``float`` (and numpy's ``astype`` from bytes, which calls them) accept more -- ``1_0``,
non-ASCII digits -- and overflow with an exception; pyarrow's parser accepts less (no ``4.0`` for an
integer column). Every reader therefore hands its numeric tokens (numpy ``S`` arrays) to this
module:

* :func:`integer_grades` -- grades: ``[+-]?[0-9]+(\\.0*)?``. An integral decimal (``0.0``,
  ``4.0``, ``105.``, as written by many tools and by the TREC CAsT 2019 qrels) is that integer;
  a non-integral one (``0.5``) is refused ("is not an integer": trec_eval would truncate it
  silently); anything else (``0x10``, ``1_0``, ``1e2``, ``--1``) is refused as not a decimal
  integer; a value outside int64 is refused as out of range (never an ``OverflowError``).
* :func:`decimal_floats` -- scores and levels: ``[+-]?([0-9]+(\\.[0-9]*)?|\\.[0-9]+)([eE][+-]?[0-9]+)?``
  plus ``inf``/``infinity``/``nan`` words (as C's ``strtod``); no hex, no ``_``, ASCII digits only.

The checks are vectorised over the byte matrix of the tokens (no Python work per token), except
for the rare out-of-range grade which is confirmed with Python's ``int``.
"""
from __future__ import annotations

import numpy as np

from ..errors import InputError, shown

INT64_DIGITS = 18  # any 18-digit decimal fits in int64


def _matrix(tokens: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Byte matrix (n, width) of an ``S`` array and each token's length."""
    tokens = np.asarray(tokens)
    if tokens.dtype.kind != "S":
        tokens = tokens.astype("S")
    w = max(tokens.dtype.itemsize, 1)
    A = np.ascontiguousarray(tokens).view(np.uint8).reshape(len(tokens), w)
    length = np.count_nonzero(A, axis=1)  # tokens hold no NUL byte (the tokenizer refuses control bytes)
    return A, length


def _text(tok: bytes) -> str:
    return tok.decode("utf-8", errors="surrogateescape")  # a byte that is not UTF-8 shown as \\xNN (shown)


def integer_grades(tokens: np.ndarray, source: str, lines: np.ndarray | None = None,
                   what: str = "relevance grade") -> np.ndarray:
    """Parse grade tokens (``S`` array) with the grammar of the module docstring → int64 array.

    ``lines`` the 1-based line of each token (default: token i is line i + 1), for the
    ``InputError`` of the first bad token.
    """
    tokens = np.asarray(tokens)
    n = len(tokens)
    if n == 0:
        return np.zeros(0, np.int64)
    if tokens.dtype.kind in "iu":
        return tokens.astype(np.int64)
    A, length = _matrix(tokens)
    pos = np.arange(A.shape[1])[None, :]
    inside = pos < length[:, None]
    digit = (A >= 48) & (A <= 57)
    sign = ((A == 43) | (A == 45)) & (pos == 0)
    dot = A == 46
    ndots = np.count_nonzero(dot & inside, axis=1)
    first_dot = np.where(ndots > 0, np.argmax(dot, axis=1), length)
    start = sign[:, 0].astype(np.int64)
    int_digits = first_dot - start
    before = inside & (pos < first_dot[:, None])
    after = inside & (pos > first_dot[:, None])
    shape_ok = (np.all(~before | digit | sign, axis=1) & np.all(~after | digit, axis=1)
                & (ndots <= 1) & (int_digits >= 1) & (length > 0))
    integral = np.all(~after | (A == 48), axis=1)

    def line_of(i: int) -> int:
        return int(lines[i]) if lines is not None else i + 1

    bad = np.flatnonzero(~shape_ok | ~integral)
    if len(bad):
        i = int(bad[0])
        tok = bytes(tokens[i])
        if shape_ok[i]:
            raise InputError(source, line_of(i), f"{what} {shown(_text(tok))} is not an integer")
        raise InputError(source, line_of(i), f"{what} {shown(_text(tok))} is not an integer "
                                             "(expected an optional sign and decimal digits, e.g. 2, -1, 4.0)")
    # value: the digits of the integer part, with leading zeros not counting towards the size
    dvals = np.where(before & digit, A.astype(np.int64) - 48, 0)
    nonzero_lead = before & digit & (A != 48)
    first_sig = np.where(nonzero_lead.any(axis=1), np.argmax(nonzero_lead, axis=1), first_dot)
    big = np.flatnonzero(first_dot - first_sig > INT64_DIGITS)
    for i in big.tolist():
        tok = bytes(tokens[i])
        v = int(tok.split(b".")[0])
        if not -(2**63) <= v < 2**63:
            raise InputError(source, line_of(i), f"{what} {shown(_text(tok))} is out of range (|grade| < 2^63)")
    vals = np.zeros(n, np.int64)
    with np.errstate(over="ignore"):
        for j in range(A.shape[1]):  # one column of the byte matrix at a time (width ≤ ~20)
            m = before[:, j] & digit[:, j]
            vals = np.where(m, vals * 10 + dvals[:, j], vals)
    neg = A[:, 0] == 45
    with np.errstate(over="ignore"):
        vals = np.where(neg, -vals, vals)
    for i in big.tolist():  # the few 19-digit values that fit: exact from Python's int
        vals[i] = int(bytes(tokens[i]).split(b".")[0])
    return vals


_WORDS = (b"inf", b"infinity", b"nan")


def decimal_floats(tokens: np.ndarray, source: str, lines: np.ndarray | None = None,
                   what: str = "score") -> np.ndarray:
    """Parse float tokens (``S`` array) with the grammar of the module docstring → float64 array.

    NaN is returned as such (callers refuse it where it makes no sense).
    """
    tokens = np.asarray(tokens)
    if tokens.dtype.kind == "f":
        return tokens.astype(np.float64)
    n = len(tokens)
    if n == 0:
        return np.zeros(0, np.float64)

    def line_of(i: int) -> int:
        return int(lines[i]) if lines is not None else i + 1

    def refuse(i: int) -> None:
        raise InputError(source, line_of(i), f"{what} {shown(_text(bytes(tokens[i])))} is not a number")

    A, length = _matrix(tokens)
    pos = np.arange(A.shape[1])[None, :]
    inside = pos < length[:, None]
    allowed = ((A >= 48) & (A <= 57)) | (A == 43) | (A == 45) | (A == 46) | (A == 101) | (A == 69)
    letters = np.flatnonzero(~np.all(~inside | allowed, axis=1) | (length == 0))
    for i in letters.tolist():  # words (inf, nan) are rare; anything else with a letter is refused
        if bytes(tokens[i]).lstrip(b"+-").lower() not in _WORDS or bytes(tokens[i])[1:2] in (b"+", b"-"):
            refuse(i)
    try:
        return tokens.astype(np.float64)
    except ValueError:
        for i, tok in enumerate(tokens.tolist()):
            try:
                float(tok)
            except ValueError:
                refuse(i)
        raise  # pragma: no cover
