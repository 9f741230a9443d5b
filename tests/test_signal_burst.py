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
