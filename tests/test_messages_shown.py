"""Values in messages of cli/, judge/ and stats/ shown by the one rule (session 27, b37; errors.shown, session 26
w36): the ``repr`` with a byte that was not UTF-8 -- a Latin-1 command-line argument, read by Python as its
surrogate escape ``\\udce9`` -- written ``\\xe9`` and a control character escaped (``\\x1b``), never raw. Before,
these messages printed ``'1\\udce9'`` (``{value!r}``), which names no byte a user typed; click's own refusals of
a choice (``Invalid value for '--correction': ...``) too.

Oracle: the bytes given, written as Python writes a ``bytes`` value (``repr(b'1\\xe9')``), the form the docs
use for a Latin-1 id (docs/input-formats.md, "Messages")."""
from __future__ import annotations

import os

import numpy as np
import pytest

from tests.cli_harness import run_module_inproc

E9 = os.fsdecode(b"\xe9")  # the Latin-1 byte as Python reads it from a command line: '\udce9'


@pytest.mark.parametrize("module, argv, want", [
    ("trec", ["-l", "1" + E9, "q", "r"], "zelo_trec: -l expects an integer, got '1\\xe9'"),
    ("judge", ["p.jsonl", "--judge", "x" + E9 + "\x1by", "--queries", "q", "--docs", "d", "--store", "s"],
     "zelo_judge: --judge: expected openai:MODEL@BASE_URL or cmd:COMMAND, got 'x\\xe9\\x1by'"),
    ("judge", ["p.jsonl", "--judge", "cmd:x", "--price", "m=" + E9, "--queries", "q", "--docs", "d", "--store", "s"],
     "zelo_judge: --price: expected MODEL=IN,OUT (finite prices >= 0 per 1k tokens), got 'm=\\xe9'"),
    ("compare", ["-P", "pq.tsv", "--correction", "h" + E9 + "\x1b"],
     "zelo_compare: Invalid value for '--correction': 'h\\xe9\\x1b' is not one of"),
    ("compare", ["-P", "pq.tsv", "--wilcoxon-method", "\\udce9"],  # a backslash typed: shown doubled, not a byte
     "zelo_compare: Invalid value for '--wilcoxon-method': '\\\\udce9' is not one of"),
    ("compare", ["-P", "pq.tsv", "--tests", "t" + E9], "zelo_compare: unknown test 't\\xe9'"),
])
def test_command_messages_show_bytes_as_xnn(tmp_path, module, argv, want):
    (tmp_path / "pq.tsv").write_text("run\tqid\tmeasure\tvalue\na\t1\tmap\t0.5\nb\t1\tmap\t0.25\n")
    res = run_module_inproc(module, argv, tmp_path, text=False)
    err = res.stderr.decode("ascii")  # nothing raw: the byte and the escape character are written as escapes
    assert res.returncode == 2 and err.splitlines()[0].startswith(want), err


def test_api_messages_show_bytes_as_xnn():
    """The stats/ refusals of the Python API (ValueError / UsageError) follow the same rule."""
    from pref_eval.stats.correction import unknown_correction
    from pref_eval.stats.paired import wilcoxon_test
    from pref_eval.stats.signed_rank import wilcoxon

    assert str(unknown_correction("h" + E9)).startswith("unknown correction 'h\\xe9';")
    with pytest.raises(ValueError, match=r"^unknown zero method 'z\\xe9'$"):
        wilcoxon(np.ones((1, 3)), zero_method="z" + E9)
    with pytest.raises(ValueError, match=r"^unknown Wilcoxon method 'm\\xe9\\x1b'$"):
        wilcoxon_test(np.ones((1, 3)), method="m" + E9 + "\x1b")
