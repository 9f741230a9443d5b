"""The refusals a Python call reaches below the API name its keywords, never a command's flag (session 27, a37;
the leftovers of sessions 25-26: a35/n35 converted the messages raised in ``pref_eval/api``, r36 the warnings).

These are raised by the modules the API calls (``agree/``, ``judge/``, ``plot/``, ``parallel.py``, the readers'
hints in ``io/``, ``output/qrels.py``, ``zelo/tournament.py``), which the commands share: each message names the
option through ``pref_eval.errors.option_name`` / ``option_value`` (the flag while a command runs, the keyword
for a Python caller). Each case: the public function with the bad value, its whole message, which holds no flag
(``--x`` or ``-x``: :func:`flags_in`, a reference to another command's line such as ``zelo_eval -q output``
excepted); and where a command reaches the same refusal, the command's exit 2 and its whole line as it was
before (byte-identical). The walk at the end (:data:`KINDS`) is the probe of every refusal kind found by a scan
of the package's string constants for flags; each Python message below named the flag before.
"""
from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path

import pytest

import pref_eval.api as api
from cli_harness import run_module_inproc
from pref_eval.errors import PrefEvalError

ROOT = Path(__file__).resolve().parent.parent
Q, BM25, DENSE = "qrels/dl19-sample.qrels", "runs/bm25.run", "runs/dense.run"
JUDGE = "judgments/dl19-sample.judge"
A, B = "judgments/dl21-crowd-sample.txt", "judgments/dl21-gpt4o-sample.human"
PQ = "tests/data/stats/perquery.tsv"
NOWHERE = os.path.join(tempfile.gettempdir(), "test_api_refusals_named.never-written")  # (refused before writing)
NO_PAIRS = os.path.join(NOWHERE, "pairs.tsv")
STORE = os.path.join(NOWHERE, "store.sqlite")
# an output in a folder that exists, for refusals checked after the output's folder (nothing is written)
UNWRITTEN = os.path.join(tempfile.gettempdir(), "test_api_refusals_named.unwritten")

_FLAG = re.compile(r"(?<![\w.\-/'])--?[A-Za-z][\w-]*")
# a command line quoted as where a file comes from ("zelo_eval -q output", "'zelo_eval --list-measures'")
_COMMAND_LINE = re.compile(r"\b(zelo_\w+|pref_eval\.py|pref_aggregate\.py|trec_eval)( [a-z]+)?"
                           r"( -{1,2}[\w-]+( [A-Z_]+)?)+")


def flags_in(message: str) -> list[str]:
    """The command-line flags ``message`` names outside a quoted command line of another command."""
    return _FLAG.findall(_COMMAND_LINE.sub("", message))


def test_flags_in_finds_flags_and_leaves_command_lines():
    assert flags_in("--buckets is used only by the calibration level (add --level calibration)") == [
        "--buckets", "--level"]
    assert flags_in("-J -: standard input can be read once") == ["-J"]
    assert flags_in("no such file (expected a per-query file (zelo_eval -q output))") == []
    assert flags_in("unknown measure 'x'; see 'zelo_eval --list-measures'") == []
    assert flags_in("score beyond ±50 is not a natural-log zELO score; output_format='jsonl' writes") == []
    assert flags_in("cmd:'python3 my_judge.py' in 'openai:m@http://x/v1,temperature=-1'") == []


def _image(ext: str = "svg", *size: float) -> api.PlotImage:
    return api.PlotImage(os.path.join(NOWHERE, "x." + ext), *(size or (4, 3)))


def _judge(**kw):
    return lambda: api.judge(NO_PAIRS, **{"judges": ["cmd:true"], "store": STORE, **kw})


# (id, Python call, its message, command, the command's arguments, its message as before: None where no command
# line reaches the same refusal, a click type refusing the value first)
KINDS = [
    # agree / zelo_agree (agree/report.py, agree/systemlevel.py)
    ("agree-levels", lambda: api.agree([A, B], levels=["bogus"]),
     "levels must be among pair, calibration, document, system, got bogus", None, None, None),
    ("agree-system-needs-runs", lambda: api.agree([A, B], levels=["system"]),
     "the system level needs runs=[RUN, ...] and measure=NAME",
     "agree", ["-J", A, "-J", B, "--level", "system"], "the system level needs --runs RUN... and -m MEASURE"),
    ("agree-runs-without-system", lambda: api.agree([A, B], levels=["pair"], runs=[BM25], measure="map"),
     "runs/measure are used only by the system level (add 'system' to levels)",
     "agree", ["-J", A, "-J", B, "--level", "pair", "--runs", BM25, "-m", "map"],
     "--runs/-m are used only by the system level (add --level system)"),
    ("agree-level-option", lambda: api.agree([A, B], levels=["pair"], buckets=5),
     "buckets is used only by the calibration level (add 'calibration' to levels)",
     "agree", ["-J", A, "-J", B, "--level", "pair", "--buckets", "5"],
     "--buckets is used only by the calibration level (add --level calibration)"),
    ("agree-level-option-2", lambda: api.agree([A, B], levels=["pair"], judged_depth=3),
     "judged_depth is used only by the system level (add 'system' to levels)",
     "agree", ["-J", A, "-J", B, "--level", "pair", "--judged-depth", "3"],
     "--judged-depth is used only by the system level (add --level system)"),
    ("agree-calibration", lambda: api.agree([A, B], levels=["calibration"], calibration="bogus"),
     "calibration must be one of auto, always, never", None, None, None),
    ("agree-names", lambda: api.agree([A, B], names=["x", "x"], levels=["pair"]),
     "names: two judges share a name",
     "agree", ["-J", A, "-J", B, "--name", "x", "--name", "x", "--level", "pair"],
     "--name: two judges share a name"),
    ("agree-stdin-twice", lambda: api.agree(["-", "-"], levels=["pair"]),
     "judgments: '-' (standard input) given twice: it can be read once (give it for one judge)",
     "agree", ["-J", "-", "-J", "-", "--level", "pair"],
     "-J -: standard input can be read once (give it for one judge)"),
    ("agree-confidence", lambda: api.agree([A, B], levels=["pair"], resamples=0, confidence=0.9),
     "confidence sets the bootstrap intervals: none with resamples=0",
     "agree", ["-J", A, "-J", B, "--level", "pair", "--resamples", "0", "--confidence", "0.9"],
     "--confidence sets the bootstrap intervals: none with --resamples 0"),
    ("agree-seed", lambda: api.agree([A, B], levels=["pair"], resamples=0, seed=3),
     "seed seeds the bootstrap (none with resamples=0) and a randomised system-level test (none here)",
     "agree", ["-J", A, "-J", B, "--level", "pair", "--resamples", "0", "--seed", "3"],
     "--seed seeds the bootstrap (none with --resamples 0) and a randomised system-level test (none here)"),
    ("agree-format-list", lambda: api.agree([A, B], levels=["pair"], judgments_format="clarke4,clarke4,clarke4"),
     "judgments_format lists 3 formats for 2 judgment files",
     "agree", ["-J", A, "-J", B, "--level", "pair", "--format", "clarke4,clarke4,clarke4"],
     "--format lists 3 formats for 2 judgment files"),
    ("agree-format-for-all", lambda: api.agree([A, B], levels=["pair"], judgments_format="jsonl"),
     f"{A}:1: expected a JSON object per line (Extra data) (judgments_format='jsonl' reads every file of "
     "judgments, and this one looks like clarke4: give one format per file, judgments_format='clarke4,jsonl', or "
     "no judgments_format)",
     "agree", ["-J", A, "-J", B, "--level", "pair", "--format", "jsonl"],
     f"{A}:1: expected a JSON object per line (Extra data) (--format jsonl reads every -J file, and this one looks "
     "like clarke4: give one format per file, --format clarke4,jsonl, or no --format)"),
    ("agree-system-one-test", lambda: api.agree([A, B], levels=["system"], runs=[BM25, DENSE], measure="map",
                                                tests="t,wilcoxon"),
     "tests: the system level uses one test (e.g. t)", None, None, None),
    ("agree-system-grades", lambda: api.agree([A, B], levels=["system"], runs=[BM25, DENSE], measure="map",
                                              grades="a,b"),
     "grades must be numbers, got 'a,b'",
     "agree", ["-J", A, "-J", B, "--level", "system", "--runs", BM25, "--runs", DENSE, "-m", "map", "--grades",
               "a,b"], "--grades must be numbers, got 'a,b'"),
    # fit / zelo_fit (output/qrels.py, parallel.py)
    ("fit-grades", lambda: api.fit(JUDGE, qrels_output=os.path.join(NOWHERE, "q"), grades="1"),
     "grades needs at least two comma-separated grades, got '1'",
     "fit", ["-J", JUDGE, "--qrels", os.path.join(NOWHERE, "q"), "--grades", "1"],
     "--grades needs at least two comma-separated grades, got '1'"),
    ("fit-grades-order", lambda: api.fit(JUDGE, qrels_output=os.path.join(NOWHERE, "q"), grades="2,1"),
     "grades must be increasing, got '2,1'", None, None, None),
    ("fit-bins", lambda: api.fit(JUDGE, qrels_output=os.path.join(NOWHERE, "q"), bins="bogus"),
     "bins must be 'quantile' or 'fixed:t1,t2,...', got 'bogus'",
     "fit", ["-J", JUDGE, "--qrels", os.path.join(NOWHERE, "q"), "--bins", "bogus"],
     "--bins must be 'quantile' or 'fixed:t1,t2,...', got 'bogus'"),
    ("fit-bins-fixed", lambda: api.fit(JUDGE, qrels_output=os.path.join(NOWHERE, "q"), bins="fixed:1"),
     "bins='fixed:...': needs 3 thresholds for 4 grades, got 1",
     "fit", ["-J", JUDGE, "--qrels", os.path.join(NOWHERE, "q"), "--bins", "fixed:1"],
     "--bins fixed: needs 3 thresholds for 4 grades, got 1"),
    ("fit-bins-fixed-numbers", lambda: api.fit(JUDGE, qrels_output=os.path.join(NOWHERE, "q"), bins="fixed:a,b,c"),
     "bins='fixed:...': expects numbers, got 'fixed:a,b,c'", None, None, None),
    ("fit-bins-fixed-order", lambda: api.fit(JUDGE, qrels_output=os.path.join(NOWHERE, "q"), bins="fixed:3,2,1"),
     "bins='fixed:...': thresholds must be increasing", None, None, None),
    ("jobs-and-scheduler", lambda: api.fit(JUDGE, jobs=2, scheduler="tcp://127.0.0.1:1"),
     "jobs=2 and scheduler: give one (scheduler runs the pieces on the cluster's workers, jobs in processes of "
     "this machine)",
     "fit", ["-J", JUDGE, "--jobs", "2", "--scheduler", "tcp://127.0.0.1:1"],
     "--jobs 2 and --scheduler: give one (--scheduler runs the pieces on the cluster's workers, --jobs in "
     "processes of this machine)"),
    ("scheduler-address", lambda: api.fit(JUDGE, scheduler="inproc://x"),
     "scheduler='inproc://x': an inproc:// address reaches only a scheduler inside the same Python process, never "
     "one this command can join; expected tcp://HOST:PORT (or tls://, ws://, wss://; HOST:PORT alone is tcp://)",
     "fit", ["-J", JUDGE, "--scheduler", "inproc://x"],
     "--scheduler inproc://x: an inproc:// address reaches only a scheduler inside the same Python process, never "
     "one this command can join; expected tcp://HOST:PORT (or tls://, ws://, wss://; HOST:PORT alone is tcp://)"),
    # the judgment reader's hints (io/judgments.py), through fit
    ("judgments-qrels", lambda: api.fit(Q),
     f"{Q}:1: this looks like TREC qrels ('qid iter docno grade'), not pairwise judgments; give "
     "judgments_format='carterette' if it is Carterette's 'QID DOC1 DOC2 PREF'",
     "fit", ["-J", Q],
     f"{Q}:1: this looks like TREC qrels ('qid iter docno grade'), not pairwise judgments; give --format "
     "carterette if it is Carterette's 'QID DOC1 DOC2 PREF'"),
    # plots / zelo_plot (plot/output.py, plot/png.py, plot/systems.py)
    ("image-stdout", lambda: api.plot_matrix([JUDGE], api.PlotImage("-", 4, 3), qid="1037798"),
     "output='-' (standard output) needs an image format: output_format='png', 'svg' or 'pdf'",
     "plot", ["matrix", "-J", JUDGE, "-o", "-"],
     "-o - (standard output) needs an image format: --format png|svg|pdf (zelo_plot matrix: --image-format)"),
    ("image-extension", lambda: api.plot_matrix([JUDGE], _image("gif"), qid="1037798"),
     f"output file {os.path.join(NOWHERE, 'x.gif')!r}: expected a .png, .svg or .pdf extension (or "
     "output_format='png', 'svg' or 'pdf')",
     "plot", ["matrix", "-J", JUDGE, "-o", os.path.join(NOWHERE, "x.gif")],
     f"output file {os.path.join(NOWHERE, 'x.gif')!r}: expected a .png, .svg or .pdf extension (or --format "
     "png|svg|pdf)"),
    ("image-format-contradicts", lambda: api.plot_matrix(
        [JUDGE], api.PlotImage(os.path.join(NOWHERE, "x.png"), 4, 3, output_format="svg"), qid="1037798"),
     f"output file {os.path.join(NOWHERE, 'x.png')!r}: output_format='svg' contradicts its extension .png",
     "plot", ["matrix", "-J", JUDGE, "-o", os.path.join(NOWHERE, "x.png"), "--image-format", "svg"],
     f"output file {os.path.join(NOWHERE, 'x.png')!r}: --format svg contradicts its extension .png"),
    ("png-size", lambda: api.plot_matrix([JUDGE], _image("png", 100, 100, 1200), qid="1037798"),
     "width=100, height=100, dpi=1200 makes a 120000 × 120000 pixel PNG, more than 134217728 pixels or 65536 on a "
     "side: lower dpi or the size, or write SVG or PDF",
     "plot", ["matrix", "-J", JUDGE, "-o", os.path.join(NOWHERE, "x.png"), "--width", "100", "--height", "100",
              "--dpi", "1200"],
     "--width 100 --height 100 --dpi 1200 makes a 120000 × 120000 pixel PNG, more than 134217728 pixels or 65536 "
     "on a side: lower --dpi or the size, or write SVG or PDF"),
    ("plot-ci", lambda: api.plot_systems(api.PlotValues(per_query_file=PQ, measure="ndcg"),
                                         api.PlotImage(UNWRITTEN + ".svg", 4, 3), ci="bogus"),
     "ci must be t or bootstrap, not 'bogus'", None, None, None),
    # the tournament's stages (zelo/tournament.py), through pairs_init and simulate
    ("tournament-p", lambda: api.pairs_init(os.path.join(NOWHERE, "s.json"), Q, k=3, p=2),
     "p=2 must exceed k=3 (a pruning stage keeps the documents with more than p/2 wins; prefj.py raises p to k + 1 "
     "= 4)",
     "pairs", ["init", "--state", os.path.join(NOWHERE, "s.json"), "--qrels", Q, "--k", "3", "--p", "2"],
     "--p 2 must exceed --k 3 (a pruning stage keeps the documents with more than p/2 wins; prefj.py raises p to "
     "k + 1 = 4)"),
    ("tournament-f", lambda: api.simulate([[0.5] * 8] * 8, 1, k=1, p=4, f=4),
     "f=4 must exceed p=4 (the pool size at which pruning stops; prefj.py raises f to p + 1 = 5)", None, None, None),
    # judge / zelo_judge (judge/spec.py, judge/run.py, judge/scheduler.py)
    ("judge-spec", _judge(judges=["bogus"]), "judges: expected openai:MODEL@BASE_URL or cmd:COMMAND, got 'bogus'",
     "judge", [NO_PAIRS, "--judge", "bogus", "--store", STORE],
     "--judge: expected openai:MODEL@BASE_URL or cmd:COMMAND, got 'bogus'"),
    ("judge-spec-url", _judge(judges=["openai:m@ftp://x"]),
     "judges: the base URL must start with http:// or https://, got 'ftp://x'", None, None, None),
    ("judge-spec-cmd", _judge(judges=["cmd:"]), "judges cmd: needs a command, e.g. cmd:'python3 my_judge.py'",
     None, None, None),
    ("judge-spec-option", _judge(judges=["openai:m@http://x/v1,bogus=1"]),
     "judges: unknown option 'bogus=...' (one of key=, name=, temperature=, max_tokens=)", None, None, None),
    ("judge-spec-key", _judge(judges=["openai:m@http://x/v1,key=sk-abcdefabcdefabcdef"]),
     "judges: key= must name an environment variable, not hold a key", None, None, None),
    ("judge-none", _judge(judges=[], store=UNWRITTEN + ".sqlite"), "give at least one judge: judges=[SPEC, ...]",
     None, None, None),
    ("judge-price-type", _judge(prices=[1]),
     "prices: expected a mapping {MODEL: (IN, OUT)} of prices per 1,000 tokens, got list", None, None, None),
    ("judge-price-key", _judge(prices={"x": (1, 1)}),
     "prices x: no judges has this price key (an openai: judge's model, a cmd: judge's name: 'cmd:true')",
     None, None, None),
    # run names (io/run_ids.py), through compare_runs and evaluate_runs
    ("run-names-form", lambda: api.compare_runs(qrels=Q, runs=[BM25, DENSE], measures=["map"], run_names=["a"]),
     "run_names 'a': expected RUN=LABEL",
     "compare", ["-R", Q, "-m", "map", "--name", "a", BM25, DENSE], "--name 'a': expected RUN=LABEL"),
    ("run-names-run", lambda: api.evaluate_runs(Q, [BM25, DENSE], measures=["map"], run_names=["x=y"]),
     "run_names x=y: 'x' is not one of the runs (bm25.run, dense.run)",
     "eval", ["-R", Q, "-m", "map", "--name", "x=y", BM25, DENSE],
     "--name x=y: 'x' is not one of the runs (bm25.run, dense.run)"),
    ("run-names-twice", lambda: api.evaluate_runs(Q, [BM25, DENSE], measures=["map"], run_names=["a=x", "a=y"]),
     "run_names: run 'a' renamed twice", None, None, None),
    ("run-names-same", lambda: api.evaluate_runs(Q, [BM25, DENSE], measures=["map"],
                                                 run_names=["bm25.run=x", "dense.run=x"]),
     "run_names: two runs would be called 'x'", None, None, None),
]

_PROG = {"agree": "zelo_agree", "fit": "zelo_fit", "plot": "zelo_plot", "pairs": "zelo_pairs", "judge": "zelo_judge",
         "compare": "zelo_compare", "eval": "zelo_eval"}


@pytest.mark.parametrize(("call", "message", "command", "args", "command_message"), [k[1:] for k in KINDS],
                         ids=[k[0] for k in KINDS])
def test_a_refusal_below_the_api_names_the_keyword(call, message, command, args, command_message):
    with pytest.raises(PrefEvalError) as err:
        call()
    assert not any(os.path.exists(UNWRITTEN + ext) for ext in (".sqlite", ".svg"))
    assert str(err.value) == message
    assert flags_in(str(err.value)) == []
    if command is not None:
        res = run_module_inproc(command, args, cwd=ROOT)
        assert (res.returncode, res.stderr) == (2, f"{_PROG[command]}: {command_message}\n")
        assert flags_in(command_message)  # the command's line still names its flag



# ---- complete (zelo_compare's -c) on per-query tables (stats/compare.py, stats/complete_fill.py) -----------------

def _table(path: Path, header: str, rows: list[tuple]) -> str:
    path.write_text(header + "".join("\t".join(map(str, r)) + "\n" for r in rows), encoding="utf-8")
    return str(path)


def test_complete_refusals_and_warning_name_the_keyword(tmp_path):
    runs = _table(tmp_path / "runs.tsv", "run\tqid\tmeasure\tvalue\n",
                  [("A.run", "t1", "yaap", 0.5), ("A.run", "t2", "yaap", 0.25), ("A.run", "t3", "yaap", 0.75),
                   ("B.run", "t1", "yaap", 0.5), ("B.run", "t3", "yaap", 0.125)])  # B.run lacks t2
    pairs = _table(tmp_path / "pairs.tsv", "runi\trunj\tqid\tmeasure\tvalue\n",
                   [(a, b, q, "rpp", 0.25) for a, b in (("A", "B"), ("A", "C"), ("B", "C")) for q in ("q1", "q2")
                    if (a, b, q) != ("A", "C", "q2")])
    cases = [
        (lambda: api.compare_runs(per_query_file=runs, complete=True, measures=["yaap"], tests="t"),
         "complete: measure 'yaap' is not 0 on a topic a run lacks (trec_eval -c scores it on an empty ranking, a "
         "value of the qrels), and run 'B.run' lacks query 't2': compare the runs with qrels and complete=True, or "
         "a per-query file written with complete=True",
         ["-P", runs, "-c", "-m", "yaap", "--tests", "t"],
         "-c: measure 'yaap' is not 0 on a topic a run lacks (trec_eval -c scores it on an empty ranking, a value "
         "of the qrels), and run 'B.run' lacks query 't2': compare with -R QRELS -c, or a per-query file written "
         "with -c"),
        (lambda: api.compare_runs(per_query_file=pairs, complete=True, tests="t"),
         "complete: pair 'A' / 'C' lacks query 'q2' of measure 'rpp'; a preference on a topic a run lacks is "
         "scored on its empty ranking (pref_eval.py, trec_eval -c), a value the table does not hold: compare with "
         "qrels and runs, or without complete=True (the queries every pair has)",
         ["-P", pairs, "-c", "--tests", "t"],
         "-c: pair 'A' / 'C' lacks query 'q2' of measure 'rpp'; a preference on a topic a run lacks is scored on "
         "its empty ranking (pref_eval.py, trec_eval -c), a value the table does not hold: compare with -R QRELS, "
         "or without -c (the queries every pair has)"),
    ]
    for call, message, args, command_message in cases:
        with pytest.raises(PrefEvalError) as err:
            call()
        assert str(err.value) == message and flags_in(message) == []
        res = run_module_inproc("compare", args, cwd=ROOT)
        assert (res.returncode, res.stderr) == (2, f"zelo_compare: {command_message}\n")
    # the warning of a query some run lacks (compare's query_warnings(), the commands' warning line)
    warned = api.compare(runs, tests="t").query_warnings()
    assert warned == ["yaap: 1 quer(y/ies) missing for some run left out (t2); complete=True counts them as 0"]
    res = run_module_inproc("compare", ["-P", runs, "--tests", "t", "-o", "jsonl"], cwd=ROOT)
    assert res.returncode == 0 and res.stderr == ("zelo_compare: warning: yaap: 1 quer(y/ies) missing for some run "
                                                  "left out (t2); -c counts them as 0\n")


def test_the_runs_left_out_by_keep_going_are_counted_under_the_keyword(tmp_path):
    """The closing EvaluationError of ``keep_going=True`` (evaluate_runs, compare_runs, pairs_pool) named
    ``--keep-going`` for a Python caller too; the commands' lines as before."""
    from pref_eval.errors import EvaluationError

    bad = tmp_path / "bad.run"
    bad.write_text("garbage\n", encoding="utf-8")
    runs = [BM25, DENSE, str(bad)]
    calls = [
        (lambda: api.evaluate_runs(Q, runs, measures=["map"], output_format="tsv", keep_going=True,
                                   output=str(tmp_path / "e.tsv")), "evaluated",
         "eval", ["-R", Q, "-m", "map", "-o", "tsv", "--keep-going", "--output", str(tmp_path / "e2.tsv"), *runs]),
        (lambda: api.compare_runs(qrels=Q, runs=runs, measures=["map"], tests="t", keep_going=True), "compared",
         "compare", ["-R", Q, "-m", "map", "--tests", "t", "--keep-going", *runs]),
        (lambda: api.pairs_pool(runs, 5, keep_going=True, output=str(tmp_path / "pool")), "pooled",
         "pairs", ["pool", "--depth", "5", "--keep-going", "-o", str(tmp_path / "pool2"), *runs]),
    ]
    for call, verb, command, args in calls:
        with pytest.raises(EvaluationError) as err:
            call()
        assert str(err.value).startswith(f"1 of 3 runs not {verb} (keep_going=True; their errors above): "), \
            str(err.value)
        assert flags_in(str(err.value)) == []
        res = run_module_inproc(command, args, cwd=ROOT)
        last = res.stderr.splitlines()[-1]
        assert res.returncode == 2 and last.startswith(f"{_PROG[command]}: 1 of 3 runs not {verb} (--keep-going; "
                                                       "their errors above): "), res.stderr


def test_agree_resamples_beyond_memory_names_the_keyword():
    from pref_eval.agree.records import MAX_WEIGHTS, Bootstrap
    from pref_eval.errors import COMMAND_LINE_FLAGS, UsageError

    n = MAX_WEIGHTS // 50 + 1
    gb = f"{n * 50 * 8 / 1e9:.1f} GB (at most {MAX_WEIGHTS * 8 / 1e9:g} GB)"
    with pytest.raises(UsageError) as err:
        Bootstrap(50, resamples=n)
    assert str(err.value) == f"resamples={n} x 50 queries: the resample weights would take {gb}; give fewer resamples"
    token = COMMAND_LINE_FLAGS.set(frozenset())  # as while a command runs: the line as before
    try:
        with pytest.raises(UsageError) as err:
            Bootstrap(50, resamples=n)
    finally:
        COMMAND_LINE_FLAGS.reset(token)
    assert str(err.value) == f"--resamples {n} x 50 queries: the resample weights would take {gb}; give fewer " \
                             "--resamples"


# ---- session 28 (a38): the refusals session 27 left naming a flag for a Python caller -----------------------------

@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """Inputs the refusals below need: preference JSON lines (zelo_eval -q), a pref_aggregate output (several
    orderings), a zelo_eval table without summary rows (-n), a three-field file of grades, pairs and texts to judge,
    a whole-ranking zelo_pairs state."""
    d = tmp_path_factory.mktemp("refusals_a38")
    out = {"dir": d}
    res = run_module_inproc("eval", ["-R", Q, "-q", BM25, DENSE], cwd=ROOT)
    (d / "prefs.jsonl").write_text(res.stdout, encoding="utf-8")
    res = run_module_inproc("aggregate", ["-P", d / "prefs.jsonl", "-m", "rpp"], cwd=ROOT)
    (d / "agg.jsonl").write_text(res.stdout, encoding="utf-8")
    res = run_module_inproc("eval", ["-R", Q, "-m", "map", "-o", "tsv", "-q", "-n", BM25, DENSE], cwd=ROOT)
    (d / "no_all.tsv").write_text(res.stdout, encoding="utf-8")
    (d / "grades.txt").write_text("q1 d1 2\nq1 d2 0\nq2 d3 1\n", encoding="utf-8")
    (d / "pairs.tsv").write_text("q1\td1\td2\n", encoding="utf-8")
    (d / "docs.tsv").write_text("d1\tone\nd2\ttwo\n", encoding="utf-8")
    api.pairs_init(str(d / "ranking.json"), Q, strategy="adaptive", goal="ranking")
    for k in ("prefs.jsonl", "agg.jsonl", "no_all.tsv", "grades.txt", "pairs.tsv", "docs.tsv", "ranking.json"):
        out[k] = str(d / k)
    return out


def _d(files, name):  # a path in the fixture's folder, not written
    return str(files["dir"] / name)


# (id, Python call given the files, its message, command, its arguments, its message as before: None where no command
# line reaches the refusal -- a click type refuses the value first). Each Python message named the flag before.
KINDS_28 = [
    ("aggregate-damping-on-metrics", lambda f: api.aggregate(f["prefs.jsonl"], ["ap"], damping=0.5),
     "damping applies to MC4, which orders preference measures; ap are metrics, ordered by their mean",
     "aggregate", lambda f: ["-P", f["prefs.jsonl"], "-m", "ap", "--damping", "0.5"],
     "--damping applies to MC4, which orders preference measures; ap are metrics, ordered by their mean"),
    ("aggregate-mc4-steps-on-metrics", lambda f: api.aggregate(f["prefs.jsonl"], ["ap"], mc4_steps=3),
     "mc4_steps applies to MC4, which orders preference measures; ap are metrics, ordered by their mean",
     "aggregate", lambda f: ["-P", f["prefs.jsonl"], "-m", "ap", "--mc4-steps", "3"],
     "--mc4-steps applies to MC4, which orders preference measures; ap are metrics, ordered by their mean"),
    ("judgments-ties", lambda f: api.fit(JUDGE, ties="bogus"), "ties must be one of half, zbench, not 'bogus'",
     None, None, None),
    ("judgments-ambiguous-three-fields", lambda f: api.fit(f["grades.txt"]),
     "{grades.txt}:1: ambiguous: 'topic docno grade' (graded judgments, or trec_eval output) or Clarke's 'topic "
     "winner loser'? Pairwise judgments expected; give judgments_format='clarke3' if these are judgments",
     "fit", lambda f: ["-J", f["grades.txt"]],
     "{grades.txt}:1: ambiguous: 'topic docno grade' (graded judgments, or trec_eval output) or Clarke's 'topic "
     "winner loser'? Pairwise judgments expected; give --format clarke3 if these are judgments"),
    ("orderings-several-lists", lambda f: api.compare_orderings(f["agg.jsonl"], f["agg.jsonl"]),
     "{agg.jsonl} holds several orderings (rpp:mc4, rpp:borda); choose one with key_a/key_b",
     "compare", lambda f: ["--orderings", f["agg.jsonl"], f["agg.jsonl"]],
     "{agg.jsonl} holds several orderings (rpp:mc4, rpp:borda); choose one with --key-a/--key-b"),
    ("orderings-no-summary-rows", lambda f: api.compare_orderings(f["no_all.tsv"], f["no_all.tsv"]),
     "{no_all.tsv}: no summary rows (qid 'all') of single runs; write the table with evaluate_runs(..., "
     "summary=True)",
     "compare", lambda f: ["--orderings", f["no_all.tsv"], f["no_all.tsv"]],
     "{no_all.tsv}: no summary rows (qid 'all') of single runs; write the table without -n"),
    ("qrels-reader-given-a-run", lambda f: api.evaluate_runs(BM25, [DENSE], measures=["map"]),
     f"{BM25}:1: expected 4 fields 'qid iter docno rel', found 6 fields (a run's line 'qid Q0 docno rank score tag': "
     "the qrels come first, the first argument of evaluate(qrels, runs) and evaluate_runs(qrels, runs), or "
     "qrels=QRELS)",
     "eval", lambda f: ["-R", BM25, "-m", "map", DENSE],
     f"{BM25}:1: expected 4 fields 'qid iter docno rel', found 6 fields (a run's line 'qid Q0 docno rank score tag': "
     "the qrels come first, `zelo_trec QRELS RUN`, or after -R or --qrels)"),
    ("run-reader-given-qrels", lambda f: api.evaluate_runs(Q, [Q, DENSE], measures=["map"]),
     f"{Q}:1: expected at least 6 fields 'qid iter docno rank score tag', found 4 fields (a qrels line 'qid iter "
     "docno rel': a run goes here; the qrels come first, the first argument of evaluate(qrels, runs) and "
     "evaluate_runs(qrels, runs), or qrels=QRELS)",
     "eval", lambda f: ["-R", Q, "-m", "map", Q, DENSE],
     f"{Q}:1: expected at least 6 fields 'qid iter docno rank score tag', found 4 fields (a qrels line 'qid iter "
     "docno rel': a run goes here; the qrels come first, `zelo_trec QRELS RUN`, or after -R or --qrels)"),
    ("judge-output-is-an-input", lambda f: api.judge(f["pairs.tsv"], judges=["cmd:true"], store=_d(f, "s.sqlite"),
                                                     docs=f["docs.tsv"], output=f["docs.tsv"]),
     "output file {docs.tsv} is the same file as docs {docs.tsv}; refusing to overwrite it",
     "judge", lambda f: [f["pairs.tsv"], "--judge", "cmd:true", "--store", _d(f, "s.sqlite"), "--docs",
                         f["docs.tsv"], "-o", f["docs.tsv"]],
     "output file {docs.tsv} is the same file as --docs {docs.tsv}; refusing to overwrite it"),
    ("pairs-init-two-sources", lambda f: api.pairs_init(_d(f, "new.json"), Q, run=BM25, depth=5),
     "give exactly one of qrels, dataset, run, docs (got qrels and run)",
     "pairs", lambda f: ["init", "--state", _d(f, "new.json"), "--qrels", Q, "--run", BM25, "--depth", "5"],
     "give exactly one of --qrels, --dataset, --run, --docs (got --qrels and --run)"),
    ("pairs-next-into-the-lock", lambda f: api.pairs_next(f["ranking.json"], output=f["ranking.json"] + ".lock"),
     "output file {ranking.json}.lock is the same file as the lock file of state {ranking.json}.lock; refusing to "
     "overwrite it",
     "pairs", lambda f: ["next", "--state", f["ranking.json"], "-o", f["ranking.json"] + ".lock"],
     "output file {ranking.json}.lock is the same file as the lock file of --state {ranking.json}.lock; refusing to "
     "overwrite it"),
    ("ranx-name-level", lambda f: api.calc_aggregate(["ndcg@10"], Q, BM25, level=-1),
     "ranx metrics take a relevance level ≥ 0 (level; got -1)",
     "eval", lambda f: ["-R", Q, "-m", "ndcg@10", "-l", "-1", BM25],
     "ranx metrics take a relevance level ≥ 0 (-l; got -1)"),
    ("pairs-result-qrels-of-a-ranking", lambda f: api.pairs_result(f["ranking.json"], qrels=_d(f, "top.qrels")),
     "pairs_result(qrels=...) (preference qrels of the top set) applies to the tournament and the best-item "
     "strategy; for graded qrels from a whole ranking call fit(JUDGMENTS, qrels_output='OUT.qrels', "
     "grades='0,1,2,3') on the judgments",
     "pairs", lambda f: ["result", "--state", f["ranking.json"], "--qrels", _d(f, "top.qrels")],
     "result --qrels (preference qrels of the top set) applies to the tournament and the best-item strategy; for "
     "graded qrels from a whole ranking run zelo_fit -J JUDGMENTS --qrels OUT.qrels --grades 0,1,2,3 on the "
     "judgments"),
]
_PROG_28 = {**_PROG, "aggregate": "pref_aggregate"}


@pytest.mark.parametrize(("call", "message", "command", "args", "command_message"), [k[1:] for k in KINDS_28],
                         ids=[k[0] for k in KINDS_28])
def test_session_27s_leftovers_name_the_keyword(files, call, message, command, args, command_message):
    def filled(text):  # {name}: the fixture's file
        for key, path in files.items():
            text = text.replace("{" + key + "}", str(path))
        return text

    with pytest.raises(PrefEvalError) as err:
        call(files)
    assert str(err.value) == filled(message)
    assert flags_in(str(err.value)) == []
    if command is not None:
        res = run_module_inproc(command, args(files), cwd=ROOT)
        assert (res.returncode, res.stderr) == (2, f"{_PROG_28[command]}: {filled(command_message)}\n")
        assert flags_in(command_message)  # the command's line still names its flag
    assert not os.path.exists(_d(files, "s.sqlite")) and not os.path.exists(_d(files, "top.qrels"))


def _as_python_and_as_command(call):
    """The message of ``call()`` for a Python caller and while a command runs (``COMMAND_LINE_FLAGS`` set, as
    cli/common.py ``_run`` sets it): for the building blocks below, which no command line reaches with such a value
    (the commands' types and the API's own checks refuse it first)."""
    from pref_eval.errors import COMMAND_LINE_FLAGS

    messages = []
    for flags in (None, frozenset()):
        token = COMMAND_LINE_FLAGS.set(flags)
        try:
            with pytest.raises(PrefEvalError) as err:
                call()
        finally:
            COMMAND_LINE_FLAGS.reset(token)
        messages.append(str(err.value))
    return messages


def test_the_building_blocks_ranges_name_the_keyword():
    """``pref_eval.stats.compare_differences`` (documented in docs/zelo_compare.md), ``rank_aggregation.mc4``'s
    damping and ``collection.build_collection``'s depth: the keyword for a Python caller (they named ``--alpha``,
    ``--damping``, ``-M``), the flag as before while a command runs."""
    import numpy as np

    from pref_eval.collection import build_collection
    from pref_eval.io.qrels import read_qrels
    from pref_eval.rank_aggregation import mc4
    from pref_eval.stats import compare_differences

    D = np.array([[0.1, 0.2, -0.05, 0.3]])
    cases = [
        (lambda: compare_differences(D, alpha=2), "alpha must be in (0, 1), got 2", "--alpha must be in (0, 1), got 2"),
        (lambda: compare_differences(D, resamples=0), "resamples must be at least 1, got 0",
         "--resamples must be at least 1, got 0"),
        (lambda: compare_differences(D, sign_min_diff=-1), "sign_min_diff must be >= 0, got -1",
         "--sign-min-diff must be >= 0, got -1"),
        (lambda: mc4([["a", "b"], ["b", "a"]], damping=0),
         "damping must be in (0, 1] (use mc4_steps for the undamped reference chain)",
         "--damping must be in (0, 1] (use --mc4-steps for the undamped reference chain)"),
        (lambda: build_collection(read_qrels(ROOT / Q), [], depth=-1), "depth must be ≥ 0", "depth (-M) must be ≥ 0"),
    ]
    for call, python, command in cases:
        assert _as_python_and_as_command(call) == [python, command]
        assert flags_in(python) == [] and flags_in(command)


def test_the_comparison_report_names_neither_flag_nor_keyword(tmp_path):
    """The report's legend (``Queries: ... (missing values counted as 0 (-c))``, ``Other tests computed ...: see -o
    jsonl or -o csv``) named the command's flags in what ``compare_runs`` returns too. A report is an output, the
    same bytes from the command and the function (tests/test_api_commands.py): its legend now names neither
    vocabulary (trec_eval's ``-c`` is a reference to another program's option, as elsewhere)."""
    runs = _table(tmp_path / "runs.tsv", "run\tqid\tmeasure\tvalue\n",
                  [("A.run", "t1", "map", 0.5), ("A.run", "t2", "map", 0.25), ("A.run", "t3", "map", 0.75),
                   ("B.run", "t1", "map", 0.5), ("B.run", "t3", "map", 0.125)])  # B.run lacks t2
    text = api.compare_runs(per_query_file=runs, complete=True, tests="t,wilcoxon")
    legend = text.splitlines()[-2:]
    assert legend == ["Queries: 3 (missing values counted as 0, as trec_eval -c does).",
                      "Other tests computed (wilcoxon): see the jsonl or csv output format."]
    assert flags_in("\n".join(legend)) == []
    res = run_module_inproc("compare", ["-P", runs, "-c", "--tests", "t,wilcoxon"], cwd=ROOT)
    assert (res.returncode, res.stdout) == (0, text)


@pytest.mark.parametrize(("keyword", "value", "flag"), [
    ("resamples", -1, "--resamples"), ("confidence", 1.5, "--confidence"), ("buckets", 0, "--buckets"),
    ("consensus_min", 0, "--consensus-min"), ("prior", 0.0, "--prior"), ("top_k", 0, "--top-k")])
def test_agrees_ranges_are_checked_once_before_the_report(keyword, value, flag):
    """c37 found ``agree.report.check_options``' range checks reached by no caller: ``agreement_report``'s one caller
    is :func:`pref_eval.api.agree`, which checks the same ranges first (and the command line's types before it).
    Session 28 removed the copies (one place per check); each range is still refused, naming the keyword in Python
    and the flag on the command line."""
    import inspect

    from pref_eval.agree.report import check_options

    assert keyword not in inspect.signature(check_options).parameters
    with pytest.raises(PrefEvalError) as err:
        api.agree([A, B], levels=["pair", "calibration", "document"], **{keyword: value})
    assert str(err.value).startswith(f"{keyword}: expected ") and flags_in(str(err.value)) == []
    res = run_module_inproc("agree", ["-J", A, "-J", B, flag, str(value)], cwd=ROOT)
    assert res.returncode == 2 and f"'{flag}'" in res.stderr and "Traceback" not in res.stderr


def test_no_common_query_and_the_score_file_measures_name_the_keyword(tmp_path):
    """Found by recording every error built while no command ran over the API tests (session 28): the refusal of a
    measure no query has for every run named ``-c`` to ``compare_runs`` and ``evaluate_runs`` (only ``compare``
    passed ``complete=True``), a zELO score-file measure on TREC qrels named ``-R``. The commands' lines as before
    (tests/test_no_common_query.py has them too)."""
    files = {"q.txt": "q1 0 d1 1\nq2 0 d1 1\n", "X.run": "q1 Q0 d1 1 3 X\n", "Y.run": "q2 Q0 d1 1 3 Y\n"}
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    q, runs = str(tmp_path / "q.txt"), [str(tmp_path / "X.run"), str(tmp_path / "Y.run")]
    no_common = ("map: no query has a value for every run (X.run, Y.run; 2 quer(y/ies), each lacking for some run): "
                 "nothing to average or test; {} counts a query a run lacks as 0")
    for call in (lambda: api.compare_runs(q, runs, measures=["map"], tests="t"),
                 lambda: api.evaluate_runs(q, runs, measures=["map"], output_format="text")):
        with pytest.raises(PrefEvalError) as err:
            call()
        assert str(err.value) == no_common.format("complete=True")
    for command in ("compare", "eval"):
        res = run_module_inproc(command, ["-R", "q.txt", "-m", "map", "-o", "text", "X.run", "Y.run"], cwd=tmp_path)
        assert (res.returncode, res.stderr) == (2, f"{_PROG[command]}: {no_common.format('-c')}\n")
    zelo = ("measure 'zndcg@10' is computed against a zELO score file: {} must be zelo_fit's scores TSV or zbench's "
            "JSON lines, not TREC qrels (docs/zelo_eval.md)")
    with pytest.raises(PrefEvalError) as err:
        api.evaluate(Q, [BM25], ["zndcg@10"])
    assert str(err.value) == zelo.format("the qrels") and flags_in(str(err.value)) == []
    res = run_module_inproc("eval", ["-R", Q, "-m", "zndcg@10", BM25, DENSE], cwd=ROOT)
    assert (res.returncode, res.stderr) == (2, "zelo_eval: " + zelo.format("-R (the API's qrels)") + "\n")
