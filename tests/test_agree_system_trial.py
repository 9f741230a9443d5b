"""zelo_agree's system level as a team judging a reranker uses it (session 25, j35): how far does the judge's
ordering of the systems agree with the crowd's? Checked against outside oracles -- pytrec_eval's per-query
values under each judge's qrels (``zelo_fit --qrels``), scipy's kendalltau of the two orderings, tau_AP by
Yilmaz et al.'s formula by hand -- and the obvious mistakes: runs without the judged documents, a measure that
cannot order runs, a judge file of another collection, ``-m`` given twice."""
from __future__ import annotations

import random
from pathlib import Path

import pytest

from test_agree_cli import CROWD, GPT, cli, records

RUNS = ("bm25", "dense", "splade", "monot5")


@pytest.fixture(scope="module")
def trial(tmp_path_factory):
    """Four runs over the three DL 2021 topics of the repository's sample: each ranks a topic's judged passages
    in its own seeded random order (the docs' example), the first 30 of them."""
    d = tmp_path_factory.mktemp("agree_trial")
    docs: dict[str, set] = {}
    for line in Path(CROWD).read_text(encoding="utf-8").splitlines():
        t, a, b, _ = line.split()
        docs.setdefault(t, set()).update([a, b])
    paths = []
    for s, name in enumerate(RUNS):
        rng = random.Random(s)
        with open(d / f"{name}.run", "w", encoding="utf-8") as out:
            for t in sorted(docs):
                ds = sorted(docs[t])
                rng.shuffle(ds)
                for r, doc in enumerate(ds[:30]):
                    out.write(f"{t} Q0 {doc} {r + 1} {100 - r} {name}\n")
        paths.append(str(d / f"{name}.run"))
    return d, paths, docs


def agree(*args: str):
    return cli("agree", "-J", CROWD, "-J", GPT, "-n", "crowd", "-n", "gpt4o", "-l", "system", "--resamples", "0",
               *args)


def _tau_ap(ref: list[float], other: list[float]) -> float:
    """Yilmaz, Aslam & Robertson (SIGIR 2008), eq. 2: the systems in ``other``'s order (no ties here), each
    judged by the share of the systems above it that ``ref`` also puts above it."""
    order = sorted(range(len(ref)), key=lambda i: -other[i])
    total = sum(sum(ref[order[k]] > ref[order[i]] for k in range(i)) / i for i in range(1, len(order)))
    return 2 * total / (len(order) - 1) - 1


def test_orderings_against_pytrec_eval_and_scipy(trial):
    """The per-run means (new ``mean:RUN`` records) = pytrec_eval's nDCG@10 under each judge's qrels, averaged by
    hand over the topics both qrels hold; kendall_tau_b = scipy's kendalltau of the two mean vectors; tau_ap =
    the formula by hand; ``judged:RUN`` = per topic the share of the run's lines whose passage the judge judged,
    averaged over the topics (ir-measures' ``Judged``; session 27: was the share of all the run's lines)."""
    pytrec_eval = pytest.importorskip("pytrec_eval")
    from scipy.stats import kendalltau

    d, runs, docs = trial
    out = agree("-m", "ndcg_cut.10", "-o", "jsonl", *[x for r in runs for x in ("--runs", r)])
    assert out.returncode == 0 and out.stderr == "", out.stderr
    got = records(out.stdout)
    means = {}
    qrels = {}
    for judge, path in (("crowd", CROWD), ("gpt4o", GPT)):
        assert cli("fit", "-J", path, "-o", str(d / f"{judge}.scores"), "--qrels", str(d / f"{judge}.qrels"),
                   "-Q").returncode == 0
        qrels[judge] = {}
        for line in (d / f"{judge}.qrels").read_text(encoding="utf-8").splitlines():
            q, _, doc, g = line.split()
            qrels[judge].setdefault(q, {})[doc] = int(g)
    topics = sorted(set(qrels["crowd"]) & set(qrels["gpt4o"]))
    assert got["crowd", "gpt4o", "system", "topics"]["value"] == len(topics) == 3
    for judge in ("crowd", "gpt4o"):
        ev = pytrec_eval.RelevanceEvaluator(qrels[judge], {"ndcg_cut.10"})
        means[judge] = []
        for path in runs:
            run: dict = {}
            lines = [line.split() for line in Path(path).read_text(encoding="utf-8").splitlines()]
            for q, _, doc, _, score, _ in lines:
                run.setdefault(q, {})[doc] = float(score)
            res = ev.evaluate(run)
            means[judge].append(sum(res[t]["ndcg_cut_10"] for t in topics) / len(topics))
            name = Path(path).name
            assert got[judge, "", "system", f"mean:{name}"]["value"] == pytest.approx(means[judge][-1], abs=1e-12)
            shares = [sum(doc in qrels[judge][t] for q, _, doc, *_ in lines if q == t) /
                      sum(q == t for q, *_ in lines) for t in topics]
            r = got[judge, "", "system", f"judged:{name}"]
            assert r["n"] == len(topics) and r["value"] == pytest.approx(sum(shares) / len(topics), abs=1e-15), r
    assert len(set(means["crowd"])) == len(RUNS)  # no tie: tau_AP's formula above needs none
    assert got["crowd", "gpt4o", "system", "kendall_tau_b"]["value"] == pytest.approx(
        kendalltau(means["crowd"], means["gpt4o"]).statistic, abs=1e-12)
    assert got["crowd", "gpt4o", "system", "tau_ap"]["value"] == pytest.approx(
        _tau_ap(means["crowd"], means["gpt4o"]), abs=1e-12)


@pytest.mark.parametrize("measure, message", [
    ("relstring", "its per-query value is text"),
    ("gm_map", "has no value per query (trec_eval prints it for 'all' only)"),
    ("runid", "has no value per query"),
])
def test_a_measure_that_cannot_order_runs_is_refused(trial, measure, message):
    """relstring's per-query value is a string of grades: it was read as a number ('0122301331' -> 122301331)
    and ordered the runs; gm_map / runid were refused as "a measure with one value per query (got none)"."""
    _, runs, _ = trial
    out = agree("-m", measure, "--runs", runs[0], "--runs", runs[1])
    assert out.returncode == 2 and message in out.stderr and len(out.stderr.splitlines()) == 1, out.stderr


def test_measure_given_twice_is_refused(trial):
    """``-m ndcg_cut.10 -m map`` (zelo_eval's habit): click kept the last, the first was ignored silently."""
    _, runs, _ = trial
    out = agree("-m", "ndcg_cut.10", "-m", "map", "--runs", runs[0], "--runs", runs[1])
    assert out.returncode == 2 and "-m given 2 times (ndcg_cut.10, map)" in out.stderr, out.stderr


def test_runs_without_the_judged_documents_are_warned_about(trial):
    """Runs over the judged topics whose passages no judge judged (another corpus's ids): every value 0, both
    orderings one tie; the figures came with no word (tau_ap 0, kendall_tau_b undefined)."""
    d, runs, _ = trial
    other = []
    for k, path in enumerate(runs[:2]):
        text = Path(path).read_text(encoding="utf-8").replace("msmarco_passage_", "msmarco_doc_")
        (d / f"other{k}.run").write_text(text, encoding="utf-8")
        other.append(str(d / f"other{k}.run"))
    out = agree("-m", "P.10", "-o", "jsonl", "--runs", other[0], "--runs", other[1])
    assert out.returncode == 0, out.stderr
    got = records(out.stdout)
    assert got["crowd", "", "system", "judged:other0.run"]["value"] == 0
    warns = out.stderr.splitlines()
    assert sum("none of its documents on the 3 topics compared is one" in w for w in warns) == 4, out.stderr
    assert sum("every run has the same mean (0)" in w for w in warns) == 2, out.stderr


def test_a_judge_of_another_collection(tmp_path, trial):
    """A judge file of DL 2019 topics beside the DL 2021 crowd: the system level said only that the runs'
    topics are not in "<qrels>" (of which judge?); the pair level printed its undefined figures silently."""
    _, runs, _ = trial
    (tmp_path / "dl19.txt").write_text("19335 d1 d2 d1\n19335 d2 d3 d3\n47923 d4 d5 d4\n", encoding="utf-8")
    out = cli("agree", "-J", CROWD, "-J", str(tmp_path / "dl19.txt"), "-n", "crowd", "-n", "dl19", "-l", "system",
              "--resamples", "0", "-m", "P.10", "--runs", runs[0], "--runs", runs[1])
    assert out.returncode == 2, out.stderr
    assert out.stderr.startswith("zelo_agree: crowd and dl19 share no topic (crowd 3 topics: ") and \
        "dl19 2 topics: '19335', '47923'): judgments of another collection?" in out.stderr, out.stderr
    out = cli("agree", "-J", CROWD, "-J", str(tmp_path / "dl19.txt"), "-n", "crowd", "-n", "dl19", "-l", "pair",
              "--resamples", "0")
    assert out.returncode == 0 and "crowd and dl19 share no pair (" in out.stderr, out.stderr
