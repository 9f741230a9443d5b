"""Usage errors of every command (a missing required option or argument, an unknown option, a value out of
range): one line ``PROG: MESSAGE`` as every other error, then ``Try 'PROG --help' for help.`` -- not click's
block (usage line, hint, blank line, ``Error: ...``; d29). The commands and their required options are taken
from the click objects, so a new command or option is covered."""
from __future__ import annotations

import importlib

import click
import pytest

from cli_harness import SCRIPTS, run_inproc


def _commands() -> list[tuple[str, list[str], click.Command]]:
    """(script, words naming the subcommand, command) for every leaf command of every console script."""
    out = []
    for script, (mod, _) in sorted(SCRIPTS.items()):
        if script in ("zelo", "pref_eval"):  # the group of the others; zelo_eval's alias (test_cli_common)
            continue
        cmd = importlib.import_module(mod).command
        if isinstance(cmd, click.Group):
            out += [(script, [name], sub) for name, sub in sorted(cmd.commands.items())]
        else:
            out.append((script, [], cmd))
    return out


COMMANDS = _commands()


def _ok(res, script: str, words: list[str], needle: str) -> None:
    path = " ".join([script, *words])
    lines = res.stderr.splitlines()
    assert res.returncode == 2, (path, res)
    assert len(lines) == 2 and lines[0].startswith(f"{script}: ") and needle in lines[0], (path, res.stderr)
    assert lines[1] in (f"Try '{path} --help' for help.", f"Try '{script} --help' for help."), (path, res.stderr)
    assert "Usage:" not in res.stderr and "Error:" not in res.stderr and "Traceback" not in res.stderr


@pytest.mark.parametrize("script,words,cmd", COMMANDS, ids=[" ".join([s, *w]) for s, w, _ in COMMANDS])
def test_unknown_option_is_one_line(tmp_path, script, words, cmd):
    res = run_inproc(script, [*words, "--surely-no-such-option"], tmp_path)
    _ok(res, script, words, "No such option '--surely-no-such-option'")


MISSING = [(s, w, p) for s, w, c in COMMANDS for p in c.params if p.required]


@pytest.mark.parametrize("script,words,param", MISSING,
                         ids=[" ".join([s, *w, p.name or ""]) for s, w, p in MISSING])
def test_missing_required_option_is_one_line(tmp_path, script, words, param):
    """Every other required parameter given a (dummy) value, this one left out: named in one line."""
    argv = list(words)
    args = []
    cmd = next(c for s, w, c in COMMANDS if s == script and w == words)
    for p in cmd.params:
        if p is param or not p.required:
            continue
        if isinstance(p, click.Option):
            argv += [p.opts[0], "x"]
        else:
            args.append("x")
    res = run_inproc(script, argv + args, tmp_path)
    name = param.opts[0] if isinstance(param, click.Option) else param.human_readable_name
    _ok(res, script, words, "Missing ")
    assert name in res.stderr, res.stderr


def test_the_hand_worked_lines(tmp_path):
    """The exact bytes of three cases, as a user reads them."""
    res = run_inproc("zelo_fit", [], tmp_path)
    assert res.stderr == "zelo_fit: Missing option '-J' / '--judgments'.\nTry 'zelo_fit --help' for help.\n"
    res = run_inproc("zelo_judge", ["export"], tmp_path)
    assert res.stderr == "zelo_judge: Missing option '--store'.\nTry 'zelo_judge export --help' for help.\n"
    res = run_inproc("zelo_fit", ["-J"], tmp_path)  # refused before click made a context
    assert res.stderr == "zelo_fit: Option '-J' requires an argument.\nTry 'zelo_fit --help' for help.\n"
    res = run_inproc("zelo", ["fit", "--prior", "-1", "-J", "x"], tmp_path)
    assert res.stderr == ("zelo fit: Invalid value for '--prior': -1.0 is not in the range x>=0.\n"
                          "Try 'zelo fit --help' for help.\n")
