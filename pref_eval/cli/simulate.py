"""zelo_simulate: pair-selection strategies against preference matrices."""
from __future__ import annotations

import click

from .common import Log, output_stream, run_main
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
@click.option("--reps", type=int, default=1000, show_default=True)
@click.option("--k", type=int, default=1, show_default=True)
@click.option("--p", type=int, default=7, show_default=True)
@click.option("--f", type=int, default=9, show_default=True)
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--final-phase", is_flag=True, help="Yan et al.'s extra final phase (every final-pool pair judged twice).")
@click.option("-o", "--output", default=None)
@quiet_option()
def tournament_cmd(matrix, reps, k, p, f, seed, final_phase, output, quiet):
    """Clarke et al.'s tournament against MATRIX (Yan et al. 2022, Section 4)."""
    import numpy as np

    from ..errors import InputError, UsageError
    from ..io.textfile import read_input_text
    from ..zelo.simulate import simulate_tournament

    if reps < 1:
        raise UsageError("--reps must be >= 1")
    text = read_input_text(matrix, what="matrix file")
    rows = [l.split() for l in text.split("\n") if l.strip()]
    try:
        M = np.array([[float(x) for x in r] for r in rows])
    except ValueError:
        raise InputError(matrix, 0, "expected a square matrix of numbers") from None
    if M.ndim != 2 or M.shape[0] != M.shape[1] or M.shape[0] < 2:
        raise InputError(matrix, 0, f"expected a square matrix, got {len(rows)} rows")
    if np.any((M < 0) | (M > 1)):
        raise InputError(matrix, 0, "expected probabilities in [0, 1]")
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


def _list(text, cast, name):
    from ..errors import UsageError

    try:
        vals = [cast(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise UsageError(f"--{name} expects a comma-separated list, got {text!r}") from None
    if not vals:
        raise UsageError(f"--{name} is empty")
    return vals


@command.command("recovery")
@click.option("--K", "ks", default="25,50,100", show_default=True, help="Documents per query.")
@click.option("--sigma", default="0.6,1.5", show_default=True, help="SD of the true BT scores.")
@click.option("--cycles", default="2,4,8", show_default=True)
@click.option("--trials", type=int, default=100, show_default=True)
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("-o", "--output", default=None)
@quiet_option()
def recovery_cmd(ks, sigma, cycles, trials, seed, output, quiet):
    """Kendall tau between sparse-cycle fits and dense-matrix fits."""
    from ..zelo.simulate import recovery

    log = Log("zelo_simulate", quiet)
    K = _list(ks, int, "K")
    S = _list(sigma, float, "sigma")
    C = _list(cycles, int, "cycles")
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
