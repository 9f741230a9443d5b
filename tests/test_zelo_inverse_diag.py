"""zelo_fit's SEs from our own Cholesky (pref_eval.zelo.inverse_diag): scipy's inverse as the oracle, and the same
bytes whichever kernels OpenBLAS picks for the CPU (before session 24, 6 of dl19-sample's 78 SEs differed in
their last bits between OpenBLAS's SkylakeX and Haswell kernels, ``OPENBLAS_CORETYPE``)."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from pref_eval.zelo.fit import _inverse_diag
from pref_eval.zelo.inverse_diag import OWN_MAX, _numpy_inverse_diag, own_inverse_diag

ROOT = Path(__file__).resolve().parents[1]


def _spd(rng: np.random.Generator, B: int, m: int, ridge: float = 1e-3) -> np.ndarray:
    X = rng.normal(size=(B, m, m + 2))
    return X @ X.transpose(0, 2, 1) / m + ridge * np.eye(m)


@pytest.mark.parametrize("m", [1, 2, 3, 7, 16, 17, 40, 100, OWN_MAX])
def test_equal_to_scipy_s_inverse_and_both_paths_the_same_bits(m):
    import scipy.linalg

    rng = np.random.default_rng(m)
    H = _spd(rng, 3 if m > 50 else 12, m)
    dg, ok = own_inverse_diag(H)
    want = np.array([np.diagonal(scipy.linalg.inv(h)) for h in H])
    assert ok.all()
    np.testing.assert_allclose(dg, want, rtol=1e-12, atol=0)
    dn, okn = _numpy_inverse_diag(H)  # the numpy path: the compiled kernel's operations, the same bits
    assert okn.all() and dn.tobytes() == dg.tobytes()
    assert _inverse_diag(H).tobytes() == dg.tobytes()


def test_not_positive_definite_takes_the_pseudo_inverse_and_larger_blocks_lapack():
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
    big = _spd(rng, 1, OWN_MAX + 1)  # LAPACK's potrf/potri above OWN_MAX
    np.testing.assert_allclose(_inverse_diag(big)[0], np.diagonal(scipy.linalg.inv(big[0])), rtol=1e-12)


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
