"""zelo_fit's SEs from our own Cholesky (pref_eval.zelo.inverse_diag): scipy's inverse as the oracle, and the same
bytes whichever kernels OpenBLAS picks for the CPU (before session 24, 6 of dl19-sample's 78 SEs differed in
their last bits between OpenBLAS's SkylakeX and Haswell kernels, ``OPENBLAS_CORETYPE``; before session 25 every
block of more than 256 documents went through LAPACK). The compiled kernel is blocked and vectorised (SSE2,
AVX2, AVX-512): each level's bits against the numpy path's, which works one column of the whole matrix at a time
(the unblocked order)."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from pref_eval.zelo.fit import _inverse_diag
from pref_eval.zelo import compiled
from pref_eval.zelo.inverse_diag import _numpy_inverse_diag, own_inverse_diag

ROOT = Path(__file__).resolve().parents[1]


def _spd(rng: np.random.Generator, B: int, m: int, ridge: float = 1e-3) -> np.ndarray:
    X = rng.normal(size=(B, m, m + 2))
    return X @ X.transpose(0, 2, 1) / m + ridge * np.eye(m)


@pytest.mark.parametrize("m", [1, 2, 3, 7, 16, 17, 40, 63, 64, 65, 100, 129, 256, 300])
def test_equal_to_scipy_s_inverse_and_both_paths_the_same_bits(m):
    import scipy.linalg

    rng = np.random.default_rng(m)
    H = _spd(rng, 1 if m > 256 else 3 if m > 50 else 12, m)
    dg, ok = own_inverse_diag(H)
    want = np.array([np.diagonal(scipy.linalg.inv(h)) for h in H])
    assert ok.all()
    np.testing.assert_allclose(dg, want, rtol=1e-12, atol=0)
    dn, okn = _numpy_inverse_diag(H)  # the numpy path: the compiled kernel's operations, the same bits
    assert okn.all() and dn.tobytes() == dg.tobytes()
    assert _inverse_diag(H).tobytes() == dg.tobytes()


def test_not_positive_definite_takes_the_pseudo_inverse_and_larger_blocks_ours_with_or_without_kernels(monkeypatch):
    import scipy.linalg

    rng = np.random.default_rng(2)
    H = _spd(rng, 3, 5)
    H[1] = np.ones((5, 5)) - np.eye(5) * 0.0  # rank 1: a pivot 0 after the first column
    H[2, 0, 0] = -1.0  # a negative first pivot
    dg, ok = own_inverse_diag(H)
    assert ok.tolist() == [True, False, False]
    got = _inverse_diag(H)
    for k in (1, 2):
        np.testing.assert_allclose(got[k], np.diagonal(scipy.linalg.pinvh(H[k])), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(got[0], np.diagonal(scipy.linalg.inv(H[0])), rtol=1e-12)
    big = _spd(rng, 1, 257)  # LAPACK's potrf/potri above 256 documents before session 25
    want = _numpy_inverse_diag(big)[0]
    np.testing.assert_allclose(want[0], np.diagonal(scipy.linalg.inv(big[0])), rtol=1e-12)
    assert _inverse_diag(big).tobytes() == want.tobytes()
    monkeypatch.setenv("PREF_EVAL_PURE_PYTHON", "1")  # without the compiled kernels: the numpy path
    assert _inverse_diag(big).tobytes() == want.tobytes()


def test_a_pivot_failing_in_a_later_panel_takes_the_pseudo_inverse():
    import scipy.linalg

    rng = np.random.default_rng(5)
    H = _spd(rng, 3, 150)
    X = rng.normal(size=(150, 120))
    H[1] = X @ X.T  # rank 120: the Cholesky fails past the first panels of 64 rows
    dg, ok = own_inverse_diag(H)
    assert ok.tolist() == [True, False, True]
    got = _inverse_diag(H)
    np.testing.assert_allclose(got[1], np.diagonal(scipy.linalg.pinvh(H[1])), rtol=1e-6)
    for k in (0, 2):
        assert got[k].tobytes() == dg[k].tobytes()


@pytest.mark.skipif(not compiled.available(), reason="the compiled kernels are not built")
def test_every_vector_level_gives_the_numpy_path_s_bits():
    # SSE2 (level 0), AVX2 (1), AVX-512 (2): element-wise vector code, no fused multiply-add, the same order of
    # operations on every element as the numpy path (one column of the whole matrix at a time); a level the CPU
    # lacks is refused
    rng = np.random.default_rng(7)
    ran = 0
    for m in (1, 5, 16, 64, 65, 130, 333):
        H = _spd(rng, 2, m)
        want, okn = _numpy_inverse_diag(H)
        assert okn.all()
        for level in (0, 1, 2):
            try:
                dg, ok = compiled.inv_diag(H, level)
            except ValueError as e:
                assert "does not run that level" in str(e)
                continue
            ran += 1
            assert ok.all() and dg.tobytes() == want.tobytes(), (m, level)
        assert compiled.inv_diag(H)[0].tobytes() == want.tobytes()
    assert ran >= 7  # level 0 runs everywhere


def test_zelo_fit_same_bytes_with_openblas_s_other_kernels(tmp_path):
    # OpenBLAS's kernels for an AVX2 CPU (Haswell) and the oldest (Prescott) against this CPU's: the SEs went
    # through LAPACK / numpy's inverse, whose last bits follow them (fails with fit._inverse_diag's LAPACK path)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("OPENBLAS_CORETYPE", None)
    argv = [sys.executable, "-m", "pref_eval.cli.fit", "-J", "judgments/dl19-sample.judge", "-Q"]
    outs = [subprocess.run([*argv, *extra], cwd=ROOT, capture_output=True, env={**env, **kind})
            for extra in ([], ["--prior", "0"]) for kind in ({}, {"OPENBLAS_CORETYPE": "Haswell"},
                                                              {"OPENBLAS_CORETYPE": "Prescott"})]
    assert all(o.returncode == 0 for o in outs), [o.stderr for o in outs]
    assert outs[0].stdout.count(b"\n") == 80 and outs[0].stdout == outs[1].stdout == outs[2].stdout
    assert outs[3].stdout == outs[4].stdout == outs[5].stdout


@pytest.mark.slow
def test_zelo_fit_same_bytes_with_openblas_s_other_kernels_on_a_large_block(tmp_path):
    # one query of 300 documents (a block above the old limit of 256: LAPACK's potrf/potri there, whose last bits
    # followed OpenBLAS's kernels: 3 different outputs under the three core types before session 25)
    from pref_eval.zelo.simulate import cycle_judgments

    _, q, a, b, score = cycle_judgments(1, 300, 4, 1.0, seed=1)
    path = tmp_path / "j.jsonl"
    path.write_text("".join(f'{{"qid": "q{x}", "doc_a": "d{y}", "doc_b": "d{z}", "score": {w!r}}}\n' for x, y, z, w in
                            zip(q.tolist(), a.tolist(), b.tolist(), score.tolist(), strict=True)))
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("OPENBLAS_CORETYPE", None)
    argv = [sys.executable, "-m", "pref_eval.cli.fit", "-J", str(path), "-Q"]
    for extra in ([], ["--prior", "0"]):
        outs = [subprocess.run([*argv, *extra], cwd=ROOT, capture_output=True, env={**env, **kind})
                for kind in ({}, {"OPENBLAS_CORETYPE": "Haswell"}, {"OPENBLAS_CORETYPE": "Prescott"})]
        assert all(o.returncode == 0 for o in outs), [o.stderr for o in outs]
        assert outs[0].stdout.count(b"\n") == 301 and outs[0].stdout == outs[1].stdout == outs[2].stdout
