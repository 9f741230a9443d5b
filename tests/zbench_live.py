"""Run zbench itself (github.com/zeroentropy-ai/zbench) as a live oracle, in a scratch folder under tmp.

zbench is not in this repository and is never copied into it: its files are read from the mirror that
``fetch github:zeroentropy-ai/zbench`` leaves (``ZBENCH_MIRROR`` overrides the path, a git directory or a
checkout), written to a temporary folder and run there in a subprocess of this interpreter. Two changes make it
run here, neither touching what it computes: the PEP 695 syntax of Python 3.12 that zbench's ``utils.py`` and
``ai.py`` use (``type npf = ...``, ``def f[T](...)``) is rewritten to 3.11 forms, and the network packages its
modules import (openai, anthropic, ...) are replaced by empty stand-ins, with ``zbench.score.ai_call`` replaced
by a local judge (:data:`JUDGE`). Tests call :func:`zbench_or_skip` and skip where the mirror is absent.
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

MIRROR = Path(os.environ.get("ZBENCH_MIRROR", "/work/.mirror/zeroentropy-ai+zbench/repo"))
FILES = ("__init__.py", "ai.py", "annotation.py", "benchmark.py", "common_types.py", "rerankers.py", "score.py",
         "utils.py")

# The stand-ins for the network packages, and the judge: a function of (model, query, content A, content B)
# that is antisymmetric (swapping A and B negates it), so that zbench's random presentation order (it swaps,
# asks, and negates) leaves the stored score unchanged and any other tool asking the same function gets the
# same votes. About 8 % of the votes are exactly 0 (ties). ANNOTATE's optional bias b makes the document shown first
# win a share b of the calls outright (a position-biased judge; zbench's per-call swap then matters).
PRELUDE = r'''
import sys, hashlib, math, importlib.abc, importlib.machinery, types
from unittest import mock
STUB = ("openlimit", "anthropic", "openai", "redis", "aiohttp", "datasets", "google", "tiktoken", "loguru",
        "matplotlib", "zeroentropy", "dotenv")
class _Stub(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, name, path, target=None):
        if name.split(".")[0] in STUB:
            return importlib.machinery.ModuleSpec(name, self, is_package=True)
    def create_module(self, spec):
        m = mock.MagicMock(); m.__path__ = []; m.__name__ = spec.name; m.__spec__ = spec
        return m
    def exec_module(self, module):
        pass
sys.meta_path.insert(0, _Stub())

def _u(*parts):
    return int.from_bytes(hashlib.sha256("|".join(parts).encode()).digest()[:8], "big") / 2.0 ** 64

def judge(model, query, ca, cb, tie_rate=0.08, bias=0.0):
    c1, c2 = sorted([ca, cb])
    s = 0.0
    if ca != cb and _u("pos", model, query, ca, cb) < bias:  # position bias: the document shown first wins
        return -round(0.2 + 0.8 * _u("mag", model, c1, c2), 2)
    if c1 != c2 and _u("tie", model, query, c1, c2) >= tie_rate:
        p2 = 1 / (1 + math.exp(-3.0 * (_u("x", c2) - _u("x", c1))))
        mag = round(0.2 + 0.8 * _u("mag", model, c1, c2), 2)
        s = mag if _u(model, query, c1, c2) < p2 else -mag   # > 0: c2 better
    return s if ca == c1 else -s
'''

JUDGE = PRELUDE + r'''
import json
for line in sys.stdin:                       # zelo_judge's cmd: protocol; argv[1] is the model
    r = json.loads(line)
    print(json.dumps({"id": r["id"], "score": judge(sys.argv[1], r["query"], r["doc_a"], r["doc_b"])}), flush=True)
'''

ANNOTATE = PRELUDE + r'''
import asyncio, os, random, re
dataset, out, seed, cycles = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
limit = None if sys.argv[5] == "None" else int(sys.argv[5])
bias = float(sys.argv[6]) if len(sys.argv) > 6 else 0.0  # a judge favouring the document shown first
import zbench.score as zs
from zbench.annotation import EnsembleZELOAnnotator
PAT = re.compile(r"# Query:\n\n(.*)\n\n# Document A:\n\nMetadata: .*?\nContent: (.*)\n\n# Document B:\n\n"
                 r"Metadata: .*?\nContent: (.*)\n\n\Z", re.S)
async def ai_call(model, messages, *, temperature=0.0, response_format=str, **kw):
    q, a, b = PAT.match([m for m in messages if m.role == "user"][0].content).groups()
    s = judge(model.company, q, a, b, bias=bias)
    if response_format is str:               # Claude: parsed from <score> by zbench
        return f"thinking\n<score>\n{s:.2f}\n</score>"
    return response_format(thoughts=["t"], score=s)
zs.ai_call = ai_call
ann = EnsembleZELOAnnotator(dataset, out, cycle_num=cycles, document_limit=limit)
async def main():
    data = await ann.step1_load_dataset()
    random.seed(seed)                        # zbench draws its cycles from Python's global random
    ann.step2_create_pairs(data)
    await ann.step3_score_pairs()
    ann.step4_compose_annotated_dataset()
asyncio.run(main())
'''

BENCH = PRELUDE + r'''
import json
from zbench.benchmark import benchmark_ndcg, benchmark_accuracy, recall_at_k
test, gt, lim = sys.argv[1], sys.argv[2], (None if sys.argv[3] == "None" else int(sys.argv[3]))
out = {"ndcg": benchmark_ndcg(test, gt, document_limit=lim)}
try:
    out["acc"] = benchmark_accuracy(test, gt, document_limit=lim)
except ZeroDivisionError:
    out["acc"] = None
for k, kgt in [(5, None), (3, 5)]:
    out[f"recall_{k}_{kgt}"] = recall_at_k(test, gt, k, k_gt=kgt, document_limit=lim)
print(json.dumps(out))
'''


def _read(name: str) -> str | None:
    if (MIRROR / "zbench" / name).is_file():  # a checkout
        return (MIRROR / "zbench" / name).read_text()
    r = subprocess.run(["git", "--git-dir", str(MIRROR), "show", f"HEAD:zbench/{name}"], capture_output=True,
                       text=True)
    return r.stdout if r.returncode == 0 else None


def _py311(src: str) -> str:
    """zbench's PEP 695 syntax as Python 3.11 reads it (no change to what runs)."""
    src = re.sub(r"^type (\w+) = ", r"\1 = ", src, flags=re.M)
    new = re.sub(r"^(\s*(?:async )?def \w+)\[[^\]]*\]\(", r"\1(", src, flags=re.M)
    # the type parameters are gone: annotations naming them are left unevaluated
    return new if new == src else "from __future__ import annotations\n" + new


def zbench_or_skip(root: Path) -> Path:
    """zbench's package written (with the 3.11 shim) under ``root``; skip the test when the mirror is absent."""
    pkg = root / "zbench"
    if not (pkg / "annotation.py").is_file():
        pkg.mkdir(parents=True, exist_ok=True)
        for name in FILES:
            src = _read(name)
            if src is None:
                if name == "__init__.py":
                    src = ""
                else:
                    pytest.skip(f"zbench not available ({MIRROR}; fetch github:zeroentropy-ai/zbench)")
            (pkg / name).write_text(_py311(src))
    return root


def run(root: Path, script: str, *args: str, cwd: Path | None = None) -> str:
    """Run ``script`` (ANNOTATE, BENCH) with zbench importable from ``root``; its stdout."""
    p = root / "_zbench_script.py"
    p.write_text(script)
    env = {**os.environ, "PYTHONPATH": str(root)}
    r = subprocess.run([sys.executable, str(p), *args], capture_output=True, text=True, env=env,
                       cwd=str(cwd or root))
    assert r.returncode == 0, r.stderr[-2000:]
    return r.stdout


def write_judge(root: Path) -> Path:
    p = root / "judge.py"
    p.write_text(JUDGE)
    return p


def write_dataset(path: Path, queries: dict[str, list[str]], seed: int = 1) -> None:
    """zbench QueryDocuments JSONL; every document's content names it, ``metadata.first_stage_score`` is a
    tie-free score."""
    import random

    rng = random.Random(seed)
    with open(path, "w", encoding="utf-8") as fh:
        for q, docs in queries.items():
            fh.write(json.dumps({"query": {"id": q, "query": f"query text {q}"},
                                 "documents": [{"id": d, "content": f"{q}/{d} body",
                                                "metadata": {"first_stage_score": rng.random()}} for d in docs]},
                                ensure_ascii=False) + "\n")
