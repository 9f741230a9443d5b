"""Figures the prose of the docs quotes outside any table, computed (the docs name this script).

    python tools/doc_figures.py [repeated-pairs|prior-gap|prompt-tokens|rbp-depth|pair-distance|se-condition|
                                 newton-gap|scaling-time ...]

Prints ``page: phrase`` per figure (all of them without an argument); tests/test_docs.py checks that each
phrase is on its page, so a figure typed by hand cannot drift from what this script prints.

* ``repeated-pairs`` (docs/zelo_pairs.md): the expected share of the pairs of zbench's random cycles that repeat
  a pair already drawn for the query (what ``zelo_pairs cycles --no-duplicates`` skips), 4 cycles, n = 50: a
  random cycle has n of the C(n, 2) pairs, so it draws a given pair with probability 2/(n − 1), independently
  of the other cycles; the pairs of cycle c (0-based) repeat one of the c before with probability
  1 − (1 − 2/(n − 1))^c. (tests/test_docs.py also counts what ``random_cycles(dedup=True)`` skips.)
* ``prior-gap`` (docs/zelo.md): on the synthetic queries of ``python bench/gen_judgments.py 200 FILE`` (200
  queries × 100 documents × 4 random cycles, each judgment the mean of 3 Bradley–Terry votes, true scores
  N(0, 1), seed 1: :func:`pref_eval.zelo.simulate.cycle_judgments`), how far the default fit's (``--prior
  0.5``) log-likelihood lies below the MLE's supremum (the ``loglik`` of ``--diagnostics`` with ``--prior
  0``: inside each SCC the MLE's, between SCCs 0, the supremum of those terms): min, median and max over the
  queries; and the 10th–90th percentile of the default fit's standard errors.
* ``prompt-tokens`` (docs/judging.md): input tokens of one request with the default prompt by the rule
  ``zelo_judge --dry-run`` uses (prompt characters / 4, ``pref_eval.judge.scheduler.estimate_tokens``; no
  tokenizer's vocabulary can be fetched here: tiktoken downloads its files at first use): the template alone,
  and a query of 10 to 200 characters with two passages of 400 characters (100 tokens by the same rule).
* ``rbp-depth`` (docs/differences.md): RBP's weights normalised over 1,000 ranks (cwl_eval's, pref_eval's)
  against Moffat & Zobel's (1 − p)·p^(i−1): the ratio is 1 / (1 − p^1000), so the two agree to the last bit
  while p^1000 is below half an ulp of 1 (the largest such p of the grid 0.01, 0.02, ...), and differ by
  1 / (1 − p^1000) − 1 at p = 0.999.
* ``pair-distance`` (docs/zelo_simulate.md, docs/zelo_simulate-ranking-bounds.md): how many places apart, in the
  order of the moment (the posterior means of the fit that chooses them), the pairs are that the default adaptive
  strategy of ``zelo_simulate recovery`` (``--window 6``) chooses after its blind first batch, at K = 50,
  σ = 1.5, 20 trials, seed 0 (pairs filled at random when a round runs short are not counted): the largest
  distance and the share at most 3 apart, in tenths (~1.5 s CPU; tests/test_docs.py checks it as a slow test).
* ``se-condition`` (docs/zelo_fit.md): the SE condition estimate ``zelo_fit`` warns on (``se_condition``,
  max_i A_ii (A⁻¹)_ii) on ordinary data: its largest value in each shipped judgment file (``judgments/``) and in
  ``bench/gen_judgments.py 2000``'s data (2,000 queries × 100 documents × 4 cycles, σ = 1, seed 1), fitted with
  the default prior and with ``--prior 0``: the smallest and the largest of those maxima (~3 s CPU; slow test).
* ``newton-gap`` (docs/zelo_fit.md): how far from the optimum a gradient rule alone (|g_i| <= tol) would leave a
  document, ~tol / H_ii (H_ii its Fisher information at the fit: sum over its judgments of w p (1 − p), plus the
  prior's 2·prior·σ(x)σ(−x)), on the shipped samples (``judgments/``), default prior and ``--prior 0`` (documents
  with an SE), tol = 1e-9: the smallest and the largest value, to one significant digit.
* ``scaling-time`` (README.md): the wall time of the commands of the README's scaling block (the sum of its cells,
  ``bench/bench_scaling.py`` at the issue's sizes), in minutes; the data they read is generated besides.
"""
from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import Any

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir))

CYCLES, N_DOCS = 4, 50  # repeated-pairs
GAP_QUERIES, GAP_DOCS, GAP_SIGMA, GAP_SEED = 200, 100, 1.0, 1  # prior-gap: bench/gen_judgments.py's data
QUERY_CHARS, PASSAGE_TOKENS = (10, 200), 100  # prompt-tokens
DIST_K, DIST_SIGMA, DIST_TRIALS, DIST_SEED = 50, 1.5, 20, 0  # pair-distance
#: figures that run a simulation (seconds, not a fraction of one): tests/test_docs.py checks them as slow tests
SLOW = ("pair-distance", "se-condition")
COND_QUERIES = 2000  # se-condition: bench/gen_judgments.py 2000
GAP_TOL = 1e-9  # newton-gap: zelo_fit's default --tol


def repeat_share(n: int, cycles: int) -> float:
    """Expected share of the pairs of ``cycles`` random cycles over n ≥ 3 documents that repeat an earlier pair."""
    p = 2 / (n - 1)
    return sum(1 - (1 - p) ** c for c in range(cycles)) / cycles


def repeated_pairs() -> list[tuple[str, str]]:
    share = repeat_share(N_DOCS, CYCLES)
    return [("zelo_pairs.md", f"zbench keeps them ({100 * share:.1f} % of the pairs of {CYCLES} cycles at "
                              f"n = {N_DOCS}, expected")]


def prior_gap_values() -> tuple[list[float], list[float]]:
    """(gap of each query in nats, (10th, 90th) percentile of the standard errors) of the ``prior-gap`` data."""
    import numpy as np

    from pref_eval.zelo.fit import fit_bt
    from pref_eval.zelo.simulate import cycle_judgments

    sizes, q, a, b, s = cycle_judgments(GAP_QUERIES, GAP_DOCS, 4, GAP_SIGMA, seed=GAP_SEED)
    default = fit_bt(sizes, q, a, b, s, prior=0.5)
    mle = fit_bt(sizes, q, a, b, s, prior=0.0, compute_se=False)
    gap = mle.loglik - default.loglik
    return gap.tolist(), np.percentile(default.se, [10, 90]).tolist()


def prior_gap() -> list[tuple[str, str]]:
    import statistics

    gap, (se_lo, se_hi) = prior_gap_values()
    return [("zelo.md", f"the fitted log-likelihood is {min(gap):.1f}–{max(gap):.1f} nats (median "
                        f"{statistics.median(gap):.1f}) below the MLE's supremum"),
            ("zelo.md", f"a typical SE is {se_lo:.2f}–{se_hi:.2f} log-odds")]


def prompt_tokens() -> list[tuple[str, str]]:
    from pref_eval.judge.prompt import DEFAULT_PROMPT, render
    from pref_eval.judge.scheduler import estimate_tokens

    def tokens(query: str, passage: str) -> int:
        return estimate_tokens(render(DEFAULT_PROMPT, query=query, doc_a=passage, doc_b=passage, qid="",
                                      docno_a="", docno_b=""))

    passage = "x" * (4 * PASSAGE_TOKENS)  # PASSAGE_TOKENS by the rule: 4 characters a token
    lo, hi = (tokens("q" * n, passage) for n in QUERY_CHARS)
    return [("judging.md", f"the template ({tokens('', '')} tokens for the default one)"),
            ("judging.md", f"passages of {PASSAGE_TOKENS} tokens make {lo}–{hi} input tokens per request for "
                           f"queries of {QUERY_CHARS[0]}–{QUERY_CHARS[1]} characters")]


def rbp_depth() -> list[tuple[str, str]]:
    exact = max(k / 100 for k in range(1, 100) if 1.0 - (k / 100) ** 1000 == 1.0)
    above = 1 / (1 - 0.999 ** 1000) - 1
    return [("differences.md", f"Zobel's value to the last bit for p ≤ {exact:g}, {100 * above:.0f} % above it at "
                               "p = 0.999")]


def chosen_distances(K: int, sigma: float, trials: int, seed: int, **opts: Any) -> dict[int, int]:
    """{places apart: pairs} of the pairs the adaptive strategy of ``recovery`` chooses after its blind first batch,
    the distance taken in the order of the posterior means that chose them (``ranking_batch``'s ``x``)."""
    import numpy as np

    import pref_eval.zelo.adaptive as adaptive
    from pref_eval.zelo.simulate import recovery

    counts: dict[int, int] = {}
    choose = adaptive.ranking_batch

    def counted(x: Any, *args: Any, **kwargs: Any) -> list[list[tuple[int, int]]]:
        batch = choose(x, *args, **kwargs)
        place = np.argsort(np.argsort(-np.asarray(x), axis=1, kind="stable"), axis=1)
        for t, pairs in enumerate(batch):
            for i, j in pairs:
                d = abs(int(place[t, i]) - int(place[t, j]))
                counts[d] = counts.get(d, 0) + 1
        return batch

    adaptive.ranking_batch = counted  # recovery imports it from the module at each call
    try:
        recovery(K, sigma, 4, trials, seed=seed, strategy="adaptive", **opts)
    finally:
        adaptive.ranking_batch = choose
    return counts


def pair_distance() -> list[tuple[str, str]]:
    import inspect

    from pref_eval.zelo.simulate import recovery

    window = inspect.signature(recovery).parameters["window"].default
    counts = chosen_distances(DIST_K, DIST_SIGMA, DIST_TRIALS, DIST_SEED)
    near = round(10 * sum(n for d, n in counts.items() if d <= 3) / sum(counts.values()))
    return [("zelo_simulate-ranking-bounds.md", f"the chosen pairs are at most {max(counts)} places apart in the "
                                                f"order of the moment, the window of `--window {window}`; {near} in "
                                                "10 of them are at most 3 apart"),
            ("zelo_simulate.md", f"wider windows (in the default window of {window} places, {near} in 10 of the "
                                 f"chosen pairs are at most 3 apart at K = {DIST_K}, σ = {DIST_SIGMA:g}")]


def _shipped_judgments() -> list[tuple[Any, ...]]:
    """``(sizes, q, a, b, s, w)`` of each shipped judgment file (``judgments/``)."""
    import glob

    import numpy as np

    from pref_eval.io.judgments import read_judgments

    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir)
    data = []
    for path in sorted(glob.glob(os.path.join(root, "judgments", "*"))):
        if not path.endswith(".md"):
            j = read_judgments(path)
            data.append((np.array([len(j.docs[t]) for t in j.queries]), *j.arrays()))
    return data


def se_condition() -> list[tuple[str, str]]:
    import numpy as np

    from pref_eval.zelo.fit import fit_bt
    from pref_eval.zelo.simulate import cycle_judgments

    data = _shipped_judgments()
    assert len(data) >= 3, data
    sizes, q, a, b, s = cycle_judgments(COND_QUERIES, GAP_DOCS, 4, GAP_SIGMA, seed=GAP_SEED)
    data.append((sizes, q, a, b, s, None))
    top = [float(np.nanmax(fit_bt(*d, prior=prior).se_condition)) for d in data for prior in (0.5, 0.0)]
    return [("zelo_fit.md", f"ordinary data: the largest in a file is {min(top):.1f} to {max(top):.1f}, on the shipped "
                            f"samples and `bench/gen_judgments.py {COND_QUERIES}`")]


def _sci(v: float) -> str:
    """``v`` to one significant digit: 1e-10, 3e-9."""
    m, e = f"{v:.0e}".split("e")
    return f"{m}e{int(e)}"


def newton_gap() -> list[tuple[str, str]]:
    import numpy as np

    from pref_eval.zelo.fit import fit_bt

    def sigma(x: np.ndarray) -> np.ndarray:
        return 1.0 / (1.0 + np.exp(-x))

    values = []
    for sizes, q, a, b, s, w in _shipped_judgments():
        off = np.concatenate([[0], np.cumsum(sizes)])
        ga, gb = off[q] + a, off[q] + b
        keep = ga != gb
        ga, gb = ga[keep], gb[keep]
        wk = np.ones(len(ga)) if w is None else np.asarray(w, dtype=np.float64)[keep]
        for prior in (0.5, 0.0):
            r = fit_bt(sizes, q, a, b, s, w, prior=prior)
            d = r.score[ga] - r.score[gb]
            h = wk * sigma(d) * sigma(-d)
            n = len(r.score)
            H = (np.bincount(ga, h, minlength=n) + np.bincount(gb, h, minlength=n)
                 + 2.0 * prior * sigma(r.score) * sigma(-r.score))
            judged = (np.bincount(ga, minlength=n) + np.bincount(gb, minlength=n) > 0) & np.isfinite(r.se)
            values.append(GAP_TOL / H[judged])
    v = np.concatenate(values)
    return [("zelo_fit.md", f"{_sci(float(v.min()))} to {_sci(float(v.max()))} on the shipped samples")]


def scaling_time() -> list[tuple[str, str]]:
    import re

    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir)
    with open(os.path.join(root, "README.md"), encoding="utf-8") as fh:
        doc = fh.read()
    block = doc.split("<!-- scaling:begin -->")[1].split("<!-- scaling:end -->")[0]
    assert "Measured at the issue's sizes" in block, "the scaling block is not of the issue's sizes"
    cells = [float(t) for t in re.findall(r"\| ([\d.]+) s / \d+ MB", block)]
    assert len(cells) == 18, cells
    minutes = round(sum(cells) / 60)
    return [("README.md", f"the scaling block (its commands take {minutes} minutes of wall time at the issue's "
                          "sizes"),
            ("README.md", f"At the issue's sizes its commands take {minutes} minutes of wall time")]


FIGURES: dict[str, Callable[[], list[tuple[str, str]]]] = {
    "repeated-pairs": repeated_pairs, "prior-gap": prior_gap, "prompt-tokens": prompt_tokens, "rbp-depth": rbp_depth,
    "pair-distance": pair_distance, "se-condition": se_condition, "newton-gap": newton_gap,
    "scaling-time": scaling_time}


def figures(names: list[str] | None = None) -> list[tuple[str, str]]:
    """(page, phrase) of the named figures (all by default)."""
    return [item for name in (names or list(FIGURES)) for item in FIGURES[name]()]


def main() -> None:
    names = sys.argv[1:]
    if any(n in ("-h", "--help") for n in names):
        print((__doc__ or "").split("\n\n", 2)[1].strip())
        print(f"figures: {', '.join(FIGURES)}")
        return
    unknown = [n for n in names if n not in FIGURES]
    if unknown:
        sys.exit(f"doc_figures.py: unknown figure {unknown[0]!r} (one of {', '.join(FIGURES)})")
    for page, phrase in figures(names):
        print(f"{page}: {phrase}")


if __name__ == "__main__":
    main()
