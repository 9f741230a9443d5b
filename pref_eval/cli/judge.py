"""zelo_judge: pairwise judgments from an ensemble of LLM (or program) judges, stored and resumable."""
from __future__ import annotations

import click

from .common import Log, run_main, stdout_or
from .once import OnceGroup
from .param_types import SEED, Finite
from .options import quiet_option
from ..errors import shown

_PRICE_HELP = "MODEL=IN,OUT: price per 1k input and output tokens (repeatable); cmd: judges by their spec."


class _DefaultRun(OnceGroup):
    """``zelo_judge PAIRS ...`` is ``zelo_judge run PAIRS ...``; ``zelo_judge export ...`` exports."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if args and args[0] not in self.commands and args[0] not in ("-h", "--help", "--version"):
            args = ["run", *args]
        return super().parse_args(ctx, args)

    def shell_complete(self, ctx: click.Context, incomplete: str) -> list:
        """Completion at the first word: the subcommands and, as ``zelo_judge --state ...`` is ``run``, run's
        options (``zelo_judge --<TAB>`` offered only ``--help``)."""
        out = super().shell_complete(ctx, incomplete)
        if incomplete.startswith("-"):
            run = self.commands["run"]
            seen = {c.value for c in out}
            sub = run.make_context("run", [], parent=ctx, resilient_parsing=True)
            out += [c for c in run.shell_complete(sub, incomplete) if c.value not in seen]
        return out


@click.group(cls=_DefaultRun, context_settings={"help_option_names": ["-h", "--help"]})
def command() -> None:
    """Judge document pairs with an ensemble of LLM judges; every answer is stored.

    \b
    zelo_judge PAIRS --queries Q --docs D --judge SPEC [--judge SPEC ...] --store S.sqlite -o judgments.jsonl
    zelo_judge --state STATE.json --queries Q --docs D --judge SPEC --store S.sqlite
    zelo_judge export --store S.sqlite -o judgments.jsonl
    \b
    SPEC: openai:MODEL[@BASE_URL][,key=ENV][,name=LABEL][,temperature=T][,max_tokens=N] or cmd:'COMMAND'
    (a judge is its model, parameters and server host and path: the port is not part of its name)

    The options of a run (--both-orders, --concurrency, --price, --dry-run, ...): zelo_judge run --help.
    """


#: a price as written: a plain decimal number >= 0 (float() would also take "1_0", "nan", "infinity", " 1")
_PRICE = r"(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?"


def _prices(values: tuple[str, ...]) -> dict:
    """``--price MODEL=IN,OUT`` options → {MODEL: (IN, OUT)}; the values' ranges and the keys (a judge's
    price key each) are checked by ``judge`` (pref_eval.judge.scheduler.checked_prices), as for a Python caller."""
    import re

    from ..errors import UsageError

    out: dict = {}
    for v in values:
        model, eq, rest = v.rpartition("=")
        m = re.fullmatch(f"({_PRICE}),({_PRICE})", rest)
        if not eq or not model or m is None:
            raise UsageError(f"--price: expected MODEL=IN,OUT (finite prices >= 0 per 1k tokens), got {shown(v)}")
        if model in out:
            raise UsageError(f"--price {model}: given twice ({out[model][0]:g},{out[model][1]:g} and {rest})")
        out[model] = (float(m.group(1)), float(m.group(2)))
    return out


@command.command("run")
@click.argument("pairs", required=False, metavar="PAIRS")
@click.option("--state", default=None, metavar="STATE.json",
              help="Drive a zelo_pairs state (tournament or adaptive): next batch, judge, add, until done.")
@click.option("--queries", default=None, metavar="FILE", help="Query texts: TSV qid<TAB>text, JSONL or irds:ID.")
@click.option("--docs", default=None, metavar="FILE",
              help="Document texts: TSV docno<TAB>text, JSONL, zbench dataset JSONL or irds:ID.")
@click.option("--judge", "judges", multiple=True, required=True, metavar="SPEC", help="A judge (repeatable).")
@click.option("--store", required=True, metavar="FILE.sqlite", help="The answer store (created if absent).")
@click.option("-o", "--output", default=None, metavar="FILE", help="Canonical JSONL of the judged pairs.")
@click.option("--prompt", default=None, metavar="FILE", help="Prompt template replacing the default.")
@click.option("--both-orders", is_flag=True, help="Ask A|B and B|A (cancels position bias).")
@click.option("--ties", type=click.Choice(["half", "zbench"]), default=None,
              help="With --state: votes to pair score as zelo_fit (default half).")
@click.option("--missing-text", type=click.Choice(["stop", "tie"]), default=None,
              help="With --state: a batch pair lacking a query or document text stops the run before the batch "
                   "is asked, state unchanged (stop, default), or counts as a tie (tie).")
@click.option("--api-key-env", default="OPENAI_API_KEY", show_default=True, metavar="VAR",
              help="Environment variable holding the API key (a judge's key=VAR overrides it).")
@click.option("--concurrency", type=click.IntRange(1, 4096), default=8, show_default=True,
              help="Requests in flight at once (all judges).")
@click.option("--rpm", type=Finite(0, min_open=True), default=None, help="Requests per minute (all judges).")
@click.option("--retries", type=click.IntRange(0, 100), default=4, show_default=True,
              help="Retries of a failed request.")
@click.option("--timeout", type=Finite(0, min_open=True), default=60.0, show_default=True,
              help="Seconds per request.")
@click.option("--backoff", type=Finite(0), default=1.0, show_default=True,
              help="First retry delay in seconds (doubles per retry, jittered, at least Retry-After).")
@click.option("--budget-requests", type=click.IntRange(0), default=None, help="Ask at most N new questions.")
@click.option("--max-cost", type=Finite(0), default=None, help="Stop before the cost passes this.")
@click.option("--price", "prices", multiple=True, metavar="MODEL=IN,OUT", help=_PRICE_HELP)
@click.option("--retry-failed", is_flag=True, help="Ask again the questions stored as failed or unparsable.")
@click.option("--dry-run", is_flag=True, help="Print how many requests would be sent and the estimate.")
@click.option("--seed", type=SEED, default=0, show_default=True, help="Seed of the retry jitter.")
@click.option("-v", "--verbose", is_flag=True,
              help="One line per request on stderr: its outcome, seconds, retries and their waits; one per batch.")
@quiet_option("No progress, summary or warnings on stderr.")
def run_cmd(pairs: str | None, state: str | None, queries: str | None, docs: str | None, judges: tuple[str, ...],
            store: str, output: str | None, prompt: str | None, both_orders: bool, ties: str | None,
            missing_text: str | None, api_key_env: str, concurrency: int, rpm: float | None, retries: int,
            timeout: float, backoff: float, budget_requests: int | None, max_cost: float | None,
            prices: tuple[str, ...], retry_failed: bool, dry_run: bool, seed: int, verbose: bool, quiet: bool) -> int:
    """Judge the pairs of PAIRS (any zelo_pairs output; zbench's pairs.json or ai_scores.json, with the texts they
    carry: no --queries/--docs needed) or of a zelo_pairs state (--state)."""
    from ..api.judging import judge

    _verbose_or_quiet(verbose, quiet)
    log = Log("zelo_judge", quiet, verbose=verbose)
    sess = judge(pairs, state=state, queries=queries, docs=docs, judges=list(judges), store=store,
                 output=stdout_or(output), prompt=prompt, both_orders=both_orders, ties=ties, missing_text=missing_text,
                 api_key_env=api_key_env, concurrency=concurrency,
                 rpm=rpm, retries=retries, timeout=timeout, backoff=backoff, budget_requests=budget_requests,
                 max_cost=max_cost, prices=_prices(prices), retry_failed=retry_failed, dry_run=dry_run, seed=seed,
                 log=log)
    from ..judge.run import unreached_line

    line = unreached_line(sess)
    if line is not None:  # not everything was asked (the output holds what was): exit 1, even with -Q
        import sys

        sys.stderr.write(f"zelo_judge: {line}\n")
        return 1
    return 0


def _verbose_or_quiet(verbose: bool, quiet: bool) -> None:
    if verbose and quiet:
        from ..errors import UsageError

        raise UsageError("-v/--verbose and -Q/--quiet: choose one (-Q silences every line on stderr)")


@command.command("export")
@click.option("--store", required=True, metavar="FILE.sqlite", help="The answer store to read.")
@click.option("-o", "--output", default=None, metavar="FILE", help="Default stdout; written atomically.")
@click.option("--judge", "judges", multiple=True, metavar="SPEC", help="Only these judges (default all in the store).")
@click.option("--prompt", default=None, metavar="FILE", help="The prompt the answers were asked with (default prompt).")
@click.option("-v", "--verbose", is_flag=True,
              help="Also the prompt and, per judge, the votes written and how many are null.")
@quiet_option()
def export_cmd(store: str, output: str | None, judges: tuple[str, ...], prompt: str | None, verbose: bool,
               quiet: bool) -> int:
    """Write every stored pair as canonical JSONL (qid, doc_a, doc_b, votes, judges) for zelo_fit."""
    from ..api.judging import judge_export

    from .common import command_options

    _verbose_or_quiet(verbose, quiet)
    log = Log("zelo_judge", quiet, verbose=verbose)
    n = judge_export(store, output=output, judges=list(judges) or None, prompt=prompt, inputs=command_options(),
                     log=log)
    log.info(f"{n} pairs exported")
    return 0


def main(argv: list[str] | None = None) -> None:
    run_main(command, "zelo_judge", argv)


if __name__ == "__main__":
    main()
