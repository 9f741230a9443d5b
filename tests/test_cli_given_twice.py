"""A single-value option given twice (session 26, r36; pref_eval.cli.once, docs/exit-codes.md).

click kept the last value silently (``zelo_fit --prior 1 --prior 0`` fitted with 0, ``zelo_compare --alpha 0.05
--alpha 0.01`` tested at 0.01). Now: our own options are refused (exit 2, one line naming the option and the
values) unless the values are the same; the options a drop-in peer shares keep the peer's behaviour -- the
last value -- with a warning naming the dropped one (``-Q`` silences it).

Oracles: trec_eval 10 (the binary built from usnistgov/trec_eval at /tmp/trec_eval/trec_eval) and diazf/pref_eval's
``pref_eval.py`` / ``pref_aggregate.py`` (a local mirror, ``fetch github:diazf/pref_eval``) run live where present:
their option tables read from their sources, and their answer to an option given twice (the last value, no
word on stderr). Every command and option of the registry is covered by the parametrisation, so a new option
is too.
"""
from __future__ import annotations

import importlib
import re
import subprocess
import sys
from pathlib import Path

import click
import pytest

from cli_harness import run_module_inproc
from pref_eval.cli.once import OnceCommand, OnceGroup
from pref_eval.cli.options import COMMANDS, PEER_OPTIONS

ROOT = Path(__file__).resolve().parent.parent
TREC_EVAL = Path("/tmp/trec_eval/trec_eval")  # built from usnistgov/trec_eval v10.0 (not in CI)
TREC_EVAL_MIRROR = Path("/work/.mirror/usnistgov+trec_eval/repo")
PREF_EVAL_MIRROR = Path("/work/.mirror/diazf+pref_eval/repo")
QRELS, RUNS = "qrels/dl19-sample.qrels", ["runs/bm25.run", "runs/dense.run"]


def _commands():
    """(command row, subcommand words, click command) for every command and subcommand of the registry."""
    out = []

    def walk(row, words, cmd):
        out.append((row, words, cmd))
        if isinstance(cmd, click.Group):
            for name, sub in cmd.commands.items():
                walk(row, [*words, name], sub)
    for row in COMMANDS:
        walk(row, [], importlib.import_module(row.module).command)
    return out


def _single_value(param) -> bool:
    """An option taking one value on the command line: not ``multiple``, not a count, not a lone flag (whose one
    value is the same each time it is given)."""
    return (isinstance(param, click.Option) and not param.multiple and not param.count and not param.is_eager
            and not (param.is_flag and not param.secondary_opts))


def _shared(row, param) -> bool:
    return row.name in PEER_OPTIONS and param.opts[0] in PEER_OPTIONS[row.name][1]


CASES = [(row, words, p) for row, words, cmd in _commands() for p in cmd.params if _single_value(p)]
OWN = [pytest.param(r, w, p, id=" ".join([r.scripts[0], *w, p.opts[0]])) for r, w, p in CASES if not _shared(r, p)]


def test_every_command_follows_the_policy():
    """Every command and subcommand of the registry is a OnceCommand / OnceGroup (a new one too)."""
    bad = [" ".join([r.scripts[0], *w]) for r, w, c in _commands() if not isinstance(c, (OnceCommand, OnceGroup))]
    assert not bad
    from pref_eval.cli.group import command as zelo

    assert isinstance(zelo, OnceGroup)
    assert len(OWN) > 150  # the registry's options, not a handful


def _twice(param, first: str, second: str) -> list[str]:
    if param.is_flag:
        return [param.opts[-1], param.secondary_opts[-1]]
    return [param.opts[-1], *[first] * param.nargs, param.opts[0], *[second] * param.nargs]


@pytest.mark.parametrize("row, words, param", OWN)
def test_our_option_given_twice_is_refused(row, words, param):
    res = run_module_inproc(row.module.rsplit(".", 1)[1], [*words, *_twice(param, "1", "2")])
    name = "/".join(param.opts + param.secondary_opts)
    values = f"{param.opts[-1]} and {param.secondary_opts[-1]}" if param.is_flag else \
        " and ".join(" ".join([v] * param.nargs) for v in ("1", "2"))
    assert res.returncode == 2 and res.stdout == "", res
    assert res.stderr.splitlines()[0] == (f"{row.scripts[0]}: {name} given twice ({values}): it takes one value; "
                                          "give it once"), res.stderr


def _parse(row, words, args: list[str]) -> click.Context:
    """The command line's words read by the (sub)command's parser -- where the check runs -- without running it."""
    cmd = importlib.import_module(row.module).command
    ctx = click.Context(cmd, info_name=row.scripts[0])
    for word in words:
        cmd = cmd.commands[word]
        ctx = click.Context(cmd, info_name=word, parent=ctx)
    cmd.make_parser(ctx).parse_args(args)
    return ctx


@pytest.mark.parametrize("row, words, param", OWN)
def test_the_same_value_twice_is_taken(row, words, param):
    """``--seed 3 --seed 3``: one value, taken; two values at the same place are refused (the check itself)."""
    if param.is_flag:
        _parse(row, words, [param.opts[-1], param.opts[0]])
        _parse(row, words, [param.secondary_opts[0], param.secondary_opts[-1]])
    else:
        _parse(row, words, _twice(param, "1", "1"))
    with pytest.raises(click.UsageError, match=" given twice "):
        _parse(row, words, _twice(param, "1", "2"))


@pytest.mark.parametrize("args", [["--alpha", "0.05", "--alpha", "0.050"], ["--alpha", "0.05", "--alpha", ".05",
                                                                           "--alpha", "5e-2"]])
def test_values_equal_once_read_are_one_value(args):
    res = run_module_inproc("compare", ["-R", QRELS, "-m", "map", *args, *RUNS])
    once = run_module_inproc("compare", ["-R", QRELS, "-m", "map", "--alpha", "0.05", *RUNS])
    assert (res.returncode, res.stdout, res.stderr) == (0, once.stdout, "")


def test_three_values_and_the_group_spelling():
    res = run_module_inproc("group", ["fit", "--prior", "1", "--prior", "0", "--prior", "1"])
    assert res.returncode == 2
    assert res.stderr.splitlines() == ["zelo fit: --prior given 3 times (1, 0 and 1): it takes one value; give it "
                                       "once", "Try 'zelo fit --help' for help."]


def test_the_judge_default_subcommand():
    res = run_module_inproc("judge", ["pairs.tsv", "--seed", "1", "--seed", "2"])
    assert res.returncode == 2
    assert res.stderr.splitlines()[0] == "zelo_judge: --seed given twice (1 and 2): it takes one value; give it once"


@pytest.mark.parametrize("module, args", [
    ("trec", ["-q", "-q", "-m", "map", QRELS, RUNS[0]]),                     # a count stays a count
    ("trec", ["-m", "map", "-m", "P.5", "-Q", "-Q", QRELS, RUNS[0]]),        # multiple; a flag twice
    ("compare", ["-R", QRELS, "-m", "map", "-m", "P_5", "-Q", "-Q", *RUNS]),
])
def test_counts_multiple_values_and_flags_are_not_affected(module, args):
    res = run_module_inproc(module, args)
    assert res.returncode == 0 and res.stderr == "", res.stderr


def test_help_is_shown_whatever_else_the_line_holds():
    res = run_module_inproc("fit", ["--prior", "1", "--prior", "0", "--help"])
    assert res.returncode == 0 and res.stdout.startswith("Usage: zelo_fit ")


def test_environment_and_default_map_are_not_a_second_value(monkeypatch):
    """A default from the environment or a ``default_map`` (a wrapper's settings) and the command line's one
    value: the command line's, no refusal -- only the words of the line are counted."""
    from pref_eval.cli.fit import command

    ctx = command.make_context("zelo_fit", ["--prior", "1", "-J", "x"], default_map={"prior": 0.5})
    assert ctx.params["prior"] == 1.0
    monkeypatch.setenv("ZELO_FIT_PRIOR", "0.25")
    ctx = command.make_context("zelo_fit", ["--prior", "1", "-J", "x"], auto_envvar_prefix="ZELO_FIT")
    assert ctx.params["prior"] == 1.0
    ctx = command.make_context("zelo_fit", ["-J", "x"], auto_envvar_prefix="ZELO_FIT")
    assert ctx.params["prior"] == 0.25


# --- the drop-ins: the peer's last value, and a warning ------------------------------------------------------

#: the peers' single-value options, from their sources (trec_eval.c's getopt_long table, has_arg 1, without
#: -m and -D, which trec_eval accumulates / reads per value; pref_eval.py's and pref_aggregate.py's argparse
#: add_argument lines without an action), written down from diazf/pref_eval 28d7bd3 and trec_eval 10.0
PEER_TABLES = {
    "trec": {"-l", "-N", "-M", "-R", "-T", "-Z", "--level_for_rel", "--Number_docs_in_coll",
             "--Max_retrieved_per_topic", "--Rel_info_format", "--Results_format", "--Zscore",
             "--Output_old_results_format"},
    "eval": {"-R", "--qrels", "-M", "--measure_set", "-b", "--binary_relevance", "-f", "--relevance_floor",
             "--query_fraction", "--label_fraction", "--label_fraction_policy", "--samples", "--topk"},
    "aggregate": {"-P", "--prefs", "--query_fraction", "--num_samples"},
}


def _git_show(mirror: Path, path: str) -> str:
    return subprocess.run(["git", "-C", str(mirror), "show", f"HEAD:{path}"], capture_output=True, text=True,
                          check=True).stdout


def test_the_peer_tables_are_the_peers_sources():
    if TREC_EVAL_MIRROR.exists():
        rows = re.findall(r'\{\s*"(\w+)",\s*(\d),\s*0,\s*\'(\w)\'\s*\}', _git_show(TREC_EVAL_MIRROR, "trec_eval.c"))
        valued = {f"--{name}" for name, arg, _ in rows if arg == "1"}
        short = re.search(r'getopt_long\s*\(argc, argv, "([^"]+)"', _git_show(TREC_EVAL_MIRROR, "trec_eval.c"))[1]
        valued |= {f"-{c}" for c, nxt in zip(short, short[1:] + " ", strict=True) if nxt == ":"}
        assert valued - {"-m", "--measure", "-D", "--Debug_level"} == PEER_TABLES["trec"]
    if PREF_EVAL_MIRROR.exists():
        for key, script in (("eval", "pref_eval.py"), ("aggregate", "pref_aggregate.py")):
            found = set()
            for args in re.findall(r"add_argument\((.*)\)", _git_show(PREF_EVAL_MIRROR, script)):
                if "action=" not in args:
                    found |= set(re.findall(r"""["'](-[-\w]+)["']""", args))
            assert found == PEER_TABLES[key], script
    if not (TREC_EVAL_MIRROR.exists() or PREF_EVAL_MIRROR.exists()):
        pytest.skip("needs the mirrors of usnistgov/trec_eval and diazf/pref_eval")


@pytest.mark.parametrize("name", sorted(PEER_TABLES))
def test_peer_options_are_the_options_the_peer_shares(name):
    """PEER_OPTIONS holds exactly our single-value options that have a spelling of the peer's table."""
    row = next(r for r in COMMANDS if r.name == name)
    ours = {p.opts[0] for r, w, p in CASES if r is row and not w and set(p.opts) & PEER_TABLES[name]}
    assert ours == PEER_OPTIONS[name][1]


@pytest.mark.parametrize("args, name, dropped, taken", [
    (["-l", "3", "-l", "1"], "-l/--level_for_rel", "3", "1"),
    (["-M", "3", "-M", "100"], "-M/--Max_retrieved_per_topic", "3", "100"),
    (["--level_for_rel=3", "-l1"], "-l/--level_for_rel", "3", "1"),
    (["--Number_docs_in_coll", "5", "-N", "1000"], "-N/--Number_docs_in_coll", "5", "1000"),
    (["-R", "prefs", "-R", "qrels"], "-R/--Rel_info_format", "prefs", "qrels")])
def test_zelo_trec_keeps_trec_evals_last_value_and_warns(args, name, dropped, taken):
    measures = ["-m", "map", "-m", "P.5", "-m", "num_nonrel_judged_ret"]
    res = run_module_inproc("trec", [*measures, *args, QRELS, RUNS[0]])
    last = run_module_inproc("trec", [*measures, *args[len(args) // 2:], QRELS, RUNS[0]])
    assert (res.returncode, res.stdout) == (0, last.stdout) and last.stderr == ""
    assert res.stderr == (f"zelo_trec: warning: {name} given twice: {dropped} dropped, {taken} taken (the last, "
                          "as trec_eval takes it)\n")
    quiet = run_module_inproc("trec", [*measures, "-Q", *args, QRELS, RUNS[0]])
    assert (quiet.returncode, quiet.stdout, quiet.stderr) == (0, last.stdout, "")
    if TREC_EVAL.exists():  # trec_eval: the last value, not a word on stderr
        t = subprocess.run([str(TREC_EVAL), *measures, *args, QRELS, RUNS[0]], capture_output=True, text=True,
                           cwd=ROOT, timeout=60)
        assert (t.returncode, t.stdout, t.stderr) == (0, last.stdout, "")


@pytest.fixture(scope="module")
def pref_eval_py(tmp_path_factory):
    if not PREF_EVAL_MIRROR.exists():
        pytest.skip("needs a local mirror of diazf/pref_eval")
    ref = tmp_path_factory.mktemp("pref_eval_py")
    archive = subprocess.run(["git", "-C", str(PREF_EVAL_MIRROR), "archive", "HEAD"], capture_output=True, check=True)
    subprocess.run(["tar", "x", "-C", str(ref)], input=archive.stdout, check=True)
    return ref


def _peer(ref: Path, script: str, args: list[str]) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, script, *[str(ROOT / a) if (ROOT / a).exists() else a for a in args]],
                          cwd=ref, capture_output=True, text=True, timeout=120)


def test_zelo_eval_keeps_pref_eval_pys_last_value_and_warns(request):
    args = ["-R", QRELS, "-m", "ap", "-m", "rpp", "-b", "3", "-b", "1", *RUNS]
    res = run_module_inproc("eval", args)
    last = run_module_inproc("eval", ["-R", QRELS, "-m", "ap", "-m", "rpp", "-b", "1", *RUNS])
    first = run_module_inproc("eval", ["-R", QRELS, "-m", "ap", "-m", "rpp", "-b", "3", *RUNS])
    assert (res.returncode, res.stdout) == (0, last.stdout) and last.stdout != first.stdout
    assert res.stderr == ("zelo_eval: warning: -b/--binary_relevance given twice: 3 dropped, 1 taken (the last, "
                          "as pref_eval.py takes it)\n")
    if PREF_EVAL_MIRROR.exists():
        ref = request.getfixturevalue("pref_eval_py")
        twice, once = _peer(ref, "pref_eval.py", args), _peer(ref, "pref_eval.py", args[:6] + args[8:])
        assert (twice.returncode, twice.stdout, twice.stderr) == (0, once.stdout, once.stderr)
        import json

        for a, b in zip(twice.stdout.splitlines(), res.stdout.splitlines(), strict=True):
            a, b = json.loads(a), json.loads(b)
            assert a.keys() == b.keys() and all(a[k] == pytest.approx(b[k], abs=1e-12) for k in a)


def test_pref_aggregate_keeps_pref_aggregate_pys_last_value_and_warns(tmp_path, request):
    prefs = []
    for i, measure in enumerate(("rpp", "invrpp")):
        out = run_module_inproc("eval", ["-R", QRELS, "-m", measure, "-q", *RUNS, "runs/rerank.run"])
        (tmp_path / f"p{i}").write_text(out.stdout)
        prefs.append(str(tmp_path / f"p{i}"))
    res = run_module_inproc("aggregate", ["-P", prefs[0], "-P", prefs[1]])
    last = run_module_inproc("aggregate", ["-P", prefs[1]])
    first = run_module_inproc("aggregate", ["-P", prefs[0]])
    assert (res.returncode, res.stdout) == (0, last.stdout) and first.stdout != last.stdout
    assert res.stderr == (f"pref_aggregate: warning: -P/--prefs given twice: {prefs[0]} dropped, {prefs[1]} taken "
                          "(the last, as pref_aggregate.py takes it)\n")
    assert run_module_inproc("aggregate", ["-Q", "-P", prefs[0], "-P", prefs[1]]).stderr == ""
    if PREF_EVAL_MIRROR.exists():
        ref = request.getfixturevalue("pref_eval_py")
        twice = _peer(ref, "pref_aggregate.py", ["-P", prefs[0], "-P", prefs[1], "-q"])
        once = _peer(ref, "pref_aggregate.py", ["-P", prefs[1], "-q"])
        assert (twice.returncode, twice.stdout, twice.stderr) == (0, once.stdout, once.stderr)
