"""A run line whose first field starts with ``#`` after leading white space is a comment.

trec_eval 10's results reader (``get_trec_results.c``) skips a line's leading white space and then
skips the line if it starts with ``#``; its rel-info readers (``get_qrels.c`` ...) test ``#`` at the
first byte only, so an indented ``#`` in a qrels file is data (`` #1 0 x 1`` is topic ``#1``).
zelo_trec read an indented run line ``\\t#1 Q0 x 1 1 r`` as a document of topic ``#1`` and refused
``  # a note`` (too few fields) where trec_eval skips both (found by t26's differential fuzz against the
trec_eval 10.0 binary). The oracle is that definition: a run with such lines reads exactly as the run
without them, on every reading path (compiled kernels, pyarrow, the tokenizer), and the run tag is the
last line that is not a comment.
"""
from __future__ import annotations

import numpy as np
import pytest
from cli_harness import run_inproc

from pref_eval.io.runs import run_from_bytes

PLAIN = [b"1 Q0 a 1 1.5 r", b"1 Q0 b 2 2 r", b"2 Q0 c 1 0.25 s"]
COMMENTS = [b"\t#1 Q0 x 1 1 r", b"  # a note", b" #c", b"\x0b# q0 d 1 1 z"]


def _with_comments(plain: list[bytes], every: int) -> bytes:
    out = []
    for i, ln in enumerate(plain):
        if i % every == 0:
            out.append(COMMENTS[(i // every) % len(COMMENTS)])
        out.append(ln)
    out.append(COMMENTS[0])  # last line a comment: the tag comes from the line before
    return b"\n".join(out) + b"\n"


def _columns(run):
    return run.qid.tolist(), run.docno.tolist(), run.score.tolist(), run.tag


@pytest.mark.parametrize("paths", [(True, True), (False, True), (False, False)],
                         ids=["compiled", "pyarrow", "tokenizer"])
@pytest.mark.parametrize("size", ["small", "big"])
def test_indented_comment_lines_are_skipped(paths, size):
    plain = PLAIN if size == "small" else [
        b"q%d Q0 doc%d %d %d.%d t%d" % (i // 1000, i, i, i % 97, i % 10, i % 3) for i in range(60_000)]
    data = _with_comments(plain, 3)
    if size == "big":
        assert len(data) > 1 << 20  # pyarrow's threshold (io/fastparse.PYARROW_MIN)
    want = run_from_bytes(b"\n".join(plain) + b"\n", "r", try_compiled=False, try_fast=False)
    got = run_from_bytes(data, "r", try_compiled=paths[0], try_fast=paths[1])
    assert _columns(got) == _columns(want)
    # the line numbers are those of the data lines in the file with the comments
    lines = [i + 1 for i, ln in enumerate(data.split(b"\n")) if ln.strip() and not ln.lstrip().startswith(b"#")]
    assert np.array_equal(got.line, lines)


def test_zelo_trec_as_trec_eval_on_an_indented_hash(tmp_path):
    """qrels topic ``#1`` (an indented ``#`` is data in a qrels file), run line ``\\t#1 ...`` (a comment in a
    run): under -c topic #1 is a topic the run lacks (trec_eval's placeholder, num_ret 0), as for the run
    without that line."""
    (tmp_path / "q").write_bytes(b"1 0 a 1\n #1 0 x 1\n1 0 b 0\n")
    (tmp_path / "r").write_bytes(b"1 Q0 a 1 1 r\n1 Q0 b 2 2 s\n\t#1 Q0 x 1 1 r\n")
    (tmp_path / "r0").write_bytes(b"1 Q0 a 1 1 r\n1 Q0 b 2 2 s\n")
    argv = ["-q", "-c", "-m", "num_ret", "-m", "num_rel", "-m", "map", "-m", "runid", "q"]
    got = run_inproc("zelo_trec", [*argv, "r"], tmp_path)
    want = run_inproc("zelo_trec", [*argv, "r0"], tmp_path)
    assert got.returncode == want.returncode == 0, (got, want)
    assert got.stdout == want.stdout
    # by hand: topic #1 has one relevant document and retrieves nothing
    assert b"num_rel               \t#1\t1\n" in got.stdout
    assert b"num_ret               \t#1\t0\n" in got.stdout
    assert b"map                   \t#1\t0.0000\n" in got.stdout
