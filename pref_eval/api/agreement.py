"""``zelo_agree``: :func:`agree` (agreement between judges)."""
from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..seeds import SEED_MAX
from ..errors import UsageError, command_running, option_given, option_name, option_value, renamed_keywords, shown
from ._inputs import _check_float, _check_int, _check_strings, _input_options, _path_list, _string_list

if TYPE_CHECKING:
    from ..output.atomic import InputOptions


@renamed_keywords(fmt="judgments_format")
def agree(
    judgments: Sequence[str],
    *,
    names: Sequence[str] | None = None,
    judgments_format: str | None = None,
    ties: str = "half",
    levels: Sequence[str] = ("pair", "calibration", "document"),
    resamples: int = 1000,
    seed: int = 0,
    confidence: float = 0.95,
    buckets: int = 20,
    calibration: str = "auto",
    consensus_min: int = 2,
    prior: float = 0.5,
    top_k: int = 10,
    runs: Sequence[str] = (),
    measure: str | None = None,
    grades: str = "0,1,2,3",
    tests: str = "t",
    correction: str = "holm",
    alpha: float = 0.05,
    judged_depth: int | None = None,
    output: str | None = None,
    output_format: str = "text",
    digits: int = 4,
    inputs: InputOptions | None = None,
    log: Any = None,
) -> list:
    """How far a judge can be trusted: agreement of judgment files with the first one (``zelo_agree``): per
    pair of files Cohen's κ (Cohen 1960), weighted κ (Cohen 1968), Krippendorff's α (ordinal; Krippendorff
    2011), Fleiss' κ among several judges (Fleiss 1971), with bootstrap intervals; calibration, document and
    system levels as ``docs/zelo_agree.md`` defines them.

    ``judgments``: two or more files in any format ``zelo_fit`` reads (the
    first is the reference). Returns a list of
    :class:`pref_eval.agree.records.Record` (``judge_a, judge_b, level,
    statistic, value, ci_low, ci_high, n``); see ``docs/zelo_agree.md``.
    With ``output`` (``-`` = stdout) they are written as ``zelo_agree``
    writes them (``output_format``, ``digits``); an output that is one of
    ``inputs`` (default the judgment and run files) is refused before
    anything is read. ``log`` a :class:`~pref_eval.log.Log` for warnings (default silent): a judge whose
    every repeat pair holds the same votes on each of its lines (``repeat_identical`` = 1) is warned about --
    copies of one answer measure no self-consistency.
    """
    from ..agree.report import agreement_report

    _check_int("resamples", resamples, 0)
    _check_int("seed", seed, 0, SEED_MAX)
    _check_float("confidence", confidence, 0, 1, lo_open=True, hi_open=True)
    _check_int("buckets", buckets, 1)
    _check_int("consensus_min", consensus_min, 1)
    _check_float("prior", prior, 0, lo_open=True)
    _check_int("top_k", top_k, 1)
    _check_float("alpha", alpha, 0, 1, lo_open=True, hi_open=True)
    if judged_depth is not None:
        _check_int(option_name("judged_depth", "--judged-depth"), judged_depth, 1)
    _check_int(option_name("digits", "--digits"), digits, 0, 17)
    judgments, runs = _path_list(judgments, "judgments"), _path_list(runs, "runs")
    # one name or level given as a string is one (``levels="pair"`` was read as the levels p, a, i, r)
    names = None if names is None else _string_list("names", names)
    levels = _string_list("levels", levels)
    _check_strings(judgments_format=judgments_format, measure=measure, ties=ties, calibration=calibration,
                   grades=grades, correction=correction)
    tests = tests if isinstance(tests, str) else ",".join(_string_list("tests", tests))
    from ..output.agree import FORMATS

    if output_format not in FORMATS:  # (without output it was accepted: session 28)
        raise UsageError(f"output_format: expected one of {', '.join(FORMATS)}, got {shown(output_format)}")
    if output is None and (output_format != "text" or digits != 4):  # nothing is written: was ignored
        given = "output_format" if output_format != "text" else "digits"
        raise UsageError(f"{given} applies to what is written: give output=FILE (output='-': standard output); the "
                         "records returned hold every value in full precision")
    # (was accepted and ignored: session 22)
    if output is not None and output_format in ("tsv", "csv", "jsonl") and option_given("--digits", digits != 4):
        raise UsageError(f"{option_name('digits', '--digits')} applies to the tables ("
                         f"{option_name('output_format', '-o')} text, markdown, latex); "
                         f"{option_value('output_format', '-o', output_format)} writes every value in full "
                         "precision")
    own: InputOptions = []
    if output is not None:
        from ..output.atomic import inputs_besides, preflight

        own = _input_options(inputs, output=output, judgments=list(judgments), runs=list(runs))
        preflight(output, inputs_besides(output, own))  # before anything is read (an input, a missing directory)
    records = agreement_report(
        list(judgments), names=None if names is None else list(names), fmt=judgments_format, ties=ties,
        levels=list(levels), resamples=resamples, seed=seed, confidence=confidence, buckets=buckets,
        calibration=calibration, consensus_min=consensus_min, prior=prior, top_k=top_k, runs=list(runs),
        measure=measure, grades=grades,
        tests=tests, correction=correction, alpha=alpha, judged_depth=judged_depth)
    if log is not None:
        _warn_copies(records, log)
        _warn_nothing_to_compare(records, log)
        if "calibration" in levels and calibration == "auto" and tuple(levels) != ("pair", "calibration", "document"):
            _warn_no_calibration(records, judgments, names, log)  # asked for (-l calibration): say why none came
    if output is not None:
        from ..output.agree import write_records
        from ..output.atomic import command_output

        with command_output(output, own) as out:
            write_records(out, records, output_format, digits)
    return records


def _warn_copies(records: list, log: Any) -> None:
    """A warning per judge whose repeat pairs all hold the same votes on every line (``repeat_identical`` = 1):
    the lines are copies of one answer (a ``zelo_judge -o`` of a pairs list naming a pair twice) or a judge that
    always answers the same -- its ``repeat_*`` figures then measure nothing (docs/zelo_agree.md)."""
    pairs = {r.judge_a: r.value for r in records if r.statistic == "repeat_pairs"}
    for r in records:
        if r.statistic == "repeat_identical" and r.value == 1.0:
            source, export = (("zelo_judge -o", "zelo_judge export's") if command_running() else
                              ("judge(..., output=FILE)", "judge_export's"))
            log.warn(f"{r.judge_a}: every one of its {pairs.get(r.judge_a, 0):.0f} pairs judged on several lines holds "
                     f"the same votes on each line: copies of one answer ({source} of a pairs list that names a "
                     f"pair twice?) measure no self-consistency; ask again and give {export} file")


def _warn_nothing_to_compare(records: list, log: Any) -> None:
    """Warnings for figures that compare nothing: two judges with no pair in common (a judgment file of another
    collection), a run none of whose documents a judge judged (its measure 0 on every topic), and a judge under
    whose qrels every run has the same mean (its ordering one tie)."""
    only = {(r.judge_a, r.judge_b, r.statistic): r.value for r in records if r.statistic.startswith("only_in_")}
    means: dict[str, list[float]] = {}
    for r in records:
        if r.level == "pair" and r.statistic == "matched" and r.value == 0:
            a, b = (only.get((r.judge_a, r.judge_b, f"only_in_{x}"), 0) for x in "ab")
            log.warn(f"{r.judge_a} and {r.judge_b} share no pair ({a:.0f} and {b:.0f} pairs of their own): every "
                     "figure comparing them is undefined (judgments of another collection or other topics?)")
        elif r.level == "system" and r.statistic.startswith("judged") and r.value == 0:
            what, run = r.statistic.split(":", 1)
            docs = f"documents on the {r.n}" if what == "judged" else f"top {what[7:]} documents on the {r.n}"
            log.warn(f"{run}: none of its {docs} topics compared is one {r.judge_a} "
                     "judged, so its measure is 0 on every topic under that judge's qrels (judge the pool of the "
                     "runs compared: " + ("zelo_pairs cycles --run RUN...)" if command_running() else
                                          "pref_eval.pairs(..., run=RUN))"))
        elif r.level == "system" and r.statistic.startswith("mean:"):
            means.setdefault(r.judge_a, []).append(r.value)
    for judge, values in means.items():
        if len(values) > 1 and len(set(values)) == 1:
            log.warn(f"every run has the same mean ({values[0]:g}) under {judge}'s qrels: its ordering of the runs "
                     "is one tie (kendall_tau_b undefined; tau_ap's 0 is its expectation over random tie-breaks)")


def _warn_no_calibration(records: list, judgments: list, names: list[str] | None, log: Any) -> None:
    """A judge left out of the calibration level that was asked for: its pair scores are not graded (0, 1/2 and 1
    only: one judge's signs, two judges' ensemble), so ``--calibration auto`` skips it -- the table had no row
    and no word (u39, session 29)."""
    from ..agree.report import judge_names

    got = {r.judge_b for r in records if r.level == "calibration"}
    for name in judge_names(list(judgments), names)[1:]:
        if name not in got:
            log.warn(f"{name}: no calibration records: its pair scores take only the values 0, 1/2 and 1 (not "
                     f"graded), which {option_value('calibration', '--calibration', 'auto')} skips; "
                     f"{option_value('calibration', '--calibration', 'always')} computes them")
