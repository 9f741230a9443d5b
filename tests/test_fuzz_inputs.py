"""Bad and odd inputs of every kind, for every command that reads them.

Each valid input file of tests/fault_workspace.py (qrels, runs, judgments in
several formats, zbench datasets, preference JSON lines, zELO score files,
orderings, per-query tables, probability matrices, 'qid docno' lists,
tournament states) is mutated -- deterministically, by seeded mutators (lines
deleted, duplicated, truncated; fields emptied, swapped, added, replaced by
hostile values; Latin-1 and binary bytes; CR-only / CRLF line ends; a BOM; a
corrupt gzip; a 100 KB token; JSON values and keys changed) -- and given to
the command in place of the original. Every case must hold the contract of
docs/exit-codes.md: no traceback, no hang, exit 0 or 2, a failure is one line
naming the file, and no input or earlier output changes.

``CASES`` is the full generated sweep (marked slow, CI runs it); a
deterministic subset of about 200 runs by default. The count is asserted by
``test_sweep_size`` and printed in the summary of the slow run.
"""
from __future__ import annotations

import gzip
import json
import random
import shutil

import pytest
from cli_harness import check_contract, digest_tree, run_inproc
from fault_workspace import JUDGE

# input kind -> (file in the workspace, command, argv reading it)
READERS: dict[str, tuple[str, str, list[str]]] = {
    "qrels/trec": ("q.qrels", "zelo_trec", ["-m", "map", "-m", "ndcg_cut.10", "q.qrels", "bm25.run"]),
    "qrels/eval-pref": ("q.qrels", "zelo_eval", ["-R", "q.qrels", "-m", "rpp", "bm25.run", "dense.run"]),
    "qrels/pairs-init": ("q.qrels", "zelo_pairs", ["init", "--state", "new.json", "--qrels", "q.qrels"]),
    "run/trec": ("bm25.run", "zelo_trec", ["-m", "map", "q.qrels", "bm25.run"]),
    "run/eval-pref": ("bm25.run", "zelo_eval", ["-R", "q.qrels", "bm25.run", "dense.run"]),
    "run/pairs-cycles": ("bm25.run", "zelo_pairs", ["cycles", "--run", "bm25.run", "--depth", "5", "-Q"]),
    # session 21 (k30): a depth-N pool, less the judged documents
    "run/pairs-pool": ("bm25.run", "zelo_pairs", ["pool", "--depth", "5", "--qrels", "q.qrels", "-Q", "bm25.run",
                                                  "dense.run"]),
    "qrels/pairs-pool": ("q.qrels", "zelo_pairs", ["pool", "--depth", "5", "--qrels", "q.qrels", "-Q", "bm25.run"]),
    # session 23 (k32): the pool's contributions per group, the groups by run tag
    "groups/pairs-pool": ("groups.txt", "zelo_pairs", ["pool", "--depth", "5", "--contributions", "c.tsv",
                                                       "--groups", "groups.txt", "-Q", "-o", "p.txt", "bm25.run",
                                                       "dense.run"]),
    # session 24 (k33): the run types (a CSV with a header), the groups file in that layout
    "types/eval-topics": ("types.csv", "zelo_eval", ["-R", "q.qrels", "-m", "map", "-o", "topics", "--run-types",
                                                     "types.csv", "--quartiles", "-Q", "bm25.run", "dense.run",
                                                     "rerank.run"]),
    "types/pairs-pool": ("types.csv", "zelo_pairs", ["pool", "--depth", "5", "--contributions", "c.tsv", "--groups",
                                                     "types.csv", "-Q", "-o", "p.txt", "bm25.run", "dense.run"]),
    "run/compare": ("dense.run", "zelo_compare", ["-R", "q.qrels", "-m", "map", "--tests", "t", "bm25.run",
                                                  "dense.run"]),
    "judgments-clarke3/fit": ("j.judge", "zelo_fit", ["-J", "j.judge", "-Q"]),
    "judgments-jsonl/fit": ("j.jsonl", "zelo_fit", ["-J", "j.jsonl", "-Q"]),
    "judgments-clarke3/pairs-add": ("j.judge", "zelo_pairs", ["add", "--state", "s.json", "-J", "j.judge", "-Q"]),
    "dataset/pairs-cycles": ("dataset.jsonl", "zelo_pairs", ["cycles", "--dataset", "dataset.jsonl", "-Q"]),
    # session 9: zelo_fit's dataset (a query on two lines, a document listed twice: FILE:LINE)
    "dataset/fit": ("dataset.jsonl", "zelo_fit", ["-J", "zb_scores.json.gz", "--dataset", "dataset.jsonl", "-Q"]),
    # session 10 (p19): ids holding white space refused at init; result --qrels of other qrels refused
    "dataset/pairs-init-ranking": ("dataset.jsonl", "zelo_pairs", ["init", "--state", "new.json", "--strategy",
                                                                   "adaptive", "--goal", "ranking", "--dataset",
                                                                   "dataset.jsonl"]),
    "qrels-graded/pairs-result": ("jg.qrels", "zelo_pairs", ["result", "--state", "as-done.json", "--qrels",
                                                             "jg.qrels"]),
    "prefs-jsonl/aggregate": ("prefs.jsonl", "pref_aggregate", ["-P", "prefs.jsonl"]),
    "scores/eval": ("scores.tsv", "zelo_eval", ["-R", "scores.tsv", "bm25.run"]),
    # session 29 (f39): the input kinds of sessions 25-28 -- a zELO score file where qrels go (zelo_compare -R),
    # zbench's annotated JSON lines and its rerankers' files (zelo_eval -R), pref_eval.py's wide JSON lines (-P)
    "scores/compare-R": ("scores.tsv", "zelo_compare", ["-R", "scores.tsv", "-m", "zndcg@10", "--tests", "t",
                                                        "bm25.run", "dense.run"]),
    "annotated/eval": ("ann.jsonl", "zelo_eval", ["-R", "ann.jsonl", "rd.jsonl", "rr.jsonl"]),
    "reranker/eval": ("rd.jsonl", "zelo_eval", ["-R", "ann.jsonl", "rd.jsonl", "rr.jsonl"]),
    "prefs-jsonl/compare-P": ("prefs.jsonl", "zelo_compare", ["-P", "prefs.jsonl", "-m", "rpp", "--tests", "t"]),
    "orderings/compare": ("order_a.tsv", "zelo_compare", ["--orderings", "order_a.tsv", "order_b.txt"]),
    "ordering-list/compare": ("order_b.txt", "zelo_compare", ["--orderings", "order_a.tsv", "order_b.txt"]),
    "per-query/compare": ("pq.tsv", "zelo_compare", ["-P", "pq.tsv", "--tests", "t"]),
    # session 27 (b37): zelo_compare's records read by zelo_plot (ids that are not UTF-8 kept, object columns)
    "compare-records/plot": ("cmp.jsonl", "zelo_plot", ["pairs", "-C", "cmp.jsonl", "-m", "map", "-o", "f.svg",
                                                        "-Q"]),
    "matrix/simulate": ("matrix.txt", "zelo_simulate", ["tournament", "--matrix", "matrix.txt", "--reps", "2",
                                                        "-Q"]),
    "docs/pairs-cycles": ("docs.txt", "zelo_pairs", ["cycles", "--docs", "docs.txt", "-Q"]),
    "state/pairs-next": ("s.json", "zelo_pairs", ["next", "--state", "s.json"]),
    "state/pairs-result": ("s.json", "zelo_pairs", ["result", "--state", "s.json"]),
    "state-adaptive/pairs-next": ("as.json", "zelo_pairs", ["next", "--state", "as.json"]),
    "state-ranking/pairs-next": ("rs.json", "zelo_pairs", ["next", "--state", "rs.json"]),
    "state-ranking/pairs-result": ("rs.json", "zelo_pairs", ["result", "--state", "rs.json"]),
    "state-adaptive/judge": ("as.json", "zelo_judge", ["--state", "as.json", "--queries", "jq.tsv", "--docs", "jd.tsv",
                                                       "--judge", JUDGE, "--store", "judge.sqlite", "-Q"]),
    # zelo_judge's texts and pairs (session 8): duplicates with other texts, self-pairs, bad bytes name FILE:LINE
    "texts-docs/judge": ("jd.tsv", "zelo_judge", ["pairs.jsonl", "--queries", "jq.tsv", "--docs", "jd.tsv", "--judge",
                                                  JUDGE, "--store", "judge.sqlite", "-Q", "-o", "fz.jsonl"]),
    "texts-queries/judge": ("jq.tsv", "zelo_judge", ["pairs.jsonl", "--queries", "jq.tsv", "--docs", "jd.tsv",
                                                     "--judge", JUDGE, "--store", "judge.sqlite", "-Q", "-o",
                                                     "fz.jsonl"]),
    "pairs/judge": ("pairs.jsonl", "zelo_judge", ["pairs.jsonl", "--queries", "jq.tsv", "--docs", "jd.tsv", "--judge",
                                                  JUDGE, "--store", "judge.sqlite", "-Q", "-o", "fz.jsonl"]),
    # session 21 (j30): zbench's pairs.json carrying its texts (no --queries / --docs)
    "zbench-pairs/judge": ("zbp.json", "zelo_judge", ["zbp.json", "--judge", JUDGE, "--store", "judge.sqlite", "-Q",
                                                      "-o", "fz.jsonl"]),
    # session 12 (j21): zelo_agree's judgment files (crowd clarke4, GPT-4o llmlog, JSON lines), every level but
    # the system's
    "judgments-clarke4/agree": ("crowd.txt", "zelo_agree", ["-J", "crowd.txt", "-J", "gpt.human", "-l", "pair", "-l",
                                                            "calibration", "-l", "document", "--resamples", "0",
                                                            "-Q"]),
    "judgments-llmlog/agree": ("gpt.human", "zelo_agree", ["-J", "crowd.txt", "-J", "gpt.human", "-l", "pair", "-l",
                                                           "document", "--resamples", "0", "-Q"]),
    "judgments-jsonl/agree": ("j.jsonl", "zelo_agree", ["-J", "j.judge", "-J", "j.jsonl", "-J", "j.jsonl", "-l", "pair",
                                                        "-l", "document", "--resamples", "20", "-Q"]),
}

# files a command itself rewrites on success (the tournament state of next/add)
OWN_OUTPUTS = {"state/pairs-next": {"s.json"}, "judgments-clarke3/pairs-add": {"s.json"},
               "state-adaptive/pairs-next": {"as.json"}, "state-adaptive/judge": {"as.json"},
               "state-ranking/pairs-next": {"rs.json"},
               # new pairs (a mutated pairs file) are asked and stored: the store is the command's own output
               "texts-docs/judge": {"judge.sqlite"}, "texts-queries/judge": {"judge.sqlite"},
               "pairs/judge": {"judge.sqlite"}, "zbench-pairs/judge": {"judge.sqlite"}}
# problems of a combination of inputs, named by what they combine
ALSO_NAMED = {"orderings/compare": ("orderings",), "ordering-list/compare": ("orderings",),
              "per-query/compare": ("measure", "runs"), "run/compare": ("runs", "run"),
              "judgments-clarke3/pairs-add": ("state",),
              # a changed document id: the judgment naming it is the error ('not among the dataset\'s documents')
              "dataset/fit": ("dataset",)}

HOSTILE = ["", "abc", "nan", "NaN", "inf", "-inf", "-1", "1e400", "0x10", "1_0", "4.0", "1.5",
           "99999999999999999999", "é", "\u00a0", "\x00", "-0", "+1", "1e-400", "٣"]
JSON_HOSTILE = ["null", "true", "[]", "{}", '"x"', "NaN", "Infinity", "1e400", "-1", "1.5", '""']


def _lines(data: bytes) -> list[bytes]:
    return data.split(b"\n")


def m_delete_line(d, r):
    ls = _lines(d)
    del ls[r.randrange(len(ls))]
    return b"\n".join(ls)


def m_duplicate_line(d, r):
    ls = _lines(d)
    i = r.randrange(len(ls))
    ls.insert(i, ls[i])
    return b"\n".join(ls)


def m_truncate(d, r):
    return d[: r.randrange(len(d) + 1)]


def m_swap_fields(d, r):
    ls = _lines(d)
    i = r.randrange(len(ls))
    f = ls[i].split()
    if len(f) >= 2:
        a, b = r.sample(range(len(f)), 2)
        f[a], f[b] = f[b], f[a]
        ls[i] = b" ".join(f)
    return b"\n".join(ls)


def m_hostile_field(d, r):
    ls = _lines(d)
    i = r.randrange(len(ls))
    sep = b"\t" if b"\t" in ls[i] else b" "
    f = ls[i].split(sep)
    f[r.randrange(len(f))] = r.choice(HOSTILE).encode()
    ls[i] = sep.join(f)
    return b"\n".join(ls)


def m_extra_field(d, r):
    ls = _lines(d)
    i = r.randrange(len(ls))
    ls[i] = ls[i] + (b"\t" if b"\t" in ls[i] else b" ") + b"extra"
    return b"\n".join(ls)


def m_drop_field(d, r):
    ls = _lines(d)
    i = r.randrange(len(ls))
    f = ls[i].split()
    if f:
        del f[r.randrange(len(f))]
    ls[i] = b" ".join(f)
    return b"\n".join(ls)


def m_latin1(d, r):
    i = r.randrange(len(d) + 1)
    return d[:i] + b"\xe9" + d[i:]


def m_binary(d, r):
    i = r.randrange(len(d) + 1)
    return d[:i] + bytes(r.randrange(256) for _ in range(16)) + d[i:]


def m_cr_only(d, r):
    return d.replace(b"\n", b"\r")


def m_crlf(d, r):
    return d.replace(b"\n", b"\r\n")


def m_bom(d, r):
    return b"\xef\xbb\xbf" + d


def m_gzip_corrupt(d, r):
    z = gzip.compress(d)
    return z[: max(10, len(z) // 2)]


def m_gzip_ok(d, r):
    return gzip.compress(d)


def m_long_token(d, r):
    ls = _lines(d)
    i = r.randrange(len(ls))
    f = ls[i].split(b" ")
    f[r.randrange(len(f))] = b"x" * 100_000
    ls[i] = b" ".join(f)
    return b"\n".join(ls)


def m_blank_and_comment(d, r):
    ls = _lines(d)
    ls.insert(r.randrange(len(ls) + 1), r.choice([b"", b"   ", b"# comment", b"\t"]))
    return b"\n".join(ls)


def m_empty(d, r):
    return b""


def m_shuffle(d, r):
    ls = [x for x in _lines(d) if x]
    r.shuffle(ls)
    return b"\n".join(ls) + b"\n"


def m_json_value(d, r):
    ls = _lines(d)
    cands = [i for i, x in enumerate(ls) if x.strip().startswith(b"{")]
    if not cands:
        return m_hostile_field(d, r)
    i = r.choice(cands)
    try:
        obj = json.loads(ls[i])
    except ValueError:
        return d
    if not isinstance(obj, dict) or not obj:
        return d
    k = r.choice(sorted(obj))
    text = json.dumps(obj)
    needle = json.dumps(k) + ": " + json.dumps(obj[k])
    ls[i] = text.replace(needle, json.dumps(k) + ": " + r.choice(JSON_HOSTILE), 1).encode()
    return b"\n".join(ls)


def m_json_drop_key(d, r):
    ls = _lines(d)
    cands = [i for i, x in enumerate(ls) if x.strip().startswith(b"{")]
    if not cands:
        return m_drop_field(d, r)
    i = r.choice(cands)
    try:
        obj = json.loads(ls[i])
    except ValueError:
        return d
    if isinstance(obj, dict) and obj:
        del obj[r.choice(sorted(obj))]
    ls[i] = json.dumps(obj).encode()
    return b"\n".join(ls)


def m_json_wrap(d, r):
    s = d.strip()
    return b"[" + s + b"]" if s.startswith(b"{") else b'{"a": ' + s[:50] + b"}"


def m_state_value(d, r):
    """Tournament states: a value deep inside the JSON document replaced."""
    try:
        obj = json.loads(d)
    except ValueError:
        return d
    paths = []

    def walk(o, p):
        if isinstance(o, dict):
            for k, v in o.items():
                paths.append(p + (k,))
                walk(v, p + (k,))
        elif isinstance(o, list):
            for j, v in enumerate(o[:3]):
                paths.append(p + (j,))
                walk(v, p + (j,))
    walk(obj, ())
    if not paths:
        return d
    path = r.choice(paths)
    tgt = obj
    for k in path[:-1]:
        tgt = tgt[k]
    tgt[path[-1]] = json.loads(r.choice(JSON_HOSTILE + ['"a\\tb"', "99", '"extra"', '[1, 2]']))
    return json.dumps(obj).encode()


def m_state_newer(d, r):
    """States: a later format (with a key this version does not know) -- refused as written by a newer pref_eval."""
    try:
        obj = json.loads(d)
    except ValueError:
        return d
    obj["version"] = r.choice([3, 4, 99])
    obj["a later key"] = {"x": [1]}
    return json.dumps(obj).encode()


def m_deep_json(d, r):
    """A line replaced by JSON nested 100,000 deep (Python's json raises RecursionError, not ValueError: a
    traceback in six readers and in zelo_judge's answer parsing before session 12)."""
    ls = _lines(d)
    deep = b"[" * 100000 + b"]" * 100000
    i = r.randrange(len(ls))
    ls[i] = r.choice([deep, b'{"qid": ' + deep + b"}", b'{"votes": ' + deep + b"}"])
    return b"\n".join(ls)


MUTATORS = [m_deep_json, m_delete_line, m_duplicate_line, m_truncate, m_swap_fields, m_hostile_field, m_extra_field,
            m_drop_field, m_latin1, m_binary, m_cr_only, m_crlf, m_bom, m_gzip_corrupt, m_gzip_ok,
            m_long_token, m_blank_and_comment, m_empty, m_shuffle, m_json_value, m_json_drop_key, m_json_wrap]
SEEDS_PER = {m.__name__: 3 for m in MUTATORS}
SEEDS_PER.update({"m_deep_json": 1, "m_cr_only": 1, "m_crlf": 1, "m_bom": 1, "m_gzip_ok": 1, "m_empty": 1,
                  "m_json_wrap": 1,
                  "m_hostile_field": 6, "m_json_value": 6})

CASES = []
for kind in sorted(READERS):
    muts = list(MUTATORS) + ([m_state_value, m_state_newer] if kind.startswith("state") else [])
    for m in muts:
        n = 12 if m is m_state_value else 1 if m is m_state_newer else SEEDS_PER.get(m.__name__, 3)
        for seed in range(n):
            CASES.append((kind, m.__name__, seed))
MUT = {m.__name__: m for m in [*MUTATORS, m_state_value, m_state_newer]}
# the default run: a deterministic ~200-case sample that still covers every kind and mutator
_rng = random.Random(17)
FAST = set(_rng.sample(range(len(CASES)), 160))
for kind in READERS:
    FAST.add(next(i for i, c in enumerate(CASES) if c[0] == kind and c[1] == "m_hostile_field"))
for m in MUT:
    FAST.add(next(i for i, c in enumerate(CASES) if c[1] == m))


def _param(i, c):
    marks = [] if i in FAST else [pytest.mark.slow]
    return pytest.param(*c, id=f"{c[0]}:{c[1]}:{c[2]}", marks=marks)


@pytest.mark.parametrize("kind,mutator,seed", [_param(i, c) for i, c in enumerate(CASES)])
def test_mutated_input(pristine, tmp_path, kind, mutator, seed):
    fname, script, argv = READERS[kind]
    ws = tmp_path / "ws"
    shutil.copytree(pristine, ws, symlinks=True)
    data = (ws / fname).read_bytes()
    r = random.Random(f"{kind}/{mutator}/{seed}")
    (ws / fname).write_bytes(MUT[mutator](data, r))
    before = digest_tree(ws)
    res = run_inproc(script, argv, ws, timeout=60)
    problems = check_contract(res, script=script, expect={0, 2})
    if res.returncode == 2 and not res.stderr.endswith(" for help.\n"):  # a usage error: the option parser's
        line = res.stderr.strip().splitlines()[-1]
        if fname not in line and not any(w in line for w in ALSO_NAMED.get(kind, ())):
            problems.append(f"the message does not name {fname}: {line}")
    assert problems == [], (kind, mutator, seed, res.stderr[-800:])
    if mutator == "m_state_newer":
        assert res.returncode == 2 and res.stderr.endswith(" this version reads up to 2)\n") \
            and ": written by a newer pref_eval (format " in res.stderr, res.stderr
    after = digest_tree(ws)
    own = OWN_OUTPUTS.get(kind, set()) if res.returncode == 0 else set()
    if kind == "state-adaptive/judge" and "the state is left unchanged" in res.stderr:
        # a mutated but valid state (a pool document renamed) whose later batch lacks a text: zelo_judge --state
        # wrote the batches judged before it (docs/exit-codes.md), and the one it stops at changed nothing
        own = OWN_OUTPUTS[kind]
        from pref_eval.zelo.pair_state import load_state

        load_state(str(ws / fname))
    assert {k: v for k, v in after.items() if k in before and k not in own} == \
        {k: v for k, v in before.items() if k not in own}, "an input or earlier output changed"


# session 16: a NUL byte in any input is one ``FILE:LINE: a NUL byte ...`` refusal (textfile.refuse_nul); the JSON
# judgment and preference formats refuse a raw NUL through their JSON parser (its message, the same line)
NUL_JSON_PARSED = {"judgments-jsonl/fit", "judgments-jsonl/agree", "prefs-jsonl/aggregate"}


def m_nul(d: bytes, r: random.Random) -> tuple[bytes, int]:
    """A NUL ending a field (before a separator, a quote or the line end) of a non-blank line; and that line."""
    ls = _lines(d)
    i = r.choice([k for k, x in enumerate(ls) if x.strip()])
    cuts = [k for k, c in enumerate(ls[i]) if c in b" \t,\"" and k > 0] + [len(ls[i])]
    k = r.choice(cuts)
    ls[i] = ls[i][:k] + b"\0" + ls[i][k:]
    return b"\n".join(ls), i + 1


@pytest.mark.parametrize("kind", sorted(READERS))
def test_a_nul_in_any_input(pristine, tmp_path, kind):
    """Before session 16, a NUL was a character of a field of zELO score files, per-query tables, orderings,
    matrices, 'qid docno' lists and texts (the run ``B\\0`` of its own, a matrix's ``0.5\\0`` read as 0.5)."""
    from pref_eval.io.textfile import NUL_MESSAGE

    fname, script, argv = READERS[kind]
    ws = tmp_path / "ws"
    shutil.copytree(pristine, ws, symlinks=True)
    data, line = m_nul((ws / fname).read_bytes(), random.Random(f"{kind}/nul"))
    (ws / fname).write_bytes(data)
    before = digest_tree(ws)
    res = run_inproc(script, argv, ws, timeout=60)
    assert check_contract(res, script=script, expect={2}) == [], (kind, res.stderr[-800:])
    want = f"{fname}:{line}: " + ("expected a JSON object" if kind in NUL_JSON_PARSED else NUL_MESSAGE)
    assert res.stderr.count("\n") == 1 and want in res.stderr, (kind, line, res.stderr)
    assert digest_tree(ws) == before


def test_sweep_size():
    """The generated sweep (this file) is large; together with test_fuzz_options.py and
    test_output_faults.py it passes 1,000 cases."""
    assert len(CASES) >= 900, len(CASES)
    assert 150 <= len(FAST) <= 260
