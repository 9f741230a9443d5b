"""sha256 of zelo_fit's outputs over a fixed script of commands, for a byte-for-byte A/B of two checkouts.

Run:  python tools/zelo_same_bytes.py [--tree DIR] [--work DIR] [--quick] > sums.txt

``--tree``: the checkout whose ``pref_eval`` runs (default: this one; its compiled kernels built with
``python setup.py build_ext --inplace``). Each command runs as ``python -m pref_eval.cli.fit`` with
``PYTHONPATH=DIR``; a few fits run in process through the API (``fit_bt``, ``fit_bt_parallel``) on random
inputs. One line per output file: ``sha256  name``. Compare two checkouts with ``diff`` of the two listings
(the same line order): a change that must not move the results' bits (speed work) gives no difference.

Inputs: bench/gen_judgments.py's files (1,000 queries as JSONL and Clarke's text, 5,300 as JSONL; written
once to ``--work``, reused), and the public judgment sets under ../shared/data that tests/test_zelo_formats.py
reads (each fitted if present). Options covered: the default fit, ``--prior 0``, ``--scale elo``, ``--qrels``,
``--diagnostics``, ``--output-format zbench``, stdout, ``--jobs 2``, and ``PREF_EVAL_THREADS`` 1 and 2 (a
checkout without the variable ignores it: the same bytes are expected). ``--quick`` leaves out the
5,300-query file.
"""
from __future__ import annotations

import argparse
import hashlib
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHARED = os.path.join(HERE, "..", "shared", "data")
REAL = [  # tests/test_zelo_formats.py's REAL (path, format)
    ("duelingBandits/judgments.txt", "clarke4"),
    ("claclark_preferences/TREC-CAsT-2019.pref", "clarke4"),
    ("llm_relevance_judgement_comparison/Pref/DL2021/judge.human", "llmlog"),
    ("llm_relevance_judgement_comparison/Pref/DL2019/judge.00", "clarke3"),
    ("jelsas_pairwise_pref_eval/test_data/preferences.txt", "carterette"),
    ("trec_eval_test/prefs.test", "trecprefs"),
    ("xie_image_preferences/image_pairs_annotation", "xie"),
]

API = r"""
import hashlib, sys
import numpy as np
from pref_eval.zelo.fit import fit_bt, fit_bt_parallel
rng = np.random.default_rng(int(sys.argv[1]))
nq = 60
sizes = rng.integers(2, 40, nq)
q = np.repeat(np.arange(nq), sizes * 3)
a = (rng.random(len(q)) * sizes[q]).astype(np.int64)
b = (rng.random(len(q)) * sizes[q]).astype(np.int64)
s = rng.random(len(q)).round(2)
w = rng.integers(1, 4, len(q)).astype(float)
docs = [[f"d{(7 * i) % n}x{i}" for i in range(n)] for n in sizes]
for prior in (0.5, 0.0):
    for name, r in (("whole", fit_bt(sizes, q, a, b, s, w, prior=prior)),
                    ("parts5", fit_bt_parallel(sizes, q, a, b, s, w, prior=prior, parts=5, doc_ids=docs)),
                    ("threads", fit_bt_parallel(sizes, q, a, b, s, w, prior=prior, doc_ids=docs,
                                                **({"threads": 2, "parts": 4}
                                                   if "threads" in fit_bt_parallel.__code__.co_varnames
                                                   else {"parts": 4})))):
        h = hashlib.sha256()
        for field in ("score", "se", "component", "level", "iterations", "loglik", "grad_max", "converged",
                      "se_condition"):
            h.update(np.ascontiguousarray(getattr(r, field)).tobytes())
        print(h.hexdigest(), f"api seed={sys.argv[1]} prior={prior} {name}")
"""


def sha(path: str) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tree", default=HERE, help="checkout to run (default: this one)")
    ap.add_argument("--work", default="/tmp/zelo_same_bytes", help="inputs and outputs (inputs reused)")
    ap.add_argument("--quick", action="store_true", help="without the 5,300-query file")
    args = ap.parse_args()
    os.makedirs(args.work, exist_ok=True)
    sys.path.insert(0, os.path.join(HERE, "bench"))
    sys.path.insert(0, HERE)
    from gen_judgments import write

    bench = [(1000, "jsonl"), (1000, "clarke4")] + ([] if args.quick else [(5300, "jsonl")])
    inputs = []
    for nq, fmt in bench:
        path = os.path.join(args.work, f"j{nq}.{fmt}")
        if not os.path.exists(path):
            write(path + ".tmp", nq, fmt)
            os.replace(path + ".tmp", path)
        inputs.append((f"bench-{nq}.{fmt}", path, fmt))
    for rel, fmt in REAL:
        path = os.path.join(SHARED, *rel.split("/"))
        if os.path.exists(path):
            inputs.append((rel.replace("/", "_"), path, fmt))
        else:
            print(f"# missing {rel}", file=sys.stderr)
    env = {k: v for k, v in os.environ.items() if k not in ("PREF_EVAL_THREADS", "OPENBLAS_NUM_THREADS")}
    env["PYTHONPATH"] = os.path.abspath(args.tree)
    out_dir = os.path.join(args.work, "out")
    os.makedirs(out_dir, exist_ok=True)

    def run(name: str, argv: list[str], outputs: list[str], threads: str | None = None,
            stdout: bool = False) -> None:
        for p in outputs:
            if os.path.exists(p):
                os.unlink(p)
        e = dict(env, **({"PREF_EVAL_THREADS": threads} if threads else {}))
        r = subprocess.run([sys.executable, "-m", "pref_eval.cli.fit", *argv], env=e, capture_output=True,
                           cwd=args.work)
        print(hashlib.sha256(r.stdout).hexdigest() if stdout else "-", f"{name} [exit {r.returncode}] stdout")
        print(hashlib.sha256(r.stderr).hexdigest(), f"{name} stderr")
        for p in outputs:
            print(sha(p) if os.path.exists(p) else "missing", f"{name} {os.path.basename(p)}")
        sys.stdout.flush()

    for name, path, fmt in inputs:
        o = os.path.join(out_dir, "scores.tsv")
        d = os.path.join(out_dir, "diag.tsv")
        qr = os.path.join(out_dir, "qrels.txt")
        big = name.startswith("bench-")
        for threads in ("1", "2"):
            run(f"{name} default threads={threads}", ["-J", path, "--format", fmt, "-o", o, "--diagnostics", d],
                [o, d], threads)
        run(f"{name} stdout", ["-J", path, "--format", fmt], [], "2", stdout=True)
        run(f"{name} prior0", ["-J", path, "--format", fmt, "--prior", "0", "-o", o, "--diagnostics", d],
            [o, d], "2")
        run(f"{name} qrels elo", ["-J", path, "--format", fmt, "--scale", "elo", "-o", o, "--qrels", qr],
            [o, qr] if fmt != "xie" else [o], "2")
        if not big:
            run(f"{name} zbench", ["-J", path, "--format", fmt, "--output-format", "zbench", "-o", o], [o], "2")
            run(f"{name} jobs2", ["-J", path, "--format", fmt, "--jobs", "2", "-o", o], [o])
    for seed in ("1", "2"):
        r = subprocess.run([sys.executable, "-c", API, seed], env=env, capture_output=True, text=True)
        sys.stdout.write(r.stdout if r.returncode == 0 else f"api seed={seed} failed: {r.stderr[-300:]}\n")


if __name__ == "__main__":
    main()
