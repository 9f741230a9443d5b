"""nDCG family, rbp, unj, set measures: byte-identical to trec_eval 10.0 outputs.

The expected files in tests/data/measures_gains were produced by the trec_eval
10.0 binary (see the README there) on a generated graded collection; they
cover what trec_eval's own test suite does not: ndcg_rel, Rndcg, G, binG,
dcg, ideal_dcg, gain maps (including fractional gains that hit trec_eval's
comparator quirk, negative gains, a gain for unpooled documents), rbp and
rbp_resid with p, utility with parameters under -c, -l2, -M, -J.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from cli_harness import run_module_inproc

DATA = Path(__file__).resolve().parent / "data" / "measures_gains"
COMMANDS = [ln.split() for ln in (DATA / "commands.txt").read_text().splitlines() if ln.strip()]


@pytest.mark.parametrize("n", range(1, len(COMMANDS) + 1))
def test_byte_identical_to_trec_eval(n):
    args = COMMANDS[n - 1]
    # in process (cli_harness.run_module_inproc): the bytes compared with trec_eval's need no process
    p = run_module_inproc("trec", [*args, str(DATA / "qrels"), str(DATA / "run")], ".", timeout=120, text=False)
    assert p.returncode == 0, p.stderr.decode()
    want = (DATA / f"expected.{n}").read_bytes()
    assert want.count(b"\n") > 20
    assert p.stdout == want


def test_gain_sort_quirk_hand_worked(tmp_path):
    """ndcg.1=2.5,2=2 on grades {1, 2}, run d1 (grade 1) then d2 (grade 2).

    trec_eval's comparator (int)(2.5 - 2) = 0 leaves the level list in the
    merge order [0, 2.5, 2], so its "ideal" takes grade 2 (gain 2) first:
    IDCG = 2 + 2.5/log2 3, DCG = 2.5 + 2/log2 3, nDCG = 1.0516 (> 1; the
    trec_eval 10 binary prints 1.0516). Written 2=2,1=2.5 the sort is right
    and nDCG = 1.
    """
    import math

    (tmp_path / "q").write_text("q1 0 d1 1\nq1 0 d2 2\nq1 0 d3 0\n")
    (tmp_path / "r").write_text("q1 Q0 d1 1 2 r\nq1 Q0 d2 2 1 r\n")
    p = run_module_inproc("trec", ["-m", "ndcg.1=2.5,2=2", "-m", "ndcg_rel.2=2,1=2.5", str(tmp_path / "q"),
                                   str(tmp_path / "r")], ".")
    quirk = (2.5 + 2 / math.log2(3)) / (2 + 2.5 / math.log2(3))
    assert p.stdout == (f"{'ndcg_1=2.5,2=2':<22}\tall\t{quirk:6.4f}\n"
                        f"{'ndcg_rel_2=2,1=2.5':<22}\tall\t{1.0:6.4f}\n")
    assert f"{quirk:6.4f}" == "1.0516"


def test_integer_spaced_gains_skip_the_python_merge_sort(monkeypatch):
    """Gains at least 1 apart make trec_eval's comparator a true order: the levels are then sorted
    by numpy's stable sort, equal to the glibc merge sort (found slow by tools/fuzz_trec_eval.py: a
    grade of 10^6 took ~5 s per gain measure in the Python merge sort); fractional gains closer
    than 1 still take the merge sort with trec_eval's comparator."""
    import random

    from pref_eval.measures import gains

    rng = random.Random(7)
    cases = []
    for _ in range(300):
        nlev = rng.randint(0, 12)
        pairs = [(rng.randint(-2, 14), float(rng.choice([rng.randint(-5, 20), 1e308, -3.0])))
                 for _ in range(rng.randint(0, 5))]
        cases.append((pairs, nlev))

    def by_merge_sort(pairs, nlev):  # the levels as sorted_levels builds them, ordered by the glibc merge sort
        listed = {g for g, _ in pairs}
        entries = list(pairs) + [(i, float(i)) for i in range(nlev) if i not in listed]
        idx = gains.glibc_msort(list(range(len(entries))), lambda a, b: int(entries[a][1] - entries[b][1]))
        return [entries[i][0] for i in idx], [entries[i][1] for i in idx]

    expected = [by_merge_sort(p, n) for p, n in cases]

    def no_msort(*a, **k):
        raise AssertionError("merge sort called for integer-spaced gains")

    monkeypatch.setattr(gains, "glibc_msort", no_msort)
    for (p, n), want in zip(cases, expected, strict=True):
        got = gains.sorted_levels(p, n)
        assert (got.grade.tolist(), got.gain.tolist()) == want
    big = gains.sorted_levels([(3, 7.0)], 10**6)  # one document graded 10^6 - 1
    assert big.grade[-1] == 10**6 - 1 and list(big.grade[5:8]) == [6, 3, 7]  # 7.0 for grade 3, stably first
    # gains closer than 1 apart: trec_eval's comparator is not an order; the glibc merge sort's list is
    # computed by runs (msort_gains), without the element-by-element Python merge sort
    fractional = []
    for _ in range(400):
        nlev = rng.randint(0, 30)
        pairs = [(rng.randint(-2, 32), rng.choice([rng.uniform(-3, 35), rng.randint(-3, 35) + rng.choice([0.25, 0.5])]))
                 for _ in range(rng.randint(1, 6))]
        fractional.append((pairs, nlev))
    monkeypatch.undo()
    expected = [by_merge_sort(p, n) for p, n in fractional]
    monkeypatch.setattr(gains, "glibc_msort", no_msort)
    for (p, n), want in zip(fractional, expected, strict=True):
        got = gains.sorted_levels(p, n)
        assert (got.grade.tolist(), got.gain.tolist()) == want, (p, n)


def test_fractional_gains_on_a_huge_grade_skip_the_python_merge_sort(monkeypatch):
    """ndcg.5=0.5 with a document graded 10^6: a million gain levels, fractional gains (trec_eval's
    comparator). The Python merge sort took ~5 s per gain measure (session 19's note); the same list
    by runs (a grade of 5000 with such maps agrees with the trec_eval 10.0 binary in the fuzz)."""
    from pref_eval.measures import gains

    def no_msort(*a, **k):
        raise AssertionError("element-by-element merge sort called")

    monkeypatch.setattr(gains, "glibc_msort", no_msort)
    lv = gains.sorted_levels([(5, 0.5), (1, 2.5), (2, 2.0)], 10**6)
    # hand-worked with trec_eval's comparator: (int)(0.5 - 0.0) = 0 keeps grade 5 (gain 0.5) before grade 0,
    # (int)(2.5 - 2.0) = 0 keeps grade 1 (2.5) before grade 2 (2.0); then the grades 3, 4, 6, ... in order
    assert lv.grade[:7].tolist() == [5, 0, 1, 2, 3, 4, 6] and lv.grade[-1] == 10**6 - 1
    assert len(lv.grade) == 10**6
