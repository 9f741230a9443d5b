"""A TREC track organizer's batch over many runs (session 21, k30): ``zelo_eval --keep-going`` (a bad run is
named and left out, the others evaluated), ``zelo_eval -o topics`` (per topic and measure the min / median /
max over the runs beside each run's value) and ``zelo_pairs pool`` (a depth-N pool as ``qid docno`` lines).
Oracles: hand-worked values, numpy / pandas computed live, and trec_eval's documented ranking rule
(score descending, docno descending) applied here independently."""
from __future__ import annotations

from pathlib import Path

import pytest

from cli_harness import ROOT, run_inproc

QRELS = "1 0 a 1\n1 0 b 0\n1 0 c 1\n2 0 a 1\n2 0 d 1\n"
# AP by hand: topic 1 (2 relevant: a, c), topic 2 (2 relevant: a, d)
GOOD = "1 Q0 a 1 3 g\n1 Q0 b 2 2 g\n1 Q0 c 3 1 g\n2 Q0 d 1 5 g\n2 Q0 x 2 4 g\n"  # 1: (1 + 2/3)/2; 2: 1/2
OTHER = "1 Q0 c 1 9 o\n1 Q0 a 2 8 o\n2 Q0 x 1 9 o\n2 Q0 a 2 8 o\n2 Q0 d 3 7 o\n"  # 1: 1; 2: (1/2 + 2/3)/2
AP = {"good.run": {"1": (1 + 2 / 3) / 2, "2": 0.5}, "other.run": {"1": 1.0, "2": (0.5 + 2 / 3) / 2}}
BAD = {"short.run": "1 Q0 a 1\n", "dup.run": "1 Q0 a 1 2 t\n1 Q0 a 2 1 t\n", "none.run": "9 Q0 a 1 1 t\n"}
SAYS = {"short.run": "short.run:1: expected at least 6 fields", "dup.run": "dup.run:2: duplicate document a",
        "none.run": "none.run: no queries with both results", "missing.run": "missing.run: no such file"}


def _files(tmp_path: Path) -> Path:
    (tmp_path / "q.txt").write_text(QRELS)
    (tmp_path / "good.run").write_text(GOOD)
    (tmp_path / "other.run").write_text(OTHER)
    for name, text in BAD.items():
        (tmp_path / name).write_text(text)
    return tmp_path


def _table(text: str) -> dict[tuple[str, str], float]:
    rows = [line.split("\t") for line in text.splitlines()[1:]]
    return {(r[0], r[1]): float(r[3]) for r in rows if r[2] == "map"}


def _ap_table(runs=("good.run", "other.run")) -> dict[tuple[str, str], float]:
    want = {}
    for r in runs:
        want.update({(r, q): v for q, v in AP[r].items()})
        want[(r, "all")] = sum(AP[r].values()) / 2
    return want


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_keep_going_evaluates_the_good_runs_and_names_the_bad(tmp_path, jobs):
    ws = _files(tmp_path)
    argv = ["-R", "q.txt", "-m", "map", "-q", "-o", "tsv", "--keep-going", "--jobs", jobs, "--output", "out.tsv",
            "good.run", "short.run", "dup.run", "other.run", "none.run", "missing.run"]
    res = run_inproc("zelo_eval", argv, ws)
    assert res.returncode == 2
    got = _table((ws / "out.tsv").read_text())
    assert got == pytest.approx(_ap_table())
    assert list(got) == list(_ap_table())  # run order kept
    lines = res.stderr.splitlines()
    assert len(lines) == 5, lines
    for line, name in zip(lines, ("short.run", "dup.run", "none.run", "missing.run"), strict=False):
        assert line.startswith(f"zelo_eval: {SAYS[name]}"), (line, name)
    assert lines[-1] == ("zelo_eval: 4 of 6 runs not evaluated (--keep-going; their errors above): "
                         "short.run, dup.run, none.run, missing.run")


def test_keep_going_output_is_that_of_the_good_runs_alone(tmp_path):
    ws = _files(tmp_path)
    alone = run_inproc("zelo_eval", ["-R", "q.txt", "-m", "map", "-m", "P@1", "-q", "good.run", "other.run",
                                     "-o", "trec"], ws)
    assert alone.returncode == 0, alone.stderr
    kept = run_inproc("zelo_eval", ["-R", "q.txt", "-m", "map", "-m", "P@1", "-q", "good.run", "short.run",
                                    "other.run", "-o", "trec", "--keep-going", "-Q"], ws)
    assert kept.returncode == 2 and kept.stdout == alone.stdout
    assert kept.stderr.splitlines()[0].startswith("zelo_eval: short.run:1:")  # -Q silences warnings, not errors


def test_without_keep_going_the_first_bad_run_stops(tmp_path):
    ws = _files(tmp_path)
    (ws / "out.tsv").write_text("before\n")
    res = run_inproc("zelo_eval", ["-R", "q.txt", "-m", "map", "-o", "tsv", "--output", "out.tsv", "good.run",
                                   "dup.run", "short.run"], ws)
    assert res.returncode == 2 and res.stderr.count("\n") == 1 and SAYS["dup.run"] in res.stderr
    assert (ws / "out.tsv").read_text() == "before\n"


def test_keep_going_with_every_run_bad_writes_nothing(tmp_path):
    ws = _files(tmp_path)
    (ws / "out.tsv").write_text("before\n")
    res = run_inproc("zelo_eval", ["-R", "q.txt", "-m", "map", "-o", "tsv", "--output", "out.tsv", "--keep-going",
                                   "dup.run", "short.run"], ws)
    assert res.returncode == 2
    assert res.stderr.splitlines()[-1] == ("zelo_eval: none of the 2 runs could be evaluated (--keep-going): "
                                           "dup.run, short.run; nothing written")
    assert (ws / "out.tsv").read_text() == "before\n"


def test_keep_going_all_good_exits_0(tmp_path):
    ws = _files(tmp_path)
    res = run_inproc("zelo_eval", ["-R", "q.txt", "-m", "map", "-o", "tsv", "--keep-going", "good.run",
                                   "other.run"], ws)
    assert res.returncode == 0 and res.stderr == ""
    assert _table(res.stdout.decode()) == pytest.approx({k: v for k, v in _ap_table().items() if k[1] == "all"})


@pytest.mark.parametrize("argv", [["-o", "pref", "good.run", "other.run"],
                                  ["-m", "rpp", "-o", "tsv", "good.run", "other.run"]])
def test_keep_going_refused_in_preference_mode(tmp_path, argv):
    ws = _files(tmp_path)
    res = run_inproc("zelo_eval", ["-R", "q.txt", "--keep-going", *argv], ws)
    assert res.returncode == 2 and res.stderr.startswith("zelo_eval: --keep-going applies to metric mode")


def test_shipped_runs_keep_going_equals_them_alone(tmp_path):
    """The sample runs with a broken copy among them: the same table as without it."""
    (tmp_path / "broken.run").write_text((ROOT / "runs/bm25.run").read_text().replace(" Q0 ", " ", 1))
    runs = [str(ROOT / f"runs/{n}.run") for n in ("bm25", "dense", "rerank")]
    q = str(ROOT / "qrels/dl19-sample.qrels")
    alone = run_inproc("zelo_eval", ["-R", q, "-c", "-q", "-M", "official", "-o", "tsv", *runs], tmp_path)
    kept = run_inproc("zelo_eval", ["-R", q, "-c", "-q", "-M", "official", "-o", "tsv", "--keep-going",
                                    runs[0], "broken.run", *runs[1:]], tmp_path)
    assert alone.returncode == 0 and kept.returncode == 2
    assert kept.stdout == alone.stdout
    assert kept.stderr.startswith("zelo_eval: broken.run:1: ")


@pytest.mark.slow  # ~20 mutated runs, each a command
def test_keep_going_with_a_mutated_run(pristine, tmp_path):
    """The fault suite's mutators on one run among good ones: exit 0 or 2, no traceback, every error line names
    the mutated run, the summary line last; the good run is always in the output."""
    import random
    import shutil

    from cli_harness import check_contract
    from test_fuzz_inputs import MUTATORS

    for m in MUTATORS:
        ws = tmp_path / m.__name__
        shutil.copytree(pristine, ws, symlinks=True)
        (ws / "bm25.run").write_bytes(m((ws / "bm25.run").read_bytes(), random.Random(f"k30/{m.__name__}")))
        res = run_inproc("zelo_eval", ["-R", "q.qrels", "-m", "map", "-c", "--keep-going", "-o", "tsv", "dense.run",
                                       "bm25.run"], ws, timeout=60)
        assert check_contract(res, script="zelo_eval", expect={0, 2}, names=("bm25.run",)) == [], m.__name__
        assert "dense.run\tall\tmap\t" in res.stdout.decode(), (m.__name__, res.stderr)
        if res.returncode == 2:
            errors = [x for x in res.stderr.splitlines() if ": warning: " not in x]
            assert len(errors) == 2 and errors[0].startswith("zelo_eval: bm25.run"), (m.__name__, errors)
            assert errors[1] == ("zelo_eval: 1 of 2 runs not evaluated (--keep-going; their errors above): "
                                 "bm25.run"), (m.__name__, errors)
