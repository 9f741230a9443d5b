"""Issue #11: results that do not depend on the order of the input lines, to the last bit.

The registry-wide writer tests (tests/test_output_writers.py) shuffle the shipped files once;
here the three computations that used to depend on the order are checked directly on random
inputs with several shuffles: the Bradley-Terry fit (documents fitted in id order, judgments
sorted), zelo_compare's tests (queries in id order, so the seeded resampling tests too), and
the preference-mode summaries (summed in query-id order). Oracles for the values themselves
stay where they were (choix, scipy, diazf/pref_eval's outputs).
"""
from __future__ import annotations

import numpy as np
import pytest


def _judgments(rng, nq=4, nd=7, nj=60):
    rows = []
    for _ in range(nj):
        q = int(rng.integers(nq))
        a, b = rng.choice(nd, 2, replace=False)
        rows.append((f"q{q}", f"d{a}", f"d{b}", float(rng.choice([0.0, 1.0, 0.5, 1 / 3])),
                     float(rng.choice([1.0, 0.7, 2.5]))))
    return rows


def _fit(rows, prior):
    """zelo_fit's path: a Judgments table in first-appearance order, fitted with id ranks."""
    from pref_eval.zelo.fit import fit_bt, id_ranks
    from pref_eval.zelo.judgments import Judgments

    t = Judgments()
    for r in rows:
        t.add(*r)
    q, a, b, s, w = t.arrays()
    sizes = np.array([len(t.docs[x]) for x in t.queries])
    res = fit_bt(sizes, q, a, b, s, w, prior=prior, doc_rank=id_ranks([t.docs[x] for x in t.queries]))
    docs = [(x, d) for x in t.queries for d in t.docs[x]]
    per_doc = {k: (res.score[i], res.se[i], res.level[i]) for i, k in enumerate(docs)}
    # components numbered in order of first appearance within the query: compare as partitions
    comp = {}
    for i, (x, d) in enumerate(docs):
        comp.setdefault((x, int(res.component[i])), set()).add(d)
    per_q = {x: (res.loglik[k], res.iterations[k], res.n_components[k]) for k, x in enumerate(t.queries)}
    return per_doc, {(x, frozenset(v)) for (x, _), v in comp.items()}, per_q, res


@pytest.mark.parametrize("prior", [0.5, 0.0])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_fit_bits_do_not_depend_on_line_order(seed, prior):
    rng = np.random.default_rng(seed)
    rows = _judgments(rng)
    base = _fit(rows, prior)
    for k in range(3):
        perm = np.random.default_rng(100 + k).permutation(len(rows))
        got = _fit([rows[i] for i in perm], prior)
        for key, (sc, se, lev) in base[0].items():
            g = got[0][key]
            assert g[0] == sc and (g[1] == se or (np.isnan(g[1]) and np.isnan(se))) and g[2] == lev, key
        assert got[1] == base[1]
        for x, v in base[2].items():
            assert got[2][x] == v


def test_fit_with_doc_rank_is_the_same_model():
    """Canonical order changes the rounding only: the fit equals the plain fit to 1e-12."""
    from pref_eval.zelo.fit import fit_bt
    from pref_eval.zelo.judgments import Judgments

    rows = _judgments(np.random.default_rng(5))
    per_doc, _, _, res = _fit(rows, 0.5)
    t = Judgments()
    for r in rows:
        t.add(*r)
    q, a, b, s, w = t.arrays()
    plain = fit_bt(np.array([len(t.docs[x]) for x in t.queries]), q, a, b, s, w)
    np.testing.assert_allclose(res.score, plain.score, rtol=0, atol=1e-12)
    np.testing.assert_allclose(res.se, plain.se, rtol=1e-12)


def test_component_labels_follow_first_appearance():
    """prior 0: component ids stay numbered by the first document of each SCC (file order)."""
    # q: z beats y, y beats z (one SCC {y, z}); a beats b, b beats a ({a, b}); z is seen first
    rows = [("q", "z", "y", 1.0, 1.0), ("q", "y", "z", 1.0, 1.0), ("q", "a", "b", 0.0, 1.0),
            ("q", "a", "b", 1.0, 1.0), ("q", "z", "a", 0.0, 1.0)]
    _, _, _, res = _fit(rows, 0.0)
    assert res.component.tolist() == [0, 0, 1, 1]  # docs z, y, a, b


def _perquery(rng, runs=4, nq=9):
    import pandas as pd

    vals = rng.random((runs, nq)) / 3
    rows = [(f"r{i}", f"q{q}", "m", float(vals[i, q])) for i in range(runs) for q in range(nq)]
    return pd.DataFrame(rows, columns=["run", "qid", "measure", "value"])


def test_compare_results_do_not_depend_on_query_order():
    from pref_eval.stats.compare import compare

    df = _perquery(np.random.default_rng(3))
    kw = {"tests": "t,wilcoxon,sign,randomization,bootstrap,tukey", "resamples": 200, "seed": 4}
    base = compare(df, **kw).records
    for k in range(3):
        # queries in another order inside each run (runs keep their order: they label the pairs)
        shuffled = df.sample(frac=1, random_state=k).sort_values("run", kind="stable")
        got = compare(shuffled, **kw).records
        assert got.equals(base)


def test_preference_summaries_do_not_depend_on_qrels_order(tmp_path):
    from pref_eval.api import preferences

    rng = np.random.default_rng(7)
    lines = [f"q{q} 0 d{d} {int(rng.integers(0, 3))}" for q in range(12) for d in range(8)]
    runs = []
    for r in range(3):
        p = tmp_path / f"r{r}.run"
        p.write_text("".join(f"q{q} Q0 d{d} {k} {10 - k} r{r}\n" for q in range(12)
                             for k, d in enumerate(rng.permutation(8))))
        runs.append(p)
    out = []
    for k in range(3):
        order = np.random.default_rng(k).permutation(len(lines))
        qrels = tmp_path / f"q{k}.qrels"
        qrels.write_text("".join(lines[i] + "\n" for i in order))
        df = preferences(qrels, runs, ["rpp", "dcgrpp", "p@5"], per_query=False, summary=True)
        out.append(df.sort_values(["runi", "runj", "measure"]).reset_index(drop=True))
    assert out[0].equals(out[1]) and out[0].equals(out[2])



def _doc_scores(paths):
    from pref_eval.agree.doclevel import fit_judges
    from pref_eval.agree.matching import match, read_judges

    judges, vocab = read_judges(paths, ["a", "b"], None, "half", None)
    mt = match(judges, vocab)
    scores, ses, _ = fit_judges(mt, len(vocab.doc_name), np.asarray(vocab.doc_q, dtype=np.int64), 0.5,
                                vocab.doc_name)
    key = list(zip(vocab.doc_q, vocab.doc_name, strict=True))
    qname = vocab.queries
    return [{(qname[q], d): (float(s[i]), float(e[i])) for i, (q, d) in enumerate(key)} for s, e in zip(scores, ses,
                                                                                                        strict=True)]


def test_agree_document_level_fit_does_not_depend_on_line_order(tmp_path):
    """zelo_agree -l document fits each judge as zelo_fit does (canonical order): the same bits on shuffled files."""
    import random

    from conftest import ROOT

    files = ["judgments/dl21-crowd-sample.txt", "judgments/dl21-gpt4o-sample.human"]
    got = []
    for seed in (None, 3):
        paths = []
        for k, f in enumerate(files):
            lines = (ROOT / f).read_bytes().splitlines(keepends=True)
            if seed is not None:
                random.Random(seed + k).shuffle(lines)
            p = tmp_path / f"{seed}-{k}"
            p.write_bytes(b"".join(ln if ln.endswith(b"\n") else ln + b"\n" for ln in lines))
            paths.append(str(p))
        got.append(_doc_scores(paths))
    assert got[0] == got[1]
