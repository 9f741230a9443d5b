"""trec_eval 10's ``yaap`` (``m_yaap.c``), and every measure of trec_eval's table is known.

``yaap`` was missing: ``zelo_trec -m yaap`` said "unknown measure" where trec_eval 10 prints
a value (found by t26's differential fuzz against the trec_eval 10.0 binary). pytrec_eval has
no ``yaap``, so the oracle is trec_eval's definition worked by hand:

    yaap = log((1 + S) / (1 + num_rel - S)),  S = sum over retrieved d_k with rel >= l of
           (relevant so far) / k

where "rel" is the retrieved document's grade, -1 for a document not in the qrels (so with
``-l -1`` it counts in S, but never in num_rel, which counts qrels grades >= max(l, 0)).
"""
from __future__ import annotations

import pytest
from cli_harness import run_inproc

QRELS = "1 0 d1 1\n1 0 d2 0\n1 0 d3 2\n1 0 d4 1\n2 0 e1 1\n3 0 f1 0\n"
RUN = ("1 Q0 u1 1 4 r\n1 Q0 d1 2 3 r\n1 Q0 d2 3 2 r\n1 Q0 d3 4 1 r\n2 Q0 e1 1 1 r\n"
       "3 Q0 g1 1 9 r\n3 Q0 g2 1 8 r\n3 Q0 g3 1 7 r\n3 Q0 f1 1 6 r\n")

# Topic 1 ranks u1 (not judged), d1 (1), d2 (0), d3 (2); d4 (1) is not retrieved.
#   -l1: relevant at ranks 2, 4: S = 1/2 + 2/4 = 1, num_rel 3: ln(2/3) = -0.405465
#   -l2: relevant at rank 4: S = 1/4, num_rel 1: ln(1.25/1.75) = -0.336472
#   -l-1: every rank: S = 4, num_rel 4 (grades >= 0): ln(5/1) = 1.609438
# Topic 2 ranks e1 (1): -l1 and -l-1 S = 1, num_rel 1: ln 2 = 0.693147; -l2 S = 0, num_rel 0: ln 1 = 0
# Topic 3 ranks g1 g2 g3 (not judged) f1 (0): -l1, -l2 S = 0, num_rel 0: 0;
#   -l-1 S = 4, num_rel 1: ln(5 / -2), C's log of a negative number, printed -nan by glibc
EXPECTED = {
    "1": [("1", "-0.4055"), ("2", "0.6931"), ("3", "0.0000"), ("all", "0.0959")],  # mean -0.405465+0.693147
    "2": [("1", "-0.3365"), ("2", "0.0000"), ("3", "0.0000"), ("all", "-0.1122")],  # -0.336472 / 3
    "-1": [("1", "1.6094"), ("2", "0.6931"), ("3", "  -nan"), ("all", "  -nan")],
}


@pytest.mark.parametrize("level", sorted(EXPECTED))
def test_yaap_worked_by_hand(tmp_path, level):
    (tmp_path / "q").write_text(QRELS)
    (tmp_path / "r").write_text(RUN)
    res = run_inproc("zelo_trec", ["-q", f"-l{level}", "-m", "yaap", "q", "r"], tmp_path)
    assert res.returncode == 0, res
    want = "".join(f"{'yaap':<22s}\t{qid}\t{v:>6s}\n" for qid, v in EXPECTED[level])
    assert res.stdout.decode() == want


def test_every_trec_eval_table_measure_is_registered():
    """Each name of trec_eval 10's measure table (``measures.c``) is a measure we compute:
    ``-m NAME`` is never 'unknown measure' where trec_eval accepts it."""
    from pref_eval.measures import registry
    from pref_eval.measures.nicknames import TREC_TABLE

    assert [n for n in TREC_TABLE if n not in registry()] == []
