"""Session 28 (k38): when the first line of a ``--run-types`` / ``--groups`` file is a header. Before, any first line
whose first field was a run tag's column name (``run``, ``tag``, ``runtag`` ...) was one, so a run tagged ``run``
(ir_datasets' scoreddocs, ``irds:ID``) or ``tag`` typed on the first line lost its type ("no type for run tag
'run'"), and a first line holding one field was a header with no columns. Now (io/groups.is_header): a header has
three fields or more, or two whose second is a group's or a type's column name (``run type``, ``runtag group``), as
the tracks' own tables head them (TREC Genomics 2005's results: "Run Tag | Group | Type"; CLEF's run lists: "Run
type"); ``run automatic`` is data wherever it is. A first line that is no CSV line is refused with its line (was a
traceback)."""
from __future__ import annotations

import pytest

from cli_harness import run_inproc
from pref_eval.errors import InputError
from pref_eval.io.groups import TYPE_COLUMNS, read_run_groups


def _types(tmp_path, text: str) -> dict[str, str]:
    (tmp_path / "t.txt").write_text(text)
    return read_run_groups(tmp_path / "t.txt", what="type", names=TYPE_COLUMNS)


@pytest.mark.parametrize(("text", "want"), [
    ("run automatic\nrerank neural\n", {"run": "automatic", "rerank": "neural"}),  # was {'rerank': 'neural'}
    ("tag manual\nb auto\n", {"tag": "manual", "b": "auto"}),
    ("RUN,automatic\nb,manual\n", {"RUN": "automatic", "b": "manual"}),
    ("# types\n\nrunid\tfeedback\n", {"runid": "feedback"}),
    ("runtag,org\na,manual\n", {"runtag": "org", "a": "manual"}),  # 'org' names no column: data
])
def test_a_tag_column_name_with_a_value_is_data(tmp_path, text, want):
    assert _types(tmp_path, text) == want


@pytest.mark.parametrize(("text", "want"), [
    ("run type\nrun automatic\n", {"run": "automatic"}),  # a header first, data after it
    ("Run Tag\tGroup\tType\nUWat1\tUWaterloo\tautomatic\n", {"UWat1": "automatic"}),  # TREC Genomics 2005's
    ("run_id,Run Type\na,manual\n", {"a": "manual"}),
    ("runtag,group\na,manual\n", {"a": "manual"}),  # a groups column name: the second of two
    ("tag,date,type\na,2026,manual\n", {"a": "manual"}),  # three fields: a header whatever they say
])
def test_headers(tmp_path, text, want):
    assert _types(tmp_path, text) == want


@pytest.mark.parametrize(("text", "says"), [
    ("run\nb auto\n", "t.txt:1: expected 2 fields (RUNTAG TYPE), got 1"),  # was 'header line: no type column'
    ('"run,type\nb,auto\n', "t.txt:1: not a CSV line (unexpected end of data)"),  # was csv.Error, a traceback
])
def test_first_line_refused(tmp_path, text, says):
    with pytest.raises(InputError) as err:
        _types(tmp_path, text)
    assert str(err.value).endswith(says), str(err.value)


def test_run_tagged_run_typed_on_the_first_line(tmp_path):
    """The command: the run tagged ``run`` (as ``ir_datasets export ID scoreddocs`` tags it) typed on line 1."""
    (tmp_path / "q.txt").write_text("1 0 d1 1\n1 0 d2 0\n2 0 d1 1\n")
    (tmp_path / "a.run").write_text("1 Q0 d1 1 2.0 run\n1 Q0 d2 2 1.0 run\n2 Q0 d1 1 1.0 run\n")
    (tmp_path / "b.run").write_text("1 Q0 d2 1 2.0 b\n1 Q0 d1 2 1.0 b\n2 Q0 d1 1 1.0 b\n")
    (tmp_path / "t.txt").write_text("run automatic\nb manual\n")
    res = run_inproc("zelo_eval", ["-R", "q.txt", "-m", "map", "-Q", "-o", "topics", "--run-types", "t.txt",
                                   "a.run", "b.run"], tmp_path)
    assert res.returncode == 0, res.stderr
    assert sorted({r.split(b"\t")[2] for r in res.stdout.splitlines()[1:]}) == [b"automatic", b"manual"]
    (tmp_path / "g.csv").write_bytes(b'"run,X\n')
    res = run_inproc("zelo_pairs", ["pool", "--depth", "2", "--contributions", "c.tsv", "-o", "p.txt", "-Q",
                                    "--groups", "g.csv", "a.run", "b.run"], tmp_path)
    assert (res.returncode, res.stderr) == (2, "zelo_pairs: g.csv:1: not a CSV line (unexpected end of data)\n")
