#!/usr/bin/env python3
"""Which commands print other bytes on another kind of x86-64 CPU.

    python tools/cpu_kinds.py [REV] [--keep DIR] [--setting NAME ...]

Runs every step of ``tools/compare_outputs.py`` (the shipped commands on the shipped data, pure Python) on
``REV`` (default HEAD) once as this machine computes, then once per setting below, which makes numpy,
OpenBLAS or glibc take the code another kind of CPU takes, and prints each output that differs from the
first run, with the largest relative difference between its numbers (same text otherwise):

* ``openblas-sandybridge``, ``openblas-prescott``: OpenBLAS's kernels for those CPUs
  (``OPENBLAS_CORETYPE``; an AVX-512 CPU takes its SkylakeX kernels, an AVX2 one Haswell's);
* ``glibc-no-fma``: glibc's ``exp``/``log``/... without FMA, as on an x86-64 CPU older than Haswell
  (``GLIBC_TUNABLES=glibc.cpu.hwcaps=-AVX2,-FMA``, glibc >= 2.33);
* ``numpy-no-avx2``: numpy's code without AVX2/FMA (``NPY_DISABLE_CPU_FEATURES=X86_V3``, numpy >= 2.4;
  older numpy: ``AVX2 FMA3``);
* ``numpy-no-avx512``: numpy without its AVX-512 code (``NPY_DISABLE_CPU_FEATURES`` = every AVX-512 name
  this numpy knows: float64 ``exp``/``log``/``power`` then call glibc's, and the sorts are the AVX2 ones);
* ``openblas-haswell``: OpenBLAS's kernels for an AVX2 CPU (an AVX-512 CPU takes SkylakeX's);
* ``as-avx2``: the two settings before together, i.e. what a CPU with AVX2 and without AVX-512 computes.

On a CPU with AVX-512 the last three show what moves between the two kinds on one machine; on a CPU
without AVX-512 they change nothing but OpenBLAS's kernels where it would take others than Haswell's (so
they print "identical"). numpy's AVX-512 code cannot be emulated on a CPU without it. ``--setting NAME``
(repeatable): only those settings. Exit status 0.
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import compare_outputs as co  # noqa: E402

SETTINGS: dict[str, dict[str, str]] = {
    "openblas-sandybridge": {"OPENBLAS_CORETYPE": "Sandybridge"},
    "openblas-prescott": {"OPENBLAS_CORETYPE": "Prescott"},
    "glibc-no-fma": {"GLIBC_TUNABLES": "glibc.cpu.hwcaps=-AVX2,-FMA"},
    "numpy-no-avx2": {"NPY_DISABLE_CPU_FEATURES": "X86_V3"},
}


def _no_avx512() -> str:
    """numpy's names of its AVX-512 code (``X86_V4``, ``AVX512_ICL``, ... in numpy 2.4; ``AVX512F``,
    ``AVX512_SKX``, ... before), those numpy ignores when the CPU lacks them."""
    import numpy as np

    core = getattr(np, "_core", None) or np.core  # numpy 1.x: np.core
    names = [*core._multiarray_umath.__cpu_features__, *core._multiarray_umath.__cpu_dispatch__]
    return " ".join(dict.fromkeys(f for f in names if f.startswith("AVX512") or f == "X86_V4"))


SETTINGS["numpy-no-avx512"] = {"NPY_DISABLE_CPU_FEATURES": _no_avx512()}
SETTINGS["openblas-haswell"] = {"OPENBLAS_CORETYPE": "Haswell"}
SETTINGS["as-avx2"] = {**SETTINGS["numpy-no-avx512"], **SETTINGS["openblas-haswell"]}
NUMBER = re.compile(rb"-?\d+\.\d+(?:e[-+]?\d+)?|-?\d+e[-+]?\d+")


def max_rel_diff(a: bytes, b: bytes) -> float | None:
    """The largest |x - y| / max(|x|, |y|) over the numbers of ``a`` and ``b`` in order; None when the text
    around the numbers differs or their counts do."""
    if NUMBER.sub(b"#", a) != NUMBER.sub(b"#", b):
        return None
    worst = 0.0
    for x, y in zip(NUMBER.findall(a), NUMBER.findall(b), strict=True):
        u, v = float(x), float(y)
        if u != v:
            worst = max(worst, abs(u - v) / max(abs(u), abs(v)))
    return worst


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("rev", nargs="?", default="HEAD", help="git revision (default HEAD)")
    ap.add_argument("--keep", metavar="DIR", help="leave the checkout and every setting's outputs in DIR")
    ap.add_argument("--setting", action="append", choices=list(SETTINGS), help="only this setting (repeatable)")
    args = ap.parse_args(argv)
    settings = {k: v for k, v in SETTINGS.items() if not args.setting or k in args.setting}
    base = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="pref_eval-cpu-"))
    root = co.export(args.rev, base / "src")
    saved = dict(os.environ)
    out = {}
    try:
        for name, env in [("this", {}), *settings.items()]:
            os.environ.update(env)
            out[name] = co.run_all(root, base / name)
            os.environ.clear()
            os.environ.update(saved)
    finally:
        os.environ.clear()
        os.environ.update(saved)
        if not args.keep:
            shutil.rmtree(base, ignore_errors=True)
    for name in settings:
        diffs = []
        for step, _ in co.STEPS:
            a, b = out["this"][step], out[name][step]
            for key in sorted(set(a) | set(b)):
                if a.get(key) != b.get(key):
                    r = max_rel_diff(a.get(key, b""), b.get(key, b""))
                    diffs.append(f"{step} {key}" + (f" (numbers, max relative difference {r:.1e})"
                                                      if r is not None else " (text)"))
        print(f"{name}: " + ("; ".join(diffs) if diffs else "identical"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
