"""pref_eval.io.keys.distinct equals numpy.unique (the oracle, live) and, on small arrays, does not
import numpy.ma (numpy 2's plain np.unique does: start-up, issue #13)."""
from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from pref_eval.io.keys import distinct


@pytest.mark.parametrize("seed", range(5))
def test_distinct_equals_numpy_unique(seed):
    rng = np.random.default_rng(seed)
    ints = rng.integers(-50, 50, int(rng.integers(0, 300)))
    cases = [ints, ints.astype(np.int32), ints.astype(np.uint64), ints > 0, ints.astype("S3"), ints.astype(str),
             rng.standard_normal(200).round(1), np.array([0.0, -0.0, 1.0, -0.0]), np.array([np.nan, 1.0, np.nan]),
             np.array([], dtype=np.int64), np.array([7]),
             rng.integers(0, 500, 70_000), rng.integers(0, 1 << 40, 70_000),  # both ways above 65,536
             # above 65,536 with few distinct values: the kernels' hash table (ints of every width, uint64 above
             # 2**63, float64 with both zeros in either order: equal values, the zero's sign as np.unique's is not
             # defined), np.unique for NaN
             rng.integers(-3, 3, 70_000).astype(np.int8), rng.integers(0, 5, 70_000).astype(np.int32),
             (rng.integers(0, 4, 70_000).astype(np.uint64) << np.uint64(62)),
             rng.choice([0.0, -0.0, 2.5, -1.0], 70_000), np.concatenate([[-0.0], rng.choice([0.0, 1.0], 70_000)]),
             np.concatenate([[0.0], rng.choice([-0.0, 1.0], 70_000)]), rng.choice([np.nan, 1.0, 2.0], 70_000)]
    for a in cases:
        got, ref = distinct(a), np.unique(a)
        assert got.dtype == ref.dtype and np.array_equal(got, ref, equal_nan=got.dtype.kind == "f"), a


def test_distinct_does_not_import_numpy_ma():
    code = ("import sys, numpy as np; from pref_eval.io.keys import distinct; "
            "distinct(np.array([3, 1, 3])); distinct(np.array([b'b', b'a'])); distinct(np.array([0.5, 0.5])); "
            "distinct(np.arange(100_000) % 3); distinct((np.arange(100_000) % 4).astype(np.int32)); "
            "distinct(np.arange(100_000) % 5 / 2); "
            "print('numpy.ma' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"
