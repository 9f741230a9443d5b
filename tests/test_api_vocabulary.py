"""One vocabulary for the public API (session 25, a35).

* **One keyword per concept.** The format of the judgment files was ``judgment_format`` (``fit``), ``fmt``
  (``agree``, ``plot_matrix``, ``pairs_add``) and ``judgments_format`` (``evaluate``, ``evaluate_runs``): now
  ``judgments_format`` everywhere (the keyword it qualifies is ``judgments``). The output's format was
  ``fmt`` (``evaluate_runs``, ``compare_runs``, ``compare_orderings``) beside ``output_format`` (``fit``,
  ``pairs``, ``agree``): now ``output_format`` everywhere (zelo_eval's flag is ``--output-format``). The old
  spellings still work with a ``DeprecationWarning`` naming the new keyword; both at once are refused.
* **A refusal names what the caller wrote**: the keyword for a Python caller (``digits``, ``run_id_mode``,
  ``output_format='jsonl'``), the flag on the command line (``--digits``, ``--run-id``, ``-o jsonl``):
  ``pref_eval.errors.option_name`` / ``option_value`` (a command runs while ``COMMAND_LINE_FLAGS`` is set).
  Each message below named the flag for a Python caller before.
"""
from __future__ import annotations

import inspect
import os
import tempfile
import warnings
from pathlib import Path

import pytest

import pref_eval
import pref_eval.api as api
from cli_harness import run_module_inproc
from pref_eval.errors import UsageError

ROOT = Path(__file__).resolve().parent.parent
Q, BM25, DENSE = "qrels/dl19-sample.qrels", "runs/bm25.run", "runs/dense.run"
JUDGE = "judgments/dl19-sample.judge"
A, B = "judgments/dl21-crowd-sample.txt", "judgments/dl21-gpt4o-sample.human"
PQ = "tests/data/stats/perquery.tsv"
ORDER_A, ORDER_B = "tests/data/stats/order_a.tsv", "tests/data/stats/order_b.txt"
NEVER_WRITTEN = os.path.join(tempfile.gettempdir(), "test_api_vocabulary.never-written.svg")  # (refused before)

# (function, old keyword, new keyword)
RENAMED = [(api.fit, "judgment_format", "judgments_format"), (pref_eval.fit, "judgment_format", "judgments_format"),
           (api.agree, "fmt", "judgments_format"), (pref_eval.agreement, "fmt", "judgments_format"),
           (api.plot_matrix, "fmt", "judgments_format"), (api.pairs_add, "fmt", "judgments_format"),
           (api.evaluate_runs, "fmt", "output_format"), (api.compare_runs, "fmt", "output_format"),
           (api.compare_orderings, "fmt", "output_format")]


@pytest.mark.parametrize(("func", "old", "new"), RENAMED,
                         ids=[f"{f.__module__}.{f.__name__}.{o}" for f, o, _ in RENAMED])
def test_the_signature_shows_the_new_keyword_only(func, old, new):
    params = inspect.signature(func).parameters
    assert new in params and old not in params


def _same_with_either_spelling(call, old: str, new: str, value: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the new keyword: no warning
        by_new = call(**{new: value})
    with pytest.warns(DeprecationWarning, match=rf"\({old}=\.\.\.\) is deprecated: the keyword is {new}$"):
        by_old = call(**{old: value})
    assert repr(by_new) == repr(by_old)
    with pytest.raises(UsageError, match=rf"^{old} and {new} given: {old} is the old name of {new}; give {new} only"):
        call(**{old: value, new: value})


def test_judgments_format_of_fit_and_agree(tmp_path):
    for fit in (api.fit, pref_eval.fit):
        _same_with_either_spelling(lambda fit=fit, **kw: fit(JUDGE, **kw).to_dict(), "judgment_format",
                                   "judgments_format", "clarke3")
    for agree in (api.agree, pref_eval.agreement):
        _same_with_either_spelling(lambda agree=agree, **kw: agree([A, A], levels=["pair"], resamples=0, **kw), "fmt",
                                   "judgments_format", "clarke4")


def test_judgments_format_of_plot_matrix_and_pairs_add(tmp_path):
    _same_with_either_spelling(
        lambda **kw: (api.plot_matrix([JUDGE], api.PlotImage(str(tmp_path / "m.svg"), 4, 3), qid="1037798", **kw),
                      (tmp_path / "m.svg").read_bytes())[1], "fmt", "judgments_format", "clarke3")
    (tmp_path / "q").write_text("1 0 a 1\n1 0 b 1\n1 0 c 1\n1 0 d 1\n")

    def add(**kw):
        state = tmp_path / "state.json"
        state.unlink(missing_ok=True)
        api.pairs_init(str(state), str(tmp_path / "q"), k=1, seed=0)
        pairs = api.pairs_next(str(state), output=str(tmp_path / "req"))
        (tmp_path / "j").write_text("".join(f"{q} {a} {b}\n" for q, a, b in pairs))
        return api.pairs_add(str(state), [str(tmp_path / "j")], **kw).comparisons

    _same_with_either_spelling(add, "fmt", "judgments_format", "clarke3")


def test_output_format_of_evaluate_runs_compare_runs_and_compare_orderings(tmp_path):
    def evaluate(**kw):
        api.evaluate_runs(Q, [BM25, DENSE], measures=["map"], output=str(tmp_path / "e"), **kw)
        return (tmp_path / "e").read_text()

    _same_with_either_spelling(evaluate, "fmt", "output_format", "tsv")
    _same_with_either_spelling(lambda **kw: api.compare_runs(per_query_file=PQ, tests="t", **kw), "fmt",
                               "output_format", "jsonl")
    _same_with_either_spelling(lambda **kw: api.compare_orderings(ORDER_A, ORDER_B, **kw), "fmt", "output_format",
                               "csv")


def test_the_old_spellings_are_written_once_in_the_docs():
    text = (ROOT / "docs" / "api.md").read_text()
    assert "fmt=" not in text
    assert "judgment_format" in text and text.count("judgment_format") == 1


# ---- refusals name the keyword in Python, the flag on the command line ------------------------------------------

# (id, Python call, its message, command, its arguments, its message): each Python message named the flag before
KINDS = [
    ("digits-not-in-jsonl", lambda: api.compare_runs(per_query_file=PQ, output_format="jsonl", digits=3),
     "digits applies to the tables (output_format text, markdown, latex); output_format='jsonl' writes every "
     "record in full precision",
     "compare", ["-P", PQ, "-o", "jsonl", "--digits", "3"],
     "--digits applies to the tables (-o text, markdown, latex); -o jsonl writes every record in full precision"),
    ("digits-range", lambda: api.compare_runs(per_query_file=PQ, digits=30),
     "digits: expected an integer 0..17, got 30", None, None, None),
    ("digits-range-orderings", lambda: api.compare_orderings(ORDER_A, ORDER_B, digits=-1),
     "digits: expected an integer 0..17, got -1", None, None, None),
    ("digits-range-agree", lambda: api.agree([A, B], levels=["pair"], digits=-1),
     "digits: expected an integer 0..17, got -1", None, None, None),
    ("marker-test", lambda: api.compare_runs(per_query_file=PQ, tests="t", marker_test="sign"),
     "marker_test='sign' is not among tests='t'",
     "compare", ["-P", PQ, "--tests", "t", "--marker-test", "sign"], "--marker-test sign is not among --tests t"),
    ("orderings-format", lambda: api.compare_orderings(ORDER_A, ORDER_B, output_format="latex"),
     "compare_orderings supports output_format text, markdown, csv or jsonl",
     "compare", ["--orderings", ORDER_A, ORDER_B, "-o", "latex"],
     "--orderings supports -o text, markdown, csv or jsonl"),
    ("run-id-mode", lambda: api.compare_runs(qrels=Q, runs=[BM25, DENSE], measures=["map"], run_id_mode="bogus"),
     "run_id_mode 'bogus': expected one of path, tag", None, None, None),
    ("judgments-format-alone", lambda: pref_eval.evaluate(Q, [BM25], ["map"], judgments_format="clarke3"),
     "judgments_format given without judgments",
     "eval", ["-R", Q, "-m", "map", "--judgments-format", "clarke3", BM25],
     "--judgments-format given without -P judgments"),
    ("judgments-unused", lambda: pref_eval.evaluate(Q, [BM25], ["map"], judgments=JUDGE),
     "pairwise judgments given (judgments) but no requested measure uses them (e.g. PGC)",
     "eval", ["-R", Q, "-m", "map", "-P", JUDGE, BM25],
     "pairwise judgments given (-P) but no requested measure uses them (e.g. PGC)"),
    ("best-unused", lambda: pref_eval.evaluate(Q, [BM25], ["map"], best=Q),
     "a best-item set given (best) but no requested measure uses it (BestRR, BestSuccess@k)",
     "eval", ["-R", Q, "-m", "map", "-B", Q, BM25],
     "a best-item set given (-B) but no requested measure uses it (BestRR, BestSuccess@k)"),
    ("agreement-weights", lambda: api.fit(JUDGE, agreement_weights=True, weight_power=0),
     "agreement_weights=True has no effect with weight_power=0 (every judgment weighs 1, a tied ensemble too); "
     "give a power above 0, or drop agreement_weights=True",
     "fit", ["-J", JUDGE, "--weights", "agreement", "--weight-power", "0"],
     "--weights agreement has no effect with --weight-power 0 (every judgment weighs 1, a tied ensemble too); "
     "give a power above 0, or drop --weights agreement"),
    ("agree-one-file", lambda: api.agree([A], levels=["pair"]),
     "agree needs at least two judgment files: judgments=[REFERENCE, OTHER, ...]",
     "agree", ["-J", A, "--level", "pair"], "zelo_agree needs at least two judgment files (-J REFERENCE -J OTHER ...)"),
    ("agree-names", lambda: api.agree([A, B], names=["x"], levels=["pair"]),
     "names: 1 given for 2 judgment files (one name per file)",
     "agree", ["-J", A, "-J", B, "--name", "x", "--level", "pair"], "--name given 1 times for 2 judgment files"),
    ("means", lambda: api.evaluate_runs(Q, [BM25, DENSE], measures=["rpp", "ap"], output_format="tsv", means=True),
     "means applies to output_format='pref' (the per-run mean lines); output_format='tsv' holds each run's metric "
     "values already (the 'all' rows)",
     "eval", ["-R", Q, "-m", "rpp", "-m", "ap", "-o", "tsv", "--means", BM25, DENSE],
     "--means applies to -o pref (the per-run mean lines); -o tsv holds each run's metric values already (the "
     "'all' rows)"),
    ("strategy-only", lambda: api.simulate_recovery(ks=(4,), sigma=(1.0,), cycles=(1,), trials=1, window=3),
     "window applies only to strategy='adaptive'", None, None, None),
    ("ks-range", lambda: api.simulate_recovery(ks=(1,), sigma=(1.0,), cycles=(1,), trials=1),
     "ks: expected integers >= 2, got 1", None, None, None),
    ("sigma-range", lambda: api.simulate_recovery(ks=(4,), sigma=(-1.0,), cycles=(1,), trials=1),
     "sigma: expected numbers in (0, 1e+06], got -1.0", None, None, None),
    ("case-or-matrix", lambda: api.simulate_bandit("dts", reps=1, budget=5), "give exactly one of case and matrix",
     None, None, None),
    ("bandit-parameter", lambda: api.simulate_bandit("dts", case="A", reps=1, budget=5, c=2.0),
     "c does not apply to algorithm='dts'", None, None, None),
    ("no-algorithms", lambda: api.simulate_figure3(reps=1, algorithms=[]), "algorithms is empty", None, None, None),
    ("goal", lambda: api.pairs_init(str(ROOT / "no-such-dir" / "state.json"), Q, goal="ranking"),
     "goal applies to strategy='adaptive'", None, None, None),
    ("run-ids-with-per-query", lambda: api.compare_runs(per_query_file=PQ, run_id_mode="tag"),
     "run_id_mode/run_names apply to runs evaluated against qrels (a per_query_file names its runs)",
     "compare", ["-P", PQ, "--run-id", "tag"],
     "--run-id/--name apply to run files evaluated with -R (-P files hold their names)"),
    ("run-ids-with-per-query-plot", lambda: api.plot_systems(api.PlotValues(per_query_file=PQ, run_id_mode="tag"),
                                                             api.PlotImage(NEVER_WRITTEN, 4, 3)),
     "run_id_mode/run_names apply to runs evaluated against qrels (a per_query_file names its runs)",
     None, None, None),
    ("measures-needed", lambda: api.compare_runs(qrels=Q, runs=[BM25, DENSE]),
     "qrels and runs need at least one measure (measures=[...])",
     "compare", ["-R", Q, BM25, DENSE], "-R needs at least one -m MEASURE"),
    ("keep-going", lambda: api.compare_runs(per_query_file=PQ, keep_going=True),
     "keep_going applies to runs evaluated against qrels (a per_query_file is read whole)", None, None, None),
    ("qrels-or-per-query", lambda: api.compare_runs(), "give either qrels with runs, or per_query_file",
     None, None, None),
    ("pool-level", lambda: api.pairs_pool([BM25, DENSE], 5, level=2, output=None),
     "level applies to contributions with qrels (the relevant documents it counts)", None, None, None),
    ("pool-groups", lambda: api.pairs_pool([BM25, DENSE], 5, group_sep="_", output=None),
     "group_sep applies to contributions (the report per group)", None, None, None),
]


@pytest.mark.parametrize(("call", "message", "command", "args", "command_message"), [k[1:] for k in KINDS],
                         ids=[k[0] for k in KINDS])
def test_a_refusal_names_the_keyword_in_python_and_the_flag_on_the_command_line(call, message, command, args,
                                                                                command_message):
    with pytest.raises(UsageError) as err:
        call()
    assert str(err.value) == message
    if command is not None:
        res = run_module_inproc(command, args, cwd=ROOT)
        prog = {"compare": "zelo_compare", "eval": "zelo_eval", "fit": "zelo_fit", "agree": "zelo_agree"}[command]
        assert (res.returncode, res.stderr) == (2, f"{prog}: {command_message}\n")


def test_a_command_run_before_leaves_no_flag_names_behind():
    """The context variable is reset after a command: a later Python call is named by its keywords."""
    assert run_module_inproc("compare", ["-P", PQ, "-o", "jsonl", "--digits", "3"], cwd=ROOT).returncode == 2
    with pytest.raises(UsageError, match="^digits applies to the tables"):
        api.compare_runs(per_query_file=PQ, output_format="jsonl", digits=3)


# ---- evaluate_runs / zelo_eval (session 25, n35) -----------------------------------------------------------------

SCORES = "qid\tdocno\tscore\tse\nq1\ta\t1.0\t0.1\nq1\tb\t0.0\t0.1\n"  # a zelo_fit score file: the zELO scores mode
PREF = "(use output_format='pref', or measures=['rpp', ...] with output_format='tsv')", \
    "(use -o pref, or -m rpp ... with -o tsv)"
TOPICS = "topics|topics-csv|topics-jsonl|topics-text|topics-markdown|topics-latex"
DIGITS = "text|markdown|latex|topics-text|topics-markdown|topics-latex"
EXTRA = "it serves registry measures such as PGC or BestRR (metric mode)"
# (id, qrels ("SC": a score file), runs, keywords, zelo_eval's arguments, the Python message, the command's);
# "{sc}" in a message is the score file's path
EVAL_KINDS = [
    ("scores-format", "SC", [BM25], {"output_format": "topics"}, ["-o", "topics"],
     "output_format='topics' applies to metric mode (trec_eval measures), not to a zELO score file ({sc})",
     "-o topics applies to metric mode (trec_eval measures), not to a zELO score file ({sc})"),
    ("scores-keep-going", "SC", [BM25], {"keep_going": True}, ["--keep-going"],
     "keep_going applies to metric mode (trec_eval measures), not to a zELO score file ({sc})",
     "--keep-going applies to metric mode (trec_eval measures), not to a zELO score file ({sc})"),
    ("scores-jobs", "SC", [BM25], {"jobs": 2}, ["--jobs", "2"],
     "jobs/scheduler apply to metric mode (trec_eval measures), not to a zELO score file",
     "--jobs/--scheduler apply to metric mode (trec_eval measures), not to a zELO score file"),
    ("scores-options", "SC", [BM25], {"binary": 1, "complete": True}, ["-b", "1", "-c"],
     "not applicable with a zELO score file ({sc}): binary, complete",
     "not applicable with a zELO score file ({sc}): -b, -c"),
    ("scores-trec9", "SC", [BM25], {"trec9": True}, ["--trec-eval-9"],
     "not applicable with a zELO score file ({sc}): trec9",
     "not applicable with a zELO score file ({sc}): --trec-eval-9"),
    ("scores-head", "SC", [BM25], {"head": True}, ["--pref-eval-head"],
     "not applicable with a zELO score file ({sc}): head",
     "not applicable with a zELO score file ({sc}): --pref-eval-head"),
    ("scores-measure-set", "SC", [BM25], {"measure_set": "trec"}, ["-M", "trec"],
     "measure_set='trec': with a zELO score file use measures zndcg|zndcg@K|zacc|zrecall@K[,KGT] (a measure_set of "
     "digits limits the candidates)",
     "-M trec: with a zELO score file use -m zndcg|zndcg@K|zacc|zrecall@K[,KGT] (-M N limits the candidates)"),
    ("scores-pref", "SC", [BM25], {"output_format": "pref"}, ["-o", "pref"],
     "output_format='pref' needs qrels; with a zELO score file use output_format "
     "trec|tsv|csv|jsonl|text|markdown|latex|wide-csv",
     "-o pref needs qrels; with a zELO score file use -o trec|tsv|csv|jsonl|text|markdown|latex|wide-csv"),
    ("scores-judgments", "SC", [BM25], {"judgments": JUDGE}, ["-P", JUDGE],
     f"judgments is not applicable with a zELO score file: {EXTRA}",
     f"-P is not applicable with a zELO score file: {EXTRA}"),
    ("depth", Q, [BM25], {"measure_set": "0"}, ["-M", "0"], "measure_set='0': the depth must be positive",
     "-M 0: the depth must be positive"),
    ("trec9-pref", Q, [BM25, DENSE], {"measures": ["rpp"], "trec9": True}, ["-m", "rpp", "--trec-eval-9"],
     "trec9 applies to trec_eval measures (metric mode: output_format='trec', or output_format='tsv' with trec_eval "
     "names), not to preference mode",
     "--trec-eval-9 applies to trec_eval measures (metric mode: -o trec, or -o tsv with trec_eval names), not to "
     "preference mode"),
    ("keep-going-pool", Q, [BM25, DENSE], {"measures": ["rpp"], "keep_going": True, "label_fraction": 0.5,
                                           "label_policy": "pool"},
     ["-m", "rpp", "--keep-going", "--label_fraction", "0.5", "--label_fraction_policy", "pool"],
     "keep_going is refused with label_policy='pool': the labels kept depend on every run's documents, so leaving a "
     "run out would change the other runs' numbers",
     "--keep-going is refused with --label_fraction_policy pool: the labels kept depend on every run's documents, so "
     "leaving a run out would change the other runs' numbers"),
    ("judgments-pref", Q, [BM25, DENSE], {"output_format": "pref", "judgments": JUDGE}, ["-o", "pref", "-P", JUDGE],
     f"judgments is not applicable with output_format='pref' (preference mode): {EXTRA}",
     f"-P is not applicable with -o pref (preference mode): {EXTRA}"),
    ("best-pref", Q, [BM25, DENSE], {"measures": ["rpp"], "output_format": "tsv", "best": Q},
     ["-m", "rpp", "-o", "tsv", "-B", Q], f"best is not applicable in preference mode: {EXTRA}",
     f"-B is not applicable in preference mode: {EXTRA}"),
    ("level-pref", Q, [BM25, DENSE], {"measures": ["rpp"], "level": 2}, ["-m", "rpp", "-l", "2"],
     "level applies to metric mode (trec_eval measures); in preference mode binary=G makes grade >= G relevant",
     "-l applies to metric mode (trec_eval measures); in preference mode -b G makes grade >= G relevant"),
    ("complete-pref", Q, [BM25, DENSE], {"measures": ["rpp"], "complete": True}, ["-m", "rpp", "-c"],
     "complete applies to metric mode (trec_eval measures); preference mode always evaluates every qrels query with "
     "a relevant document (a run lacking one retrieved nothing)",
     "-c applies to metric mode (trec_eval measures); preference mode always evaluates every qrels query with a "
     "relevant document (a run lacking one retrieved nothing)"),
    ("binary-metric", Q, [BM25], {"measures": ["map"], "binary": 1}, ["-m", "map", "-b", "1"],
     f"binary applies to preference measures {PREF[0]}", f"-b applies to preference measures {PREF[1]}"),
    ("samples-metric", Q, [BM25], {"measures": ["map"], "samples": 3}, ["-m", "map", "--samples", "3"],
     f"samples applies to preference measures {PREF[0]}", f"--samples applies to preference measures {PREF[1]}"),
    ("pref-one-run", Q, [BM25], {"output_format": "pref"}, ["-o", "pref"],
     "need at least two runs for comparison (or output_format trec|tsv|csv|jsonl for one run)",
     "need at least two runs for comparison (or -o trec|tsv|csv|jsonl for one run)"),
    ("means-no-metric", Q, [BM25, DENSE], {"measures": ["rpp"], "means": True, "output_format": "pref"},
     ["-m", "rpp", "--means"],
     "means adds a per-run mean line for every metric (ap, ndcg, p@10, ...): none is requested",
     "--means adds a per-run mean line for every metric (ap, ndcg, p@10, ...): none is requested"),
    ("measure-set-pref", Q, [BM25], {"measure_set": "preferences", "output_format": "trec"},
     ["-M", "preferences", "-o", "trec"],
     "measure_set='preferences' is a preference measure set; use output_format='pref' (or output_format='tsv' with "
     "it)", "-M preferences is a preference measure set; use -o pref (or -o tsv with it)"),
    ("topics-per-query", Q, [BM25, DENSE], {"output_format": "topics", "per_query": True, "measures": ["map"]},
     ["-o", "topics", "-q", "-m", "map"],
     "output_format='topics' is per topic already: per_query does not apply (summary=False leaves out the 'all' rows)",
     "-o topics is per topic already: -q does not apply (-n leaves out the 'all' rows)"),
    ("quartiles", Q, [BM25], {"output_format": "tsv", "quartiles": True, "measures": ["map"]},
     ["-o", "tsv", "--quartiles", "-m", "map"],
     f"quartiles applies to output_format {TOPICS} (the per-topic table), not to output_format='tsv'",
     f"--quartiles applies to -o {TOPICS} (the per-topic table), not to -o tsv"),
    ("run-types", Q, [BM25], {"run_types": Q, "measures": ["map"]}, ["--run-types", Q, "-m", "map"],
     f"run_types applies to output_format {TOPICS} (the per-topic table), not to the default output",
     f"--run-types applies to -o {TOPICS} (the per-topic table), not to the default output"),
    ("median", Q, [BM25], {"output_format": "csv", "median": "upper", "measures": ["map"]},
     ["-o", "csv", "--median", "upper", "-m", "map"],
     f"median applies to output_format {TOPICS} (the per-topic table), not to output_format='csv'",
     f"--median applies to -o {TOPICS} (the per-topic table), not to -o csv"),
    ("digits-eval", Q, [BM25], {"output_format": "tsv", "digits": 3, "measures": ["map"]},
     ["-o", "tsv", "--digits", "3", "-m", "map"],
     f"digits applies to output_format {DIGITS} (tables to read), not to output_format='tsv' (full precision)",
     f"--digits applies to -o {DIGITS} (tables to read), not to -o tsv (full precision)"),
    ("topics-pref", Q, [BM25, DENSE], {"output_format": "topics", "measures": ["rpp"]}, ["-o", "topics", "-m", "rpp"],
     "output_format='topics' is a table of trec_eval measures (metric mode), not of preference measures",
     "-o topics is a table of trec_eval measures (metric mode), not of preference measures"),
    ("wide-pref", Q, [BM25, DENSE], {"output_format": "wide-csv", "measures": ["rpp"]},
     ["-o", "wide-csv", "-m", "rpp"],
     "output_format='wide-csv' is a runs x measures table of trec_eval measures (metric mode); preference measures "
     "between runs as a table: compare_runs(qrels, runs, measures=[NAME], output_format='csv')",
     "-o wide-csv is a runs x measures table of trec_eval measures (metric mode); preference measures between runs "
     "as a table: zelo_compare -R QRELS -m NAME -o csv"),
    ("means-table", Q, [BM25, DENSE], {"output_format": "text", "measures": ["map"], "per_query": True},
     ["-o", "text", "-m", "map", "-q"],
     "output_format='text' is a table of means: per_query/summary=False do not apply (use output_format='tsv' for "
     "per-query values)", "-o text is a table of means: -q/-n do not apply (use -o tsv for per-query values)"),
    ("no-per-query-values", Q, [BM25, DENSE], {"output_format": "text", "measures": ["num_q"]},
     ["-o", "text", "-m", "num_q"],
     "output_format='text': no per-query values (summary-only measures such as gm_map or num_q)",
     "-o text: no per-query values (summary-only measures such as gm_map or num_q)"),
]


@pytest.mark.parametrize(("qrels", "runs", "kwargs", "args", "message", "command_message"),
                         [k[1:] for k in EVAL_KINDS], ids=[k[0] for k in EVAL_KINDS])
def test_evaluate_runs_names_the_keyword_and_zelo_eval_the_flag(tmp_path, qrels, runs, kwargs, args, message,
                                                               command_message):
    sc = tmp_path / "scores.tsv"
    sc.write_text(SCORES)
    qrels = str(sc) if qrels == "SC" else qrels
    with pytest.raises(UsageError) as err:
        api.evaluate_runs(qrels, runs, output=str(tmp_path / "out"), **kwargs)
    assert str(err.value) == message.format(sc=sc)
    res = run_module_inproc("eval", ["-R", qrels, *args, *runs], cwd=ROOT)
    assert (res.returncode, res.stderr) == (2, f"zelo_eval: {command_message.format(sc=sc)}\n")
    assert not (tmp_path / "out").exists()


def test_the_reference_left_out_by_keep_going_is_named_by_its_keyword(tmp_path):
    from pref_eval.errors import EvaluationError

    bad = tmp_path / "bad.run"
    bad.write_text("garbage\n")
    kw = {"measures": ["rpp"], "output_format": "pref", "keep_going": True, "reference": str(bad)}
    with pytest.raises(EvaluationError) as err:
        api.evaluate_runs(Q, [BM25, DENSE, str(bad)], output=str(tmp_path / "out"), **kw)
    tail = f"could not be evaluated ({{}}: {bad} left out, its error above); nothing written"
    assert str(err.value) == f"reference {str(bad)!r} " + tail.format("keep_going")
    res = run_module_inproc("eval", ["-R", Q, "-m", "rpp", "--keep-going", "--reference", str(bad), BM25, DENSE,
                                     str(bad)], cwd=ROOT)
    assert res.returncode == 2 and res.stderr.endswith(f"zelo_eval: --reference {str(bad)!r} "
                                                        + tail.format("--keep-going") + "\n")


# ---- judge / zelo_judge (session 25, n35) ------------------------------------------------------------------------

SPEC = "cmd:false"
# (id, keywords, zelo_judge's arguments, the Python message, the command's); "{tmp}" is the test's directory
JUDGE_KINDS = [
    ("api-key-env", {"api_key_env": "sk-123"}, ["--api-key-env", "sk-123"],
     "api_key_env must name an environment variable, not hold a key",
     "--api-key-env must name an environment variable, not hold a key"),
    ("max-cost", {"max_cost": 1.0}, ["--max-cost", "1"], f"max_cost needs an entry of prices for {SPEC!r}",
     f"--max-cost needs a --price for {SPEC!r}"),
    ("output-is-store", {"output": "{tmp}/s.sqlite-wal"}, ["-o", "{tmp}/s.sqlite-wal"],
     "output file {tmp}/s.sqlite-wal is the same file as store {tmp}/s.sqlite; refusing to overwrite it",
     "output file {tmp}/s.sqlite-wal is the same file as --store {tmp}/s.sqlite; refusing to overwrite it"),
    ("backoff", {"retries": 0, "backoff": 2.0}, ["--retries", "0", "--backoff", "2"],
     "backoff sets the waits between retries: none with retries=0",
     "--backoff sets the waits between retries: none with --retries 0"),
    ("seed-retries", {"retries": 0, "seed": 3}, ["--retries", "0", "--seed", "3"],
     "seed seeds the jitter of the waits between retries: none with retries=0",
     "--seed seeds the jitter of the waits between retries: none with --retries 0"),
    ("seed-backoff", {"backoff": 0.0, "seed": 3}, ["--backoff", "0", "--seed", "3"],
     "seed seeds the jitter of the waits between retries: none with backoff=0",
     "--seed seeds the jitter of the waits between retries: none with --backoff 0"),
    ("ties", {"ties": "zbench"}, ["--ties", "zbench"],
     "ties applies with state (fit applies its own ties to the votes written)",
     "--ties applies with --state (zelo_fit applies its own --ties to the votes written)"),
    ("missing-text", {"missing_text": "tie"}, ["--missing-text", "tie"],
     "missing_text applies with state (without it a pair lacking a text is left out of the output, and zelo_fit "
     "needs no judgment of every pair)",
     "--missing-text applies with --state (without it a pair lacking a text is left out of the output, and zelo_fit "
     "needs no judgment of every pair)"),
    ("judges-type", {"judges": [SPEC, 3]}, None, "judges: expected a spec string, got int 3", None),
    ("concurrency", {"concurrency": 0}, None, "concurrency: expected an integer 1..4096, got 0", None),
    ("state-type", {"pairs": None, "state": 3}, None, "state: expected a path, got int (write the pairs to a file: "
     "zelo_pairs cycles -o, or pref_eval.pairs(..., output=FILE))", None),
]


@pytest.mark.parametrize(("kwargs", "args", "message", "command_message"), [k[1:] for k in JUDGE_KINDS],
                         ids=[k[0] for k in JUDGE_KINDS])
def test_judge_names_the_keyword_and_zelo_judge_the_flag(tmp_path, kwargs, args, message, command_message):
    (tmp_path / "p.tsv").write_text("q1\td1\td2\n")
    (tmp_path / "q.tsv").write_text("q1\tquery one\n")
    (tmp_path / "d.tsv").write_text("d1\tdoc one\nd2\tdoc two\n")
    files = {"queries": str(tmp_path / "q.tsv"), "docs": str(tmp_path / "d.tsv"), "store": str(tmp_path / "s.sqlite")}
    call = {"pairs": str(tmp_path / "p.tsv"), "judges": [SPEC], **files}
    call.update({k: v.format(tmp=tmp_path) if isinstance(v, str) else v for k, v in kwargs.items()})
    with pytest.raises(UsageError) as err:
        api.judge(**call)
    assert str(err.value) == message.format(tmp=tmp_path)
    if args is not None:
        res = run_module_inproc("judge", [str(tmp_path / "p.tsv"), "--judge", SPEC,
                                          *(x for k, v in files.items() for x in (f"--{k}", v)),
                                          *(a.format(tmp=tmp_path) for a in args)], cwd=tmp_path)
        assert (res.returncode, res.stderr) == (2, f"zelo_judge: {command_message.format(tmp=tmp_path)}\n")
    assert not (tmp_path / "s.sqlite").exists()


# ---- pairs_init / zelo_pairs init, simulate_recovery / zelo_simulate recovery (session 25, n35) -----------------

PAIRS_KINDS = [
    ("cycles-tournament", {"cycles": 2}, ["--cycles", "2"],
     "cycles does not apply to strategy='tournament' (it belongs to strategy='adaptive', goal='ranking')",
     "--cycles does not apply to --strategy tournament (it belongs to --strategy adaptive --goal ranking)"),
    ("max-per-pair-tournament", {"max_per_pair": 2}, ["--max-per-pair", "2"],
     "max_per_pair does not apply to strategy='tournament' (it belongs to strategy='adaptive')",
     "--max-per-pair does not apply to --strategy tournament (it belongs to --strategy adaptive)"),
    ("final-phase-adaptive", {"strategy": "adaptive", "final_phase": True},
     ["--strategy", "adaptive", "--final-phase"],
     "final_phase does not apply to strategy='adaptive' (it belongs to strategy='tournament')",
     "--final-phase does not apply to --strategy adaptive (it belongs to --strategy tournament)"),
]


@pytest.mark.parametrize(("kwargs", "args", "message", "command_message"), [k[1:] for k in PAIRS_KINDS],
                         ids=[k[0] for k in PAIRS_KINDS])
def test_pairs_init_names_the_keyword_and_zelo_pairs_the_flag(tmp_path, kwargs, args, message, command_message):
    with pytest.raises(UsageError) as err:
        api.pairs_init(str(tmp_path / "s.json"), str(ROOT / Q), **kwargs)
    assert str(err.value) == message
    res = run_module_inproc("pairs", ["init", "--state", "s.json", "--qrels", str(ROOT / Q), *args], cwd=tmp_path)
    assert (res.returncode, res.stderr) == (2, f"zelo_pairs: {command_message}\n")
    assert not (tmp_path / "s.json").exists()


@pytest.mark.parametrize(("k", "python_hint", "command_hint"), [(5, "use cycles ≤ 2", "use --cycles ≤ 2"),
                                                                (2, "use ks ≥ 3 or strategy='cycles'",
                                                                 "use --K ≥ 3 or --strategy cycles")])
def test_simulate_recovery_adaptive_cycles_name_the_keywords(k, python_hint, command_hint):
    pairs = k * (k - 1) // 2
    tail = f"the adaptive strategy judges each pair at most once, and 3×{k} = {3 * k} pairs exceed the {pairs} " \
           f"distinct pairs of {k} documents"
    with pytest.raises(UsageError) as err:
        api.simulate_recovery(ks=(k,), sigma=(1.0,), cycles=(3,), trials=1, strategy="adaptive")
    assert str(err.value) == f"cycles 3 with ks {k}: {tail} ({python_hint})"
    res = run_module_inproc("simulate", ["recovery", "--K", str(k), "--sigma", "1", "--cycles", "3", "--trials", "1",
                                         "--strategy", "adaptive"], cwd=ROOT)
    assert (res.returncode, res.stderr) == (2, f"zelo_simulate: --cycles 3 with --K {k}: {tail} ({command_hint})\n")


def test_a_reference_or_baseline_not_among_the_runs_is_named_by_its_keyword():
    runs = [BM25, DENSE]
    with pytest.raises(UsageError, match=r"^reference 'x' is not one of the runs \(bm25\.run, dense\.run\)$"):
        api.evaluate_runs(Q, runs, measures=["rpp"], reference="x")
    with pytest.raises(UsageError, match=r"^baseline 'x' is not one of the runs \(bm25\.run, dense\.run\)$"):
        api.compare_runs(qrels=Q, runs=runs, measures=["rpp"], baseline="x")
    res = run_module_inproc("eval", ["-R", Q, "-m", "rpp", "--reference", "x", *runs], cwd=ROOT)
    assert (res.returncode, res.stderr) == (2, "zelo_eval: --reference 'x' is not one of the runs (bm25.run, "
                                               "dense.run)\n")
    res = run_module_inproc("compare", ["-R", Q, "-m", "rpp", "--baseline", "x", *runs], cwd=ROOT)
    # (zelo_compare's own check, stats/compare.py, comes first and names it so: unchanged)
    assert (res.returncode, res.stderr) == (2, "zelo_compare: baseline 'x' is not one of the runs (bm25.run, "
                                               "dense.run)\n")


# ---- compare_runs' mode options, pairs_pool (session 25, n35) ----------------------------------------------------

MORE_KINDS = [
    ("compare-binary", lambda: api.compare_runs(qrels=Q, runs=[BM25, DENSE], measures=["map"], binary=1),
     "binary applies to preference measures (rpp, lexiprecision, ...)",
     "compare", ["-R", Q, "-m", "map", "-b", "1", BM25, DENSE],
     "-b applies to preference measures (rpp, lexiprecision, ...)"),
    ("compare-level", lambda: api.compare_runs(qrels=Q, runs=[BM25, DENSE], measures=["rpp"], level=2),
     "level applies to trec_eval measures; with preference measures use binary/floor",
     "compare", ["-R", Q, "-m", "rpp", "-l", "2", BM25, DENSE],
     "-l applies to trec_eval measures; with preference measures use -b/-f"),
    ("compare-complete", lambda: api.compare_runs(qrels=Q, runs=[BM25, DENSE], measures=["rpp"], complete=True),
     "complete applies to trec_eval / ir-measures measures: preference measures and pref_eval.py's metrics (rpp) "
     "score a topic a run lacks on an empty ranking (as pref_eval.py), so every qrels topic with a relevant "
     "document counts already",
     "compare", ["-R", Q, "-m", "rpp", "-c", BM25, DENSE],
     "-c applies to trec_eval / ir-measures measures: preference measures and pref_eval.py's metrics (rpp) score a "
     "topic a run lacks on an empty ranking (as pref_eval.py), so every qrels topic with a relevant document counts "
     "already"),
    ("pool-no-run", lambda: api.pairs_pool([], 5), "no run file given (runs=[RUN, ...])",
     "pairs", ["pool", "--depth", "5"],
     "no run file given (usage: zelo_pairs pool --depth N [--qrels QRELS] RUN [RUN...])"),
    ("pool-stdout", lambda: api.pairs_pool([BM25], 5, contributions="-", output="-"),
     "contributions='-' and the pool (output='-') would share stdout: give output=FILE or contributions=FILE",
     "pairs", ["pool", "--depth", "5", "--contributions", "-", BM25],
     "--contributions - and the pool would share stdout: give the pool -o FILE, or --contributions FILE"),
    ("pool-group-sep", lambda: api.pairs_pool([BM25], 5, contributions=NEVER_WRITTEN, group_sep="a b", output=None),
     "group_sep: expected a non-empty separator without white space (a run tag holds none), got 'a b'",
     "pairs", ["pool", "--depth", "5", "--contributions", NEVER_WRITTEN, "--group-sep", "a b", BM25],
     "--group-sep: expected a non-empty separator without white space (a run tag holds none), got 'a b'"),
]


@pytest.mark.parametrize(("call", "message", "command", "args", "command_message"), [k[1:] for k in MORE_KINDS],
                         ids=[k[0] for k in MORE_KINDS])
def test_compare_and_pool_refusals_name_the_keyword(call, message, command, args, command_message):
    with pytest.raises(UsageError) as err:
        call()
    assert str(err.value) == message
    res = run_module_inproc(command, args, cwd=ROOT)
    prog = {"compare": "zelo_compare", "pairs": "zelo_pairs"}[command]
    assert (res.returncode, res.stderr) == (2, f"{prog}: {command_message}\n")
    assert not os.path.exists(NEVER_WRITTEN)


# ---- plot_systems / plot_pairs (session 25, n35) -----------------------------------------------------------------

_IMG = api.PlotImage(NEVER_WRITTEN, 4, 3)
PLOT_KINDS = [
    ("several-measures", lambda: api.plot_systems(api.PlotValues(per_query_file=PQ), _IMG),
     f"{PQ} holds several measures (ndcg, P_10): choose one with measure=", ["systems", "-P", PQ],
     f"{PQ} holds several measures (ndcg, P_10): choose one with -m"),
    ("per-query-and-qrels", lambda: api.plot_systems(api.PlotValues(per_query_file=PQ, qrels=Q, measure="map"), _IMG),
     "give either per_query_file or qrels with runs, not both", ["systems", "-P", PQ, "-R", Q, "-m", "map"],
     "give either -P PER_QUERY_FILE or -R QRELS with run files, not both"),
    ("qrels-without-runs", lambda: api.plot_systems(api.PlotValues(qrels=Q, measure="map"), _IMG),
     "expected qrels and at least one run, or per_query_file", ["systems", "-R", Q, "-m", "map"],
     "expected -R QRELS and at least one run file, or -P PER_QUERY_FILE"),
    ("no-measure", lambda: api.plot_systems(api.PlotValues(qrels=Q, runs=(BM25, DENSE)), _IMG),
     "choose a measure with measure= (e.g. measure='map' or measure='nDCG@10')", ["systems", "-R", Q, BM25, DENSE],
     "choose a measure with -m (e.g. -m map or -m nDCG@10)"),
    ("compare-file-and-values",
     lambda: api.plot_pairs(api.PlotValues(per_query_file=PQ, measure="map"), _IMG, compare_file=PQ),
     "give either compare_file or values with qrels, per_query_file or runs, not both",
     ["pairs", "-C", PQ, "-P", PQ, "-m", "map"], "give either -C COMPARE_JSONL or -R/-P, not both"),
]


@pytest.mark.parametrize(("call", "message", "args", "command_message"), [k[1:] for k in PLOT_KINDS],
                         ids=[k[0] for k in PLOT_KINDS])
def test_plot_refusals_name_the_keyword(call, message, args, command_message):
    with pytest.raises(UsageError) as err:
        call()
    assert str(err.value) == message
    res = run_module_inproc("plot", [*args, "-o", NEVER_WRITTEN], cwd=ROOT)
    assert (res.returncode, res.stderr) == (2, f"zelo_plot: {command_message}\n")
    assert not os.path.exists(NEVER_WRITTEN)


# ---- fit / zelo_fit (session 25, n35) ----------------------------------------------------------------------------

FIT_KINDS = [
    ("zbench-jobs", {"compat": "zbench", "jobs": 2}, ["--compat", "zbench", "--jobs", "2"],
     "compat='zbench' runs zbench's iteration serially; drop jobs/scheduler",
     "--compat zbench runs zbench's iteration serially; drop --jobs/--scheduler"),
    ("zbench-unused", {"compat": "zbench", "prior": 1.0, "tol": 1e-8}, ["--compat", "zbench", "--prior", "1", "--tol",
                                                                        "1e-8"],
     "prior, tol applies only with the default fit (not with compat='zbench')",
     "--prior, --tol applies only with the default fit (not with --compat zbench)"),
    ("bins-fixed-prior-0", {"prior": 0, "qrels_output": NEVER_WRITTEN, "bins": "fixed:0.5,1,2"},
     ["--prior", "0", "--qrels", NEVER_WRITTEN, "--bins", "fixed:0.5,1,2"],
     "bins='fixed:0.5,1,2': needs scores comparable across a query; with prior=0 they are centred per strongly "
     "connected component (use bins='quantile', which ranks by level then score, or a prior > 0)",
     "--bins fixed: needs scores comparable across a query; with --prior 0 they are centred per strongly connected "
     "component (use --bins quantile, which ranks by level then score, or a prior > 0)"),
    ("zbench-format-prior-0", {"prior": 0, "output_format": "zbench"}, ["--prior", "0", "--output-format", "zbench"],
     "output_format='zbench' has one score per document; with prior=0 the scores are centred per strongly connected "
     "component and not comparable across them (use the tsv format, with its component and level columns, or a "
     "prior > 0)",
     "--output-format zbench has one score per document; with --prior 0 the scores are centred per strongly "
     "connected component and not comparable across them (use the tsv format, with its component and level "
     "columns, or a prior > 0)"),
    ("grades-without-qrels", {"grades": "0,1"}, None, "grades applies with qrels_output, the graded qrels", None),
]


@pytest.mark.parametrize(("kwargs", "args", "message", "command_message"), [k[1:] for k in FIT_KINDS],
                         ids=[k[0] for k in FIT_KINDS])
def test_fit_names_the_keyword_and_zelo_fit_the_flag(kwargs, args, message, command_message):
    with pytest.raises(UsageError) as err:
        api.fit(JUDGE, **kwargs)
    assert str(err.value) == message
    if args is not None:
        res = run_module_inproc("fit", ["-J", JUDGE, *args, "-o", NEVER_WRITTEN], cwd=ROOT)
        assert (res.returncode, res.stderr) == (2, f"zelo_fit: {command_message}\n")
    assert not os.path.exists(NEVER_WRITTEN)
