"""``zelo_trec``: a drop-in for trec_eval 10 (same options, same stdout)."""
from __future__ import annotations

from collections.abc import Sequence

import click

from .common import Log, run_main
from .once import OnceCommand
from .options import quiet_option
from ..errors import shown

CONTEXT = {"help_option_names": ["-h", "--help"]}

# trec_eval 10's getopt_long table (trec_eval.c, in its order): the long options trec_eval also reads by
# an unambiguous prefix (``--query_ev``, ``--meas=map``, ``--Z file``); ``--Re`` (Rel_info_format or
# Results_format) is ambiguous there and here. This command's own long options (``--quiet``,
# ``--trec-eval-9``, ``--list-measures``) are read by their whole names only, so that no prefix
# trec_eval reads becomes ambiguous here (``--q`` stays ``--query_eval_wanted``).
TREC_EVAL_LONG = ("--help", "--version", "--query_eval_wanted", "--measure", "--complete_rel_info_wanted",
                  "--level_for_rel", "--nosummary", "--Debug_level", "--Judged_docs_only", "--Number_docs_in_coll",
                  "--Max_retrieved_per_topic", "--Rel_info_format", "--Results_format",
                  "--Output_old_results_format", "--Zscore")


class TrecCommand(OnceCommand):
    """The command whose long options are also read by trec_eval's unambiguous prefixes."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        return super().parse_args(ctx, expand_abbreviations(args))


@click.command(cls=TrecCommand, context_settings=CONTEXT)
@click.option("-q", "--query_eval_wanted", "per_query", count=True, help="Print per-query values too.")
@click.option("-m", "--measure", "measures", multiple=True, metavar="MEASURE[.PARAMS]",
              help="Measure or nickname (official, all_trec, set, prefs, all_prefs, qrels_jg); repeatable. "
                   "ir-measures names (nDCG@10, P(rel=2)@5) are accepted too.")
@click.option("-c", "--complete_rel_info_wanted", "complete", count=True,
              help="Average over every qrels topic; topics missing from the run count as zero.")
@click.option("-l", "--level_for_rel", "level", default="1", metavar="N",
              help="Relevance threshold: grade ≥ N is relevant (default 1).")
@click.option("-n", "--nosummary", "nosummary", count=True, help="No summary ('all') lines.")
@click.option("-D", "--Debug_level", "debug", multiple=True, hidden=True)
@click.option("-J", "--Judged_docs_only", "judged_only", count=True,
              help="Drop unjudged documents from the ranking before evaluating.")
@click.option("-N", "--Number_docs_in_coll", "num_docs", default="0", metavar="N",
              help="Number of documents in the collection (for measures that need it; default 0).")
@click.option("-M", "--Max_retrieved_per_topic", "depth", default=None, metavar="N",
              help="Keep only the top N documents per topic (after sorting).")
@click.option("-R", "--Rel_info_format", "rel_format", default="qrels",
              help="Format of the relevance file: qrels, prefs, qrels_prefs, qrels_jg (default qrels).")
@click.option("-T", "--Results_format", "results_format", default="trec_results",
              help="Format of the run file (trec_results, the default and only one).")
@click.option("-o", "old", count=True, hidden=True)
# trec_eval's getopt_long table gives the long spelling a required argument (has_arg 1) while -o takes
# none: `--Output_old_results_format 1 q r` is read by trec_eval, so here too; the value is ignored
@click.option("--Output_old_results_format", "old_value", default=None, hidden=True)
@click.option("-Z", "--Zscore", "zscores", default=None, metavar="FILE",
              help="Print z-scores using the 'qid measure mean stddev' file.")
@click.option("--trec-eval-9", "trec9", is_flag=True,
              help="Emulate trec_eval 9.x / pytrec_eval: float32 scores, old iprec rounding; with -c, "
                   "missing topics count as zero but get no per-query lines.")
@click.option("--list-measures", "list_measures", is_flag=True, help="List every measure name and exit.")
@quiet_option("No warnings on stderr.")
@click.option("-v", "--version", "version", is_flag=True, help="Print the version on stderr (as trec_eval) and exit.")
@click.argument("files", nargs=-1, metavar="REL_INFO_FILE RESULTS_FILE")
def command(per_query: int, measures: tuple[str, ...], complete: int, level: str, nosummary: int,
            debug: tuple[str, ...], judged_only: int, num_docs: str, depth: str | None, rel_format: str,
            results_format: str, old: int,
            old_value: str | None, zscores: str | None, trec9: bool, list_measures: bool, quiet: bool, version: bool,
            files: tuple[str, ...]) -> int:
    """Evaluate a TREC run exactly as trec_eval 10 does.

    Any trec_eval command line works with the program name replaced by
    zelo_trec and prints the same bytes on stdout.
    """
    from ..errors import UsageError
    from ..measures.parse import _atol
    from ..trec_eval.run import TrecOptions, run_trec
    from .common import output_stream

    if version:  # ``-v`` (``--version`` is answered before click parses, by run_main): stderr, as trec_eval's
        from .options import version_line

        line, to_stderr = version_line(click.get_current_context().command_path)
        click.echo(line, err=to_stderr, nl=False)
        return 0
    if list_measures:
        from .common import print_measure_list

        return print_measure_list(preferences=False)
    for flag, value in (("-l", level), ("-N", num_docs), ("-M", depth)):
        if value is not None and not _is_integer(value):
            raise UsageError(f"{flag} expects an integer, got {shown(value)}")
    if len(files) != 2:
        from ..peer_names import ir_measures_order

        raise UsageError("expected exactly two files: REL_INFO_FILE RESULTS_FILE (see --help)"
                         f"{ir_measures_order('zelo_trec', files)}")
    opts = TrecOptions(
        rel_file=files[0], run_file=files[1], measures=list(measures), per_query=bool(per_query),
        complete=bool(complete), level=_atol(level), summary=not nosummary,
        judged_only=bool(judged_only), num_docs_in_coll=_atol(num_docs),
        depth=None if depth is None else max(_atol(depth), 0), rel_format=rel_format,
        results_format=results_format, zscores=zscores, trec9=trec9,
        # -D N.qid: trec_eval keeps the last qid given (a later -D N without one leaves it)
        debug_query=next((d.partition(".")[2] for d in reversed(debug) if "." in d), None),
    )
    with output_stream(None) as out:
        return run_trec(opts, out, Log("zelo_trec", quiet))


def version_asked(args: Sequence[str]) -> bool:
    """Whether trec_eval 10 prints its version for the command line ``args`` (program name excluded).

    trec_eval reads its options with GNU ``getopt_long`` and answers ``-v``/``--version`` at once (stderr,
    exit 0) when the scan reaches it: anything after it (``-v -X``, ``-vX``, ``-v --bogus``, missing files)
    is never read, while an unknown option, a value-taking option without its value (``-m`` last) or
    ``--version=x`` met *before* it is a usage error. Operands do not stop the scan (getopt moves them to
    the end: ``a b -v``), ``--`` does; a value-taking option takes the next word whatever it is
    (``-m -v`` asks for the measure ``-v``, ``-M -v`` the depth ``-v``). The option table is this
    command's (``-h``/``--help`` read as flags, as trec_eval's ``-h``: ``-h -v`` prints the version).
    Long options are read as trec_eval's ``getopt_long`` reads them, by an unambiguous prefix too
    (``--vers``, :func:`long_option_name`)."""
    flags, valued = _option_table()
    i = 0
    while i < len(args):
        word = args[i]
        if word == "--":
            return False
        if word.startswith("--"):
            step = _long_option(word, flags, valued)
        elif word.startswith("-") and word != "-":
            step = _short_options(word, flags, valued)
        else:
            step = 1  # an operand: getopt moves it to the end
        if step is None or step is True:
            return step is True
        i += step
        if i > len(args):  # the last option wanted a value
            return False
    return False


def long_option_name(name: str) -> str:
    """The long option ``name`` (``--query_ev``, no ``=value``) as trec_eval's ``getopt_long`` reads it:
    a whole name is itself, a prefix of exactly one of :data:`TREC_EVAL_LONG` is that name, anything
    else is returned unchanged (click then refuses an unknown option). A prefix of several is refused
    in one line, as trec_eval (which prints its usage and exits 1) refuses it."""
    from ..errors import UsageError

    if name in TREC_EVAL_LONG or len(name) < 3:
        return name
    hits = [x for x in TREC_EVAL_LONG if x.startswith(name)]
    if len(hits) > 1:
        raise UsageError(f"option '{name}' is ambiguous; possibilities: " + " ".join(f"'{x}'" for x in hits))
    return hits[0] if hits else name


def _option_table() -> tuple[set[str], set[str]]:
    """This command's options: (flags, options taking a value), every spelling."""
    flags: set[str] = {"-h", "--help"}
    valued: set[str] = set()
    for param in command.params:
        if isinstance(param, click.Option):
            (flags if param.is_flag or param.count else valued).update(param.opts + param.secondary_opts)
    return flags, valued


def expand_abbreviations(args: Sequence[str]) -> list[str]:
    """``args`` with every abbreviated long option written whole (:func:`long_option_name`), read as
    getopt reads them: a value-taking option's value is never an option (``-m --q`` asks for the
    measure ``--q``), operands do not stop the scan, ``--`` does."""
    flags, valued = _option_table()
    out = list(args)
    i = 0
    while i < len(out):
        word = out[i]
        if word == "--":
            break
        step = 1
        if word.startswith("--"):
            name, eq, value = word.partition("=")
            full = long_option_name(name)
            if full != name:
                out[i] = full + eq + value
            if full in valued and not eq:
                step = 2
        elif word.startswith("-") and word != "-":
            taken = _short_options(word, flags, valued)
            step = taken if isinstance(taken, int) and not isinstance(taken, bool) else 1
        i += step
    return out


def _long_option(word: str, flags: set[str], valued: set[str]) -> int | bool | None:
    """getopt_long on ``word``: True (the version), None (an error first), else the words it takes."""
    from ..errors import UsageError

    name, eq, _ = word.partition("=")
    try:
        name = long_option_name(name)
    except UsageError:
        return None
    if name in flags:
        return None if eq else (True if name == "--version" else 1)  # --version=x: "doesn't allow an argument"
    if name in valued:
        return 1 if eq else 2
    return None


def _short_options(word: str, flags: set[str], valued: set[str]) -> int | bool | None:
    """getopt on the cluster ``word`` (``-qv``, ``-Zfile``): as :func:`_long_option`."""
    for k, letter in enumerate(word[1:], 2):
        if f"-{letter}" in valued:
            return 2 if k == len(word) else 1  # the value is the next word, or the rest of this one
        if f"-{letter}" not in flags:
            return None
        if letter == "v":
            return True
    return 1


def _is_integer(text: str) -> bool:
    """An optional sign and ASCII digits (trec_eval's atol would read 'abc' as 0: refused here)."""
    t = text.strip()
    t = t[1:] if t[:1] in "+-" else t
    return t.isascii() and t.isdigit()


def main(argv: list[str] | None = None) -> None:
    # numpy's OpenBLAS starts a busy thread per core when it loads; this command's linear
    # algebra is small. Set before numpy's import; an explicit OPENBLAS_NUM_THREADS wins.
    import os

    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    from ..heap import one_arena

    one_arena()  # the parse threads' freed memory returned to the OS with the rest
    run_main(command, "zelo_trec", argv, short_lived=True)


if __name__ == "__main__":
    main()
