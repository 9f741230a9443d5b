"""``zelo_judge PAIRS`` on a ``zelo_pairs next`` request file (as written before session 29: no repeat column)
whose questions the store answers: a warning that an adaptive state's repeated pair got its first answer again
(such a file asks each pair as its first judgment;
``zelo_judge --state`` asks the repetition anew). Silent before session 28, when a shell loop over an adaptive
state counted one verdict twice in every match (measured: every second batch came wholly from the store).
Oracle: the pairs of the batch that an earlier batch asked, counted by hand from the request files."""
from __future__ import annotations

import re

import pytest

from next_loop import TOY_JUDGE, main_ok, write_texts


def _pairs(path) -> set[tuple[str, str, str]]:
    return {tuple(sorted(line.split()[1:3], key=str)) + (line.split()[0],)
            for line in path.read_text().splitlines() if line and not line.startswith("#")}


@pytest.fixture
def texts(tmp_path):
    return write_texts(tmp_path)


def test_a_next_file_served_from_the_store_is_warned(texts, capsys):
    t = texts
    judge = f"{TOY_JUDGE} --noise 1"
    main_ok("pairs", ["init", "--state", str(t / "a.json"), "--qrels", str(t / "two.qrels"), "--strategy", "adaptive",
                      "--seed", "0", "--force", "-Q"], capsys)
    asked: set = set()
    warned = []
    for k in range(3):
        batch = t / f"b{k}.txt"
        main_ok("pairs", ["next", "--state", str(t / "a.json"), "-o", str(batch)], capsys)
        # as zelo_pairs next wrote it before session 29: no repeat column (since then the file asks a pair again
        # as its next repetition: tests/test_next_repeat.py)
        old = batch.read_text().splitlines()
        batch.write_text("".join(" ".join(ln.split()[:3]) + "\n" if not ln.startswith("#") else
                                 ln.removesuffix(" repeat") + "\n" for ln in old))
        again = len(_pairs(batch) & asked)
        asked |= _pairs(batch)
        err = main_ok("judge", [str(batch), "--queries", str(t / "q.tsv"), "--docs", str(t / "d.tsv"), "--store",
                                str(t / "s.sqlite"), "-o", str(t / "j.jsonl"), "--judge", judge], capsys)
        lines = [ln for ln in err.splitlines() if "answered from the store" in ln]
        warned.append(again)
        if again:
            assert lines == [f"zelo_judge: warning: {batch}: {again} of its requests were answered from the store "
                             "(asked before): right for a batch judged again after an interruption; but a zelo_pairs "
                             "requests file written before session 29 has no repeat column, so a pair that an "
                             "adaptive state asked again got its first answer again: make such files with this "
                             "version's zelo_pairs next, which writes the column, or drive the state with zelo_judge "
                             "--state"]
        else:
            assert lines == []
        main_ok("pairs", ["add", "--state", str(t / "a.json"), "-J", str(t / "j.jsonl"), "-Q"], capsys)
    assert warned[0] == 0 and warned[1] > 0  # the second batch asks the first batch's matches again


def test_other_pairs_files_judged_again_are_not_warned(texts, capsys):
    t = texts
    judge = TOY_JUDGE
    (t / "docs.txt").write_text("".join(" ".join(ln.split()[0:3:2]) + "\n"
                                        for ln in (t / "two.qrels").read_text().splitlines()[:12]))
    for fmt, name in (("tsv", "c.tsv"), ("jsonl", "c.jsonl")):
        main_ok("pairs", ["cycles", "--docs", str(t / "docs.txt"), "--cycles", "1", "--seed", "0", "--output-format",
                          fmt, "-o", str(t / name), "-Q"], capsys)
        for _ in range(2):  # the second run is served from the store: a resumed batch, nothing to warn of
            err = main_ok("judge", [str(t / name), "--queries", str(t / "q.tsv"), "--docs", str(t / "d.tsv"),
                                    "--store", str(t / "o.sqlite"), "--judge", judge, "-o", str(t / "o.jsonl")], capsys)
            assert "answered from the store" not in err
        assert re.search(r"0 requests sent \([^)]*\), [1-9][0-9]* served from the store", err), err
