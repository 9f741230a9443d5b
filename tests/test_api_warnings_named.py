"""Warnings a Python call reaches name the keyword the caller passed; the commands' lines are unchanged (session 26,
r36; session 25's n35 leftover: ``log.warn`` still named flags, ``-M X ignored because -m is given`` for
``evaluate_runs(measure_set=..., measures=...)``).

Each case: the public function with a recording log (the keyword's spelling), and where a command reaches the same
warning, the command's whole line as it was before (``pref_eval.errors.option_name`` / ``option_value``: the flag
while a command runs). Every Python-side assertion fails on the old code (it named the flag).
"""
from __future__ import annotations

import os
import pickle
import types
import warnings

import pytest

import pref_eval.api as api
from cli_harness import run_module_inproc
from pref_eval.errors import COMMAND_LINE_FLAGS, UsageError
from pref_eval.log import Log

Q, BM25, DENSE = "qrels/dl19-sample.qrels", "runs/bm25.run", "runs/dense.run"


class Recording(Log):
    def __init__(self) -> None:
        super().__init__("test", quiet=False)
        self.lines: list[str] = []

    def warn(self, message: str) -> None:
        self.lines.append(message)


@pytest.fixture()
def one_topic_run(tmp_path):
    with open(BM25, encoding="utf-8") as fh:
        lines = fh.read().splitlines()
    first = lines[0].split()[0]
    path = tmp_path / "one.run"
    path.write_text("".join(f"{x}\n" for x in lines if x.split()[0] == first))
    return str(path)


def _python(tmp_path, runs, **kw) -> list[str]:
    log = Recording()
    api.evaluate_runs(Q, runs, output=str(tmp_path / "out"), log=log, **kw)
    return log.lines


def _command(module: str, *args) -> list[str]:
    res = run_module_inproc(module, list(args))
    assert res.returncode == 0, res.stderr
    return res.stderr.splitlines()


def test_missing_topics_name_complete(tmp_path, one_topic_run):
    tail = "run lacks 7 of 8 qrels topics; averaging over the topics in both"
    name = os.path.basename(one_topic_run)  # the run's id, as the output names it (docs/run-ids.md)
    assert _python(tmp_path, [one_topic_run], measures=["map"], output_format="tsv") == [
        f"{name}: {tail} (use complete=True to count them as zero)"]
    assert _command("eval", "-R", Q, "-m", "map", "-o", "tsv", one_topic_run) == [
        f"zelo_eval: warning: {name}: {tail} (use -c to count them as zero)"]


def test_measure_set_ignored_names_the_keywords(tmp_path):
    assert _python(tmp_path, [BM25, DENSE], measures=["rpp"], measure_set="all") == [
        "measure_set='all' ignored because measures is given (as pref_eval.py)"]
    assert _command("eval", "-R", Q, "-m", "rpp", "-M", "all", BM25, DENSE) == [
        "zelo_eval: warning: -M all ignored because -m is given (as pref_eval.py)"]


def test_no_relevant_document_names_binary_and_floor(tmp_path):
    assert _python(tmp_path, [BM25, DENSE], measures=["rpp"], binary=99) == [
        f"{Q}: no query has a relevant document (grade > 0 after binary/floor); nothing to evaluate"]
    assert _command("eval", "-R", Q, "-m", "rpp", "-b", "99", BM25, DENSE) == [
        f"zelo_eval: warning: {Q}: no query has a relevant document (grade > 0 after -b/-f); nothing to evaluate"]


def test_the_two_rbps_name_measures_and_output_format(tmp_path):
    head = "rbp: pref_eval.py's rbp in preference mode (gamma 0.5, binary; another "
    assert _python(tmp_path, [BM25, DENSE], measures=["rbp", "rpp"], output_format="tsv") == [
        f"{head}name in measures is a preference measure), not trec_eval's rbp (p 0.9, graded gains) that "
        "measures=['rbp'] alone gives with this output_format; for trec_eval's here write measures=['rbp.p=0.9']"]
    assert _command("eval", "-R", Q, "-m", "rbp", "-m", "rpp", "-o", "tsv", BM25, DENSE) == [
        f"zelo_eval: warning: {head}-m name is a preference measure), not trec_eval's rbp (p 0.9, graded gains) "
        "that -m rbp alone gives with this -o; for trec_eval's here write -m rbp.p=0.9"]


@pytest.mark.parametrize("extra, tail", [([], " (RBO of the whole orderings: {})"),
                                         (["--rbo-lists", "prefix"], " (but for RBO, {})")])
def test_orderings_left_out_name_rbo_lists(tmp_path, extra, tail):
    (tmp_path / "a").write_text("bm25\ndense\nsplade\n")
    (tmp_path / "b").write_text("rerank\ndense\nbm25\n")
    log = Recording()
    kw = {"rbo_lists": "prefix"} if extra else {}
    api.compare_orderings(str(tmp_path / "a"), str(tmp_path / "b"), log=log, **kw)
    head = "1 system(s) only in A and 1 only in B are left out"
    assert log.lines == [head + tail.format("rbo_lists='prefix'")]
    assert _command("compare", "--orderings", tmp_path / "a", tmp_path / "b", *extra) == [
        f"zelo_compare: warning: {head}{tail.format('--rbo-lists prefix')}"]


def test_judge_state_warnings_name_the_keywords():
    """judge's lines under ``state`` (what ``output`` does not list): ``missing_text='ties'``, ``retry_failed=True``,
    ``judge_export('s.sqlite')`` for a Python caller, the flags and zelo_judge export while a command runs (the
    command's lines as before; the end-to-end lines are tests/test_zelo_judge*.py's)."""
    from pref_eval.api.judging import _state_warnings

    sess = types.SimpleNamespace(unlisted=2, revoted=3, earlier=4)

    def lines(running: bool) -> list[str]:
        log = Recording()
        token = COMMAND_LINE_FLAGS.set(frozenset() if running else None)
        try:
            _state_warnings(sess, "st.json", "s.sqlite", "o.jsonl", log)
        finally:
            COMMAND_LINE_FLAGS.reset(token)
        return log.lines

    python, command = lines(False), lines(True)
    assert python[0].endswith("(judgments of other judges, added by pairs_add, or missing_text='ties')")
    assert command[0] == ("2 judgments the st.json state holds are not in o.jsonl: s.sqlite holds no answer of every "
                          "judge to them (judgments of other judges, added by zelo_pairs add, or --missing-text ties)")
    assert "(failed votes answered since, by retry_failed=True)" in python[1]
    assert command[1].startswith("3 judgments the st.json state took have other votes in s.sqlite now (failed votes "
                                 "answered since, by --retry-failed): o.jsonl lists the new votes")
    assert python[2].endswith("(judge_export('s.sqlite') writes every answer in the store)")
    assert command[2] == ("o.jsonl lists the judgments of this run only: the st.json state keeps no record of its 4 "
                          "earlier ones (zelo_judge export --store s.sqlite writes every answer in the store)")


# ---- PlotImage: output_format, the old fmt still readable ------------------------------------------------------

def test_plot_image_field_is_output_format(tmp_path):
    image = api.PlotImage(str(tmp_path / "p.svg"), 4, 3, output_format="svg")
    assert image._fields[-1] == "output_format" and image.output_format == "svg"
    output, width, height, dpi, title, output_format = image  # unpacking: six fields, as before
    assert (output, width, height, dpi, title, output_format) == (str(tmp_path / "p.svg"), 4, 3, 100.0, None, "svg")
    assert api.PlotImage(output, 4, 3, 100.0, None, "svg") == image  # positionally, as zelo_plot builds it
    back = pickle.loads(pickle.dumps(image))
    assert back == image and type(back) is api.PlotImage
    assert type(image._replace(dpi=200)) is api.PlotImage and image._replace(dpi=200).output_format == "svg"
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the new name: no warning
        api.PlotImage("-", 4, 3, output_format="png")
    with pytest.warns(DeprecationWarning, match=r"^PlotImage\.fmt is deprecated: the field is output_format$"):
        assert image.fmt == "svg"
    with pytest.warns(DeprecationWarning, match=r"^PlotImage\(fmt=\.\.\.\) is deprecated: the keyword is "
                                                r"output_format$"):
        assert api.PlotImage("-", 4, 3, fmt="pdf").output_format == "pdf"
    with pytest.raises(UsageError, match="^fmt and output_format given"):
        api.PlotImage("-", 4, 3, fmt="pdf", output_format="pdf")


def test_plot_image_output_format_draws(tmp_path, capfd):
    """The renamed field is what the drawing reads: ``output='-'`` with ``output_format='svg'`` writes SVG."""
    api.plot_matrix(["judgments/dl19-sample.judge"], api.PlotImage(str(tmp_path / "m.png"), 4, 3, output_format="png"),
                    qid="1037798")
    assert (tmp_path / "m.png").read_bytes()[:4] == b"\x89PNG"
    with pytest.raises(UsageError, match="svg"):  # contradicts the extension: refused, as before
        api.plot_matrix(["judgments/dl19-sample.judge"], api.PlotImage(str(tmp_path / "m.png"), 4, 3,
                                                                      output_format="svg"), qid="1037798")


# ---- per_query: a flag in evaluate_runs / preferences; the file of compare_runs / PlotValues is per_query_file --

FLAG_TAIL = (" (here per_query asks for per-query values in the output, as zelo_eval -q does; a file of per-query "
             "values is read by compare_runs(per_query_file=FILE) and PlotValues(per_query_file=FILE))")
FILE_HEAD = ("(here per_query_file is a file of per-query values, as zelo_compare -P reads it; per_query=True, "
             "per-query values in the output, is evaluate_runs' and preferences'; for data: ")
PQ = "tests/data/stats/perquery.tsv"


@pytest.mark.parametrize("call", [
    lambda: api.evaluate_runs(Q, [BM25, DENSE], measures=["map"], per_query=PQ, output="-"),
    lambda: api.preferences(Q, [BM25, DENSE], per_query=PQ)], ids=["evaluate_runs", "preferences"])
def test_a_path_as_the_per_query_flag_says_which_per_query(call):
    with pytest.raises(UsageError) as err:
        call()
    assert str(err.value) == f"per_query: expected True or False, got {PQ!r}{FLAG_TAIL}"


_FILE_CALLS = [
    (lambda v, key="per_query_file": api.compare_runs(**{key: v}),
     "pref_eval.compare(pref_eval.evaluate(qrels, runs, measures), tests=...))"),
    (lambda v, key="per_query_file": api.plot_systems(api.PlotValues(**{key: v, "measure": "map"}),
                                                      api.PlotImage("-", 4, 3, 100, None, "svg")),
     "write it with pref_eval.evaluate_runs(..., per_query=True, output_format='tsv', output=FILE))")]


@pytest.mark.parametrize("value", [True, False])
@pytest.mark.parametrize("call, hint", _FILE_CALLS, ids=["compare_runs", "PlotValues"])
def test_a_bool_as_the_per_query_file_says_which_per_query(call, hint, value):
    with pytest.raises(UsageError) as err:
        call(value)
    assert str(err.value) == f"per_query_file: expected a path, got bool {value!r} {FILE_HEAD}{hint}"
    # the old spelling with a bool (a caller who took it for zelo_eval's -q): the same refusal, after the warning
    old = r"\(per_query=\.\.\.\) is deprecated: the keyword is per_query_file$"
    with pytest.warns(DeprecationWarning, match=old), pytest.raises(UsageError) as err:
        call(value, key="per_query")
    assert str(err.value) == f"per_query_file: expected a path, got bool {value!r} {FILE_HEAD}{hint}"


def test_per_query_is_a_flag_wherever_it_is_a_keyword():
    """r36's proposal (session 26): ``per_query`` was a flag in evaluate_runs / preferences and a file in
    compare_runs / PlotValues; the file is ``per_query_file`` now, so every public ``per_query`` keyword is a
    bool (``compare(per_query, ...)``'s positional table, a path or a DataFrame, is the one other)."""
    import inspect

    flags = []
    for name in api.__all__:
        obj = getattr(api, name)
        if not callable(obj) or name == "compare":
            continue
        try:
            params = inspect.signature(obj).parameters
        except ValueError:  # a class without a Python signature (MeasureResults)
            continue
        if "per_query" in params:
            assert params["per_query"].annotation in ("bool", bool), name
            flags.append(name)
    assert {"evaluate_runs", "preferences"} <= set(flags)
    assert "per_query_file" in inspect.signature(api.compare_runs).parameters
    assert api.PlotValues._fields[1] == "per_query_file"
    assert "per_query" not in inspect.signature(api.PlotValues).parameters


def test_compare_runs_per_query_is_the_old_spelling_of_per_query_file():
    def report(**kw):
        return api.compare_runs(tests="t", output_format="jsonl", **kw)

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the new keyword: no warning
        new = report(per_query_file=PQ)
    with pytest.warns(DeprecationWarning) as got:
        old = report(per_query=PQ)
    assert [str(w.message) for w in got] == ["compare_runs(per_query=...) is deprecated: the keyword is per_query_file"]
    assert got[0].filename == __file__  # at the caller's line
    assert old == new and '"run_a"' in new
    with pytest.raises(UsageError, match=r"^per_query and per_query_file given: per_query is the old name of "
                                         r"per_query_file; give per_query_file only$"):
        report(per_query=PQ, per_query_file=PQ)


def test_plot_values_field_is_per_query_file(tmp_path):
    v = api.PlotValues(per_query_file=PQ, measure="map")
    assert v.per_query_file == PQ and v._fields[1] == "per_query_file" and len(v) == 11
    qrels, pq, *_ = v  # unpacking: eleven fields, as before
    assert (qrels, pq) == (None, PQ)
    assert api.PlotValues(None, PQ, (), "map") == v  # positionally, as zelo_plot builds it
    back = pickle.loads(pickle.dumps(v))
    assert back == v and type(back) is api.PlotValues
    assert type(v._replace(alpha=0.01)) is api.PlotValues and v._replace(alpha=0.01).per_query_file == PQ
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the new name: no warning
        api.PlotValues(per_query_file=PQ)
    with pytest.warns(DeprecationWarning, match=r"^PlotValues\.per_query is deprecated: the field is per_query_file$"):
        assert v.per_query == PQ
    with pytest.warns(DeprecationWarning, match=r"^PlotValues\(per_query=\.\.\.\) is deprecated: the keyword is "
                                                r"per_query_file$"):
        assert api.PlotValues(per_query=PQ, measure="map") == v
    with pytest.raises(UsageError, match="^per_query and per_query_file given"):
        api.PlotValues(per_query=PQ, per_query_file=PQ)
    # the renamed field is what the plot reads: the same image by either spelling
    images = []
    for key in ("per_query_file", "per_query"):
        out = tmp_path / f"{key}.svg"
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            api.plot_systems(api.PlotValues(**{key: PQ, "measure": "ndcg"}), api.PlotImage(str(out), 4, 3))
        images.append(out.read_bytes())
    assert images[0] == images[1] and b"<svg" in images[0][:200]


# ---- agree's hints name the API's functions for a Python caller, the commands on the command line --------------

def _agree_warnings(records, *, command: bool) -> list[str]:
    from pref_eval.api.agreement import _warn_copies, _warn_nothing_to_compare

    log = Recording()
    token = COMMAND_LINE_FLAGS.set(frozenset()) if command else None  # as while a command runs (cli/common._run)
    try:
        _warn_copies(records, log)
        _warn_nothing_to_compare(records, log)
    finally:
        if token is not None:
            COMMAND_LINE_FLAGS.reset(token)
    return log.lines


def test_agree_hints_name_the_functions_in_python_and_the_commands_on_the_command_line():
    """r36's leftover: the hints said where a file comes from as ``zelo_judge -o`` / ``zelo_pairs cycles --run``
    for a Python caller of ``agree`` too."""
    from pref_eval.agree.records import Record

    nan = float("nan")
    records = [Record("A", "", "pair", "repeat_pairs", 3.0, nan, nan, 3),
               Record("A", "", "pair", "repeat_identical", 1.0, nan, nan, 3),
               Record("crowd", "", "system", "judged:low.run", 0.0, nan, nan, 40)]
    python = _agree_warnings(records, command=False)
    command = _agree_warnings(records, command=True)
    assert python == [
        "A: every one of its 3 pairs judged on several lines holds the same votes on each line: copies of one answer "
        "(judge(..., output=FILE) of a pairs list that names a pair twice?) measure no self-consistency; ask again "
        "and give judge_export's file",
        "low.run: none of its documents on the 40 topics compared is one crowd judged, so its measure is 0 on every "
        "topic under that judge's qrels (judge the pool of the runs compared: pref_eval.pairs(..., run=RUN))"]
    assert command == [  # the commands' lines as before
        "A: every one of its 3 pairs judged on several lines holds the same votes on each line: copies of one answer "
        "(zelo_judge -o of a pairs list that names a pair twice?) measure no self-consistency; ask again and give "
        "zelo_judge export's file",
        "low.run: none of its documents on the 40 topics compared is one crowd judged, so its measure is 0 on every "
        "topic under that judge's qrels (judge the pool of the runs compared: zelo_pairs cycles --run RUN...)"]
