"""Whole-ranking recovery: random cycles vs the adaptive strategy at the same budget, and the bound.

    python bench/recovery_adaptive.py --trials 100 --seed 0 [--write-docs]

For K = 25/50/100 and sigma = 0.6/1.5/3: mean Kendall tau_b against the dense-matrix fit
(``zelo_simulate recovery``) of 4 random cycles, 8 random cycles, and the adaptive strategy
with the budget of 4 cycles (4K pairs); the share of the gap between 4 and 8 cycles the adaptive
strategy closes; and the precision argument of :mod:`pref_eval.zelo.ranking_bound`: the
Cramér–Rao lower bound on the mean variance of adjacent score differences that *any* design of
4K pairs must respect, against the variance 8 random cycles and the adaptive design achieve
(Fisher information at the true scores), and the Fisher information of 8 cycles as a multiple of
the most 4K pairs can carry (4K * c/4; in parentheses: when the first K/2 pairs are chosen blind,
as the adaptive strategy's first batch, (K/2) c E[p(1-p)] + (4K - K/2) c/4). With
``--write-docs`` the table replaces the block between the recovery-adaptive markers in
docs/zelo_simulate.md (the tables of ``--oracle``, ``--by-distance``, ``--tau-bound``, ``--tau-lp`` and
``--tau-sdp``: between their markers in docs/zelo_simulate-ranking-bounds.md).

``--oracle``: instead, τ against the dense fit of an oracle that knows the true scores
(:func:`pref_eval.zelo.ranking_bound.known_scores_wins`: the dense fit orders by the complete
matrix's win totals, and the oracle predicts them from the true scores and the judgments it has
read), reading no judgment, 4 cycles' or 8 cycles' judgments, beside 4 and 8 random cycles' τ;
with ``--write-docs`` it replaces the block between the recovery-oracle markers.

``--tau-bound``: instead, the pair genie of :mod:`pref_eval.zelo.tau_bound` (an upper bound on E[tau]
for any design of 4K pairs, up to its step 5, the revealed terms) beside 4 cycles', 8 cycles' (with
its standard error over the trials) and the adaptive strategy's tau: the genie's value at the mean
budget (8 judgments per row besides the pair's own) under each reveal rule, the bound (least concave
majorant, rule ``best``) with its Monte Carlo standard error (``--bound-samples`` pairs per cell), the
verdict, and the genie's value for a design with 8 cycles' budget and random opponents (16 judgments
per row), to set beside 8 cycles' own tau: what the genie's knowledge adds on a real design; with
``--write-docs`` it replaces the block between the recovery-tau-bound markers.

``--cycles``: instead, the rows of ``zelo_simulate recovery --K 25,50,100 --sigma 0.6,1.5,3 --cycles 2,4,8``
(random cycles only: τ against the dense fit and the truth, top-10 overlap); with ``--write-docs`` they
replace the block between the recovery-cycles markers of docs/zelo_simulate.md.

``--criteria``: instead, the adaptive strategy's τ by criterion and round size (the uncertainty criterion with
rounds of K/2 pairs, its first version, and of K/4; the default discordance criterion; ``rowsum``), the paired
difference rowsum − default with its standard error, and the rowsum criterion with wider windows
(:data:`WINDOW_RUNS`, fixed trials); with ``--write-docs`` it replaces the block between the recovery-criteria
markers of docs/zelo_simulate-ranking-bounds.md, whose prose (and zelo_simulate.md's) quotes it. ``--jobs N``
computes its rows and the window runs in N processes (the same figures: every cell has its own seeds).

``--prose``: runs nothing; prints the figures the prose of docs/zelo_simulate.md and
docs/zelo_simulate-ranking-bounds.md quotes from these tables (shares of the gap closed, ranges, the
cells reached, pairs quoted from one table beside another), computed from the tables as the docs
store them (what ``--write-docs`` last wrote), one ``page: phrase`` per line; tests/test_docs.py checks
that each phrase is on its page. Every run prints its CPU time on stderr when it ends (the docs quote
no run times: run the command).
"""
from __future__ import annotations

import argparse
import re
import resource
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pref_eval.output.simulations import recovery_row  # noqa: E402
from pref_eval.seeds import stream_seed  # noqa: E402
from pref_eval.zelo.ranking_bound import adjacent_variance_bound, mean_information  # noqa: E402
from pref_eval.zelo.simulate import recovery  # noqa: E402
from pref_eval.zelo.tau_bound import REVEALS, pair_values, tau_bound  # noqa: E402
from pref_eval.zelo.tau_documents import document_bound, grid_value, independent_value  # noqa: E402
from pref_eval.zelo.tau_consistency import (  # noqa: E402
    dense_surrogate,
    gaussian_value,
    surrogate_terms,
    truth_tau_bound,
)

HEAD = ["| K | σ | τ: 4 cycles | τ: 8 cycles | τ: adaptive | gap closed | goal "
        "| adjacent variance: bound / 8 cycles / adaptive | weighted variance: bound / 8 cycles / adaptive "
        "| information of 8 cycles ÷ most of 4K pairs (blind first batch) | 8 cycles' precision with 4K pairs |",
        "|---|---|---|---|---|---|---|---|---|---|---|"]


def row(K: int, sigma: float, trials: int, seed: int, votes: int = 3, batch_div: int | None = None,
        criterion: str | None = None) -> str:
    """One table row (see the module docstring)."""
    opts = {} if criterion is None else {"criterion": criterion}
    if batch_div is not None:
        opts["batch"] = max(1, K // batch_div)
    r4 = recovery(K, sigma, 4, trials, seed=seed, votes=votes)
    r8 = recovery(K, sigma, 8, trials, seed=seed, votes=votes, design=True)
    ra = recovery(K, sigma, 4, trials, seed=seed, votes=votes, strategy="adaptive", design=True, **opts)
    t4, t8, ta = (float(r["tau_dense"].mean()) for r in (r4, r8, ra))
    bound = adjacent_variance_bound(K, 4 * K, votes)
    v8, va = r8["adjacent_variance"].mean(), ra["adjacent_variance"].mean()
    # ra's truth is r8's (same seed, K, sigma); its weighted bound is for the 4K pairs of the budget
    wbound, w8, wa = ra["weighted_bound"].mean(), r8["weighted_variance"].mean(), ra["weighted_variance"].mean()
    info = r8["information"].mean() / (4 * K * votes / 4)
    # a design whose first K/2 pairs are chosen blind: E[p(1-p)] each, then at most 1/4
    half = K // 2
    info_blind = r8["information"].mean() / (votes * (half * mean_information(sigma) + (4 * K - half) / 4))
    gap = (ta - t4) / (t8 - t4) if t8 > t4 else float("nan")
    out = [name for name, b, v in (("adjacent", bound, v8), ("weighted", wbound, w8)) if b > v]
    note = "; information (blind first batch) too" if info_blind > 1 else ""
    cells = [f"{K}", f"{sigma:g}", f"{t4:.3f}", f"{t8:.3f}", f"{ta:.3f}", f"{gap:.0%}",
             "**reached**" if ta >= t8 else "not reached", f"{bound:.3f} / {v8:.3f} / {va:.3f}",
             f"{wbound:.3f} / {w8:.3f} / {wa:.3f}", f"{info:.2f} ({info_blind:.2f})",
             f"**out of reach** ({', '.join(out)} bound > 8 cycles{note})" if out
             else "information out of reach with a blind first batch" if info_blind > 1 else "not excluded"]
    return "| " + " | ".join(cells) + " |"


CYCLES_HEAD = ["| K | σ | cycles | τ vs dense | τ vs truth | top-10 overlap |", "|---|---|---|---|---|---|"]


def cycles_rows(K: int, sigma: float, trials: int, seed: int) -> str:
    """The rows of ``zelo_simulate recovery --K K --sigma σ --cycles 2,4,8`` (its ``recovery_row``, as Markdown)."""
    rows = []
    for c in (2, 4, 8):
        cells = recovery_row(K, sigma, c, trials, recovery(K, sigma, c, trials, seed=seed)).rstrip("\n").split("\t")
        rows.append("| " + " | ".join([*cells[:3], *cells[4:]]) + " |")
    return "\n".join(rows)


ORACLE_HEAD = ["| K | σ | τ: 4 cycles | τ: 8 cycles | true scores known | known + 4 cycles' judgments "
               "| known + 8 cycles' judgments |", "|---|---|---|---|---|---|---|"]


def oracle_row(K: int, sigma: float, trials: int, seed: int, votes: int = 3) -> str:
    """One row of the known-scores table (see the module docstring)."""
    r4 = recovery(K, sigma, 4, trials, seed=seed, votes=votes, design=True)
    r8 = recovery(K, sigma, 8, trials, seed=seed, votes=votes, design=True)
    vals = [r4["tau_dense"], r8["tau_dense"], r4["known_scores_tau_none"], r4["known_scores_tau"],
            r8["known_scores_tau"]]
    return "| " + " | ".join([f"{K}", f"{sigma:g}", *(f"{float(v.mean()):.3f}" for v in vals)]) + " |"


BOUND_HEAD = ["| K | σ | τ: 4 cycles | τ: 8 cycles ± SE | τ: adaptive "
              "| genie at 8 + 8 judgments, reveals: none / random / nearest / best / best2 "
              "| bound (best, concave majorant) ± SE | P(tied totals) | verdict "
              "| genie at 16 + 16 judgments, random (8 cycles' budget) |",
              "|---|---|---|---|---|---|---|---|---|---|"]


def bound_row(K: int, sigma: float, trials: int, seed: int, samples: int, votes: int = 3) -> str:
    """One row of the tau-bound table (see the module docstring).

    Verdict: "out of reach" when the bound + 3 SE (the bound's and 8 cycles' combined) is below 8 cycles'
    tau -- a proof only as far as step 5 (the reveals) holds; "the genie cannot exclude it" when a rule
    that a design can follow (random or nearest) already gives the genie a value 3 SE above 8 cycles'
    tau (every completion of step 5 gives at least that); otherwise "undecided".
    """
    r4 = recovery(K, sigma, 4, trials, seed=seed, votes=votes)
    r8 = recovery(K, sigma, 8, trials, seed=seed, votes=votes)
    ra = recovery(K, sigma, 4, trials, seed=seed, votes=votes, strategy="adaptive")
    t4, t8, ta = (float(r["tau_dense"].mean()) for r in (r4, r8, ra))
    se8 = float(r8["tau_dense"].std(ddof=1) / np.sqrt(trials))
    n = 4 * (4 * K) // K // 2  # the mean budget of a pair, 4m/K = 16 judgments for m = 4K: 8 per row
    b = tau_bound(K, sigma, 4 * K, samples, seed=seed, votes=votes, reveal="best")
    if b["at"] != 2 * n:
        raise SystemExit(f"tau_bound's budget {b['at']} is not 2 x {n}")
    vals = {"best": (b["even"], float("nan"))}  # tau_bound's even split at 4m/K is (n, n): the same draws
    for rule in (r for r in REVEALS if r != "best"):
        h = pair_values(K, sigma, [(n, n)], samples, seed=seed, votes=votes, reveal=rule)["h"][:, 0]
        vals[rule] = (float(h.mean()), float(h.std(ddof=1) / np.sqrt(samples)))
    # the genie's value for a design as 8 random cycles (16 random opponents per row): its slack on a real design
    n8 = min(2 * n, K - 2)
    g8 = float(pair_values(K, sigma, [(n8, n8)], samples, seed=seed, votes=votes, reveal="random")["h"].mean())
    legit = max(vals["random"], vals["nearest"])
    if b["bound"] + 3 * np.hypot(b["se"], se8) < t8:
        verdict = "**out of reach** (if step 5 holds)"
    elif legit[0] - 3 * np.hypot(legit[1], se8) > t8:
        verdict = "the genie cannot exclude it"
    else:
        verdict = "undecided"
    cells = [f"{K}", f"{sigma:g}", f"{t4:.3f}", f"{t8:.3f} ± {se8:.3f}", f"{ta:.3f}",
             " / ".join(f"{vals[r][0]:.3f}" for r in REVEALS), f"{b['bound']:.3f} ± {b['se']:.3f}",
             f"{b['p_tie']:.3f}", verdict, f"{g8:.3f}"]
    return "| " + " | ".join(cells) + " |"


LP_HEAD = ["| K | σ | τ vs true order: 4 / 8 cycles / adaptive | bound on E[τ vs true order], any design of 4K pairs "
           "(check-grid violation) / a law that meets the programme's constraints | verdict (true order) "
           "| τ vs dense fit: 4 / 8 cycles / adaptive "
           "| surrogate for the dense fit (not a bound): per-pair programme / uniform precision at the same budget "
           "| surrogate's value for 4 / 8 random cycles |",
           "|---|---|---|---|---|---|---|---|"]


def cycle_pair_variance(K: int, sigma: float, cycles: int, trials: int, seed: int, votes: int = 3) -> float:
    """Mean over pairs of the posterior variance of x_k - x_l for random cycles: (I/sigma^2 + L)^-1 with L the
    Fisher information at the true scores (weights votes p(1 - p)), averaged over ``trials`` designs."""
    rng = np.random.default_rng(stream_seed(seed, K, int(round(sigma * 1000)), cycles, 16))
    out = []
    iu = np.triu_indices(K, 1)
    for _ in range(trials):
        x = rng.normal(0.0, sigma, K)
        perms = np.argsort(rng.random((cycles, K)), axis=1)
        a, b = perms.ravel(), np.roll(perms, -1, axis=1).ravel()
        p = 1.0 / (1.0 + np.exp(x[b] - x[a]))
        w = votes * p * (1 - p)
        J = np.eye(K) / sigma**2
        np.add.at(J, (a, a), w)
        np.add.at(J, (b, b), w)
        np.add.at(J, (a, b), -w)
        np.add.at(J, (b, a), -w)
        S = np.linalg.inv(J)
        d = np.diag(S)
        out.append(float((d[:, None] + d[None, :] - 2 * S)[iu].mean()))
    return float(np.mean(out))


def lp_row(K: int, sigma: float, trials: int, seed: int, votes: int = 3) -> str:
    """One row of the Pólya–Gamma genie's table (see the module docstring). Verdict: "excluded" when the bound
    is more than 3 standard errors below 8 cycles' tau against the true order, else "not excluded"."""
    rs = [recovery(K, sigma, c, trials, seed=seed, votes=votes, **o)
          for c, o in ((4, {}), (8, {}), (4, {"strategy": "adaptive"}))]
    truth = [float(r["tau_truth"].mean()) for r in rs]
    dense = [float(r["tau_dense"].mean()) for r in rs]
    se8 = float(rs[1]["tau_truth"].std(ddof=1) / np.sqrt(trials))
    b = truth_tau_bound(K, sigma, 4 * K, votes, primal=True)
    d = dense_surrogate(K, sigma, 4 * K, votes, primal=True)
    cyc = []
    for c in (4, 8):
        t = surrogate_terms(K, sigma, min(4 * c, 2 * (K - 2)), votes)
        v = cycle_pair_variance(K, sigma, c, trials, seed, votes)
        cyc.append(gaussian_value(t["prior_var"], t["scale"] * v + t["noise_var"]))
    verdict = "**excluded**" if b["bound"] + 3 * se8 < truth[1] else "not excluded"
    cells = [f"{K}", f"{sigma:g}", " / ".join(f"{v:.3f}" for v in truth),
             f"{b['bound']:.3f} ({max(b['violation'], 0.0):.4f}) / {b['value']:.3f}", verdict,
             " / ".join(f"{v:.3f}" for v in dense),
             f"{d['value']:.3f} / {d['uniform']:.3f}", " / ".join(f"{v:.3f}" for v in cyc)]
    return "| " + " | ".join(cells) + " |"


SDP_EPS = 1e-5
SDP_FINE = {"n_mu": 97, "n_alpha": 9}
SDP_HEAD = ["| K | σ | τ vs true order: 4 / 8 cycles ± SE | certified bound on E[τ vs true order], any design of "
            "4K pairs (document states, grid) | laws on the grid points that meet the constraints (not a bound) "
            "| independent documents on a finer grid (not a bound) | verdict (true order) |",
            "|---|---|---|---|---|---|---|"]


def sdp_row(K: int, sigma: float, trials: int, seed: int, votes: int = 3, grid: tuple[int, int] = (15, 7)) -> str:
    """One row of the document-state table (see the module docstring). Verdict, with SE 8 cycles' standard error:
    "excluded" when the certified bound + 3 SE is below 8 cycles' tau against the true order; "this relaxation
    cannot exclude it" when a law meeting the constraints (the larger of the two values that are not bounds) is
    more than 3 SE above it; "undecided, its laws stay below" when that value is more than 3 SE below (a certificate
    on a finer grid could exclude the cell); else "undecided"."""
    rs = [recovery(K, sigma, c, trials, seed=seed, votes=votes) for c in (4, 8)]
    truth = [float(r["tau_truth"].mean()) for r in rs]
    se8 = float(rs[1]["tau_truth"].std(ddof=1) / np.sqrt(trials))
    opts = {"n_mu": grid[0], "n_alpha": grid[1], "eps": SDP_EPS}
    b = document_bound(K, sigma, 4 * K, votes, **opts)
    g = grid_value(K, sigma, 4 * K, votes, **opts)
    ind = independent_value(K, sigma, 4 * K, votes, **SDP_FINE)
    reach = max(g["value"], ind)
    verdict = ("**excluded**" if b["bound"] + 3 * se8 < truth[1] else
               "this relaxation cannot exclude it" if reach > truth[1] + 3 * se8 else
               "undecided, its laws stay below" if reach < truth[1] - 3 * se8 else "undecided")
    cells = [f"{K}", f"{sigma:g}", f"{truth[0]:.3f} / {truth[1]:.3f} ± {se8:.3f}", f"{min(b['bound'], 1.0):.3f}",
             f"{g['value']:.3f}", f"{ind:.3f}", verdict]
    return "| " + " | ".join(cells) + " |"


DIST_EDGES = (1, 2, 3, 6, 13, 30, 51)
DIST_HEAD = ["| K | σ | τ: 4 / 8 cycles / adaptive | "
             + " | ".join(f"{lo} apart" if hi - lo == 1 else f"{lo}–{hi - 1} apart" if hi < 10**6 else f"{lo}+ apart"
                          for lo, hi in zip(DIST_EDGES, (*DIST_EDGES[1:], 10**6), strict=True))
             + " | all | adaptive − 8 cycles: all / at ≥ 6 places |",
             "|---|---|---|" + "---|" * len(DIST_EDGES) + "---|---|"]


def distance_row(K: int, sigma: float, trials: int, seed: int, votes: int = 3) -> str:
    """One row of the by-distance table (see the module docstring): "4 cycles / 8 cycles / adaptive" per bin."""
    edges = [*(e for e in DIST_EDGES if e < K), K]
    rs = [recovery(K, sigma, c, trials, seed=seed, votes=votes, distance_bins=edges, **o)
          for c, o in ((4, {}), (8, {}), (4, {"strategy": "adaptive"}))]
    d = [r["discordant_by_distance"].mean(axis=0) for r in rs]
    cells = [f"{K}", f"{sigma:g}", " / ".join(f"{float(r['tau_dense'].mean()):.3f}" for r in rs)]
    cells += [" / ".join(f"{v[b]:.1f}" for v in d) if b < len(edges) - 1 else "–" for b in range(len(DIST_EDGES))]
    cells.append(" / ".join(f"{v.sum():.1f}" for v in d))
    lead = d[2] - d[1]
    far = int(np.searchsorted(edges, 6))
    cells.append(f"{lead.sum():+.1f} / {lead[far:].sum():+.1f}")
    return "| " + " | ".join(cells) + " |"


CRITERIA = (("uncertainty", 2), ("uncertainty", 4), ("discordance", 4), ("rowsum", 4))
CRITERIA_HEAD = ["| K | σ | uncertainty, rounds of K/2 | uncertainty, rounds of K/4 | discordance, rounds of K/4 "
                 "(default) | rowsum, rounds of K/4 | rowsum − default (± paired SE) |",
                 "|---|---|---|---|---|---|---|"]
# the wider-window runs of the rowsum paragraph: (K, σ, trials, window)
WINDOW_RUNS = ((50, 0.6, 100, 12), (25, 0.6, 30, 24))


def _adaptive_tau(K: int, sigma: float, trials: int, seed: int, criterion: str, batch_div: int = 4,
                  window: int | None = None) -> np.ndarray:
    """Per-trial τ against the dense fit of the adaptive strategy (4 cycles' budget) with this criterion."""
    opts = {} if window is None else {"window": window}
    return recovery(K, sigma, 4, trials, seed=seed, strategy="adaptive", criterion=criterion,
                    batch=max(1, K // batch_div), **opts)["tau_dense"]


def criteria_row(K: int, sigma: float, trials: int, seed: int) -> str:
    """One row of the criteria table: the adaptive strategy's mean τ under each of :data:`CRITERIA` (same seeds)."""
    taus = [_adaptive_tau(K, sigma, trials, seed, c, d) for c, d in CRITERIA]
    diff = taus[3] - taus[2]
    cells = [f"{K}", f"{sigma:g}", *(f"{float(t.mean()):.3f}" for t in taus),
             f"{float(diff.mean()):+.3f} (± {float(diff.std(ddof=1) / np.sqrt(trials)):.3f})"]
    return "| " + " | ".join(cells) + " |"


def window_lines(seed: int) -> list[str]:
    """The rowsum criterion with wider windows (:data:`WINDOW_RUNS`), beside the default strategy's τ (discordance,
    window 6) on the same trials."""
    out = []
    for K, sigma, trials, window in WINDOW_RUNS:
        rs = _adaptive_tau(K, sigma, trials, seed, "rowsum", window=window)
        df = _adaptive_tau(K, sigma, trials, seed, "discordance")
        out.append(f"- `--K {K} --sigma {sigma:g} --trials {trials} --criterion rowsum --window {window}`: "
                   f"{float(rs.mean()):.3f}; the default strategy on the same trials: {float(df.mean()):.3f}")
    return out


# --- the prose's figures, from the tables the docs store ---------------------------------------------------

NUMBERS = ["no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"]


def page_of(mark: str) -> str:
    """The page of ``mark``'s table: the command's tables on its page, the research tables on their own page."""
    return "zelo_simulate.md" if mark in ("recovery-adaptive", "recovery-cycles") else "zelo_simulate-ranking-bounds.md"


def stored(mark: str) -> dict[tuple[int, str], list[str]]:
    """The rows of the table between ``mark``'s markers (on its page, see ``main``), keyed (K, σ): the cells as
    ``--write-docs`` last wrote them, the table's head and rule left out."""
    return dict(_rows(mark))


def _rows(mark: str) -> list[tuple[tuple[int, str], list[str]]]:
    """:func:`stored`'s rows in their order, several per (K, σ) allowed."""
    text = (ROOT / "docs" / page_of(mark)).read_text(encoding="utf-8")
    block = text.split(f"<!-- {mark}:begin -->\n")[1].split(f"<!-- {mark}:end -->")[0]
    rows = [[c.strip() for c in ln.strip().strip("|").split("|")] for ln in block.splitlines() if ln.startswith("| ")]
    return [((int(r[0]), r[1]), r) for r in rows if r[0].isdigit()]


def _f(cell: str, i: int = 0) -> float:
    """The i-th number of a cell (``0.258 / 0.260 / 0.412``, ``65%``, ``1.30 (1.32)``, ``0.735 ± 0.007``)."""
    return float(re.findall(r"[-+]?\d+(?:\.\d+)?", cell)[i])


def _range(values: list[float], fmt: str, unit: str = "") -> str:
    lo, hi = (format(round(v, 10), fmt) for v in (min(values), max(values)))
    return f"{lo}{unit}" if lo == hi else f"{lo}–{hi}{unit}"


def _slash(values: list[float], fmt: str = ".3f") -> str:
    return " / ".join(format(round(v, 10), fmt) for v in values)


def _sign(v: float) -> str:
    """A difference as the prose writes it: +0.006, −0.011, 0.000."""
    v = round(v, 10)
    return "0.000" if abs(v) < 0.0005 else f"{v:+.3f}".replace("-", "−")


def criteria_figures() -> list[tuple[str, str]]:
    """(page, phrase) for the figures the prose quotes from the criteria table (``--criteria``), for the cells it
    stores."""
    cr = stored("recovery-criteria")  # K, σ, uncertainty K/2, uncertainty K/4, default, rowsum, rowsum − default
    sim, bounds = "zelo_simulate.md", "zelo_simulate-ranking-bounds.md"
    ks = sorted({K for K, _ in cr})
    sig = ("0.6", "1.5", "3")
    rounds = {key: _f(r[3]) - _f(r[2]) for key, r in cr.items()}
    raised = [key for key, d in rounds.items() if round(d, 10) > 0]
    disc = {key: _f(r[4]) - _f(r[3]) for key, r in cr.items()}
    big = [key for key, d in disc.items() if abs(round(d, 10)) > 0.005]
    rest = [d for key, d in disc.items() if key not in big]
    share = f"all {NUMBERS[len(cr)]}" if len(raised) == len(cr) else f"{NUMBERS[len(raised)]} of the {NUMBERS[len(cr)]}"
    out = [(sim, f"Rounds of K/4 pairs instead of K/2 raised τ in {share} cells, by "
                 f"{_range([rounds[k] for k in raised], '.3f')}"),
           (sim, "the discordance criterion then added " + ", ".join(f"{_sign(disc[K, s])} at K = {K}, σ = {s}"
                                                                     for K, s in big)
                 + f", and {_sign(min(rest))} to {_sign(max(rest))} in the other cells")]
    for i, K in enumerate(ks):
        out.append((bounds, f"K = {K}{', σ = 0.6/1.5/3' if i == 0 else ''}: "
                            f"{_slash([_f(cr[K, s][5]) for s in sig])} ({'default ' if i == 0 else ''}"
                            f"{_slash([_f(cr[K, s][4]) for s in sig])})"))
    low = ", ".join(f"{_sign(_f(cr[K, '0.6'][6]))} at K = {K}" for K in ks)
    others = [_f(cr[K, s][6]) for K in ks for s in sig[1:]]
    ratio = max(abs(_f(r[6])) / _f(r[6], 1) for r in cr.values() if _f(r[6], 1) > 0)
    out += [(bounds, f"At σ = 0.6, where it was meant to help, it changes τ by {low}"),
            (bounds, f"elsewhere by {_sign(min(others))} to {_sign(max(others))}, none by more than "
                     f"{ratio:.1f} paired standard errors")]
    text = (ROOT / "docs" / bounds).read_text(encoding="utf-8")
    block = text.split("<!-- recovery-criteria:begin -->\n")[1].split("<!-- recovery-criteria:end -->")[0]
    runs = re.findall(r"--K (\d+) --sigma [\d.]+ --trials (\d+) --criterion rowsum --window (\d+)`: ([\d.]+); the "
                      r"default strategy on the same trials: ([\d.]+)", block)
    assert len(runs) == len(WINDOW_RUNS), runs
    (k1, _, w1, r1, d1), (k2, t2, w2, r2, d2) = runs
    out.append((bounds, f"--criterion rowsum --window {w1}` gives {r1} (the default: {d1}), and every pair a "
                        f"candidate at K = {k2} (`--K {k2} --window {w2} --trials {t2}`) {r2} (the default on those "
                        f"{t2} trials: {d2})"))
    return out


VARIANT_NAMES = ("kgstar", "aopt", "aopt-phi", "window10", "einfo", "quicksort")


def variants_table(K: int) -> dict[str, list[str]] | None:
    """The variants table ``bench/recovery_adaptive_variants.py --K K --write-docs`` stored (None if none is):
    variant name -> cells (name, τ, − default (± SE), information, adjacent variance, weighted variance)."""
    text = (ROOT / "docs" / "zelo_simulate-ranking-bounds.md").read_text(encoding="utf-8")
    if f"<!-- recovery-variants-{K}:begin -->" not in text:
        return None
    block = text.split(f"<!-- recovery-variants-{K}:begin -->\n")[1].split(f"<!-- recovery-variants-{K}:end -->")[0]
    rows = [[c.strip() for c in ln.strip().strip("|").split("|")] for ln in block.splitlines()
            if ln.startswith("| ") and not ln.startswith("| variant")]
    return {r[0].split(" (")[0]: r for r in rows}


def variants_figures() -> list[tuple[str, str]]:
    """(page, phrase) for the figures the prose quotes from the variants tables (σ = 1.5, 100 trials) that
    ``bench/recovery_adaptive_variants.py --write-docs`` stored: every stored K's τ, the rest at K = 50."""
    bounds, K = "zelo_simulate-ranking-bounds.md", 50
    out = []
    for k in (50, 100):
        tk = variants_table(k)
        if tk is not None:
            diff = ", ".join(f"{n} {tk[n][1]} ({_sign(_f(tk[n][2]))} ± {_f(tk[n][2], 1):.3f})" for n in VARIANT_NAMES)
            out.append((bounds, f"K = {k}: default {tk['default'][1]}, 8 cycles {tk['8 random cycles'][1]}; {diff}"))
    t = variants_table(K)
    assert t is not None
    info = {n: _f(r[3]) for n, r in t.items()}
    near = [info[n] for n in ("kgstar", "aopt", "aopt-phi")]
    # the pairs after the blind first batch (K/2 pairs of E[p(1-p)] each): the rest of the information, 3 votes each
    chosen = (info["default"] / 3 - K // 2 * mean_information(1.5)) / (4 * K - K // 2)
    return out + [
        (bounds, f"(weighted variance {_f(t['aopt'][5]):.3f} / {_f(t['aopt-phi'][5]):.3f} against "
                 f"{_f(t['default'][5]):.3f} at K = {K})"),
        (bounds, f"at the true scores (K = {K}): {info['default']:.0f} for the default, "
                 f"{_range(near, '.0f')} for kgstar and the A-optimal designs, against "
                 f"{info['8 random cycles']:.0f} for 8 random cycles"),
        (bounds, f"holds only {info['einfo']:.0f}"),
        (bounds, f"average p(1 − p) ≈ {chosen:.2f}, not 0.25, so the design carries "
                 f"{info['default'] / info['8 random cycles']:.2f} of 8 random cycles' information")]


def prose_figures() -> list[tuple[str, str]]:
    """(page, phrase) for every figure the two pages' prose quotes from the stored tables (module docstring)."""
    ad = stored("recovery-adaptive")  # K, σ, τ4, τ8, τa, gap, goal, adjacent, weighted, information, verdict
    ks, low, mid = (25, 50, 100), "0.6", "1.5"
    sim, bounds = "zelo_simulate.md", "zelo_simulate-ranking-bounds.md"
    out: list[tuple[str, str]] = []
    reached: dict[int, list[str]] = {}
    for (K, s), r in ad.items():
        if "reached**" in r[6]:
            reached.setdefault(K, []).append(s)
    parts = [f"K = {K} with σ = {' and '.join(v)}" for K, v in reached.items()]
    last = ad[max(reached), reached[max(reached)][-1]]
    n = sum(len(v) for v in reached.values())
    out += [(sim, f"is reached in {NUMBERS[n]} of the {NUMBERS[len(ad)]} cells: {', '.join(parts[:-1])}, and "
                  f"{parts[-1]} ({last[4]} against {last[3]}"),
            (sim, f"It is not reached in the {NUMBERS[len(ad) - n]} others."),
            (sim, f"8 random cycles also carry {_range([_f(ad[K, low][9]) for K in ks], '.1f')} times the Fisher "
                  "information"),
            (sim, f"the strategy closes {_range([_f(ad[K, low][5]) for K in ks], '.0f', ' %')} of the gap between 4 "
                  "and 8 cycles"),
            (sim, f"8 random cycles carry more information ({_slash([_f(ad[K, mid][9]) for K in ks[1:]], '.2f')} "
                  "of the most)"),
            (sim, f"the strategy closes {' / '.join(ad[K, mid][5].replace('%', ' %') for K in ks[1:])} of the gap ("
                  + ", ".join(f"{ad[K, mid][4]} against {ad[K, mid][3]}" for K in ks[1:]) + ")"),
            (sim, "E[p(1−p)] = " + ", ".join(f"{mean_information(float(s)):.3f}" for s in ("0.6", "1.5", "3"))
                  + " for σ = 0.6, 1.5, 3")]
    cy = {(K, s, int(r[2])): r for (K, s), r in _rows("recovery-cycles")}  # K, σ, cycles, τ dense, τ truth, top 10
    def tau(c: int, sigmas: tuple[str, ...]) -> str:
        return _range([_f(cy[K, s, c][3]) for K in ks for s in sigmas], ".2f")
    out.append((sim, f"zbench's 4 cycles recover the dense-matrix ranking with τ ≈ {tau(4, (low, mid))} for "
                     "σ = 0.6–1.5 "
                     f"({tau(4, ('3',))} for well-separated documents, σ = 3), and at K = 100 only "
                     f"{_range([100 * _f(cy[100, s, 4][5]) for s in (low, mid)], '.0f', ' %')} of the dense top 10 "
                     f"(σ = 0.6–1.5). 8 cycles give τ {tau(8, (low, mid))} ({tau(8, ('3',))} at σ = 3)."))
    orc = stored("recovery-oracle")  # K, σ, τ4, τ8, known, known + 4, known + 8
    adds = {key: _f(r[5]) - _f(r[4]) for key, r in orc.items()}
    first = adds.pop((25, low))
    out += [(bounds, f"adds {first:.3f} at K = 25, σ = 0.6, and {_range(list(adds.values()), '.3f')} elsewhere"),
            (bounds, "caps what perfect knowledge of the scores gives at "
                     f"{_slash([_f(orc[K, low][4]) for K in ks], '.2f')}"),
            (bounds, f"the distance from the adaptive strategy ({_slash([_f(ad[K, low][4]) for K in ks])}) to 8 cycles "
                     f"({_slash([_f(ad[K, low][3]) for K in ks])})")]
    out += [(bounds, f"K = {K}: default {ad[K, mid][4]}, 8 cycles {ad[K, mid][3]}") for K in ks[1:]]
    out.append((bounds, f"(E[p(1 − p)] = {mean_information(0.6):.3f} over all pairs at σ = 0.6, at most 0.25)"))
    dist = stored("recovery-distance")  # K, σ, τs, 1 apart, 2 apart, ..., all, excess all / at >= 6
    r = dist[100, mid]
    out.append((bounds, f"({_f(r[3]):.1f} and {_f(r[4]):.1f} against {_f(r[3], 1):.1f} and {_f(r[4], 1):.1f} "
                        "at K = 100, σ = 1.5)"))
    lead = {s: dist[100, s][-1] for s in (mid, low)}
    out.append((bounds, f"(last column: {_f(lead[mid], 1):.1f} of {_f(lead[mid]):.1f} at K = 100, σ = 1.5, and "
                        f"{_f(lead[low], 1):.1f} of {_f(lead[low]):.1f} at K = 100, σ = 0.6)"))
    tb = stored("recovery-tau-bound")  # K, σ, τ4, τ8 ± SE, τa, genie rules, bound, P(tie), verdict, genie at 16 + 16
    above = [_f(tb[K, low][5], 1) - _f(tb[K, low][2]) for K in ks] + [_f(tb[K, low][9]) - _f(tb[K, low][3])
                                                                       for K in ks]
    steps = [_f(tb[K, low][3]) - _f(tb[K, low][2]) for K in ks]
    out += [(bounds, f"the genie's value is {_range(above, '.2f')} above their τ at σ = 0.6"),
            (bounds, f"while 8 cycles are about {sum(steps) / len(steps):.1f} above 4")]
    lp = stored("recovery-tau-lp")  # K, σ, τ true 4/8/a, bound (violation) / law, verdict, τ dense, surrogate, cycles
    for s in (mid, "3"):
        assert len({f"{_f(lp[K, s][3]):.2f}" for K in ks}) == 1, s  # the prose gives one figure for the three K
    out += [(bounds, f"{_slash([_f(lp[K, low][3]) for K in ks])} at σ = 0.6 (K = 25 / 50 / 100), "
                     f"{_f(lp[25, mid][3]):.2f} at σ = 1.5, {_f(lp[25, '3'][3]):.2f} at σ = 3"),
            (bounds, f"({_slash([_f(lp[K, low][2], 1) for K in ks])} at σ = 0.6)"),
            (bounds, f"the surrogate programme gives {_slash([_f(lp[K, low][6]) for K in ks])} at σ = 0.6 against 8 "
                     f"cycles' {_slash([_f(lp[K, low][5], 1) for K in ks])}"),
            (bounds, f"for random cycles it gives {_slash([_f(lp[K, low][7]) for K in ks])} (4 cycles) and "
                     f"{_slash([_f(lp[K, low][7], 1) for K in ks])} (8 cycles)"),
            (bounds, f"the surrogate gives {_slash([_f(lp[K, low][6], 1) for K in ks])}, below 8 cycles' τ")]
    return out + criteria_figures() + variants_figures()


def _check(ap: argparse.ArgumentParser, a: argparse.Namespace) -> None:
    """Refuse option combinations that the tables do not make."""
    if a.cycles and (a.oracle or a.tau_bound or a.by_distance or a.tau_lp or a.tau_sdp or a.batch_div is not None
                     or a.criterion is not None):
        ap.error("--cycles runs random cycles only: no other table, no --batch-div, --criterion")
    if a.criteria and (a.cycles or a.oracle or a.tau_bound or a.by_distance or a.tau_lp or a.tau_sdp
                       or a.batch_div is not None or a.criterion is not None):
        ap.error("--criteria runs its own criteria and round sizes: no other table, no --batch-div, --criterion")
    if a.batch_div is not None and a.batch_div < 1:
        ap.error("--batch-div must be >= 1")
    if a.jobs < 1 or (a.jobs > 1 and not a.criteria):
        ap.error("--jobs must be >= 1 and applies to --criteria only")
    if a.write_docs and (a.batch_div is not None or a.criterion is not None):
        ap.error("--write-docs writes the default strategy's table only")
    if a.oracle and (a.batch_div is not None or a.criterion is not None):
        ap.error("--oracle runs no adaptive strategy")
    if a.tau_bound and (a.oracle or a.batch_div is not None or a.criterion is not None):
        ap.error("--tau-bound compares the default adaptive strategy: no --oracle, --batch-div, --criterion")
    if a.by_distance and (a.oracle or a.tau_bound or a.batch_div is not None or a.criterion is not None):
        ap.error("--by-distance compares the default adaptive strategy: no --oracle, --tau-bound, --batch-div, "
                 "--criterion")
    if a.tau_lp and (a.oracle or a.tau_bound or a.by_distance or a.batch_div is not None or a.criterion is not None):
        ap.error("--tau-lp compares the default adaptive strategy: no --oracle, --tau-bound, --by-distance, "
                 "--batch-div, --criterion")
    if a.tau_sdp and (a.oracle or a.tau_bound or a.by_distance or a.tau_lp or a.batch_div is not None
                      or a.criterion is not None):
        ap.error("--tau-sdp runs random cycles only: no --oracle, --tau-bound, --by-distance, --tau-lp, --batch-div, "
                 "--criterion")
    try:
        a.sdp_grid = tuple(int(v) for v in a.sdp_grid.split(","))
    except ValueError:
        ap.error("--sdp-grid must be two integers, N_MU,N_ALPHA")
    if len(a.sdp_grid) != 2 or min(a.sdp_grid) < 2:
        ap.error("--sdp-grid must be two integers >= 2, N_MU,N_ALPHA")
    if a.bound_samples < 2:
        ap.error("--bound-samples must be >= 2")


def _head(a: argparse.Namespace) -> list[str]:
    """The line naming the command and the table's head for the table ``a`` asks for."""
    if a.criteria:
        grid = "".join(f" --{name} {v}" for name, v, default in
                       (("K", a.K, "25,50,100"), ("sigma", a.sigma, "0.6,1.5,3")) if v != default)
        return [f"`python bench/recovery_adaptive.py --criteria{grid} --trials {a.trials} --seed {a.seed}` — mean "
                "Kendall τ_b against the dense-matrix fit of the adaptive strategy (4 cycles' budget, same seeds) by "
                "criterion and round size:", "", *CRITERIA_HEAD]
    elif a.cycles:
        return [f"`python bench/recovery_adaptive.py --cycles --trials {a.trials} --seed {a.seed}` — the rows of "
                f"`zelo_simulate recovery --K {a.K} --sigma {a.sigma} --cycles 2,4,8 --trials {a.trials} --seed "
                f"{a.seed}`:", "", *CYCLES_HEAD]
    elif a.tau_sdp:
        grid = ",".join(map(str, a.sdp_grid))
        return [f"`python bench/recovery_adaptive.py --tau-sdp --sigma 0.6 --sdp-grid {grid} --trials {a.trials} "
                f"--seed {a.seed}` — mean Kendall τ_b against the true order ({a.trials} trials per cell) and the "
                f"document-state programme (grid: {a.sdp_grid[0]} points for μ, {a.sdp_grid[1]} for α; finer grid "
                f"{SDP_FINE['n_mu']} × {SDP_FINE['n_alpha']}):", "", *SDP_HEAD]
    elif a.tau_lp:
        return [f"`python bench/recovery_adaptive.py --tau-lp --trials {a.trials} --seed {a.seed}` — mean Kendall "
                f"τ_b ({a.trials} trials per cell), the Pólya–Gamma genie's bound against the true order, and the "
                "linear-Gaussian surrogate for the dense fit:", "", *LP_HEAD]
    elif a.by_distance:
        return [f"`python bench/recovery_adaptive.py --by-distance --trials {a.trials} --seed {a.seed}` — mean "
                "number of pairs per trial ordered the other way round from the dense fit, by how many places apart "
                "they are in the dense order: 4 random cycles / 8 random cycles / the adaptive strategy (4 cycles' "
                "budget):", "", *DIST_HEAD]
    elif a.tau_bound:
        return [f"`python bench/recovery_adaptive.py --tau-bound --trials {a.trials} --seed {a.seed} --bound-samples "
                f"{a.bound_samples}` — mean Kendall τ_b against the dense-matrix fit ({a.trials} trials per cell "
                "for the strategies; the genie's values and the bound from the stated number of Monte Carlo pairs):",
                "",
                *BOUND_HEAD]
    elif a.oracle:
        return [f"`python bench/recovery_adaptive.py --oracle --trials {a.trials} --seed {a.seed}` — mean Kendall "
                "τ_b against the dense-matrix fit:", "", *ORACLE_HEAD]
    else:
        return [f"`python bench/recovery_adaptive.py --trials {a.trials} --seed {a.seed}` — mean Kendall τ_b "
                "against the dense-matrix fit; mean Cramér–Rao variance of adjacent score differences "
                "(true order, Fisher information at the true scores, 3 votes per judgment):", "", *HEAD]


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--trials", type=int, default=100)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--K", default="25,50,100")
    ap.add_argument("--sigma", default="0.6,1.5,3")
    ap.add_argument("--batch-div", type=int, default=None,
                    help="adaptive rounds of K // D pairs (default: the strategy's default, K // 4)")
    ap.add_argument("--criterion", choices=["discordance", "uncertainty", "rowsum"], default=None,
                    help="the adaptive strategy's criterion (default: its default, discordance)")
    ap.add_argument("--oracle", action="store_true", help="the known-scores table instead (module docstring)")
    ap.add_argument("--tau-bound", action="store_true", help="the tau-bound table instead (module docstring)")
    ap.add_argument("--by-distance", action="store_true", help="the by-distance table instead (module docstring)")
    ap.add_argument("--tau-lp", action="store_true", help="the Pólya–Gamma genie's table instead (module docstring)")
    ap.add_argument("--tau-sdp", action="store_true", help="the document-state table instead (module docstring)")
    ap.add_argument("--sdp-grid", default="15,7", help="--tau-sdp's grid: points for mu, points for alpha")
    ap.add_argument("--bound-samples", type=int, default=2000, help="Monte Carlo pairs per cell for --tau-bound")
    ap.add_argument("--cycles", action="store_true", help="zelo_simulate recovery's cycles table instead (module "
                    "docstring)")
    ap.add_argument("--criteria", action="store_true", help="the criteria table instead (module docstring)")
    ap.add_argument("--jobs", type=int, default=1, help="--criteria's rows in this many processes (same figures)")
    ap.add_argument("--write-docs", action="store_true")
    ap.add_argument("--prose", action="store_true", help="print the prose's figures from the stored tables, run "
                    "nothing (module docstring)")
    a = ap.parse_args(argv)
    _check(ap, a)
    if a.prose:
        for page, phrase in prose_figures():
            print(f"{page}: {phrase}")
        return
    lines = _head(a)
    if a.criteria and a.jobs > 1:
        from concurrent.futures import ProcessPoolExecutor

        cells = [(int(K), float(s)) for K in a.K.split(",") for s in a.sigma.split(",")]
        with ProcessPoolExecutor(a.jobs) as pool:
            windows = pool.submit(window_lines, a.seed)
            rows = [pool.submit(criteria_row, K, s, a.trials, a.seed) for K, s in reversed(cells)][::-1]
            lines += [r.result() for r in rows]
            lines += ["", "The rowsum criterion with wider windows (σ = 0.6):", "", *windows.result()]
    for K in (int(v) for v in a.K.split(",")) if not (a.criteria and a.jobs > 1) else ():
        for sigma in (float(v) for v in a.sigma.split(",")):
            lines.append(criteria_row(K, sigma, a.trials, a.seed) if a.criteria else
                         cycles_rows(K, sigma, a.trials, a.seed) if a.cycles else
                         sdp_row(K, sigma, a.trials, a.seed, grid=a.sdp_grid) if a.tau_sdp else
                         lp_row(K, sigma, a.trials, a.seed) if a.tau_lp else
                         distance_row(K, sigma, a.trials, a.seed) if a.by_distance else
                         bound_row(K, sigma, a.trials, a.seed, a.bound_samples) if a.tau_bound else
                         oracle_row(K, sigma, a.trials, a.seed) if a.oracle else
                         row(K, sigma, a.trials, a.seed, batch_div=a.batch_div, criterion=a.criterion))
            if not a.write_docs:
                print(lines[-1], file=sys.stderr, flush=True)
    if a.criteria and a.jobs == 1:
        lines += ["", "The rowsum criterion with wider windows (σ = 0.6):", "", *window_lines(a.seed)]
    text = "\n".join(lines) + "\n"
    print(text)
    used = [resource.getrusage(who) for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)]
    print(f"{Path(__file__).name}: {sum(u.ru_utime + u.ru_stime for u in used):.0f} s CPU", file=sys.stderr)
    if a.write_docs:
        mark = ("recovery-criteria" if a.criteria else "recovery-cycles" if a.cycles else
                "recovery-tau-sdp" if a.tau_sdp else "recovery-tau-lp" if a.tau_lp else
                "recovery-distance" if a.by_distance else "recovery-tau-bound" if a.tau_bound else
                "recovery-oracle" if a.oracle else "recovery-adaptive")
        page = page_of(mark)
        doc = ROOT / "docs" / page
        s = doc.read_text()
        new, n = re.subn(rf"(<!-- {mark}:begin -->\n).*?(<!-- {mark}:end -->)",
                         lambda m: m.group(1) + text + m.group(2), s, flags=re.S)
        if n != 1:
            sys.exit(f"docs/{page} has no {mark} markers")
        doc.write_text(new)


if __name__ == "__main__":
    main()
