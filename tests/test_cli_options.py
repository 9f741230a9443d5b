"""One command table (pref_eval.cli.options.COMMANDS), one -Q/--quiet, one --version path."""
from __future__ import annotations

import configparser
import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT
from pref_eval import __version__
from pref_eval.cli.options import COMMANDS, console_scripts


def test_setup_cfg_console_scripts_are_the_command_table():
    cfg = configparser.ConfigParser()
    cfg.read(ROOT / "setup.cfg")
    lines = [ln.strip() for ln in cfg["options.entry_points"]["console_scripts"].splitlines() if ln.strip()]
    declared = dict(re.match(r"(\S+)\s*=\s*(\S+)$", ln).groups() for ln in lines)
    assert declared == console_scripts()


def test_bin_wrappers_are_generated_from_the_table():
    p = subprocess.run([sys.executable, str(ROOT / "tools" / "make_bin.py"), "--check"],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stdout


def test_group_lists_every_command_of_the_table():
    from pref_eval.cli.group import COMMANDS as GROUP

    assert list(GROUP) == [c.name for c in COMMANDS]


def test_quiet_declared_once():
    sources = {p.name: p.read_text(encoding="utf-8") for p in (ROOT / "pref_eval" / "cli").glob("*.py")}
    assert [n for n, s in sources.items() if '"-Q"' in s] == ["options.py"]


@pytest.mark.parametrize("argv,name", [
    (["pref_eval.cli.group", "fit", "--version"], "zelo fit"),
    (["pref_eval.cli.group", "--version"], "zelo"),
    (["pref_eval.cli.fit", "--version"], "zelo_fit"),
    (["pref_eval.cli.plot", "--version"], "zelo_plot"),
])
def test_version_prints_the_program_name_typed(argv, name):
    p = subprocess.run([sys.executable, "-m", *argv], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert p.returncode == 0 and p.stdout == f"{name} (pref_eval) {__version__}\n", p.stderr


TREC_EVAL = Path("/tmp/trec_eval/trec_eval")  # built from usnistgov/trec_eval v10.0 (not in CI)


@pytest.mark.parametrize("args", [["-v"], ["--version"], ["-q", "-v"], ["-qv"], ["-v", "-q"],
                                  ["-v", "no/such.qrels", "no/such.run"], ["--version", "no/such.qrels", "x"],
                                  ["-l", "x", "-v"]])
@pytest.mark.parametrize("argv0", [["pref_eval.cli.trec"], ["pref_eval.cli.group", "trec"]])
def test_trec_version_goes_to_stderr_as_trec_evals(argv0, args):
    """trec_eval 10 prints ``trec_eval version 10.0-rc3`` on **stderr**, stdout empty, exit 0, for ``-v`` and
    ``--version`` whatever else the line holds after it (trec_eval.c: ``case 'v': fprintf (stderr, "trec_eval version
    %s\n", VERSIONID); exit (0);``): ``zelo_trec -v > /dev/null`` shows it, ``2>&1`` captures it. zelo_trec
    printed ``--version`` on stdout. With the binary at hand, its streams and exit code are checked live."""
    name = "zelo_trec" if len(argv0) == 1 else "zelo trec"
    p = subprocess.run([sys.executable, "-m", *argv0, *args], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert (p.returncode, p.stdout, p.stderr) == (0, "", f"{name} (pref_eval) {__version__}; "
                                                      "trec_eval 10.0 compatible\n")
    if TREC_EVAL.exists():
        t = subprocess.run([str(TREC_EVAL), *args], capture_output=True, text=True, timeout=60)
        assert (t.returncode, t.stdout, t.stderr.count("\n")) == (0, "", 1), t
        assert t.stderr.startswith("trec_eval version ")


#: trec_eval 10.0-rc3's answer (the binary at /tmp/trec_eval/trec_eval, run 2026-11-25, session 19) to -v/--version
#: placed among other words: getopt_long reads the words in order and stops at -v with the version (stderr,
#: exit 0); an unknown option, a value-taking option left without its value or --version=x met first is a usage
#: error (exit 1 there, 2 here: docs/exit-codes.md); a value-taking option takes the next word whatever it is
#: (-m -v: "illegal measure '-v'", exit 1; -M -v: usage, exit 1); -- ends the options (-- -v: usage, exit 1).
TREC_VERSION_ORDER = [
    (["-v", "-X"], True), (["-vX"], True), (["-v", "--bogus"], True), (["--version", "-X"], True),
    (["-h", "-v"], True), (["-v", "-h"], True), (["a", "b", "-v"], True), (["-m", "map", "-v"], True),
    (["-Zx", "-v"], True), (["--Zscore", "x", "-v"], True), (["--query_eval_wanted", "-v"], True),
    (["-v", "-m", "bogus"], True), (["-R", "bogus", "-v"], True), (["-M5", "-v"], True),
    (["-X", "-v"], False), (["-Xv"], False), (["--bogus", "-v"], False), (["-X", "--version"], False),
    (["-m", "-v"], False), (["-M", "-v"], False), (["-mv"], False), (["--", "-v"], False),
    (["--version=x"], False), (["-m"], False),
]


@pytest.mark.parametrize("args,version", TREC_VERSION_ORDER)
@pytest.mark.parametrize("group", [False, True])
def test_trec_version_where_trec_evals_getopt_meets_it(args, version, group, capsys):
    """``zelo_trec -v -X`` was a usage error (click read the whole line first) where trec_eval prints its
    version: zelo_trec now answers -v/--version exactly where trec_eval's getopt would (the table above, the
    binary's answers written down), in process, as ``zelo_trec`` and ``zelo trec``; the rest is a usage error
    (exit 2) as trec_eval's is one (exit 1)."""
    from pref_eval.cli import group as group_cli
    from pref_eval.cli import trec

    with pytest.raises(SystemExit) as end:
        if group:
            group_cli.main(["trec", *args])
        else:
            trec.main(list(args))
    out, err = capsys.readouterr()
    name = "zelo trec" if group else "zelo_trec"
    if version:
        assert (end.value.code, out, err) == (0, "", f"{name} (pref_eval) {__version__}; trec_eval 10.0 compatible\n")
    else:
        assert end.value.code == 2 and out == "" and "(pref_eval)" not in err and err.strip(), err
    if TREC_EVAL.exists() and not group:  # the table is the binary's
        t = subprocess.run([str(TREC_EVAL), *args], capture_output=True, text=True, timeout=60, cwd="/tmp")
        assert (t.returncode, t.stderr.startswith("trec_eval version ")) == ((0, True) if version else (1, False))


def test_library_code_does_not_import_the_commands():
    """cli/ is the top layer (docs/architecture.md): nothing below it imports it."""
    import re as _re

    allowed: set[str] = set()  # none: library code writes through pref_eval.output.atomic

    bad = []
    for p in (ROOT / "pref_eval").rglob("*.py"):
        if "cli" in p.relative_to(ROOT / "pref_eval").parts:
            continue
        for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1):
            here = f"{p.relative_to(ROOT)}: {line.strip()}"
            if _re.match(r"\s*(from\s+(\.+cli\b|pref_eval\.cli\b)|import\s+pref_eval\.cli\b)", line) \
                    and here not in allowed:
                bad.append(f"{p.relative_to(ROOT)}:{n}: {line.strip()}")
    assert bad == []


@pytest.mark.parametrize("mod", ["fit", "eval", "compare"])
def test_help_describes_unbounded_finite_options(mod):
    """click printed an option of any finite value (``Finite()``) as ``[x<=None]`` in --help."""
    out = subprocess.run([sys.executable, "-m", f"pref_eval.cli.{mod}", "--help"], capture_output=True, text=True,
                         check=True).stdout
    assert "None" not in out
    assert "finite]" in out
