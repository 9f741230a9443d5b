"""Start-up: what each command imports on the shipped sample (fails when an import set grows).

Shell scripts call these commands thousands of times, so their start-up is part of their speed
(issue #13; bench/bench_startup.py measures it). Each command runs once in a fresh interpreter on
the sample files; afterwards the test checks ``sys.modules``:

* heavy libraries a command must not load on that input (pyarrow below 1 MB, pandas unless a
  DataFrame is made, scipy unless a test or a statistic needs it, matplotlib, dask, ...);
* modules a command no longer loads because they were made lazy: ``matplotlib.pyplot`` (plots use
  the object API; ``zelo_plot scores``, ``systems``, ``pairs`` and ``matrix`` draw PNG and SVG
  without matplotlib),
  ``numpy.ma`` (numpy 2's ``np.unique`` imports it; ``pref_eval.io.keys.distinct``
  does not on small inputs), ``numpy.random`` (only when something is drawn), ``gzip`` (only for gzip input),
  ``tempfile`` (only when a file is written); zelo_fit loads only scipy's LAPACK extension module
  (``pref_eval/zelo/kernels.py``), not scipy.special, scipy.sparse or scipy.linalg, and not the
  qrels and run readers (``pref_eval.io`` loads its names on first use); trec_eval measure
  names load only their measure families (``pref_eval.measures.families`` loads all of them);
* a ceiling on the number of modules, about 5-10% above the count measured when the case was
  written: a new module-level import in a shared module shows up here.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

import pref_eval as _tested

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# the package this test imported (CI: the installed one, with its compiled scanners; a checkout built in place:
# the checkout): the probes run it, not the checkout's source that cwd=ROOT would put first on sys.path
PACKAGE_PARENT = os.path.dirname(os.path.dirname(os.path.abspath(_tested.__file__)))


def _scanner_available() -> bool:
    from pref_eval.io.jsonl_scan import scanner_available

    return scanner_available()

# main(argv) with an explicit argv ends with SystemExit (a command started as a process ends without
# the interpreter's finalization, cli/common.py _exit_now, and could not report its modules)
# json is imported after the modules are listed (some commands no longer load it)
PROBE = r"""
import contextlib, importlib, io, sys
mod = sys.argv[1]
code = None
with contextlib.redirect_stdout(io.StringIO()):
    try:
        importlib.import_module(mod).main(sys.argv[2:])
    except SystemExit as err:
        code = err.code
modules = sorted(sys.modules)
import json
print(json.dumps({"code": code, "modules": modules}))
"""

# ir_datasets (a dependency for ``irds:`` qrels, issue #11) is imported only when such a source is read
HEAVY = {"pyarrow", "pandas", "scipy", "matplotlib", "dask", "distributed", "statsmodels", "sklearn", "openai",
         "aiohttp", "ir_datasets"}
# pref_eval.stats' orderings and tukey load on first use of their names (session 28: PEP 562 in stats/__init__)
LAZY = {"numpy.ma", "numpy.random", "gzip", "tempfile", "matplotlib.pyplot", "pref_eval.measures.families",
        "pref_eval.zelo.eval_scores", "pref_eval.stats.orderings", "pref_eval.stats.tukey"}
SAMPLE = ["qrels/dl19-sample.qrels", "runs/bm25.run", "runs/dense.run", "runs/rerank.run"]

# (id, command module, arguments ({tmp} = scratch directory), heavy packages allowed,
#  lazy modules allowed, module ceiling)
CASES = [
    ("trec", "trec", ["-m", "official", "qrels/dl19-sample.qrels", "runs/rerank.run"], set(), set(), 250),
    ("eval-prefs", "eval", ["-R", *SAMPLE], set(), set(), 245),
    ("eval-tsv", "eval", ["-R", "qrels/dl19-sample.qrels", "-o", "tsv", "-m", "map", "runs/bm25.run",
                          "runs/rerank.run"], set(), set(), 255),
    ("aggregate", "aggregate", ["-P", "{tmp}/prefs.jsonl"], set(), set(), 240),
    ("fit", "fit", ["-J", "judgments/dl19-sample.judge"], {"scipy"}, set(), 250),
    ("fit-mle", "fit", ["-J", "judgments/dl21-crowd-sample.txt", "--prior", "0"], {"scipy"}, set(), 250),
    # the default tests t, wilcoxon, sign: no scipy (pref_eval.stats.special / signed_rank), no pandas
    ("compare", "compare", ["-R", "qrels/dl19-sample.qrels", "-m", "map", *SAMPLE[1:]], set(), set(), 268),
    ("compare-jsonl", "compare", ["-R", "qrels/dl19-sample.qrels", "-m", "map", "-m", "ndcg_cut.10", "-o", "jsonl",
                                  "--zero-method", "pratt", "--sign-min-diff", "0.01", *SAMPLE[1:]], set(), set(), 272),
    # the pair layout (zelo_eval -q's preference rows) tested from the reader's codes to the records: no pandas
    # (session 29: 665 modules before, the records a DataFrame)
    ("compare-pairs", "compare", ["-P", "{tmp}/prefs.jsonl", "-o", "jsonl"], set(), set(), 265),
    # PNG (Pillow) and SVG (text) of the drawing layer, pref_eval/plot/canvas.py: no matplotlib at all
    ("plot-scores", "plot", ["scores", "-S", "{tmp}/s.tsv", "-o", "{tmp}/p.png", "-Q"], set(),
     {"gzip", "tempfile"}, 330),
    # (the SVG writer's own escape, not xml.sax.saxutils's module: that imports urllib.request, http.client, email,
    # ssl, socket -- 43 modules; session 27: pairs 342 -> 299, scores svg 303 -> 260; session 28: stats' orderings and
    # tukey lazy, the preference values in pref_values.py: compare 264 -> 262, pairs 300 -> 298, eval -o tsv 256 -> 249)
    ("plot-scores-svg", "plot", ["scores", "-S", "{tmp}/s.tsv", "-o", "{tmp}/p.svg", "-Q"], set(),
     {"gzip", "tempfile"}, 285),
    # t intervals and the t-test letters without scipy, the per-query table without pandas (plot/data.py
    # WideTable), drawn by the own layer (no matplotlib)
    ("plot-systems", "plot", ["systems", "-R", "qrels/dl19-sample.qrels", "-m", "map", *SAMPLE[1:], "-o",
                              "{tmp}/sys.png", "-Q"], set(), {"gzip", "tempfile"}, 330),
    ("plot-pairs", "plot", ["pairs", "-R", "qrels/dl19-sample.qrels", "-m", "map", *SAMPLE[1:], "-o",
                            "{tmp}/pairs.svg", "-Q"], set(), {"gzip", "tempfile"}, 305),
    ("plot-matrix", "plot", ["matrix", "-J", "judgments/dl19-sample.judge", "-o", "{tmp}/m.png", "-Q"], set(),
     {"gzip", "tempfile"}, 320),
    ("plot-help", "plot", ["--help"], set(), set(), 135),
    ("pairs", "pairs", ["cycles", "--run", "runs/bm25.run", "--depth", "20", "--seed", "1", "--output-format", "tsv",
                        "-Q"], set(), {"numpy.random"}, 280),
    ("simulate", "simulate", ["tournament", "--matrix", "{tmp}/m3.txt", "--reps", "50", "--k", "1", "--p", "7",
                              "--f", "9", "--seed", "1", "-Q"], set(), {"numpy.random"}, 280),
    ("agree", "agree", ["-J", "judgments/dl21-crowd-sample.txt", "-J", "judgments/dl21-gpt4o-sample.human", "-Q"],
     {"scipy"}, {"numpy.ma", "numpy.random", "tempfile"}, 1000),
    ("judge-help", "judge", ["--help"], set(), set(), 140),
    ("group-trec", "group", ["trec", "-m", "map", "qrels/dl19-sample.qrels", "runs/bm25.run"], set(), set(), 245),
]


def _env() -> dict:
    # PYTHONSAFEPATH (Python >= 3.11): the working directory (ROOT, for the sample's relative paths) is not put
    # first on sys.path, so PACKAGE_PARENT's pref_eval is the one imported
    return {**os.environ, "PYTHONSAFEPATH": "1",
            "PYTHONPATH": PACKAGE_PARENT + os.pathsep + os.environ.get("PYTHONPATH", "")}


@pytest.fixture(scope="module")
def scratch(tmp_path_factory):
    """The inputs some cases read: zelo_eval -q output, a zelo_fit score file, a 3x3 matrix."""
    tmp = tmp_path_factory.mktemp("startup")
    with open(tmp / "prefs.jsonl", "w") as fh:
        subprocess.run([sys.executable, "-m", "pref_eval.cli.eval", "-R", *SAMPLE, "-q"], stdout=fh, cwd=ROOT,
                       env=_env(), check=True)
    subprocess.run([sys.executable, "-m", "pref_eval.cli.fit", "-J", "judgments/dl19-sample.judge", "-o",
                    str(tmp / "s.tsv")], cwd=ROOT, env=_env(), check=True)
    (tmp / "m3.txt").write_text("0.5 0.75 0.75\n0.25 0.5 0.5\n0.25 0.5 0.5\n")
    return tmp


def _modules(module: str, args: list[str]) -> set[str]:
    p = subprocess.run([sys.executable, "-c", PROBE, f"pref_eval.cli.{module}", *args], capture_output=True,
                       cwd=ROOT, env=_env(), text=True)
    assert p.returncode == 0, p.stderr
    got = json.loads(p.stdout.strip().splitlines()[-1])
    assert got["code"] in (0, None), p.stderr
    return set(got["modules"])


@pytest.mark.parametrize(("module", "args", "allowed", "lazy_allowed", "ceiling"), [c[1:] for c in CASES],
                         ids=[c[0] for c in CASES])
def test_command_import_set(module, args, allowed, lazy_allowed, ceiling, scratch):
    if "matplotlib" in allowed:
        pytest.importorskip("matplotlib")
    if module == "compare" and args[:1] == ["-P"] and not _scanner_available():
        pytest.skip("JSON lines without the C scanner (not built, or PREF_EVAL_PURE_PYTHON): the pandas reader")
    mods = _modules(module, [a.replace("{tmp}", str(scratch)) for a in args])
    if module == "plot" and "-o" in args:  # the figure was drawn (test_plot_draws_without_pyplot: the others)
        assert os.path.getsize(args[args.index("-o") + 1].replace("{tmp}", str(scratch))) > 1000
    top = {m.split(".")[0] for m in mods}
    assert not (top & HEAVY) - allowed, f"zelo {module} imports {sorted((top & HEAVY) - allowed)}"
    assert not (mods & LAZY) - lazy_allowed, f"zelo {module} imports {sorted((mods & LAZY) - lazy_allowed)}"
    if module in ("trec", "eval", "group"):  # no test of runs: pref_eval.stats not imported (session 28: the
        assert not {m for m in mods if m.startswith("pref_eval.stats")}  # preference values moved to pref_values.py)
    if module == "fit":  # nothing of scipy (the SEs by our own Cholesky: zelo/inverse_diag.py); no qrels or run reader
        assert not {m for m in mods if m.split(".")[0] == "scipy"}
        assert not mods & {"pref_eval.io.qrels", "pref_eval.io.runs"}
    assert len(mods) <= ceiling, f"zelo {module} imports {len(mods)} modules (ceiling {ceiling})"


# the kinds and formats of the plot cases above (scores png / svg, systems png, pairs svg, matrix png) are not
# run again here (a process each, ~0.4 s CPU; session 22, s31)
PLOT_CASES_ABOVE = {(c[2][0], c[2][c[2].index("-o") + 1].rsplit(".", 1)[1]) for c in CASES
                    if c[1] == "plot" and "-o" in c[2]}


def test_plot_draws_without_pyplot(scratch):
    """The kinds still drawn by matplotlib use its object API (matplotlib.pyplot never imported); the
    ported kinds import no matplotlib module at all for PNG and SVG (only PDF does). With the plot cases of
    ``test_command_import_set``, every ported kind in both formats."""
    pytest.importorskip("matplotlib")
    above = {("scores", "png"), ("scores", "svg"), ("systems", "png"), ("pairs", "svg"), ("matrix", "png")}
    assert above == PLOT_CASES_ABOVE
    inputs = {"matrix": ["-J", "judgments/dl19-sample.judge"], "scores": ["-S", str(scratch / "s.tsv")],
              "systems": ["-R", *SAMPLE, "-m", "map"], "pairs": ["-R", *SAMPLE, "-m", "map"]}
    for ext in ("png", "svg"):
        for kind, argv in inputs.items():
            if (kind, ext) in PLOT_CASES_ABOVE:
                continue
            out = scratch / f"{kind}.{ext}"
            mods = _modules("plot", [kind, *argv, "-o", str(out), "-Q"])
            assert not {m for m in mods if m.split(".")[0] == "matplotlib"} and out.stat().st_size > 1000
    mods = _modules("plot", ["scores", "-S", str(scratch / "s.tsv"), "-o", str(scratch / "scores.pdf"), "-Q"])
    assert {"matplotlib.figure", "matplotlib.backends.backend_pdf"} <= mods and "matplotlib.pyplot" not in mods


API_PROBE = r"""
import json, sys
import pref_eval
df = pref_eval.evaluate("qrels/dl19-sample.qrels", ["runs/bm25.run", "runs/rerank.run"], ["map", "ndcg_cut.10"])
assert len(df) > 0
print(json.dumps(sorted(sys.modules)))
"""


def test_api_does_not_import_ir_datasets():
    """``import pref_eval`` and an evaluation of files load no ir_datasets (only an ``irds:`` source does)."""
    p = subprocess.run([sys.executable, "-c", API_PROBE], capture_output=True, cwd=ROOT, env=_env(), text=True)
    assert p.returncode == 0, p.stderr
    mods = {m.split(".")[0] for m in json.loads(p.stdout.strip().splitlines()[-1])}
    assert "pref_eval" in mods and "ir_datasets" not in mods


# modules the everyday commands stopped loading on the sample (issue #13, session 5): the preference
# writer quotes names without json and formats small float arrays without orjson (output/json_text.py);
# the judgment readers and the zbench writer import json where they parse or write JSON
NOT_LOADED = [
    ("eval", ["-R", *SAMPLE], {"json", "orjson"}),
    ("trec", ["-m", "official", "qrels/dl19-sample.qrels", "runs/rerank.run"], {"json", "orjson"}),
    ("fit", ["-J", "judgments/dl19-sample.judge"], {"json", "orjson"}),  # json only for JSON judgments / zbench
    # run_main imports numpy up front for these commands (cli/common.py), but not for their help
    ("eval", ["--help"], {"numpy"}),
    ("trec", ["-h"], {"numpy"}),
    ("aggregate", ["--version"], {"numpy"}),
]


@pytest.mark.parametrize(("module", "args", "absent"), NOT_LOADED, ids=[f"{c[0]}{c[1][0]}" for c in NOT_LOADED])
def test_everyday_commands_skip_json(module, args, absent):
    mods = _modules(module, args)
    assert not mods & absent, sorted(mods & absent)
