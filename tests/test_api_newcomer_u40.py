"""Session 30's outside trial (u40) as users coming from ir-measures / PyTerrier and from ranx.

Each case failed before the fix: a name with white space beside its ``@`` (``"nDCG @ 10"``, which ir-measures
reads as ``nDCG@10``) was "unknown measure '@10'"; ``compare_runs(qrels, runs, metrics=..., stat_test=...)`` --
ranx.compare's keywords, in the function documented as taking ranx.compare's argument order -- was Python's
TypeError; a qrels or run file that ranx saved (its JSON, LZ4 or Parquet) was "expected 4 fields ..., found 1
field", "a NUL byte", or -- JSON on one line given to ``zelo_eval -R`` -- "read as zbench's annotated JSONL ...
unknown zELO measure"; ``err@10`` (ir-measures' ``ERR@10`` in another case) and ``P(rel=2)@5,10`` were "unknown
measure ...; see 'zelo_eval --list-measures'" with no suggestion.
"""
from __future__ import annotations

import json
import re
import warnings
from pathlib import Path

import pytest

import pref_eval
from cli_harness import run_module_inproc
from pref_eval.errors import InputError, UsageError

ROOT = Path(__file__).resolve().parent.parent
QRELS = str(ROOT / "qrels" / "dl19-sample.qrels")
RUN = str(ROOT / "runs" / "bm25.run")
RUN2 = str(ROOT / "runs" / "dense.run")


@pytest.mark.parametrize("name", ["nDCG @10", "nDCG @ 10", "nDCG@ 10", "AP(rel=2) @100", "P(rel=2) @ 5",
                                  "R @1000"])
def test_white_space_beside_the_at_sign_is_one_name(name):
    """ir-measures parses a name as a Python expression, so ``nDCG @ 10`` is nDCG@10 there; the value is
    ir-measures' own, run live (the oracle)."""
    irm = pytest.importorskip("ir_measures")
    measure = irm.parse_measure(name)
    theirs = irm.calc_aggregate([measure], irm.read_trec_qrels(QRELS), irm.read_trec_run(RUN))[measure]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours = pref_eval.calc_aggregate([name], QRELS, RUN)
        also = pref_eval.calc_aggregate(f"{name} P@5", QRELS, RUN)  # one string: names separated by spaces
    assert list(ours) == [str(measure)] and ours[measure] == pytest.approx(theirs, rel=1e-12)
    assert set(also) == {str(measure), "P@5"} and also[measure] == ours[measure]


def test_white_space_beside_the_at_sign_on_the_command_line(tmp_path):
    p = run_module_inproc("eval", ["-R", QRELS, "-m", "nDCG @ 10", "-m", "AP(rel=2) @100", RUN], tmp_path)
    q = run_module_inproc("eval", ["-R", QRELS, "-m", "nDCG@10", "-m", "AP(rel=2)@100", RUN], tmp_path)
    assert p.returncode == 0 and p.stdout == q.stdout and "nDCG@10" in p.stdout, p.stderr
    from pref_eval.measures.parse import split_names

    assert split_names("nDCG @ 10 P@5 RBP(p=0.8, rel=1) @ 20") == ["nDCG@10", "P@5", "RBP(p=0.8, rel=1)@20"]
    p = run_module_inproc("eval", ["-R", QRELS, "-m", "@10", RUN], tmp_path)  # nothing to join it to
    assert p.returncode == 2 and "unknown measure '@10'" in p.stderr


RANX_COMPARE = [("stat_test", "student", "ranx.compare's; here: tests (student: 't'"),
                ("max_p", 0.01, "ranx.compare's; here: alpha"),
                ("metrics", ["map"], "ranx.compare's; here: measures"),
                ("n_permutations", 100, "ranx.compare's; here: resamples"),
                ("random_seed", 42, "ranx.compare's; here: seed"),
                ("make_comparable", True, "ranx.compare's; here: complete"),
                ("rounding_digits", 3, "ranx.compare's; here: digits"),
                ("threads", 2, "ranx.compare's; here: jobs"),
                ("eval_metrics", ["map"], "PyTerrier's pt.Experiment keyword; here: measures"),
                ("test", "t", "PyTerrier's pt.Experiment keyword; here: tests"),
                ("correction_alpha", 0.1, "PyTerrier's pt.Experiment keyword; here: alpha"),
                ("names", ["a", "b"], "PyTerrier's pt.Experiment keyword; here: run_names"),
                ("bogus", 1, "")]


@pytest.mark.parametrize(("keyword", "value", "hint"), RANX_COMPARE, ids=[k for k, _, _ in RANX_COMPARE])
def test_compare_runs_names_ours_for_ranx_and_pyterrier_keywords(keyword, value, hint):
    """compare_runs takes ranx.compare's argument order (qrels, runs); ranx's keywords were Python's TypeError
    ("got an unexpected keyword argument 'stat_test'"). Now a UsageError, as compare() and evaluate() refuse them,
    listing the keywords it takes; nothing is read (the run paths do not exist)."""
    with pytest.raises(UsageError) as err:
        pref_eval.compare_runs(QRELS, ["missing-a.run", "missing-b.run"], measures=["map"], **{keyword: value})
    msg = str(err.value)
    assert msg.startswith(f"compare_runs: unknown option '{keyword}'") and hint in msg, msg
    assert "(expected one of: per_query_file, measures, complete" in msg
    # the keyword it names does the work: the same report as ranx's keyword meant
    with pytest.raises(TypeError):  # an option by position stays Python's TypeError (documented)
        pref_eval.compare_runs(QRELS, [RUN, RUN2], ["map"])


def _ranx_dicts() -> tuple[dict, dict]:
    qrels: dict = {}
    for line in Path(QRELS).read_text().splitlines():
        q, _, d, g = line.split()
        qrels.setdefault(q, {})[d] = int(g)
    run: dict = {}
    for line in Path(RUN).read_text().splitlines():
        q, _, d, _, s, _ = line.split()
        run.setdefault(q, {})[d] = float(s)
    return qrels, run


def _saved(tmp_path: Path, by_ranx: bool) -> dict[str, tuple[Path, Path]]:
    """ranx's saved files of the sample: the JSON forms by hand (ranx writes ``json.dump(d, f, indent=2)``-like
    text; a user's ``json.dump(d, f)`` is one line), or (``by_ranx``) those ranx itself writes, where installed."""
    qrels, run = _ranx_dicts()
    out = {}
    if not by_ranx:
        for kind, indent in (("json", 2), ("json-line", None)):
            q, r = tmp_path / f"qrels.{kind}", tmp_path / f"run.{kind}"
            q.write_text(json.dumps(qrels, indent=indent))
            r.write_text(json.dumps(run, indent=indent))
            out[kind] = (q, r)
        return out
    ranx = pytest.importorskip("ranx")
    for kind in ("json", "lz4", "parquet"):
        try:
            q, r = tmp_path / f"qrels.{kind}", tmp_path / f"run.{kind}"
            ranx.Qrels(qrels).save(str(q))
            ranx.Run(run, name="bm25").save(str(r))
        except Exception:  # noqa: BLE001 -- a ranx without its optional writer (pyarrow, lz4)
            continue
        out[kind] = (q, r)
    return out


@pytest.mark.parametrize("by_ranx", [False, pytest.param(True, marks=pytest.mark.slow)])  # (ranx: numba compiles)
def test_a_file_ranx_saved_is_named_with_what_to_do(tmp_path, by_ranx):
    """qrels.json / run.json (ranx's default save), .lz4, .parquet: the one error line says what the file is and
    how to give it; the advice works (the dict given to evaluate has the TREC file's values, the oracle)."""
    qrels, run = _ranx_dicts()
    files = _saved(tmp_path, by_ranx)
    assert files
    for kind, (q, r) in files.items():
        with pytest.raises(InputError, match=r"qrels\.[a-z-]+:1: expected TREC qrels, got .*ranx's save\('x\.") as e:
            pref_eval.evaluate(str(q), [RUN], ["map"])
        assert "ranx.Qrels.from_file(FILE).save(NEW, kind='trec')" in str(e.value)
        with pytest.raises(InputError, match=r"run\.[a-z-]+:1: expected a TREC run, got .*ranx.Run.from_file"):
            pref_eval.evaluate(QRELS, [str(r)], ["map"])
        for args in (["-R", q, "-m", "ndcg@10", RUN], ["-R", QRELS, "-m", "ndcg@10", r]):
            p = run_module_inproc("eval", args, tmp_path)
            assert p.returncode == 2 and p.stderr.count("\n") == 1, (kind, p.stderr)
            assert "ranx's save('x." in p.stderr and "zbench" not in p.stderr, (kind, p.stderr)
        p = run_module_inproc("trec", [q, RUN], tmp_path)
        assert p.returncode == 2 and "expected TREC qrels, got" in p.stderr, p.stderr
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert pref_eval.calc_aggregate(["map", "ndcg@10"], qrels, run) == \
            pref_eval.calc_aggregate(["map", "ndcg@10"], QRELS, RUN)


def test_zbench_annotated_lines_are_still_score_files(tmp_path):
    """The JSON test above must not take zbench's annotated JSON lines, whose first key holds an object too."""
    from pref_eval.io.zelo_scores import is_zbench_annotated_line

    assert is_zbench_annotated_line('{"query": {"id": "q1", "text": "x"}, "documents": []}')
    assert is_zbench_annotated_line('{"documents": [], "query": {"id": "q1"}}')
    assert is_zbench_annotated_line("{}")
    assert not is_zbench_annotated_line('{"1037798": {"3641634": 3}}')
    assert not is_zbench_annotated_line('{ "q\\"1" : {"d": 1}}')
    scores = ROOT / "tests" / "data" / "zelo" / "zbench" / "case_main"
    annotated = next(iter(sorted(scores.glob("*annotated*.jsonl"))), None)
    if annotated is not None:
        assert is_zbench_annotated_line(annotated.read_text().splitlines()[0])


@pytest.mark.parametrize(("name", "fix"), [("P(rel=2)@5,10", "P(rel=2)@5 P(rel=2)@10"),
                                           ("AP(rel=2)@10,100,1000", "AP(rel=2)@10 AP(rel=2)@100 AP(rel=2)@1000")])
def test_several_cutoffs_after_parameters_say_what_to_write(name, fix):
    """Was "unknown measure 'P(rel=2)@5,10'; see 'zelo_eval --list-measures'" (``P@5,10`` had the hint); the names
    proposed give ir-measures' values, run live (the oracle)."""
    with pytest.raises(UsageError, match=re.escape(f"separated by spaces (or given as a list): '{fix}'") + "$"):
        pref_eval.calc_aggregate([name], QRELS, RUN)
    _ir_measures_agree(fix.split())


@pytest.mark.parametrize(("name", "fix"), [("err@10", "ERR@10"), ("p@10", "P@10"), ("rr@10", "RR@10"),
                                           ("ap(rel=2)@100", "AP(rel=2)@100"), ("judged@10", "Judged@10"),
                                           ("success@5", "Success@5"), ("Ndcg@10", "NDCG@10")])
def test_an_ir_measures_name_in_another_letter_case_says_its_spelling(name, fix):
    """Were "unknown measure 'err@10'; see 'zelo_eval --list-measures'" (no suggestion: difflib compares the whole
    name, cutoff included), and for ``judged@10`` / ``success@5`` only trec_eval's ``judged.10``; the spelling
    proposed is ir-measures' (its value, run live, the oracle)."""
    with pytest.raises(UsageError, match=re.escape(f"ir-measures' {'name ' if '.' in _dot(name) else ''}is {fix}")):
        pref_eval.calc_aggregate([name], QRELS, RUN)
    _ir_measures_agree([fix])


def _dot(name: str) -> str:
    """trec_eval's spelling of ``name`` when it has one (``judged.10``), else ''."""
    from pref_eval.measures.base import REGISTRY

    base, _, k = name.partition("@")
    spec = REGISTRY.get(base)
    return f"{base}.{k}" if spec is not None and spec.param_kind == "cutoffs" else ""


def _ir_measures_agree(names: list[str]) -> None:
    irm = pytest.importorskip("ir_measures")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours = pref_eval.calc_aggregate(names, QRELS, RUN)
    for n in names:  # one ir-measures call per measure (session 29: its set of measures per call)
        m = irm.parse_measure(n)
        theirs = irm.calc_aggregate([m], irm.read_trec_qrels(QRELS), irm.read_trec_run(RUN))[m]
        tol = 1e-5 if n.startswith("ERR") else 1e-12  # gdeval prints 5 decimals a query (docs/differences.md)
        assert ours[n] == pytest.approx(theirs, rel=tol, abs=tol), n


def test_a_run_frame_with_ranks_only_says_how_to_give_them():
    """A reranker's frame with ``qid, docno, rank`` and no score: was "DataFrame needs ... score columns" alone; the
    expression it proposes ranks as the rank column says, ir-measures' value on the same frame (live, the oracle)."""
    import pandas as pd

    frame = pd.read_csv(RUN, sep=" ", names=["qid", "Q0", "docno", "rank", "score", "name"], dtype=str)
    frame["rank"] = frame["rank"].astype(int)
    ranks = frame.drop(columns=["score"])
    with pytest.raises(InputError, match=re.escape("this one has ranks only: the ranking is by score, as trec_eval "
                                                   "and ir-measures rank, so give the ranks as scores, "
                                                   "df.assign(score=-df['rank'])")):
        pref_eval.calc_aggregate(["AP"], QRELS, ranks)
    given = ranks.assign(score=-ranks["rank"])
    irm = pytest.importorskip("ir_measures")
    theirs_run = given.rename(columns={"qid": "query_id", "docno": "doc_id"}).astype({"score": float})
    ours = pref_eval.calc_aggregate(["AP", "nDCG@10"], QRELS, given)
    for m in (irm.AP, irm.nDCG @ 10):  # one ir-measures call per measure (session 29)
        theirs = irm.calc_aggregate([m], irm.read_trec_qrels(QRELS), theirs_run)[m]
        assert ours[m] == pytest.approx(theirs, rel=1e-12), m


def test_a_list_among_the_measures_is_refused_saying_to_flatten():
    """``[ir_measures.parse_trec_measure("P.5,10"), AP]`` (that function returns a list): was "unknown measure
    '[P@5, P@10]': ... '[P@5  P@10]'" (the list's str split at its comma); ir-measures itself fails on it (a
    TypeError). The flat list proposed gives ir-measures' values (live, the oracle)."""
    irm = pytest.importorskip("ir_measures")
    nested = [irm.parse_trec_measure("P.5,10"), irm.AP]
    for call in (lambda: pref_eval.calc_aggregate(nested, QRELS, RUN), lambda: pref_eval.evaluate(QRELS, RUN, nested),
                 lambda: pref_eval.evaluator(nested, QRELS), lambda: pref_eval.iter_calc(nested, QRELS, RUN)):
        with pytest.raises(UsageError, match=re.escape("measures: got a list (P@5, P@10) as one of the measure "
                                                       "names; give the names in one flat list")):
            call()
    _ir_measures_agree([str(m) for m in [*irm.parse_trec_measure("P.5,10"), irm.AP]])
