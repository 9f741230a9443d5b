"""A ``zelo_pairs next`` file asking a pair again (session 29): the batch protocol's repetition
(:func:`pref_eval.zelo.pair_state.repetitions`) as a fourth column, ``repeat``, which ``zelo_judge PAIRS`` asks as
that repetition -- a new question in the store, as ``zelo_judge --state`` asks it. Before, a ``next`` file could not
say it (u38's leftover): a pair an adaptive state asked again got its first answer again from the store (a warning
since session 28), so the shell loop ``next`` -> ``zelo_judge PAIRS`` -> ``add`` counted one verdict twice.

Oracle: the protocol's own equivalence (pref_eval/zelo/pair_state.py, docs/zelo_pairs.md): ``zelo_judge --state``
leaves byte for byte the state of ``next`` then ``add`` of its judgments; with a judge whose answer is a seeded draw
per (pair, repetition) (tools/toy_judge.py), the shell loop must leave the same state and the same result."""
from __future__ import annotations

import io

import pytest

from next_loop import TOY_JUDGE, main_ok, write_texts


@pytest.fixture
def texts(tmp_path):
    return write_texts(tmp_path)


def test_write_requests_adds_the_column_only_when_a_pair_is_asked_again():
    from pref_eval.output.pairs import write_requests

    out = io.StringIO()
    write_requests(out, [("q", "a", "b"), ("q", "c", "d")], [0, 0])
    assert out.getvalue() == "# zelo_pairs requests (pairs to judge, not judgments): topic docA docB\nq a b\nq c d\n"
    out = io.StringIO()
    write_requests(out, [("q", "a", "b"), ("q", "c", "d")], [2, 0])
    assert out.getvalue() == ("# zelo_pairs requests (pairs to judge, not judgments): topic docA docB repeat\n"
                              "q a b 2\nq c d 0\n")


@pytest.mark.parametrize("body,where,says", [
    ("q a b 1\nq a c\n", 3, "expected 'topic docA docB repeat' (its header), got 3 fields"),
    ("q a b -1\n", 2, "repeat: expected an integer >= 0 (the pair's judgments before this one), got '-1'"),
    ("q a b 1.0\n", 2, "repeat: expected an integer >= 0"),
    ("q a a 1\n", 2, "pair of document a with itself"),
])
def test_a_bad_repeat_column_names_its_line(tmp_path, body, where, says):
    from pref_eval.errors import InputError
    from pref_eval.io.texts import read_pairs

    f = tmp_path / "b.txt"
    f.write_text("# zelo_pairs requests (pairs to judge, not judgments): topic docA docB repeat\n" + body)
    with pytest.raises(InputError) as err:
        read_pairs(str(f))
    assert (err.value.line, says in err.value.message) == (where, True), err.value


def test_read_pairs_gives_the_repetitions(tmp_path):
    from pref_eval.io.texts import read_pairs

    f = tmp_path / "b.txt"
    f.write_text("# zelo_pairs requests (pairs to judge, not judgments): topic docA docB repeat\nq a b 1\nq c d 0\n")
    reps: list[int] = []
    assert read_pairs(str(f), reps=reps) == [("q", "a", "b"), ("q", "c", "d")] and reps == [1, 0]
    f.write_text("# zelo_pairs requests (pairs to judge, not judgments): topic docA docB\nq a b\n")
    assert read_pairs(str(f), reps=reps) == [("q", "a", "b")] and reps == [0]


def _loop(t, judge: str, capsys, batches: int, quiet: bool = True) -> list[str]:
    """The shell loop of docs/zelo_pairs.md: next -> zelo_judge PAIRS -> add; the warnings of zelo_judge."""
    said = []
    for k in range(batches):
        batch = t / f"b{k}.txt"
        main_ok("pairs", ["next", "--state", str(t / "a.json"), "-o", str(batch)], capsys)
        if not batch.read_text():
            break
        said.append(main_ok("judge", [str(batch), "--queries", str(t / "q.tsv"), "--docs", str(t / "d.tsv"),
                                      "--store", str(t / "s.sqlite"), "-o", str(t / "j.jsonl"), "--judge", judge,
                                      *(["-Q"] if quiet else [])], capsys))
        main_ok("pairs", ["add", "--state", str(t / "a.json"), "-J", str(t / "j.jsonl"), "-Q"], capsys)
    return said


def test_a_repeated_pair_is_asked_anew(texts, capsys):
    """The second batch of an adaptive state asks the first batch's matches again: its file says so (the repeat
    column) and zelo_judge sends every request (the old code served those pairs from the store: the first answer
    again, and a warning)."""
    t = texts
    judge = f"{TOY_JUDGE} --noise 1"
    main_ok("pairs", ["init", "--qrels", str(t / "two.qrels"), "--strategy", "adaptive", "--seed", "0", "--force", "-Q",
                      "--state", str(t / "a.json")], capsys)
    said = _loop(t, judge, capsys, 2, quiet=False)
    lines = (t / "b1.txt").read_text().splitlines()
    assert lines[0].endswith("topic docA docB repeat") and any(ln.split()[3] != "0" for ln in lines[1:])
    assert ", 0 served from the store" in said[1] and "answered from the store" not in said[1], said[1]


@pytest.mark.slow  # 31 batches, 3 commands each: ~13 s
def test_the_shell_loop_equals_zelo_judge_state(texts, capsys):
    """An adaptive state run to its end through the shell loop and through ``zelo_judge --state``: the same state
    (but the digests of the batches added, which are of the files' bytes: zelo_judge's -o records beside the
    canonical lines --state adds). On the old code a batch's repeated pairs came from the store (the first answer
    again, with a warning since session 28), so the matches, losses and later batches differ."""
    import json

    strategy = "adaptive"
    t = texts
    judge = f"{TOY_JUDGE} --noise 1"
    init = ["init", "--qrels", str(t / "two.qrels"), "--strategy", strategy, "--seed", "0", "--force", "-Q"]
    main_ok("pairs", [*init, "--state", str(t / "a.json")], capsys)
    said = _loop(t, judge, capsys, 200)
    files = sorted(t.glob("b*.txt"), key=lambda p: int(p.stem[1:]))
    assert not files[-1].read_text(), "the loop ends with the state"
    again = [ln for f in files for ln in f.read_text().splitlines()[1:]
             if len(ln.split()) == 4 and ln.split()[3] != "0"]
    assert again, "some batch asks a pair again"
    assert not any("answered from the store" in s for s in said), said
    main_ok("pairs", [*init, "--state", str(t / "s.json")], capsys)
    main_ok("judge", ["--state", str(t / "s.json"), "--queries", str(t / "q.tsv"), "--docs", str(t / "d.tsv"),
                      "--store", str(t / "s2.sqlite"), "--judge", judge, "-Q"], capsys)
    ours, theirs = (json.loads((t / f).read_text()) for f in ("a.json", "s.json"))
    assert [b.split(":")[0] for b in ours.pop("batches")] == [b.split(":")[0] for b in theirs.pop("batches")]
    assert ours == theirs


def test_zelo_judge_refuses_a_bad_repeat_column_with_one_line(tmp_path):
    """The command's side of the refusals above: exit 2, one line naming the file and line, nothing written."""
    from cli_harness import run_module_inproc

    (tmp_path / "b.txt").write_text("# zelo_pairs requests (pairs to judge, not judgments): topic docA docB repeat\n"
                                    "q a b 0\nq a c x\n")
    r = run_module_inproc("judge", ["b.txt", "--dry-run", "--judge", "openai:m@http://127.0.0.1:9/v1", "--store",
                                    "s.sqlite"], tmp_path)
    assert (r.returncode, r.stderr) == (2, "zelo_judge: b.txt:3: repeat: expected an integer >= 0 (the pair's "
                                           "judgments before this one), got 'x'\n")
    assert not (tmp_path / "s.sqlite").exists()
