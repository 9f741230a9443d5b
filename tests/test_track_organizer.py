"""A TREC track organizer's checks (session 20, g29): a run's topic that is not in the qrels (a typo'd topic id)
is never evaluated, with or without -c; trec_eval 10 -c drops it silently, so ours says so, one line per run, and
the topics every run has but the qrels lack (a track's unjudged topics) in one line for all runs."""
import subprocess
import sys

import pytest

QRELS = "".join(f"{t} 0 d{d} {g}\n" for t in ("1", "2", "3") for d, g in ((1, 2), (2, 0), (3, 1)))


def _run(name, topics):
    return "".join(f"{t} Q0 d{d} {r} {10 - r} {name}\n" for t in topics for r, d in enumerate((3, 1, 5), 1))


def _files(tmp_path):
    (tmp_path / "q.txt").write_text(QRELS)
    (tmp_path / "good.run").write_text(_run("good", ("1", "2", "3", "9")))
    (tmp_path / "typo.run").write_text(_run("typo", ("1", "2", "33", "9")))  # '33' for '3'; '9' unjudged


def _topics(path):
    return {line.split()[0] for line in path.read_text().splitlines()}


def _cmd(module, *args, cwd):
    return subprocess.run([sys.executable, "-m", module, *args], capture_output=True, text=True, cwd=cwd)


def test_zelo_eval_names_run_topics_not_in_qrels(tmp_path):
    _files(tmp_path)
    qt = _topics(tmp_path / "q.txt")
    good, typo = (_topics(tmp_path / f"{n}.run") - qt for n in ("good", "typo"))  # {'9'}, {'33', '9'}
    out = _cmd("pref_eval.cli.eval", "-R", "q.txt", "-c", "-m", "map", "-o", "tsv", "good.run", "typo.run",
               cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    shared = sorted(good & typo)
    own = sorted(typo - good)
    assert out.stderr.splitlines() == [
        f"zelo_eval: warning: all 2 runs: {len(shared)} run topic not in q.txt, not evaluated: "
        + ", ".join(map(repr, shared)),
        f"zelo_eval: warning: typo.run: {len(own)} run topic not in q.txt, not evaluated: " + ", ".join(map(repr, own)),
    ]


def test_zelo_trec_names_run_topics_not_in_qrels(tmp_path):
    _files(tmp_path)
    extra = sorted(_topics(tmp_path / "typo.run") - _topics(tmp_path / "q.txt"))
    out = _cmd("pref_eval.cli.trec", "-c", "-m", "map", "q.txt", "typo.run", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert out.stderr.splitlines() == [
        f"zelo_trec: warning: typo.run: {len(extra)} run topics not in q.txt, not evaluated: "
        + ", ".join(map(repr, extra))]


@pytest.mark.slow  # scipy's import: ~2 s
def test_zelo_compare_names_run_topics_not_in_qrels(tmp_path):
    _files(tmp_path)
    qt = _topics(tmp_path / "q.txt")
    good, typo = (_topics(tmp_path / f"{n}.run") - qt for n in ("good", "typo"))
    out = _cmd("pref_eval.cli.compare", "-R", "q.txt", "-c", "-m", "map", "--tests", "t", "good.run", "typo.run",
               cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    lines = [x for x in out.stderr.splitlines() if "not evaluated" in x]
    head = "zelo_compare: warning: {}: 1 run topic not in q.txt, not evaluated: {}"
    assert lines == [head.format("all 2 runs", ", ".join(map(repr, sorted(good & typo)))),
                     head.format("typo.run", ", ".join(map(repr, sorted(typo - good))))]
