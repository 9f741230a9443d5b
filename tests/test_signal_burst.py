"""Signals of a burst (Ctrl-C pressed again and again, a SIGTERM among them) in a command run as a process
(cli/common.py's ``_on_signal`` and ``_lost_signal``): the first one ends the command (130/143, one line, the
outputs removed on the way up); later ones are absorbed while its exception unwinds -- raised again, they met
the ``finally`` blocks removing the outputs, finalizers (an ``Exception ignored`` traceback) and
``sys.unraisablehook`` itself (tests/test_output_faults.py's burst printed such a traceback once in 40 runs at
load). A signal whose exception met a finalizer cannot propagate (Python's rule): no traceback, and the next
signal acts. Oracle: exit-codes.md's promise (one line, no traceback, 130/143)."""
from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from conftest import ROOT  # noqa: E402

PRELUDE = """
import os, signal, sys
import click
from pref_eval.cli.common import run_main

def spin():
    total = 0
    for i in range(200000):  # Python's handlers run between bytecodes
        total += i
    return total
"""


def _run(body: str) -> subprocess.CompletedProcess:
    code = PRELUDE + textwrap.dedent(body) + "\nrun_main(cmd, 'burst')\n"
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120,
                          env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)})


def test_later_signals_do_not_cut_the_clean_up():
    r = _run("""
        @click.command()
        def cmd():
            try:
                os.kill(os.getpid(), signal.SIGINT)
                spin()
            finally:  # the outputs' removal: the burst's later signals arrive here
                os.kill(os.getpid(), signal.SIGTERM)
                os.kill(os.getpid(), signal.SIGINT)
                spin()
                sys.stderr.write("clean-up done\\n")
    """)
    assert (r.returncode, r.stderr) == (130, "clean-up done\nburst: interrupted\n"), r


def test_first_sigterm_then_sigint():
    r = _run("""
        @click.command()
        def cmd():
            try:
                os.kill(os.getpid(), signal.SIGTERM)
                spin()
            finally:
                os.kill(os.getpid(), signal.SIGINT)
                spin()
                sys.stderr.write("clean-up done\\n")
    """)
    assert (r.returncode, r.stderr) == (143, "clean-up done\nburst: terminated\n"), r


def test_a_signal_lost_in_a_finalizer_prints_nothing_and_the_next_acts():
    r = _run("""
        class Finalized:
            def __del__(self):
                os.kill(os.getpid(), signal.SIGINT)
                spin()  # the KeyboardInterrupt is raised here: it cannot leave __del__

        @click.command()
        def cmd():
            Finalized()
            spin()
            sys.stdout.write("went on\\n")
            os.kill(os.getpid(), signal.SIGINT)
            spin()
            sys.stdout.write("not reached\\n")
    """)
    assert (r.returncode, r.stdout, r.stderr) == (130, "went on\n", "burst: interrupted\n"), r


# A first signal landing outside the command's own handling (``_invoke``): right after the handlers were
# installed, or as the command returns. Both printed a traceback (KeyboardInterrupt /
# ``pref_eval.cli.common.Terminated``; seen once in a loaded suite run of test_output_faults' burst).
FLAGS_HOOK = """
import pref_eval.errors as _errors

class _Flags:  # the command-line flag context, with a signal sent to the process at one of its steps
    def __init__(self, real, when, sig):
        self.real, self.when, self.sig = real, when, sig
    def get(self):
        return self.real.get()
    def set(self, value):
        token = self.real.set(value)
        if self.when == "set":
            os.kill(os.getpid(), self.sig)
            spin()
        return token
    def reset(self, token):
        self.real.reset(token)
        if self.when == "reset":
            os.kill(os.getpid(), self.sig)
            spin()

_errors.COMMAND_LINE_FLAGS = _Flags(_errors.COMMAND_LINE_FLAGS, {when!r}, signal.{sig})

@click.command()
def cmd():
    sys.stdout.write("done\\n")
"""


@pytest.mark.parametrize(("when", "sig", "expected"), [
    ("set", "SIGINT", (130, "burst: interrupted\n")),
    ("set", "SIGTERM", (143, "burst: terminated\n")),
    ("reset", "SIGINT", (130, "burst: interrupted\n")),
    ("reset", "SIGTERM", (143, "burst: terminated\n")),
])
def test_a_first_signal_outside_the_command(when, sig, expected):
    r = _run(FLAGS_HOOK.format(when=when, sig=sig))
    assert (r.returncode, r.stderr) == expected, r


def test_sigint_is_ours_once_sigterm_is_caught():
    """Tests wait for SIGTERM's handler (/proc/PID/status) before they send SIGINT: SIGINT's is installed first,
    so a SIGINT sent then ends the command with its one line (it met Python's own handler: a traceback)."""
    r = _run("""
        _signal = signal.signal
        sent = []

        def installing(sig, handler):
            old = _signal(sig, handler)
            if sig == signal.SIGTERM and not sent:  # the first SIGTERM handler (not _end_on_signal's)
                sent.append(sig)
                os.kill(os.getpid(), signal.SIGINT)
                spin()
            return old

        signal.signal = installing

        @click.command()
        def cmd():
            sys.stdout.write("done\\n")
    """)
    assert (r.returncode, r.stderr) == (130, "burst: interrupted\n"), r


@pytest.mark.parametrize(("sig", "expected"), [("SIGINT", (130, "burst: interrupted\n")),
                                               ("SIGTERM", (143, "burst: terminated\n"))])
def test_a_signal_while_numpy_is_imported(sig, expected):
    """run_main imports numpy (~0.1 s) before the command's handlers are installed: a signal there ends the
    process with its one line (Ctrl-C met Python's own handler: a KeyboardInterrupt traceback; SIGTERM the
    default action: killed, -15, no line)."""
    code = PRELUDE + textwrap.dedent(f"""
        class Importing:  # a signal as numpy's import starts
            def find_spec(self, name, path=None, target=None):
                if name == "numpy":
                    os.kill(os.getpid(), signal.{sig})
                    spin()
                return None

        sys.modules.pop("numpy", None)
        sys.meta_path.insert(0, Importing())

        @click.command()
        def cmd():
            sys.stdout.write("done\\n")

        run_main(cmd, 'burst', short_lived=True)
    """)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120,
                       env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)})
    assert (r.returncode, r.stdout, r.stderr) == (expected[0], "", expected[1]), r


@pytest.mark.parametrize("script", ["zelo_eval", "pref_eval", "zelo"])
def test_a_signal_while_the_command_imports(tmp_path, script):
    """A command started as a process (its program name one of the console scripts) meets a Ctrl-C while it
    imports click (before run_main): its one line, 130 -- was Python's KeyboardInterrupt traceback (a loop of short
    commands interrupted by Ctrl-C printed one about every third time)."""
    path = tmp_path / script
    path.write_text(PRELUDE.replace("from pref_eval.cli.common import run_main\n", "") + textwrap.dedent("""
        class Importing:  # a signal as click's import starts
            def find_spec(self, name, path=None, target=None):
                if name == "click.core":
                    os.kill(os.getpid(), signal.SIGINT)
                    spin()
                return None

        for name in [m for m in sys.modules if m == "click" or m.startswith(("click.", "pref_eval"))]:
            del sys.modules[name]
        sys.meta_path.insert(0, Importing())
        from pref_eval.cli.group import main
        main()
    """))
    r = subprocess.run([sys.executable, str(path), "fit", "--help"], capture_output=True, text=True, cwd=ROOT,
                       timeout=120, env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)})
    label = "zelo fit" if script == "zelo" else script
    assert (r.returncode, r.stdout, r.stderr) == (130, "", f"{label}: interrupted\n"), r
