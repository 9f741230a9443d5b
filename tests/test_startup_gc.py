"""The everyday commands run short-lived (issue #13; pref_eval/cli/common.py ``run_main(short_lived=True)``).

* The cyclic garbage collector is off while they run: that is safe only if they make no reference
  cycles in proportion to their input. Each command runs twice in one process with the collector
  off; the cycles the second run leaves (what the collector would have had to free) are counted
  on the sample and on an input 20 times larger, and must stay a small constant.
* Started as a process they end without the interpreter's finalization: the output is complete,
  ``atexit`` handlers still run, the exit status is the documented one.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SAMPLE = ["qrels/dl19-sample.qrels", "runs/bm25.run", "runs/dense.run", "runs/rerank.run"]

GARBAGE_PROBE = r"""
import contextlib, gc, importlib, io, json, sys
gc.disable()
mod = importlib.import_module("pref_eval.cli." + sys.argv[1])
def run():
    with contextlib.redirect_stdout(io.StringIO()):
        try:
            mod.main(sys.argv[2:])
        except SystemExit as err:
            assert err.code in (0, None), err.code
run()
gc.collect()
run()
print(json.dumps({"garbage": gc.collect(), "enabled": gc.isenabled()}))
"""


def _env() -> dict:
    return {**os.environ, "PYTHONPATH": ROOT + os.pathsep + os.environ.get("PYTHONPATH", "")}


def _scaled(src: str, dst, copies: int) -> str:
    """``src`` (qrels or run lines) repeated ``copies`` times under new query ids."""
    with open(os.path.join(ROOT, src)) as fh:
        lines = [ln.split() for ln in fh if ln.strip()]
    with open(dst, "w") as out:
        for k in range(copies):
            for f in lines:
                out.write(" ".join([f"{f[0]}x{k}", *f[1:]]) + "\n")
    return str(dst)


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("gc")
    big = [_scaled(p, tmp / os.path.basename(p), 20) for p in SAMPLE]
    with open(tmp / "prefs.jsonl", "w") as fh:
        subprocess.run([sys.executable, "-m", "pref_eval.cli.eval", "-R", *SAMPLE, "-q"], stdout=fh, cwd=ROOT,
                       env=_env(), check=True)
    return {"tmp": tmp, "big": big}


def _garbage(module: str, args: list[str]) -> int:
    p = subprocess.run([sys.executable, "-c", GARBAGE_PROBE, module, *args], capture_output=True, cwd=ROOT,
                       env=_env(), text=True)
    assert p.returncode == 0, p.stderr
    got = json.loads(p.stdout.strip().splitlines()[-1])
    assert got["enabled"] is False  # run_main restores the caller's state (off here)
    return got["garbage"]


@pytest.mark.parametrize("case", ["eval", "trec", "aggregate", "fit"])
def test_no_cycles_in_proportion_to_input(case, inputs):
    big = inputs["big"]
    if case == "eval":
        small, large = ["-R", *SAMPLE], ["-R", *big]
    elif case == "trec":
        small, large = ["-m", "official", *SAMPLE[:2]], ["-m", "official", *big[:2]]
    elif case == "aggregate":
        small = large = ["-P", str(inputs["tmp"] / "prefs.jsonl")]
    else:
        small, large = ["-J", "judgments/dl19-sample.judge"], ["-J", "judgments/dl21-crowd-sample.txt"]
    g_small, g_large = _garbage(case, small), _garbage(case, large)
    assert g_small <= 100 and g_large <= 100, (g_small, g_large)


def test_run_main_restores_the_collector():
    """In-process callers (tests, notebooks) get their collector back as it was."""
    code = ("import gc, contextlib, io\nfrom pref_eval.cli.eval import main\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            "    try:\n        main(['-R', 'qrels/dl19-sample.qrels', 'runs/bm25.run'])\n"
            "    except SystemExit:\n        pass\nprint(gc.isenabled())\n")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, cwd=ROOT, env=_env(), text=True)
    assert p.returncode == 0 and p.stdout.strip() == "True", p.stderr


EXIT_PROBE = r"""
import atexit, sys
atexit.register(lambda: sys.stderr.write("atexit ran\n"))
sys.argv = [sys.argv[1], *sys.argv[2:]]
from pref_eval.cli.eval import main
main()
"""


def test_process_exit_keeps_output_atexit_and_status(tmp_path):
    args = ["-R", SAMPLE[0], "-q", *SAMPLE[1:]]
    ref = subprocess.run([sys.executable, "-c", "import sys; from pref_eval.cli.eval import main; main(sys.argv[1:])",
                          *args], capture_output=True, cwd=ROOT, env=_env())
    assert ref.returncode == 0 and ref.stdout.count(b"\n") > 10
    p = subprocess.run([sys.executable, "-c", EXIT_PROBE, "zelo_eval", *args], capture_output=True, cwd=ROOT,
                       env=_env())
    assert p.returncode == 0 and p.stdout == ref.stdout and p.stderr == b"atexit ran\n"
    out = tmp_path / "o.jsonl"
    p = subprocess.run([sys.executable, "-c", EXIT_PROBE, "zelo_eval", "--output", str(out), *args],
                       capture_output=True, cwd=ROOT, env=_env())
    assert p.returncode == 0 and out.read_bytes() == ref.stdout
    p = subprocess.run([sys.executable, "-c", EXIT_PROBE, "zelo_eval", "-R", str(tmp_path / "missing"), SAMPLE[1]],
                       capture_output=True, cwd=ROOT, env=_env(), text=True)
    assert p.returncode == 2 and p.stdout == ""
    assert p.stderr.startswith("zelo_eval: ") and p.stderr.endswith("atexit ran\n")
