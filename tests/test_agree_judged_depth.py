"""zelo_agree ``--judged-depth K`` (session 26): a judge's coverage of each run at the system level as
``judged@K:RUN``, ir-measures' Judged@K, checked live against ir-measures itself on the same runs and the qrels
each judge's judged pairs make (``zelo_fit --qrels``); ``judged:RUN`` (every retrieved document) stays the default,
and is ir-measures' ``Judged`` without a cutoff since session 27 (it was the share of the run's pooled (topic,
document) lines: on runs whose topics hold different numbers of documents, or that lack a topic, another figure)."""
from __future__ import annotations

import random
from pathlib import Path

import pytest

from test_agree_cli import CROWD, GPT, cli, records


@pytest.fixture(scope="module")
def runs_and_qrels(tmp_path_factory):
    """Three runs over the DL 2021 sample's topics mixing judged passages with unjudged ids, tied scores (ties
    are broken by docno, as ir-measures sorts), one run lacking a topic and one topic shorter than 10; and each
    judge's qrels as zelo_fit --qrels writes them."""
    d = tmp_path_factory.mktemp("judged_depth")
    docs: dict[str, set] = {}
    for line in Path(CROWD).read_text(encoding="utf-8").splitlines():
        t, a, b, _ = line.split()
        docs.setdefault(t, set()).update([a, b])
    topics = sorted(docs)
    paths = []
    for s in range(3):
        rng = random.Random(100 + s)
        with open(d / f"r{s}.run", "w", encoding="utf-8") as out:
            for k, t in enumerate(topics):
                if s == 2 and k == 0:
                    continue  # a run without this topic: 0 there, as ir-measures counts it
                ds = rng.sample(sorted(docs[t]), 6) + [f"unjudged_{t}_{j}" for j in range(6 + 4 * s)]
                rng.shuffle(ds)
                if s == 1 and k == 1:
                    ds = ds[:7]  # fewer than K = 10 retrieved: Judged@10 divides by 7
                for r, doc in enumerate(ds):
                    out.write(f"{t} Q0 {doc} {r + 1} {float(30 - r // 3)} r{s}\n")  # ties in threes
        paths.append(str(d / f"r{s}.run"))
    qrels = {}
    for judge, path in (("crowd", CROWD), ("gpt4o", GPT)):
        assert cli("fit", "-J", path, "-o", str(d / f"{judge}.scores"), "--qrels", str(d / f"{judge}.qrels"),
                   "-Q").returncode == 0
        qrels[judge] = str(d / f"{judge}.qrels")
    return paths, qrels


def agree(*args: str):
    return cli("agree", "-J", CROWD, "-J", GPT, "-n", "crowd", "-n", "gpt4o", "-l", "system", "--resamples", "0",
               "-m", "ndcg_cut.10", *args)


@pytest.mark.parametrize("k", [None, 1, 5, 10, 40])
def test_judged_at_k_is_ir_measures_judged_at_k(runs_and_qrels, k):
    """K = None: no --judged-depth, ``judged:RUN`` = ir-measures' ``Judged`` (every retrieved document; r1 holds
    7 documents on one topic and 12-20 on the others, r2 lacks a topic: the pooled share of session 26 differed)."""
    ir_measures = pytest.importorskip("ir_measures")
    paths, qrels = runs_and_qrels
    depth = () if k is None else ("--judged-depth", str(k))
    label = "judged" if k is None else f"judged@{k}"
    measure = ir_measures.Judged if k is None else ir_measures.Judged @ k
    out = agree(*depth, "-o", "jsonl", *[x for p in paths for x in ("--runs", p)])
    assert out.returncode == 0 and out.stderr == "", out.stderr
    got = records(out.stdout)
    topics = None
    for judge in ("crowd", "gpt4o"):
        q = list(ir_measures.read_trec_qrels(qrels[judge]))
        qt = {r.query_id for r in q}
        topics = qt if topics is None else topics & qt
    for judge in ("crowd", "gpt4o"):
        q = list(ir_measures.read_trec_qrels(qrels[judge]))
        for path in paths:
            run = list(ir_measures.read_trec_run(path))
            vals = [m.value for m in ir_measures.iter_calc([measure], q, run) if m.query_id in topics]
            r = got[judge, "", "system", f"{label}:{Path(path).name}"]
            assert r["n"] == len(vals) and r["value"] == pytest.approx(sum(vals) / len(vals), abs=1e-15), (r, vals)
            other = f"judged:{Path(path).name}" if k else f"judged@10:{Path(path).name}"
            assert (judge, "", "system", other) not in got
    assert got["crowd", "", "system", f"{label}:r2.run"]["n"] == len(topics) == 3  # r2 lacks one: 0 there


def test_default_and_refusals(runs_and_qrels):
    paths, _ = runs_and_qrels
    runs = [x for p in paths for x in ("--runs", p)]
    out = agree("-o", "jsonl", *runs)
    assert out.returncode == 0 and out.stderr == "", out.stderr  # r2 lacks a topic: counted 0, no false warning
    plain = records(out.stdout)
    assert ("crowd", "", "system", "judged:r0.run") in plain
    assert not any(s.startswith("judged@") for *_, s in plain)
    bad = agree("--judged-depth", "0", *runs)
    assert bad.returncode == 2 and "--judged-depth" in bad.stderr, bad.stderr
    other = cli("agree", "-J", CROWD, "-J", GPT, "-l", "pair", "--judged-depth", "5")
    assert (other.returncode, other.stderr) == (2, "zelo_agree: --judged-depth is used only by the system level "
                                                   "(add --level system)\n")
    from pref_eval.api import agree as api_agree
    from pref_eval.errors import UsageError

    for value in (0, 2.5, "5", True):
        with pytest.raises(UsageError, match="judged_depth"):
            api_agree([CROWD, GPT], levels=["system"], runs=paths, measure="ndcg_cut.10", judged_depth=value)


def test_a_run_none_of_whose_top_k_is_judged_is_warned_about(runs_and_qrels, tmp_path):
    paths, _ = runs_and_qrels
    text = Path(paths[0]).read_text(encoding="utf-8")
    lines = [ln.split() for ln in text.splitlines()]
    # the same run with its unjudged ids first: top 3 unjudged on every topic, the judged passages below
    lines.sort(key=lambda f: (f[0], not f[2].startswith("unjudged_"), f[2]))
    (tmp_path / "low.run").write_text("".join(f"{f[0]} Q0 {f[2]} {i + 1} {100 - i} low\n"
                                              for i, f in enumerate(lines)), encoding="utf-8")
    out = agree("--judged-depth", "3", "-o", "jsonl", "--runs", str(tmp_path / "low.run"), "--runs", paths[1])
    assert out.returncode == 0, out.stderr
    assert records(out.stdout)["crowd", "", "system", "judged@3:low.run"]["value"] == 0
    assert "low.run: none of its top 3 documents on the 3 topics compared is one crowd judged" \
        in out.stderr, out.stderr
