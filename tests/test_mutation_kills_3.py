"""Mutation testing, round 3 (session 22, m31): tests that kill mutants the suite let survive, each against
an outside oracle (trec_eval 10.0's output, scipy, hand-worked values). NOTES.md "Session 22" (m31) lists the
mutants sampled and how the survivors were classified; rounds 1 and 2 are tests/test_mutation_kills.py and
tests/test_mutation_kills_2.py. Each docstring names the mutant it kills (file, the token changed)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from cli_harness import run_module_inproc

GEN = Path(__file__).parent / "data" / "trec_eval_generated"


def _trec(args: list, cwd) -> str:
    res = run_module_inproc("trec", [str(a) for a in args], cwd)
    assert res.returncode == 0, res.stderr
    return res.stdout


def test_duplicate_in_a_dataframe_run_names_its_document_and_query():
    """io/runs.py ``Run.row_of_line`` without line numbers (a DataFrame / dict run): ``line - 1`` -> ``line + 1``,
    ``line - 0``, ``line - 2`` (the message read the wrong row or failed with an IndexError). Hand-worked: rows
    are lines 1..5; the second ``c`` of q2 is line 5, its first line 2 (trec_eval refuses such a run)."""
    import pandas as pd

    import pref_eval
    from pref_eval.errors import InputError

    qrels = pd.DataFrame({"query_id": ["q1", "q1", "q2"], "doc_id": ["a", "b", "c"], "relevance": [1, 0, 1]})
    run = pd.DataFrame({"query_id": ["q1", "q2", "q1", "q2", "q2"], "doc_id": ["a", "c", "b", "x", "c"],
                        "score": [3, 2, 1, 0.5, 0.1]})
    with pytest.raises(InputError) as e:
        pref_eval.evaluate(qrels, run, ["map"])
    assert str(e.value) == "run:5: duplicate document c for query q2 (first at line 2); trec_eval refuses duplicates"


@pytest.mark.parametrize("missing", ["query_id", "doc_id", "relevance"])
def test_dataframe_qrels_lacking_one_column_is_refused_in_one_line(missing):
    """io/qrels.py ``_qrels_from_frame``: ``qc is None or dc is None or rc is None`` with an ``or`` -> ``and`` or an
    ``is`` -> ``is not`` let a frame lacking one column through (a KeyError later). Documented message."""
    import pandas as pd

    import pref_eval
    from pref_eval.errors import InputError

    qrels = pd.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["a", "b"], "relevance": [1, 0]})
    run = pd.DataFrame({"query_id": ["q1"], "doc_id": ["a"], "score": [1.0]})
    with pytest.raises(InputError) as e:
        pref_eval.evaluate(qrels.drop(columns=[missing]), run, ["map"])
    assert str(e.value).endswith("DataFrame needs query_id/qid, doc_id/docno and relevance/rel/label columns "
                                 "(ranx's q_id, doc_id, score too)")


def test_subtopic_duplicates_name_both_lines(tmp_path):
    """io/qrels.py ``check_subtopic_duplicates``: ``si[1:] == si[:-1]`` -> ``!=`` (a document judged under two
    subtopics was taken for a repeat, a real repeat missed unless it sat beside another subtopic's line), the
    other ``==`` / ``&`` / slice mutants of that line. Hand-worked on the docstring's rule: a repeated
    (qid, subtopic, docno) triple is an error naming both lines; a document under two subtopics is not."""
    from pref_eval.errors import InputError
    from pref_eval.io.qrels import read_qrels

    ok = tmp_path / "ok"
    ok.write_text("1 1 b 1\n1 2 b 0\n1 1 a 1\n2 1 b 1\n")  # sorted: (1,1,a) (1,1,b) (1,2,b) (2,1,b)
    q = read_qrels(ok, subtopics=True)
    assert len(q.subtopics) == 4
    dup = tmp_path / "dup"
    dup.write_text("1 2 c 1\n1 1 a 1\n1 1 c 0\n1 2 a 0\n1 1 a 2\n1 3 c 1\n")
    with pytest.raises(InputError) as e:
        read_qrels(dup, subtopics=True)
    assert str(e.value) == f"{dup}:5: duplicate judgment for query 1 subtopic 1 document a (first at line 2)"


# trec_eval 10.0 (`trec_eval -R prefs -m prefs_num_prefs_poss -m prefs_num_prefs_ful -m prefs_simp -m prefs_pair
# PREFS RUN`): two sub-groups of one judgment group both state d1 > d2, counted once.
TWO_SUBGROUPS = "q1 0 s1 d1 3\nq1 0 s1 d2 1\nq1 0 s2 d1 2\nq1 0 s2 d2 1\n"
TWO_SUBGROUPS_OUT = """\
prefs_num_prefs_poss  \tall\t1
prefs_num_prefs_ful   \tall\t1
prefs_simp            \tall\t1.0000
prefs_pair            \tall\t1.0000
"""


def test_one_preference_stated_by_two_subgroups_counts_once(tmp_path):
    """io/prefs.py ``preference_pairs`` (zELO's ``trecprefs`` judgments): ``if len(a) < 2: return`` -> ``<= 2`` /
    ``< 3`` (exactly two pairs were returned without removing the repeat). Oracle: trec_eval 10.0 above counts
    one possible preference (zelo_trec must print the same), so the judgments are one: d1 beats d2."""
    from pref_eval.io.judgments import read_judgments

    (tmp_path / "prefs").write_text(TWO_SUBGROUPS)
    (tmp_path / "run").write_text("q1 Q0 d1 1 2.0 r\nq1 Q0 d2 2 1.0 r\n")
    out = _trec(["-R", "prefs", "-m", "prefs_num_prefs_poss", "-m", "prefs_num_prefs_ful", "-m", "prefs_simp",
                 "-m", "prefs_pair", "prefs", "run"], tmp_path)
    assert out == TWO_SUBGROUPS_OUT
    j = read_judgments(str(tmp_path / "prefs"), fmt="trecprefs")
    _, a, b, s, _ = j.arrays()
    docs = j.docs["q1"]
    assert [(docs[x], docs[y], v) for x, y, v in zip(a.tolist(), b.tolist(), s.tolist(), strict=True)] == [
        ("d1", "d2", 0.0)]


def test_trecprefs_with_no_preference_are_no_judgments(tmp_path):
    """io/prefs.py ``preference_pairs``: ``if len(a) < 2`` -> ``< 0`` (no early return: the repeat removal of no
    pair failed with an IndexError). Oracle: trec_eval 10.0 counts 0 possible preferences in two lines of one
    level (``prefs_num_prefs_poss all 0``); ``< 1`` is equivalent (one pair is its own first statement)."""
    from pref_eval.io.judgments import read_judgments

    (tmp_path / "prefs").write_text("q1 0 s1 d1 1\nq1 0 s1 d2 1\n")
    _, a, _, _, _ = read_judgments(str(tmp_path / "prefs"), fmt="trecprefs").arrays()
    assert len(a) == 0


def test_long_rows_default_keeps_the_topics_a_run_lacks():
    """output/table.py ``long_rows``: the default ``print_missing=True`` -> ``False`` (the rows of pref_eval.dask,
    which passes no value) and ``not print_missing and not present`` -> ``or`` (a -c topic the run lacks left
    out). Oracle: trec_eval 10.0 ``-q -c`` prints the lacking topics (tests/data/trec_eval_generated
    ties_A_c_missing.out: run.partial lacks 10, Q7 and t-onerel)."""
    from pref_eval.api.measures import evaluate_run_group
    from pref_eval.io.qrels import read_qrels
    from pref_eval.output.table import long_rows

    want = {}
    for line in (GEN / "ties_A_c_missing.out").read_text().splitlines():
        m, qid, v = line.split("\t")
        if m.strip() in ("map", "P_5", "num_rel") and qid in ("10", "Q7", "t-onerel", "1"):
            want[(qid, m.strip())] = v
    assert len(want) == 12
    q = read_qrels(GEN / "qrels.gen")
    [(res, _, _, _)] = evaluate_run_group((q, [str(GEN / "run.partial")], ["p"], ["map", "P.5", "num_rel"], True,
                                           1, None))
    got = {(qid, m): (f"{v:.4f}" if m != "num_rel" else str(v)) for _, qid, m, v in long_rows([res])
           if qid != "all"}
    assert {k: got.get(k) for k in want} == want


# trec_eval 10.0: `trec_eval -m runid -m map QRELS r1` and `... r2` (q1: a relevant, b not; r1 ranks a first,
# r2 b first).
RUNID_BLOCKS = ("runid                 \tall\ttagA\nmap                   \tall\t1.0000\n"
                "runid                 \tall\ttagB\nmap                   \tall\t0.5000\n")


def test_trec_blocks_label_several_runs_once(tmp_path):
    """output/trec.py ``write_trec_blocks``: ``len(results) > 1 and not any(c.name == "runid" ...)`` with ``any`` ->
    ``all`` or ``==`` -> ``!=`` (a second runid line, or none), ``> 1`` -> ``>= 1`` / ``> 0`` and ``and`` -> ``or``
    (a single run labelled), ``> 2``. Oracle: with -m runid each block is trec_eval 10.0's output for its run
    (above); without it a ``runid all NAME`` line heads each of several blocks (docs/zelo_eval.md) and one run's
    block is trec_eval's alone."""
    (tmp_path / "qr").write_text("q1 0 a 1\nq1 0 b 0\n")
    (tmp_path / "r1").write_text("q1 Q0 a 1 2 tagA\nq1 Q0 b 2 1 tagA\n")
    (tmp_path / "r2").write_text("q1 Q0 b 1 2 tagB\nq1 Q0 a 2 1 tagB\n")

    def ev(*args: str) -> str:
        res = run_module_inproc("eval", ["-R", "qr", "-o", "trec", *args], tmp_path)
        assert res.returncode == 0, res.stderr
        return res.stdout

    assert ev("-m", "runid", "-m", "map", "r1", "r2") == RUNID_BLOCKS
    lines = RUNID_BLOCKS.splitlines(keepends=True)
    assert ev("-m", "map", "r1", "r2") == "".join([lines[0].replace("tagA", "r1"), lines[1],
                                                   lines[2].replace("tagB", "r2"), lines[3]])
    assert ev("-m", "map", "r1") == lines[1]


def test_a_measure_on_some_lines_ranks_only_the_runs_on_them(tmp_path):
    """rank_aggregation.py ``query_rankings_from_prefs`` (a measure missing on some lines): ``bincount(keys) > 0``
    -> ``>= 0`` (every run of the file ranked), ``> 1`` / ``> 2`` (a run on one line left out). Hand-worked on
    pref_aggregate.py's rule (a line adds +v to runi and -v to runj of each measure it has; a query ranks the
    runs its lines of that measure name): m1 is on the a-b line only -> a, b; m2 on all three: a 1 - 1 = 0,
    b -1 + 0.5 = -0.5, c 1 - 0.5 = 0.5 -> c, a, b."""
    import json

    rows = [{"qid": "q", "runi": "a", "runj": "b", "sample": 0, "type": "preference", "m1": 1.0, "m2": 1.0},
            {"qid": "q", "runi": "a", "runj": "c", "sample": 0, "type": "preference", "m2": -1.0},
            {"qid": "q", "runi": "b", "runj": "c", "sample": 0, "type": "preference", "m2": 0.5}]
    (tmp_path / "p.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = run_module_inproc("aggregate", ["-P", "p.jsonl", "-m", "m1", "-m", "m2", "-q", "-n", "--mc4-steps", "10"],
                            tmp_path)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout) == {"qid": "q", "sample": 0, "m1": ["a", "b"], "m2": ["c", "a", "b"]}


@pytest.mark.parametrize(("a", "b", "tied"), [
    ({"x": 3.0, "y": 2.0, "z": 1.0}, {"x": 2.0, "z": 1.0}, False),
    ({"x": 3.0, "y": 2.0, "z": 1.0}, {"x": 2.0, "z": 2.0}, True),
    ({"x": 1.0, "y": 1.0, "z": 0.0}, {"x": 2.0, "z": 1.0}, True),
])
def test_prefix_rbo_names_a_tie_only_when_there_is_one(a, b, tied):
    """stats/orderings.py ``compare_orderings(..., rbo_lists="prefix")``: ``len(set(a.values())) < len(a)`` ->
    ``<=`` (every list called tied). Hand-worked from the field's definition (docs/zelo_compare.md: a tie in
    either list = two systems with one score)."""
    from pref_eval.stats.orderings import compare_orderings

    assert compare_orderings(a, b, 0.9, "a", "prefix")["rbo_lists_tied"] is tied


def test_randomization_with_exactly_2_to_the_n_resamples_is_exact():
    """stats/paired.py ``randomization_test``: ``(1 << n) <= resamples`` -> ``<`` (2^n resamples drawn at random
    instead of the 2^n sign vectors). Oracle: scipy's ``permutation_test``, exact for n_resamples >= 2^n."""
    from scipy import stats

    from pref_eval.stats import paired

    D = np.array([[0.3, -0.1, 0.25, 0.05, -0.2]])
    r = paired.randomization_test(D, resamples=32)
    o = stats.permutation_test((D[0],), lambda v, axis: np.abs(np.mean(v, axis=axis)), permutation_type="samples",
                               n_resamples=32, vectorized=True, alternative="greater")
    assert r["exact"] and r["resamples"] == 32
    assert r["p_value"][0] == pytest.approx(o.pvalue, abs=1e-15)


# --- m32: the 7 survivors m31 left open (NOTES.md "Session 22", m32) ---


def test_debug_query_skips_other_topics_with_ln_floor_in_gm_sum(tmp_path):
    """trec_eval/zscores.py ``math.log(MIN_GEO_MEAN)`` -> ``math.log2`` (what a topic skipped by ``-D N.qid``
    adds to a z-scored geometric mean's sum). Oracle: trec_eval 10.0's output (usnistgov/trec_eval, built from
    source) for ``-c -D0.q2 -q -m gm_map -m map -Z z qrels run``, pasted below; the mutant prints 0.0000."""
    (tmp_path / "qrels").write_text("q1 0 d1 1\nq2 0 d2 1\nq3 0 d3 1\n")
    (tmp_path / "run").write_text("q1 Q0 d1 1 2 t\nq1 Q0 x 2 1 t\nq2 Q0 y 1 2 t\nq2 Q0 d2 2 1 t\n")
    (tmp_path / "z").write_text("q1 gm_map 0.5 2\nq2 gm_map 0.5 2\nq1 map 0.5 2\nq2 map 0.5 2\nq3 gm_map 0.5 2\n")
    out = _trec(["-c", "-D0.q2", "-q", "-m", "gm_map", "-m", "map", "-Z", "z", "qrels", "run"], tmp_path)
    assert out == ("Zmap                   \tq2\t0.0000\n"
                   "Zmap                   \tall\t0.0000\n"
                   "Zgm_map                \tall\t0.0004\n")


@pytest.mark.parametrize("gamma", ["0", "0.0", "1", "-0.5"])
def test_pref_rbp_persistence_outside_0_1_is_refused(gamma):
    """run_preferences/names.py ``not 0.0 < gamma < 1.0`` -> ``<=`` (rbp@0 accepted). The documented range of
    rbp@GAMMA's persistence is (0, 1) (docs/differences-pref_eval.md; Moffat & Zobel, TOIS 27(1) 2008)."""
    from pref_eval.errors import UsageError
    from pref_eval.run_preferences.names import parse_pref_measure

    with pytest.raises(UsageError, match=r"persistence must be in \(0, 1\)"):
        parse_pref_measure(f"rbp@{gamma}")
    assert parse_pref_measure("rbp@0.5")[0].gamma == 0.5


def test_best_items_of_a_later_query_are_found(tmp_path):
    """measures/best_items.py ``max(nq - 1, 0)`` -> ``min`` (every best item looked up in the first query).
    Hand-worked, as ir-measures' RR / Success@1 on the best items as qrels: q2's best item d is at rank 1 (RR 1),
    q1's b at rank 2 (RR 1/2)."""
    import pref_eval

    (tmp_path / "q").write_text("q1 0 a 1\nq1 0 b 1\nq2 0 c 1\nq2 0 d 1\n")
    (tmp_path / "best").write_text("q1 Q0 b 1\nq2 Q0 d 1\n")
    (tmp_path / "r").write_text("q1 Q0 a 1 2 t\nq1 Q0 b 2 1 t\nq2 Q0 d 1 2 t\nq2 Q0 c 2 1 t\n")
    df = pref_eval.evaluate(str(tmp_path / "q"), str(tmp_path / "r"), ["BestRR", "BestSuccess@1"],
                            best=str(tmp_path / "best"))
    got = {(m, q): v for m, q, v in zip(df.measure, df.qid, df.value, strict=True)}
    assert got[("BestRR", "q1")] == 0.5 and got[("BestRR", "q2")] == 1.0
    assert got[("BestSuccess@1", "q1")] == 0.0 and got[("BestSuccess@1", "q2")] == 1.0


def test_pgc_chain_removes_only_the_picked_nodes_edges(tmp_path):
    """measures/pgc.py ``dead = ealive & (gone[src] | gone[dst])`` -> ``ealive | (...)`` (the first removal
    dropped every edge). Hand-worked from Luo, Clarke & Smucker (SIGIR 2021)'s greedy ideal: judgments a>b, b>c,
    c>d; run d, c, b, a. Sinks one by one: d, then c, b, a (each the only sink) -> ideal a, b, c, d. Overlaps
    with the run at depths 1-4: 0, 0, 2, 4 (the mutant's ideal c, b, a, d gives 0, 1, 2, 4). The reference
    greedy_pgc.py (chengxiluo/Greedy-Preference-Graph-Compatibility) prints 0.40410457910076714 for it too."""
    import pref_eval

    (tmp_path / "prefs").write_text("7 a b\n7 b c\n7 c d\n")
    (tmp_path / "run").write_text("7 Q0 d 1 4 r\n7 Q0 c 2 3 r\n7 Q0 b 3 2 r\n7 Q0 a 4 1 r\n")
    (tmp_path / "qrels").write_text("7 0 a 1\n")
    p = 0.8
    overlap = [0, 0, 2] + [4] * 997
    want = sum(p ** i * overlap[i] / (i + 1) for i in range(1000)) / sum(p ** i for i in range(1000))
    df = pref_eval.evaluate(str(tmp_path / "qrels"), str(tmp_path / "run"), ["PGC"], judgments=str(tmp_path / "prefs"))
    assert float(df.value[0]) == pytest.approx(want, abs=1e-14)


def test_bca_tie_band_is_closed_on_both_sides():
    """stats/paired.py BCa ``(boot <= th + tol)`` -> ``<`` (the band of means counted as ties with the mean,
    [th - tol, th + tol], open at the top only). Oracle: BCa is transformation-respecting (Efron, JASA 82(397)
    1987; DiCiccio & Efron, Stat. Sci. 11(3) 1996): on the same resamples, the interval of -D is minus
    the interval of D reversed, as the share below the mean counts ties half on both sides (scipy's
    ``bootstrap``, ``percentileofscore(kind="mean")``). D = [2e-12, -1e-12, -1e-12]: mean exactly 0, tol 1e-12,
    and the resamples {d1, d1, d2} have mean exactly 1e-12 = th + tol (those of D's mirror, -th - tol)."""
    from pref_eval.stats.paired import bootstrap_test

    D = np.array([[2e-12, -1e-12, -1e-12]])
    r = bootstrap_test(D, resamples=2000, seed=1, ci_method="bca")
    m = bootstrap_test(-D, resamples=2000, seed=1, ci_method="bca")
    assert (float(m["ci_low"][0]), float(m["ci_high"][0])) == (-float(r["ci_high"][0]), -float(r["ci_low"][0]))
    assert float(r["ci_high"][0]) == 2e-12  # the mutant's is 1e-12
