"""zelo_simulate: pair-selection strategies against preference matrices."""
from __future__ import annotations

import click

from .common import Log, output_stream, run_main
from .param_types import SEED, Finite, NumberList
from .options import quiet_option


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
def command():
    """Simulate judging strategies.

    \b
    zelo_simulate tournament --matrix caseA.txt --reps 1000 --seed 0
    zelo_simulate recovery --K 25,50,100 --sigma 0.6,1.5 --cycles 2,4,8 --trials 100
    """


def _progress(log, label):
    state = {"last": -1}

    def cb(done, total):
        pct = int(100 * done / total)
        if pct != state["last"] or done == total:
            state["last"] = pct
            log.progress(label, done, total)

    return cb


@command.command("tournament")
@click.option("--matrix", required=True, metavar="FILE",
              help="K x K matrix, M[i][j] = P(i preferred to j) (whitespace text, as numpy.loadtxt).")
@click.option("--reps", type=click.IntRange(min=1), default=1000, show_default=True)
@click.option("--k", type=click.IntRange(min=1), default=1, show_default=True)
@click.option("--p", type=click.IntRange(min=1), default=7, show_default=True)
@click.option("--f", type=click.IntRange(min=1), default=9, show_default=True)
@click.option("--seed", type=SEED, default=0, show_default=True)
@click.option("--final-phase", is_flag=True,
              help="Yan et al.'s extra final phase (every final-pool pair judged twice).")
@click.option("-o", "--output", default=None)
@quiet_option()
def tournament_cmd(matrix, reps, k, p, f, seed, final_phase, output, quiet):
    """Clarke et al.'s tournament against MATRIX (Yan et al. 2022, Section 4)."""
    import numpy as np

    from ..io.matrix import read_probability_matrix
    from ..zelo.simulate import simulate_tournament

    M = read_probability_matrix(matrix)
    log = Log("zelo_simulate", quiet)
    r = simulate_tournament(M, reps, k=k, p=p, f=f, seed=seed, final_phase=final_phase,
                            progress=_progress(log, "tournament"))
    c = r["comparisons"]
    with output_stream(output) as out:
        out.write("matrix\treps\tfound\tfound_all\tcomparisons_min\tcomparisons_median\tcomparisons_max\t"
                  "mean_best_set\n")
        out.write(f"{matrix}\t{reps}\t{int(r['found'].sum())}\t{int(r['found_all'].sum())}\t{int(c.min())}\t"
                  f"{float(np.median(c)):g}\t{int(c.max())}\t{r['best_size'].mean():.3f}\n")
    return 0


@command.command("recovery")
@click.option("--K", "ks", type=NumberList(click.IntRange(min=2)), default="25,50,100", show_default=True,
              help="Documents per query.")
@click.option("--sigma", type=NumberList(Finite(min=0, min_open=True)), default="0.6,1.5", show_default=True,
              help="SD of the true BT scores.")
@click.option("--cycles", type=NumberList(click.IntRange(min=1)), default="2,4,8", show_default=True)
@click.option("--trials", type=click.IntRange(min=1), default=100, show_default=True)
@click.option("--seed", type=SEED, default=0, show_default=True)
@click.option("-o", "--output", default=None)
@quiet_option()
def recovery_cmd(ks, sigma, cycles, trials, seed, output, quiet):
    """Kendall tau between sparse-cycle fits and dense-matrix fits."""
    from ..zelo.simulate import recovery

    log = Log("zelo_simulate", quiet)
    K, S, C = ks, sigma, cycles  # tuples, checked by their click types
    cells = [(k, s, c) for k in K for s in S for c in C]
    with output_stream(output) as out:
        out.write("K\tsigma\tcycles\ttrials\ttau_vs_dense\ttau_vs_truth\ttop10_overlap\n")
        for i, (k, s, c) in enumerate(cells, start=1):
            r = recovery(k, s, c, trials, seed=seed)
            out.write(f"{k}\t{s:g}\t{c}\t{trials}\t{r['tau_dense'].mean():.3f}\t{r['tau_truth'].mean():.3f}\t"
                      f"{r['top_overlap'].mean():.3f}\n")
            out.flush()
            log.info(f"recovery: {i}/{len(cells)} cells (K={k}, sigma={s:g}, cycles={c})")
    return 0


def main(argv=None):
    run_main(command, "zelo_simulate", argv)


if __name__ == "__main__":
    main()
