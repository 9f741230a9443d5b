"""zelo_simulate: pair-selection strategies against preference matrices."""
from __future__ import annotations

import click

from .common import Log, run_main, stdout_or
from .once import OnceGroup
from .param_types import SEED, Finite, NumberList
from .options import quiet_option


@click.group(cls=OnceGroup, context_settings={"help_option_names": ["-h", "--help"]})
def command() -> None:
    """Simulate judging strategies.

    \b
    zelo_simulate tournament --matrix caseA.txt --reps 1000 --seed 0
    zelo_simulate recovery --K 25,50,100 --sigma 0.6,1.5 --cycles 2,4,8 --trials 100
    zelo_simulate bandit --algorithm dts --case A --reps 1000
    zelo_simulate adaptive --case B --reps 1000
    zelo_simulate figure3 --reps 1000
    """


@command.command("tournament")
@click.option("--matrix", required=True, metavar="FILE",
              help="K x K matrix, M[i][j] = P(i preferred to j) (whitespace text, as numpy.loadtxt).")
@click.option("--reps", type=click.IntRange(min=1), default=1000, show_default=True, help="Simulated tournaments.")
@click.option("--k", type=click.IntRange(min=1), default=1, show_default=True,
              help="Depth of top documents required.")
@click.option("--p", type=click.IntRange(min=2), default=None,
              help="First-stage pairings per document, > k.  [default: 7, or k + 1 if larger]")
@click.option("--f", type=click.IntRange(min=3), default=None,
              help="Pooling threshold, > p.  [default: 9, or p + 1 if larger]")
@click.option("--seed", type=SEED, default=0, show_default=True, help="Random seed (numpy default_rng).")
@click.option("--final-phase", is_flag=True,
              help="Yan et al.'s extra final phase (every final-pool pair judged twice).")
@click.option("-o", "--output", default=None, help="Write the table here (default stdout).")
@quiet_option()
def tournament_cmd(matrix: str, reps: int, k: int, p: int | None, f: int | None, seed: int, final_phase: bool,
                   output: str | None, quiet: bool) -> int:
    """Clarke et al.'s tournament against MATRIX (Yan et al. 2022, Section 4)."""
    from ..api.simulation import simulate
    from .common import command_options

    simulate(matrix, reps, k=k, p=p, f=f, seed=seed, final_phase=final_phase, output=stdout_or(output),
             log=Log("zelo_simulate", quiet), inputs=command_options())
    return 0


@command.command("recovery")
@click.option("--K", "ks", type=NumberList(click.IntRange(min=2)), default="25,50,100", show_default=True,
              help="Documents per query.")
@click.option("--sigma", type=NumberList(Finite(min=0, min_open=True, max=1e6)), default="0.6,1.5", show_default=True,
              help="SD of the true BT scores.")
@click.option("--cycles", type=NumberList(click.IntRange(min=1)), default="2,4,8", show_default=True,
              help="Random cycles per query (comma list; the budget with --strategy adaptive).")
@click.option("--trials", type=click.IntRange(min=1), default=100, show_default=True, help="Trials per cell.")
@click.option("--seed", type=SEED, default=0, show_default=True, help="Random seed (numpy default_rng).")
@click.option("--strategy", type=click.Choice(["cycles", "adaptive"]), default="cycles", show_default=True,
              help="Random cycles, or adaptive pairs with the budget of that many cycles.")
@click.option("--window", type=click.IntRange(min=1), default=None,
              help="Adaptive: candidate pairs at most this many places apart in the fitted order (6).")
@click.option("--start", type=click.Choice(["matching", "cycle"]), default=None,
              help="Adaptive: the blind first batch, a random perfect matching or a random cycle (matching).")
@click.option("--batch", type=click.IntRange(min=1), default=None,
              help="Adaptive: pairs per query and round after the first batch (K // 4).")
@click.option("--criterion", type=click.Choice(["discordance", "uncertainty", "rowsum"]), default=None,
              help="Adaptive: choose pairs by the expected reduction in discordant pairs (discordance, the default), "
                   "by the probability that their fitted order is wrong (uncertainty), or by the expected "
                   "reduction in pairs ordered unlike the complete matrix's win totals (rowsum).")
@click.option("-o", "--output", default=None, help="Write the table here (default stdout).")
@quiet_option()
def recovery_cmd(ks: tuple[int, ...], sigma: tuple[float, ...], cycles: tuple[int, ...], trials: int, seed: int,
                 strategy: str, window: int | None, start: str | None, batch: int | None, criterion: str | None,
                 output: str | None, quiet: bool) -> int:
    """Kendall tau between sparse-cycle fits and dense-matrix fits."""
    from ..api.simulation import simulate_recovery
    from .common import command_options

    # ks, sigma, cycles: tuples, checked by their click types
    simulate_recovery(ks=ks, sigma=sigma, cycles=cycles, trials=trials, seed=seed, strategy=strategy,
                      window=window, start=start, batch=batch, criterion=criterion, output=stdout_or(output),
                      log=Log("zelo_simulate", quiet), inputs=command_options())
    return 0


@command.command("bandit")
@click.option("--algorithm", required=True, type=click.Choice(["dts", "mergedts", "round-efficient"]),
              help="Double Thompson Sampling, MergeDTS or Round-Efficient Dueling Bandits.")
@click.option("--case", "case", type=click.Choice(["A", "B"], case_sensitive=False), default=None,
              help="Yan et al.'s Case A (total order) or Case B (two winners, many ties), K = 100.")
@click.option("--matrix", default=None, metavar="FILE", help="K x K matrix, M[i][j] = P(i preferred to j).")
@click.option("--reps", type=click.IntRange(min=1), default=1000, show_default=True, help="Simulated repetitions.")
@click.option("--T", "budget", type=click.IntRange(min=1), default=1000, show_default=True,
              help="Comparisons per repetition (the time horizon).")
@click.option("--seed", type=SEED, default=0, show_default=True, help="Random seed (numpy default_rng).")
@click.option("--alpha", type=Finite(min=0, min_open=True), default=None,
              help="Exploration parameter (dts: 0.8^7, mergedts: 0.8^6).")
@click.option("--batch", type=click.IntRange(min=2), default=None, help="MergeDTS batch size M (16).")
@click.option("--C", "c", type=Finite(min=0), default=None, help="MergeDTS constant C (4,000,000).")
@click.option("--delta", type=Finite(min=0, max=1, min_open=True, max_open=True), default=None,
              help="Round-Efficient error probability (0.2).")
@click.option("-o", "--output", default=None, help="Write the table here (default stdout).")
@quiet_option()
def bandit_cmd(algorithm: str, case: str | None, matrix: str | None, reps: int, budget: int, seed: int,
               alpha: float | None, batch: int | None, c: float | None, delta: float | None, output: str | None,
               quiet: bool) -> int:
    """A dueling-bandit algorithm against a matrix (Yan et al. 2022, Figure 3)."""
    from ..api.simulation import simulate_bandit
    from .common import command_options

    simulate_bandit(algorithm, case=case, matrix=matrix, reps=reps, budget=budget, seed=seed, alpha=alpha,
                    batch=batch, c=c, delta=delta, output=stdout_or(output), log=Log("zelo_simulate", quiet),
                    inputs=command_options())
    return 0


@command.command("adaptive")
@click.option("--case", "case", type=click.Choice(["A", "B"], case_sensitive=False), default=None,
              help="Yan et al.'s Case A or Case B, K = 100.")
@click.option("--matrix", default=None, metavar="FILE", help="K x K matrix, M[i][j] = P(i preferred to j).")
@click.option("--reps", type=click.IntRange(min=1), default=1000, show_default=True, help="Simulated repetitions.")
@click.option("--seed", type=SEED, default=0, show_default=True, help="Random seed (numpy default_rng).")
@click.option("--lead", type=Finite(min=0.5), default=2.0, show_default=True,
              help="A match ends when one item leads by this many wins.")
@click.option("--batch", type=click.IntRange(min=1), default=1, show_default=True,
              help="Judgments asked per match and batch.")
@click.option("--max-per-pair", type=click.IntRange(min=1), default=6, show_default=True,
              help="Judgments of any one pair at most (then the majority decides).")
@click.option("--max-per-match", type=click.IntRange(min=1), default=5, show_default=True,
              help="Cap on one match's judgments (then the majority decides).")
@click.option("--lives", type=click.IntRange(min=1), default=2, show_default=True,
              help="Losses that eliminate an item.")
@click.option("--final", type=click.IntRange(min=1), default=6, show_default=True,
              help="Items left for the all-pairs final.")
@click.option("--final-lead", type=Finite(min=0.5), default=3.0, show_default=True,
              help="Lead that ends the final.")
@click.option("-o", "--output", default=None, help="Write the table here (default stdout).")
@quiet_option()
def adaptive_cmd(case: str | None, matrix: str | None, reps: int, seed: int, lead: float, batch: int, max_per_pair: int,
                 max_per_match: int, lives: int, final: int, final_lead: float, output: str | None, quiet: bool) -> int:
    """The adaptive best-item strategy against a matrix (columns as for `bandit`)."""
    from ..api.simulation import simulate_adaptive
    from .common import command_options

    simulate_adaptive(case=case, matrix=matrix, reps=reps, seed=seed, lead=lead, batch=batch,
                      max_per_pair=max_per_pair, max_per_match=max_per_match, lives=lives, final=final,
                      final_lead=final_lead, output=stdout_or(output), log=Log("zelo_simulate", quiet),
                      inputs=command_options())
    return 0


@command.command("figure3")
@click.option("--reps", type=click.IntRange(min=1), default=1000, show_default=True, help="Simulated repetitions.")
@click.option("--seed", type=SEED, default=0, show_default=True, help="Random seed (numpy default_rng).")
@click.option("--algorithms", default="dts,mergedts,round-efficient,tournament,tournament-final,adaptive",
              show_default=True,
              help="Comma-separated rows to run.")
@click.option("-o", "--output", default=None, help="Write the table here (default stdout).")
@quiet_option()
def figure3_cmd(reps: int, seed: int, algorithms: str, output: str | None, quiet: bool) -> int:
    """Yan et al.'s Figure 3: every algorithm on Case A and Case B (T = 1,000)."""
    from ..api.simulation import simulate_figure3
    from .common import command_options

    algos = tuple(a.strip() for a in algorithms.split(",") if a.strip())
    simulate_figure3(reps, seed, algos, output=stdout_or(output), log=Log("zelo_simulate", quiet),
                     inputs=command_options())
    return 0


def main(argv: list[str] | None = None) -> None:
    run_main(command, "zelo_simulate", argv)


if __name__ == "__main__":
    main()
