"""zELO judgment readers: every format, autodetection, file:line errors, vote rule."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from pref_eval.errors import InputError
from pref_eval.io.judgments import detect_format, read_judgments
from pref_eval.zelo.judgments import vote_score

from conftest import need_shared  # noqa: E402


def _write(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return str(p)


def _triples(j):
    return [
        (j.queries[j.q[k]], j.docs[j.queries[j.q[k]]][j.a[k]], j.docs[j.queries[j.q[k]]][j.b[k]], j.score[k],
         j.weight[k])
        for k in range(len(j))
    ]


def test_vote_rule_half_and_zbench():
    # research note: 0 / failed counts 1/2; zbench: counts for A
    assert vote_score([0.7, -0.2, 0.0], "half") == pytest.approx(0.5)
    assert vote_score([0.7, -0.2, None], "half") == pytest.approx(0.5)
    assert vote_score([0.7, -0.2, 0.0], "zbench") == 1.0 / 3.0
    assert vote_score([0.1, 0.2, 0.3], "zbench") == 1.0  # 1/3+1/3+1/3 is exactly 1.0
    assert vote_score([0.1, 0.2, -1.0], "zbench") == 1.0 / 3.0 + 1.0 / 3.0
    assert vote_score([-1, 0, 0], "half") == pytest.approx(1.0 / 3.0)


def test_jsonl_scores_votes_weights(tmp_path):
    p = _write(tmp_path, "j.jsonl", "\n".join([
        json.dumps({"qid": "q1", "doc_a": "d1", "doc_b": "d2", "score": 1}),
        json.dumps({"qid": "q1", "doc_a": "d2", "doc_b": "d3", "votes": [0.5, -0.5, 0.0], "weight": 2, "judge": "x"}),
        "",
        json.dumps({"qid": 7, "doc_a": "a", "doc_b": "b", "votes": [None, 1, 1]}),
    ]) + "\n")
    assert detect_format(Path(p).read_text()) == "jsonl"
    j = read_judgments(p)
    assert _triples(j) == [("q1", "d1", "d2", 1.0, 1.0), ("q1", "d2", "d3", 0.5, 2.0),
                           ("7", "a", "b", pytest.approx(5 / 6), 1.0)]
    jz = read_judgments(p, ties="zbench")
    assert jz.score[1] == 1.0 / 3.0 and jz.score[2] == 2.0 / 3.0


@pytest.mark.parametrize("line,msg", [
    ('{"qid": "q", "doc_a": "a", "doc_b": "b", "score": 1.5}', "score"),
    ('{"qid": "q", "doc_a": "a", "doc_b": "b"}', "\"score\" or a \"votes\""),
    ('{"qid": "q", "doc_a": "a", "doc_b": "b", "votes": [2]}', "vote"),
    ('{"qid": "q", "doc_a": "a", "doc_b": "b", "score": 1, "weight": -1}', "weight"),
    ('{"qid": "q", "doc_b": "b", "score": 1}', "doc_a"),
    ('{"qid": "q", "doc_a": "a", "doc_b": "b", "score": 1', "JSON"),
])
def test_jsonl_errors_have_line(tmp_path, line, msg):
    good = '{"qid": "q", "doc_a": "a", "doc_b": "b", "score": 0}'
    p = _write(tmp_path, "bad.jsonl", good + "\n" + line + "\n")
    with pytest.raises(InputError) as ei:
        read_judgments(p, "jsonl")
    assert ei.value.line == 2 and msg in ei.value.message


def test_clarke4_and_clarke3(tmp_path):
    p4 = _write(tmp_path, "c4", "t1 a b b\nt1 b c b\n")
    p3 = _write(tmp_path, "c3", "t1 b a\nt1 b c\n")
    assert detect_format(Path(p4).read_text()) == "clarke4"
    assert detect_format(Path(p3).read_text()) == "clarke3"
    assert _triples(read_judgments(p4)) == [("t1", "a", "b", 1.0, 1.0), ("t1", "b", "c", 0.0, 1.0)]
    assert _triples(read_judgments(p3)) == [("t1", "b", "a", 0.0, 1.0), ("t1", "b", "c", 0.0, 1.0)]
    bad = _write(tmp_path, "c4bad", "t1 a b b\nt1 a b c\n")
    with pytest.raises(InputError) as ei:
        read_judgments(bad, "clarke4")
    assert (ei.value.line, "winner") == (2, "winner") and "docA or docB" in ei.value.message


def test_llmlog_ties_and_missing(tmp_path):
    p = _write(tmp_path, "log", "@ 1 a b !\n@ 1 c d =\n@ 1 e f ?\n")
    j = read_judgments(p)
    assert _triples(j) == [("1", "a", "b", 0.0, 1.0), ("1", "c", "d", 0.5, 1.0)]
    assert j.docs["1"] == ["a", "b", "c", "d", "e", "f"]
    with pytest.raises(InputError) as ei:
        read_judgments(_write(tmp_path, "log2", "@ 1 a b !\n@ 1 a b X\n"))
    assert ei.value.line == 2


def test_carterette(tmp_path):
    p = _write(tmp_path, "cb", "q a b -1\nq a c 1\nq b c 0\nq x NA -2\nq NA y 2\n")
    assert detect_format(Path(p).read_text()) == "carterette"
    j = read_judgments(p)
    assert _triples(j) == [("q", "a", "b", 0.0, 1.0), ("q", "a", "c", 1.0, 1.0), ("q", "b", "c", 0.5, 1.0)]
    assert set(j.docs["q"]) == {"a", "b", "c", "x", "y"}
    with pytest.raises(InputError) as ei:
        read_judgments(_write(tmp_path, "cb2", "q a b -1\nq a b 3\n"), "carterette")
    assert ei.value.line == 2


def test_trec_prefs(tmp_path):
    p = _write(tmp_path, "tp", "q g1 s a 2\nq g1 s b 1\nq g1 s c 1\nq g2 s d 0\n")
    assert detect_format(Path(p).read_text()) == "trecprefs"
    j = read_judgments(p)
    assert _triples(j) == [("q", "a", "b", 0.0, 1.0), ("q", "a", "c", 0.0, 1.0)]
    assert j.docs["q"] == ["a", "b", "c", "d"]


def test_xie(tmp_path):
    p = _write(tmp_path, "xie", "Query\tImage_pair\ttags\nq\tl.jpg,r.jpg\t-1\t1.0\t2\nq\tl.jpg,s.jpg\t0\t-2\t-1\n")
    j = read_judgments(p)
    assert _triples(j) == [("q", "l.jpg", "r.jpg", pytest.approx(2 / 3), 1.0),
                           ("q", "l.jpg", "s.jpg", pytest.approx(1 / 6), 1.0)]
    with pytest.raises(InputError) as ei:
        read_judgments(_write(tmp_path, "x2", "q\tl,r\t1\t0\t1\nq\tl,r\t1\tx\t1\n"), "xie")
    assert ei.value.line == 2


def test_zbench_ai_scores(tmp_path):
    def sp(q, a, b, o, g, an):
        pair = {"pair_id": f"{q}-{a}-{b}", "query_id": q, "query": "t",
                "document_a": {"document_id": a, "metadata": {}, "content": ""},
                "document_b": {"document_id": b, "metadata": {}, "content": ""}}
        return {"pair": pair, "openai_score": {"thought": "", "score": o},
                "gemini_score": {"thought": "", "score": g}, "anthropic_score": {"thought": "", "score": an}}
    obj = {"scored_pairs": [sp("q", "a", "b", 0.5, 0.0, -0.3), sp("q", "b", "c", 0.2, 0.9, 1.0)]}
    p = _write(tmp_path, "ai_scores.json", json.dumps(obj, indent=4))
    assert read_judgments(p).score == [pytest.approx(0.5), 1.0]
    assert read_judgments(p, ties="zbench").score == [1.0 / 3.0, 1.0]


def test_unknown_format_names_line(tmp_path):
    p = _write(tmp_path, "weird", "a b c d e f g\n")
    with pytest.raises(InputError) as ei:
        read_judgments(p)
    assert ei.value.line == 1 and ei.value.message.endswith("; use judgments_format")  # a Python caller: the keyword


def test_cli_error_line(tmp_path):
    p = _write(tmp_path, "c3", "t1 b a\nt1 b\n")
    r = subprocess.run([sys.executable, "-m", "pref_eval.cli.fit", "-J", p, "--format", "clarke3"],
                       capture_output=True, text=True)
    assert r.returncode == 2
    assert r.stderr == f"zelo_fit: {p}:2: expected 3 fields 'topic winner loser', got 2\n"
    assert r.stdout == ""


REAL = [
    ("duelingBandits/judgments.txt", "clarke4", 11681, 50, 1570),
    ("claclark_preferences/TREC-CAsT-2019.pref", "clarke4", 14573, 171, 2671),
    ("llm_relevance_judgement_comparison/Pref/DL2021/judge.human", "llmlog", 6993 + 2423, 50, 1570),
    ("llm_relevance_judgement_comparison/Pref/DL2019/judge.00", "clarke3", None, None, None),
    ("jelsas_pairwise_pref_eval/test_data/preferences.txt", "carterette", None, 2, None),
    ("trec_eval_test/prefs.test", "trecprefs", None, None, None),
    ("xie_image_preferences/image_pairs_annotation", "xie", 41538, 102, None),
]


@pytest.mark.parametrize("rel,fmt,n,nq,nd", REAL)
def test_real_data(rel, fmt, n, nq, nd):
    path = need_shared("data", *Path(rel).parts)
    text = path.read_text(encoding="utf-8")
    assert detect_format(text) == fmt
    j = read_judgments(str(path))
    if n is not None:
        assert len(j) == n
    if nq is not None:
        assert len(j.queries) == nq
    if nd is not None:
        assert sum(len(v) for v in j.docs.values()) == nd


def test_trec_prefs_error_line(tmp_path):
    with pytest.raises(InputError) as ei:
        read_judgments(_write(tmp_path, "tp2", "q g1 s a 2\nq g1 s b x\n"), "trecprefs")
    assert ei.value.line == 2 and "rel_level" in ei.value.message
    with pytest.raises(InputError) as ei:
        read_judgments(_write(tmp_path, "tp3", "q g1 s a 2\nq g1 s b\n"), "trecprefs")
    assert ei.value.line == 2


def test_zbench_ai_scores_error_names_the_pair_line(tmp_path):
    good = {"pair": {"pair_id": "q-a-b", "query_id": "q", "query": "t",
                     "document_a": {"document_id": "a", "metadata": {}, "content": ""},
                     "document_b": {"document_id": "b", "metadata": {}, "content": ""}},
            "openai_score": {"thought": "", "score": 0.5}, "gemini_score": {"thought": "", "score": 0.1},
            "anthropic_score": {"thought": "", "score": -0.3}}
    bad = json.loads(json.dumps(good))
    bad["gemini_score"]["score"] = "high"
    text = json.dumps({"scored_pairs": [good, good, bad]}, indent=4)  # zbench writes indent=4
    p = _write(tmp_path, "ai_scores.json", text)
    with pytest.raises(InputError) as ei:
        read_judgments(p)
    lines = text.split("\n")
    # the third element starts on the third line that opens a pair object at indent 8
    starts = [i + 1 for i, line in enumerate(lines) if line == "        {"]
    assert ei.value.line == starts[2] and "scored_pairs[2]" in ei.value.message
    with pytest.raises(InputError) as ei:
        read_judgments(_write(tmp_path, "broken.json", text[:-40]), "zbench")
    assert ei.value.line > 1  # json's own line number of the syntax error


@pytest.mark.parametrize("bad", [None, True, 1.5, [], {}, ["a"], {"id": "a"}])
@pytest.mark.parametrize("key", ["query_id", "document_a", "document_b"])
def test_zbench_ids_must_be_strings(tmp_path, key, bad):
    """Found by the mutated-file fuzz: a null id was read as the document 'None' ({} as '{}', true as
    'True') on the parser's path. zbench's pydantic models (``query_id: str``, ``document_id: str``) refuse
    them; so do we, naming the pair's line. An integer stays readable as its digits (as in jsonl)."""
    def sp(a):
        return {"pair": {"query_id": "q", "document_a": {"document_id": a}, "document_b": {"document_id": "z"}},
                "openai_score": {"score": 0.5}, "gemini_score": {"score": 0.1}, "anthropic_score": {"score": -0.3}}
    obj = {"scored_pairs": [sp("a"), sp("b")]}
    pair = obj["scored_pairs"][1]["pair"]
    if key == "query_id":
        pair[key] = bad
    else:
        pair[key]["document_id"] = bad
    text = json.dumps(obj, indent=4)
    with pytest.raises(InputError) as ei:
        read_judgments(_write(tmp_path, "ai_scores.json", text), "zbench")
    assert ei.value.line == text.split("\n").index("        {", 3) + 1
    assert ei.value.message.startswith("scored_pairs[1]: expected pair.query_id")
    what = key if key == "query_id" else key + ".document_id"
    assert f"{what} is {json.dumps(bad)}, not a string" in ei.value.message
    pair.update({"query_id": 7, "document_a": {"document_id": 8}, "document_b": {"document_id": "z"}})
    j = read_judgments(_write(tmp_path, "ok.json", json.dumps(obj)), "zbench")
    assert j.queries == ["q", "7"] and list(j.docs["7"]) == ["8", "z"]


@pytest.mark.parametrize("line", ['{"query": {"id": null}, "documents": [{"id": "a"}]}',
                                  '{"query": {"id": "q"}, "documents": [{"id": "a"}, {"id": true}]}',
                                  '{"query": {"id": "q"}, "documents": [{"id": {}}]}'])
def test_dataset_ids_must_be_strings(tmp_path, line):
    from pref_eval.io.judgments import read_zbench_dataset

    p = _write(tmp_path, "ds.jsonl", '{"query": {"id": "r"}, "documents": [{"id": 1}]}\n' + line + "\n")
    with pytest.raises(InputError) as ei:
        read_zbench_dataset(p)
    assert ei.value.line == 2


@pytest.mark.parametrize("fmt,text", [("trecprefs", "q1 j s d1 1\nq1 j t d2 2\n"),  # no two levels in one jsg
                                      ("trecprefs", "q1 j s d1 1\nq1 j s d2 1\n"),  # a tie: no judgment
                                      ("llmlog", "@ q1 d1 d2 ?\n"),
                                      ("carterette", "q1 NA d1 2\nq1 d2 NA -2\n")])
def test_documents_without_any_judgment(tmp_path, fmt, text):
    """Found by the mutated-file fuzz (a prefs file cut to two lines of different sub-groups): a file that
    registers documents but states no judgment made an empty score column whose values were never set,
    and zelo_fit died with a TypeError. Its documents are as a judged file's unjudged ones (``q2`` here)."""
    j = read_judgments(_write(tmp_path, "j", text), fmt)
    assert len(j) == 0 and j.docs == {"q1": ["d1", "d2"]}
    assert [c.tolist() for c in j.arrays()] == [[]] * 5
    from cli_harness import run_module_inproc

    res = run_module_inproc("fit", ["-J", _write(tmp_path, "j", text), "--format", fmt])
    judged = run_module_inproc("fit", ["-J", _write(tmp_path, "j2", "@ q0 d1 d2 !\n@ q1 d1 d2 ?\n"), "--format",
                                       "llmlog"])
    assert res.returncode == 0 and judged.returncode == 0, res.stderr + judged.stderr
    assert res.stdout.splitlines()[1:] == [ln for ln in judged.stdout.splitlines() if ln.startswith("q1\t")]


def test_dataset_reader_error_line(tmp_path):
    from pref_eval.io.judgments import read_zbench_annotated, read_zbench_dataset

    p = _write(tmp_path, "ds.jsonl", '{"query": {"id": "q"}, "documents": [{"id": "a"}]}\n{"query": {"id": "r"}}\n')
    with pytest.raises(InputError) as ei:
        read_zbench_dataset(p)
    assert ei.value.line == 2
    p2 = _write(tmp_path, "ann.jsonl", '{"query": {"id": "q"}, "documents": [{"id": "a", "score": 1}]}\n'
                '{"query": {"id": "r"}, "documents": [{"id": "a"}]}\n')
    with pytest.raises(InputError) as ei:
        read_zbench_annotated(p2)
    assert ei.value.line == 2
    p3 = tmp_path / "latin1.jsonl"
    p3.write_bytes(b'{"query": {"id": "q\xe9"}, "documents": []}\n')  # the id's byte (session 28, b38)
    assert [q.encode("utf-8", "surrogateescape") for q, _d, _s in read_zbench_annotated(str(p3))] == [b"q\xe9"]


def test_cli_dataset_unknown_document_is_an_error(tmp_path):
    ds = _write(tmp_path, "ds.jsonl", '{"query": {"id": "t1", "query": "x"}, "documents": '
                '[{"id": "a", "content": ""}, {"id": "b", "content": ""}]}\n')
    j = _write(tmp_path, "c4", "t1 a b b\nt1 a c c\n")
    r = subprocess.run([sys.executable, "-m", "pref_eval.cli.fit", "-J", j, "--dataset", ds],
                       capture_output=True, text=True)
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr == f"zelo_fit: {j}:2: document 'c' is not among the dataset's documents of query 't1'\n"
    # a query the dataset does not list: fitted (warning), ignored under --compat zbench as zbench does
    j2 = _write(tmp_path, "c4b", "t1 a b b\nt2 x y x\n")
    r = subprocess.run([sys.executable, "-m", "pref_eval.cli.fit", "-J", j2, "--dataset", ds],
                       capture_output=True, text=True)
    assert r.returncode == 0 and "not in the dataset" in r.stderr
    assert [line.split("\t")[0] for line in r.stdout.splitlines()[1:]] == ["t1", "t1", "t2", "t2"]
    r = subprocess.run([sys.executable, "-m", "pref_eval.cli.fit", "-J", j2, "--dataset", ds, "--compat", "zbench"],
                       capture_output=True, text=True)
    assert r.returncode == 0 and "ignored, as zbench does" in r.stderr
    assert [line.split("\t")[0] for line in r.stdout.splitlines()[1:]] == ["t1", "t1"]


# JSON texts of a score: numbers, booleans, numeric strings as Python's float and pydantic both read them or
# not, and what neither reads
ZBENCH_SCORES = ["0.5", "-3", "1e400", "NaN", "Infinity", "true", "false", "1" + "0" * 400, '"0.5"', '" 0.5\\n"',
                 '"1_0"', '"1__0"', '"inf"', '"-Infinity"', '"nan"', '"1e400"', '"0x10"', '""', '"a"', '"\\u0663"',
                 '"\\u00a00.5"', '"\\u001c1"', '"1\\u001f"', '"1\\u0085"', "null", "[]", "{}", "[0.5]"]


@pytest.mark.parametrize("score", ZBENCH_SCORES)
def test_zbench_annotated_score_as_zbench_reads_it(tmp_path, score):
    """zbench reads annotated files with ``AnnotatedDataset.model_validate`` (pydantic, lax mode;
    zbench/common_types.py: ``score: float``): a numeric string and true/false are scores there. Ours
    takes what pydantic takes, with the same value, and refuses (file:line) what it refuses; pydantic,
    run live, is the oracle."""
    import math

    import pydantic

    class AnnotatedDocument(pydantic.BaseModel):  # zbench's model, the field that matters
        id: str
        score: float

    from pref_eval.io.judgments import read_zbench_annotated

    doc = '{"id": "a", "score": ' + score + "}"
    p = _write(tmp_path, "ann.jsonl", '{"query": {"id": "q"}, "documents": [{"id": "b", "score": 1}]}\n'
               '{"query": {"id": "r"}, "documents": [' + doc + "]}\n")
    try:
        want = AnnotatedDocument.model_validate(json.loads(doc)).score
    except pydantic.ValidationError:
        with pytest.raises(InputError) as ei:
            read_zbench_annotated(p)
        assert ei.value.line == 2
        return
    got = read_zbench_annotated(p)[1][2][0]
    assert got == want or (math.isnan(got) and math.isnan(want))
