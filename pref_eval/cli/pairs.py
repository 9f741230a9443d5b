"""zelo_pairs: choose the pairs to judge (random cycles; Clarke's tournament; adaptive strategies)."""
from __future__ import annotations

import click

from .common import Log, run_main, stdout_or
from .once import OnceGroup
from .param_types import SEED, Finite
from .options import quiet_option


@click.group(cls=OnceGroup, context_settings={"help_option_names": ["-h", "--help"]})
def command() -> None:
    """Choose document pairs to judge.

    \b
    zelo_pairs cycles --dataset DS.jsonl --cycles 4 --seed 1 > pairs.jsonl
    zelo_pairs init --state S.json --qrels graded.qrels [--k 5 --p 7 --f 9]
    zelo_pairs init --state S.json --strategy adaptive --goal ranking --run RUN --depth 50
    zelo_pairs init --state S.json --strategy adaptive --run A.run --run B.run --depth 10   (best item)
    zelo_pairs next --state S.json > batch.txt      (pairs still to judge)
    zelo_pairs add  --state S.json -J judgments     (any zelo_fit format)
    zelo_pairs status --state S.json                 (stage, pairs outstanding, stages left)
    zelo_pairs result --state S.json [--qrels graded.qrels]
    zelo_pairs pool --depth 100 [--qrels judged.qrels] RUN... > pool.txt   (qid docno lines to judge)
    """


@command.command("cycles")
@click.option("--dataset", default=None, metavar="JSONL", help="zbench QueryDocuments JSONL.")
@click.option("--run", multiple=True, metavar="RUN",
              help="TREC run: candidates = top --depth by score; repeat to pool several runs (the systems compared).")
@click.option("--depth", type=click.IntRange(min=1), default=None,
              help="With --run: documents per query (default all).")
@click.option("--docs", default=None, metavar="FILE", help="'qid docno' lines, in candidate order.")
@click.option("--cycles", type=click.IntRange(min=1), default=4, show_default=True,
              help="Random cycles per query (each document is in 2 pairs per cycle).")
@click.option("--seed", type=SEED, default=0, show_default=True, help="Random seed (numpy default_rng).")
@click.option("--no-duplicates", is_flag=True, help="Skip a pair already drawn for the query.")
@click.option("--limit", type=click.IntRange(min=1), default=None, help="Use only the first N documents per query.")
@click.option("--compat", type=click.Choice(["zbench"]), default=None,
              help="Python random.Random(seed).shuffle, as zbench after random.seed(seed).")
@click.option("--output-format", type=click.Choice(["jsonl", "tsv"]), default="jsonl", show_default=True,
              help="Pairs as JSON lines or 'qid doc_a doc_b' TSV.")
@click.option("-o", "--output", default=None, help="Write here, atomically (default stdout).")
@quiet_option()
def cycles_cmd(dataset: str | None, run: tuple[str, ...], depth: int | None, docs: str | None, cycles: int, seed: int,
               no_duplicates: bool, limit: int | None, compat: str | None, output_format: str, output: str | None,
               quiet: bool) -> int:
    """Random cycles (zbench): each document is in 2 x CYCLES pairs."""
    from ..api.pairing import pairs
    from .common import command_options

    pairs(None, cycles, seed, dedup=no_duplicates, limit=limit, compat=compat, dataset=dataset, run=list(run) or None,
          depth=depth, docs=docs, output=stdout_or(output), output_format=output_format, log=Log("zelo_pairs", quiet),
          inputs=command_options())
    return 0


@command.command("init")
@click.option("--state", required=True, metavar="FILE", help="JSON state file to create.")
@click.option("--qrels", default=None, metavar="FILE",
              help="Graded qrels: the pool is grade > 0 (the tournament: its top --k grades and ties). Give exactly "
                   "one of --qrels, --run, --docs, --dataset.")
@click.option("--strategy", type=click.Choice(["tournament", "adaptive"]), default="tournament", show_default=True,
              help="Clarke et al.'s tournament, or the adaptive strategy (zelo_simulate adaptive / recovery).")
@click.option("--goal", type=click.Choice(["best", "ranking"]), default=None,
              help="Adaptive: find the best item (double elimination, the default) or rank every document "
                   "(the rounds of zelo_simulate recovery --strategy adaptive).")
@click.option("--k", type=click.IntRange(min=1), default=None, help="Tournament: depth of top documents required (5).")
@click.option("--p", type=click.IntRange(min=2), default=None,
              help="Tournament: first-stage pairings per document, > k (7).")
@click.option("--f", type=click.IntRange(min=3), default=None,
              help="Tournament: first-stage pooling threshold, > p (9).")
@click.option("--seed", type=SEED, default=0, show_default=True, help="numpy default_rng seed of the state.")
@click.option("--final-phase", is_flag=True, default=None, help="Tournament: Yan et al.'s extra final phase: judge "
              "every final-pool pair a second time; result from both rounds.")
@click.option("--lead", type=Finite(min=0.5), default=None, help="Adaptive best: a match ends at this lead (2).")
@click.option("--max-per-pair", type=click.IntRange(min=1), default=None,
              help="Adaptive best: judgments of one pair at most (6).")
@click.option("--cycles", type=click.IntRange(min=1), default=None,
              help="Ranking: budget of CYCLES x K distinct pairs per topic of K documents (4; at most all pairs).")
@click.option("--batch", type=click.IntRange(min=1), default=None,
              help="Ranking: pairs per topic and round after the first (K/4).")
@click.option("--window", type=click.IntRange(min=1), default=None,
              help="Ranking: candidates at most this many places apart in the fitted order (6).")
@click.option("--start", type=click.Choice(["matching", "cycle"]), default=None,
              help="Ranking: the blind first round, a random perfect matching (default) or a random cycle.")
@click.option("--criterion", type=click.Choice(["discordance", "uncertainty"]), default=None,
              help="Ranking: expected reduction in discordant pairs (default) or P(fitted order wrong).")
@click.option("--dataset", default=None, metavar="JSONL", help="Candidates: zbench QueryDocuments JSONL.")
@click.option("--run", multiple=True, metavar="RUN",
              help="Candidates: top --depth of a TREC run by score; repeat to pool several runs (the systems "
                   "compared).")
@click.option("--depth", type=click.IntRange(min=1), default=None,
              help="With --run: documents per query and run (default all).")
@click.option("--docs", default=None, metavar="FILE", help="Candidates: 'qid docno' lines.")
@click.option("--force", is_flag=True, help="Overwrite an existing state file.")
@quiet_option(help="Accepted as by every command; it writes nothing but errors on stderr.")
def init_cmd(state: str, qrels: str | None, strategy: str, goal: str | None, k: int | None, p: int | None,
             f: int | None, seed: int, final_phase: bool | None, lead: float | None, max_per_pair: int | None,
             cycles: int | None, batch: int | None, window: int | None, start: str | None, criterion: str | None,
             dataset: str | None, run: tuple[str, ...], depth: int | None, docs: str | None, force: bool,
             quiet: bool) -> int:
    """Start Clarke's pruning tournament or an adaptive strategy (best item, or the whole ranking)."""
    from ..api.pairing import pairs_init
    from .common import command_options

    pairs_init(state, qrels, strategy=strategy, k=k, p=p, f=f, seed=seed, final_phase=final_phase, lead=lead,
               max_per_pair=max_per_pair, goal=goal, cycles=cycles, batch=batch, window=window, start=start,
               criterion=criterion, dataset=dataset, run=list(run) or None, depth=depth, docs=docs, force=force,
               inputs=command_options())
    return 0


@command.command("next")
@click.option("--state", required=True, metavar="FILE", help="The JSON state file (zelo_pairs init).")
@click.option("-o", "--output", default=None, help="Requests 'topic docA docB' (default stdout).")
@quiet_option(help="Accepted as by every command; it writes nothing but errors on stderr.")
def next_cmd(state: str, output: str | None, quiet: bool) -> int:
    """Print the pairs still to judge (none when the tournament is over)."""
    from ..api.pairing import pairs_next
    from .common import command_options

    pairs_next(state, output=stdout_or(output), inputs=command_options())
    return 0


@command.command("add")
@click.option("--state", required=True, metavar="FILE", help="The JSON state file (zelo_pairs init).")
@click.option("-J", "--judgments", "judgments", multiple=True, required=True,
              help="Judgment file, any format zelo_fit reads (repeatable).")
@click.option("--format", "fmt", default=None, help="Judgment format, as zelo_fit --format (default: detected).")
@quiet_option()
def add_cmd(state: str, judgments: tuple[str, ...], fmt: str | None, quiet: bool) -> int:
    """Add a batch of judgments (any number of batches per stage)."""
    from ..api.pairing import pairs_add
    from .common import command_options

    pairs_add(state, list(judgments), judgments_format=fmt, log=Log("zelo_pairs", quiet), inputs=command_options())
    return 0


@command.command("status")
@click.option("--state", required=True, metavar="FILE", help="The JSON state file (zelo_pairs init).")
@click.option("-o", "--output", default=None, help="Write the table here, atomically (default stdout).")
@click.option("--verify", is_flag=True, help="Adaptive states: also replay the judgments (a fit per round) and "
              "refuse the state unless the replay gives it byte for byte (an edited or forged state).")
@quiet_option(help="Accepted as by every command; it writes nothing but errors on stderr.")
def status_cmd(state: str, output: str | None, verify: bool, quiet: bool) -> int:
    """Per topic: stage, pool, pairs judged / requested, stages left at least; then a total line."""
    from ..api.pairing import pairs_status
    from .common import command_options

    _refuse_verify_of_tournament(state)
    pairs_status(state, output=stdout_or(output), verify=verify, inputs=command_options())
    return 0


@command.command("result")
@click.option("--state", required=True, metavar="FILE", help="The JSON state file (zelo_pairs init).")
@click.option("--qrels", default=None, metavar="FILE", help="Print prefj-style preference qrels instead.")
@click.option("-o", "--output", default=None, help="Write the result here, atomically (default stdout).")
@click.option("--verify/--no-verify", default=True, show_default=True,
              help="Adaptive states: replay the judgments (a fit per round) and refuse the state unless the replay "
              "gives it byte for byte (an edited or forged state); --no-verify skips it (faster on large states).")
@quiet_option(help="Accepted as by every command; it writes nothing but errors on stderr.")
def result_cmd(state: str, qrels: str | None, output: str | None, verify: bool, quiet: bool) -> int:
    """Per finished topic: 'topic docno wins' of the top set (or preference qrels)."""
    from ..api.pairing import pairs_result
    from .common import command_options

    _refuse_verify_of_tournament(state)
    pairs_result(state, qrels=qrels, output=stdout_or(output), verify=verify, inputs=command_options())
    return 0


def _refuse_verify_of_tournament(state: str) -> None:
    """--verify / --no-verify replay an adaptive state's fits: a tournament state (a plain snapshot, checked
    by its schema) has nothing to replay -- given there, they were accepted and changed nothing (session 22)."""
    from .common import given_options

    if not given_options("verify"):
        return
    import json

    from ..errors import UsageError
    from ..io.pair_state import read_state_text

    text, name = read_state_text(state)
    try:
        obj = json.loads(text)
    except (ValueError, RecursionError):
        return  # refused by the command itself, naming the file
    if isinstance(obj, dict) and obj.get("strategy", "tournament") == "tournament":
        flag = "--verify" if click.get_current_context().params.get("verify") else "--no-verify"
        raise UsageError(f"{flag} applies to adaptive states (their fits are replayed); {name} is a tournament "
                         "state, checked whole whenever it is read")


@command.command("pool")
@click.option("--depth", type=click.IntRange(min=1), required=True, metavar="N",
              help="Documents per topic taken from each run: its top N in trec_eval's order (score descending, "
                   "docno descending), as trec_eval -M N.")
@click.option("--qrels", default=None, metavar="QRELS",
              help="Leave out the documents these qrels already judge for the topic (any grade).")
@click.option("--keep-going", "keep_going", is_flag=True,
              help="A run that cannot be read is named on stderr (FILE:LINE: error) and left out, the pool of the "
                   "others written; exit status 2 when a run was left out.")
@click.option("--trec-eval-9", "trec9", is_flag=True,
              help="Rank as trec_eval 9.x / pytrec_eval (scores rounded to float32 first: more ties).")
@click.option("--contributions", default=None, metavar="FILE",
              help="Also write each run's contribution to the pool, tab-separated: run, pooled, unique (in no other "
                   "run's top N), and with --qrels relevant, unique_relevant (grade >= -l); a last row 'all'.")
@click.option("-l", "--level", "level", type=int, default=1, show_default=True, metavar="N",
              help="--contributions with --qrels: a document is relevant when its grade is >= N (trec_eval's -l; "
                   "TREC DL's passages count from grade 2).")
@click.option("--groups", default=None, metavar="FILE",
              help="--contributions per group (a team's runs together; unique = in no other group's runs): FILE "
                   "has 'RUNTAG GROUP' lines, the run tag being the 6th column of a run's lines.")
@click.option("--group-sep", "group_sep", default=None, metavar="SEP",
              help="--contributions per group, a run's group being its run tag up to the first SEP (UWat_bm25 -> "
                   "UWat with --group-sep _).")
@click.option("-o", "--output", default=None, metavar="FILE", help="Write here, atomically (default stdout).")
@quiet_option()
@click.argument("runs", nargs=-1, metavar="RUN [RUN...]")
def pool_cmd(depth: int, qrels: str | None, keep_going: bool, trec9: bool, contributions: str | None,
             groups: str | None, group_sep: str | None, level: int, output: str | None, quiet: bool,
             runs: tuple[str, ...]) -> int:
    """A depth-N pool: 'qid docno' lines, the union of each run's top N per topic, sorted by qid then docno.

    \b
    zelo_pairs pool --depth 100 runs/*.run > pool.txt
    zelo_pairs pool --depth 20 --qrels judged.qrels --keep-going -o new.txt runs/*.run   (not yet judged)
    zelo_pairs pool --depth 100 --qrels final.qrels --contributions unique.tsv -o /dev/null runs/*.run
    zelo_pairs pool --depth 100 --qrels final.qrels --contributions groups.tsv --groups teams.txt -o /dev/null runs/*
    """
    from ..api.pooling import pairs_pool
    from .common import command_options, options_given

    with options_given():
        pairs_pool(list(runs), depth, qrels=qrels, output=stdout_or(output), contributions=contributions,
                   keep_going=keep_going, trec9=trec9, log=Log("zelo_pairs", quiet), groups=groups,
                   group_sep=group_sep, level=level, inputs=command_options(outputs=("--contributions",)))
    return 0


def main(argv: list[str] | None = None) -> None:
    run_main(command, "zelo_pairs", argv)


if __name__ == "__main__":
    main()
