"""``zelo_agree``'s report: read the judges, match their pairs, compute the requested levels."""
from __future__ import annotations

import os
from typing import TYPE_CHECKING

import numpy as np

from ..errors import InputError, UsageError, command_running, option_given, option_name
from .records import Bootstrap, Record

if TYPE_CHECKING:
    from ..log import Log

LEVELS = ("pair", "calibration", "document", "system")
CALIBRATION = ("auto", "always", "never")
# formats whose line order is the order the documents were shown in (position bias is meaningful)
PRESENTATION_ORDER = frozenset({"jsonl", "zbench", "clarke4", "carterette", "xie"})


def judge_names(paths: list[str], names: list[str] | None) -> list[str]:
    """The names given, or the files' base names (made unique with ``#k`` when two are equal)."""
    if names:
        if len(names) != len(paths):
            raise UsageError(f"--name given {len(names)} times for {len(paths)} judgment files" if command_running()
                             else f"names: {len(names)} given for {len(paths)} judgment files (one name per file)")
        if len(set(names)) != len(names):
            raise UsageError(f"{option_name('names', '--name')}: two judges share a name")
        return list(names)
    base = ["stdin" if p == "-" else os.path.basename(str(p)) for p in paths]
    return [b if base.count(b) == 1 else f"{b}#{k + 1}" for k, b in enumerate(base)]


def check_options(n_files: int, levels: list[str], calibration: str, runs: list[str], measure: str | None) -> None:
    """Refuse what cannot be honoured: the levels, the calibration rule and what the system level needs. The
    numbers' ranges (resamples, confidence, buckets, consensus_min, prior, top_k) are :func:`pref_eval.api.agree`'s
    checks (and the command line's types), made before this function is called (session 28: the copies here were
    reached by no caller)."""
    if n_files < 2:
        raise UsageError("zelo_agree needs at least two judgment files (-J REFERENCE -J OTHER ...)" if command_running()
                         else "agree needs at least two judgment files: judgments=[REFERENCE, OTHER, ...]")
    bad = [x for x in levels if x not in LEVELS]
    if bad or not levels:
        raise UsageError(f"{option_name('levels', '--level')} must be among {', '.join(LEVELS)}, got "
                         f"{', '.join(bad) or 'none'}")
    if calibration not in CALIBRATION:
        raise UsageError(f"{option_name('calibration')} must be one of {', '.join(CALIBRATION)}")
    if "system" in levels and (not runs or not measure):
        raise UsageError("the system level needs --runs RUN... and -m MEASURE" if command_running() else
                         "the system level needs runs=[RUN, ...] and measure=NAME")
    if (runs or measure) and "system" not in levels:
        raise UsageError("--runs/-m are used only by the system level (add --level system)" if command_running() else
                         "runs/measure are used only by the system level (add 'system' to levels)")


# the levels that read each level-specific option (the others ignore it)
OPTION_LEVELS = {"--buckets": ("calibration",), "--calibration": ("calibration",), "--consensus-min": ("pair",),
                 "--prior": ("document", "system"), "--top-k": ("document",), "--grades": ("system",),
                 "--tests": ("system",), "--correction": ("system",), "--alpha": ("system",),
                 "--judged-depth": ("system",)}


def check_level_options(levels: list[str], changed: dict[str, bool]) -> None:
    """An option given a value (other than its default) that no requested level reads is refused, naming the
    levels that read it (it was ignored: `-l pair --buckets 5`)."""
    for flag, differs in changed.items():
        if option_given(flag, differs) and not any(x in levels for x in OPTION_LEVELS[flag]):
            need, first = " or ".join(OPTION_LEVELS[flag]), OPTION_LEVELS[flag][0]
            raise UsageError(f"{flag} is used only by the {need} level (add --level {first})" if command_running() else
                             f"{flag[2:].replace('-', '_')} is used only by the {need} level (add {first!r} to levels)")


def agreement_report(paths: list[str], *, names: list[str] | None = None, fmt: str | None = None,
                     ties: str = "half", levels: list[str] | None = None, resamples: int = 1000, seed: int = 0,
                     confidence: float = 0.95, buckets: int = 20, calibration: str = "auto",
                     consensus_min: int = 2, prior: float = 0.5, top_k: int = 10, runs: list[str] | None = None,
                     measure: str | None = None, grades: str = "0,1,2,3", tests: str = "t",
                     correction: str = "holm", alpha: float = 0.05, log: Log | None = None,
                     judged_depth: int | None = None) -> list[Record]:
    """All records of the requested ``levels`` (see ``docs/zelo_agree.md``)."""
    from .calibration import calibration_records, is_graded
    from .matching import match
    from .pairlevel import pair_level

    levels = list(levels) if levels is not None else ["pair", "calibration", "document"]
    runs = list(runs or [])
    if list(paths).count("-") > 1:
        raise UsageError("-J -: standard input can be read once (give it for one judge)" if command_running() else
                         "judgments: '-' (standard input) given twice: it can be read once (give it for one judge)")
    check_options(len(paths), levels, calibration, runs, measure)
    check_level_options(levels, {"--buckets": buckets != 20, "--calibration": calibration != "auto",
                                 "--consensus-min": consensus_min != 2, "--prior": prior != 0.5,
                                 "--top-k": top_k != 10, "--grades": grades != "0,1,2,3", "--tests": tests != "t",
                                 "--correction": correction != "holm", "--alpha": alpha != 0.05,
                                 "--judged-depth": judged_depth is not None})
    if resamples == 0:  # no bootstrap: its level and seed read by nothing (before session 22 accepted, unused)
        randomised = "system" in levels and bool({"randomization", "bootstrap", "tukey"} & set(tests.split(",")))
        zero = "--resamples 0" if command_running() else "resamples=0"
        if option_given("--confidence", confidence != 0.95):
            raise UsageError(f"{option_name('confidence')} sets the bootstrap intervals: none with {zero}")
        if option_given("--seed", seed != 0) and not randomised:
            raise UsageError(f"{option_name('seed')} seeds the bootstrap (none with {zero}) and a randomised "
                             "system-level test (none here)")
    names = judge_names(paths, names)
    judges, vocab = _read_all(paths, names, fmt, ties)
    mt = match(judges, vocab)
    boot = Bootstrap(len(mt.queries), resamples, seed, confidence)
    out: list[Record] = []
    if "pair" in levels:
        recs = pair_level(mt, boot, consensus_min)
        for r in recs:
            k = names.index(r.judge_a) if r.judge_a in names else -1
            if r.statistic == "position_bias" and k >= 0 and judges[k].table.format not in PRESENTATION_ORDER:
                continue  # the file's order is not the presentation order
            out.append(r)
    if "calibration" in levels:
        for k in range(1, len(names)):
            if calibration == "always" or (calibration == "auto" and is_graded(mt.mu[k])):
                out += calibration_records(mt, 0, k, boot, buckets)
    if "document" in levels:
        from .doclevel import document_records

        out += document_records(mt, len(vocab.doc_name), np.asarray(vocab.doc_q, dtype=np.int64), boot, prior,
                                top_k, vocab.doc_name)
    if "system" in levels:
        from .systemlevel import system_records

        out += system_records(mt, vocab, runs, measure, prior=prior, grades=grades, tests=tests,
                              correction=correction, alpha=alpha, resamples=resamples, seed=seed,
                              confidence=confidence, judged_depth=judged_depth)
    return out


def _read_all(paths: list[str], names: list[str], fmt: str | None, ties: str) -> tuple:
    """The judges of ``paths`` read with ``fmt``: one format for all, or a comma-separated list, one per file."""
    from .matching import read_judges

    formats = None
    if fmt and "," in fmt:
        formats = [f.strip() or None for f in fmt.split(",")]
        if len(formats) != len(paths):
            raise UsageError(f"{option_name('judgments_format', '--format')} lists {len(formats)} formats for "
                             f"{len(paths)} judgment files")
        fmt = None
    try:
        return read_judges(paths, names, fmt, ties, formats)
    except InputError as err:
        from ..io.judgments import one_format_for_all

        raise one_format_for_all(err, paths, fmt, "--format F1,F2,...") from None

