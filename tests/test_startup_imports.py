"""Start-up: what each command imports on the shipped sample (fails when an import set grows).

Shell scripts call these commands thousands of times, so their start-up is part of their speed
(issue #13; bench/bench_startup.py measures it). Each command runs once in a fresh interpreter on
the sample files; afterwards the test checks ``sys.modules``: heavy libraries a command must not
load (pyarrow for small files, pandas unless a DataFrame is made, scipy unless a test or the fit
needs it, matplotlib, dask) and a ceiling on the number of modules, set about 10% above the count
measured when this test was written. A new module-level import in a shared module shows up here.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

PROBE = r"""
import contextlib, io, json, runpy, sys
mod = sys.argv[1]
sys.argv = [mod] + sys.argv[2:]
with contextlib.redirect_stdout(io.StringIO()):
    try:
        runpy.run_module(mod, run_name="__main__")
    except SystemExit as err:
        code = err.code
print(json.dumps({"code": code, "modules": sorted(sys.modules)}))
"""

# ir_datasets (a dependency for ``irds:`` qrels, issue #11) is imported only when such a source is read
HEAVY = {"pyarrow", "pandas", "scipy", "matplotlib", "dask", "distributed", "statsmodels", "sklearn", "ir_datasets"}

# (command module, arguments, heavy packages allowed, module ceiling)
CASES = [
    ("trec", ["-m", "official", "qrels/dl19-sample.qrels", "runs/rerank.run"], set(), 300),
    ("eval", ["-R", "qrels/dl19-sample.qrels", "runs/bm25.run", "runs/dense.run", "runs/rerank.run"], set(), 310),
    ("eval", ["-R", "qrels/dl19-sample.qrels", "-o", "tsv", "-m", "map", "runs/bm25.run", "runs/rerank.run"],
     set(), 320),
    ("fit", ["-J", "judgments/dl19-sample.judge"], {"scipy"}, 650),
    ("compare", ["-R", "qrels/dl19-sample.qrels", "-m", "map", "runs/bm25.run", "runs/dense.run", "runs/rerank.run"],
     {"pandas", "pyarrow", "scipy"}, 1400),
    ("plot", ["--help"], set(), 130),
]


def _modules(module: str, args: list[str], tmp_path) -> set[str]:
    env = {**os.environ, "PYTHONPATH": ROOT + os.pathsep + os.environ.get("PYTHONPATH", "")}
    p = subprocess.run([sys.executable, "-c", PROBE, f"pref_eval.cli.{module}", *args], capture_output=True,
                       cwd=ROOT, env=env, text=True)
    assert p.returncode == 0, p.stderr
    got = json.loads(p.stdout.strip().splitlines()[-1])
    assert got["code"] in (0, None), p.stderr
    return set(got["modules"])


@pytest.mark.parametrize(("module", "args", "allowed", "ceiling"), CASES,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_command_import_set(module, args, allowed, ceiling, tmp_path):
    mods = _modules(module, args, tmp_path)
    top = {m.split(".")[0] for m in mods}
    assert not (top & HEAVY) - allowed, f"zelo {module} imports {sorted((top & HEAVY) - allowed)}"
    assert len(mods) <= ceiling, f"zelo {module} imports {len(mods)} modules (ceiling {ceiling})"


def test_aggregate_import_set(tmp_path):
    prefs = tmp_path / "prefs.jsonl"
    env = {**os.environ, "PYTHONPATH": ROOT + os.pathsep + os.environ.get("PYTHONPATH", "")}
    with open(prefs, "w") as fh:
        subprocess.run([sys.executable, "-m", "pref_eval.cli.eval", "-R", "qrels/dl19-sample.qrels", "-q",
                        "runs/bm25.run", "runs/dense.run", "runs/rerank.run"], stdout=fh, cwd=ROOT, env=env, check=True)
    mods = _modules("aggregate", ["-P", str(prefs)], tmp_path)
    assert not {m.split(".")[0] for m in mods} & HEAVY
    assert len(mods) <= 270


API_PROBE = r"""
import json, sys
import pref_eval
df = pref_eval.evaluate("qrels/dl19-sample.qrels", ["runs/bm25.run", "runs/rerank.run"], ["map", "ndcg_cut.10"])
assert len(df) > 0
print(json.dumps(sorted(sys.modules)))
"""


def test_api_does_not_import_ir_datasets():
    """``import pref_eval`` and an evaluation of files load no ir_datasets (only an ``irds:`` source does)."""
    env = {**os.environ, "PYTHONPATH": ROOT + os.pathsep + os.environ.get("PYTHONPATH", "")}
    p = subprocess.run([sys.executable, "-c", API_PROBE], capture_output=True, cwd=ROOT, env=env, text=True)
    assert p.returncode == 0, p.stderr
    mods = {m.split(".")[0] for m in json.loads(p.stdout.strip().splitlines()[-1])}
    assert "pref_eval" in mods and "ir_datasets" not in mods
