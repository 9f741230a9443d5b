"""zelo_fit's score TSV writer (pref_eval/output/zelo_scores.py): the compiled row formatter
(pref_eval/_kernels.c ``format_scores``) writes the bytes of the Python path, ``repr`` of every float."""
from __future__ import annotations

import numpy as np
import pytest


def _odd_doubles(rng, n):
    """Random doubles of every kind: all bit patterns (subnormals, NaNs, infinities), ±0, integers,
    short decimals, powers of two and ten, values near the repr's switch to exponent notation."""
    bits = rng.integers(0, 2**63, n, dtype=np.int64) * rng.choice([1, -1], n)
    x = [bits.view(np.float64), rng.standard_normal(n) * 10.0 ** rng.integers(-8, 18, n),
         np.round(rng.standard_normal(n) * 1e6) / 10.0 ** rng.integers(0, 6, n), rng.integers(-10**6, 10**6, n) * 1.0,
         np.ldexp(1.0, rng.integers(-1074, 1024, n)), 10.0 ** rng.integers(-320, 309, n),
         np.array([0.0, -0.0, np.nan, -np.nan, np.inf, -np.inf, 5e-324, -5e-324, 2.2250738585072014e-308,
                   1.7976931348623157e308, 1e16, 9999999999999998.0, 1e-4, 0.0001000000000000001, 1e-5,
                   0.1, 0.2, 0.3, 1 / 3, 2 / 3, 9007199254740993.0, 123456789012345680.0])]
    return np.concatenate(x)


@pytest.mark.parametrize("extra", [False, True])
def test_score_columns_compiled_equal_python(monkeypatch, extra):
    """zelo_fit's TSV rows formatted by the compiled kernel are the bytes of the Python path
    (repr of every float: random bit patterns, subnormals, NaN, infinities, ±0; non-ASCII ids)."""
    import io

    from pref_eval.output import zelo_scores as zs
    from pref_eval.zelo import compiled

    if not compiled.available():
        pytest.skip("pref_eval._kernels not built")
    rng = np.random.default_rng(7)
    score = _odd_doubles(rng, 10_000)
    se = rng.permutation(score)
    sizes = rng.multinomial(len(score), np.ones(900) / 900)
    qids = [f"q{k}-é" if k % 7 == 0 else f"q{k}" for k in range(len(sizes))]
    docs = [[f"d{i}\u00fc" if i % 5 == 0 else f"d{i}" for i in range(m)] for m in sizes]
    ext = {"component": rng.integers(0, 9, len(score)), "scale": np.full(len(score), "elo", dtype=object)} \
        if extra else None
    got = io.StringIO()
    zs.write_scores_columns(got, qids, docs, score, se, ext, chunk=5000)
    monkeypatch.setenv("PREF_EVAL_PURE_PYTHON", "1")
    want = io.StringIO()
    zs.write_scores_columns(want, qids, docs, score, se, ext)
    assert got.getvalue() == want.getvalue()
    assert want.getvalue().count("\n") == len(score) + 1


def test_score_columns_unencodable_id_goes_to_python(monkeypatch):
    """A lone surrogate in an id: the compiled kernel leaves the rest to the Python path, which
    writes the same rows as without the kernel."""
    import io

    from pref_eval.output import zelo_scores as zs
    from pref_eval.zelo import compiled

    if not compiled.available():
        pytest.skip("pref_eval._kernels not built")
    qids, docs = ["q1", "q\udc80", "q3"], [["a", "b"], ["c"], ["d"]]
    score, se = np.array([0.5, -1.25, 3.0, 1e-7]), np.array([0.1, np.nan, 0.2, 0.3])
    got = io.StringIO()
    zs.write_scores_columns(got, qids, docs, score, se, chunk=1)
    monkeypatch.setenv("PREF_EVAL_PURE_PYTHON", "1")
    want = io.StringIO()
    zs.write_scores_columns(want, qids, docs, score, se)
    assert got.getvalue() == want.getvalue()


def test_compiled_float_repr_equals_repr():
    """The compiled formatter's own shortest-digits path (1e-3 <= |x| < 1e16, exact integer
    arithmetic; pref_eval/_kernels.c fast_repr) gives repr's bytes: random magnitudes and bit
    patterns, short decimals, integers, powers of two and ten and their neighbours (the rounding
    interval's uneven ends), values whose nearest short decimal is a power of ten."""
    from pref_eval.zelo import compiled

    kern = compiled._module()
    if kern is None:
        pytest.skip("pref_eval._kernels not built")
    rng = np.random.default_rng(11)
    n = 40_000
    p2 = np.ldexp(1.0, rng.integers(-12, 54, n))
    p10 = 10.0 ** rng.integers(-3, 17, n)
    x = np.concatenate([
        rng.standard_normal(n) * 10.0 ** rng.integers(-4, 17, n), rng.random(n),
        rng.integers(0, 2**63, n, dtype=np.int64).view(np.float64),
        rng.integers(1, 10 ** rng.integers(1, 16, n), dtype=np.int64) / 10.0 ** rng.integers(0, 19, n),
        p2, np.nextafter(p2, 0), np.nextafter(p2, np.inf), p10, np.nextafter(p10, 0), np.nextafter(p10, np.inf),
        rng.integers(-2**53, 2**53, n).astype(float), rng.integers(2**53, 10**16, n).astype(float),
        _odd_doubles(rng, 2000)])
    x = np.where(rng.random(len(x)) < 0.5, -x, x)
    got = kern.format_scores(["q"], [["d"] * len(x)], x, x, []).split("\n")[:-1]
    want = [f"q\td\t{r}\t{r}" for r in map(repr, x.tolist())]
    bad = [(w, g) for w, g in zip(want, got, strict=True) if w != g]
    assert not bad, bad[:5]
