"""Thin click command lines. Each module exposes ``main`` (console script).

A process started as one of the commands (a console script or a ``bin/`` script: the program's name is one of
:func:`pref_eval.cli.options.console_scripts`) ends on a SIGINT or SIGTERM met while it imports (click, numpy:
~0.1 s) with its one line and 130/143, as later (``cli/common.run_main`` then installs the command's own
handlers). Ctrl-C there met Python's own handler, a KeyboardInterrupt traceback: a loop of short commands
interrupted by Ctrl-C printed one about every third time. Nothing is done for any other program importing this
package. A ``--jobs`` worker process started by spawn or forkserver (its ``sys.argv`` is its parent's, so it looks
like the command) gets silent ones: the parent reports the signal, once (pref_eval/parallel.py).
"""
from __future__ import annotations

import os
import sys


def early_handlers(label: str | None) -> None:
    """Until the command's own handlers: a SIGINT or SIGTERM writes ``LABEL: interrupted`` / ``terminated`` (no
    line when ``label`` is None) and ends the process with 130/143 at once (nothing was read or written yet). A
    handler the caller set or a signal ignored is kept; main thread only."""
    import functools
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        return
    handler = functools.partial(_early_signal, label)
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        signal.signal(signal.SIGINT, handler)
    if signal.getsignal(signal.SIGTERM) == signal.SIG_DFL:
        signal.signal(signal.SIGTERM, handler)


def is_early(handler: object) -> bool:
    """Whether ``handler`` is one :func:`early_handlers` installed."""
    return getattr(handler, "func", None) is _early_signal


def _early_signal(label: str | None, signum: int, frame: object) -> None:  # noqa: ARG001 - handler signature
    import signal

    try:
        if label is not None:  # (None: a pool worker, whose parent reports the signal)
            sys.stderr.write(f"{label}: {'interrupted' if signum == signal.SIGINT else 'terminated'}\n")
            sys.stderr.flush()
    except (OSError, ValueError, AttributeError):  # (no standard error: 2>&-)
        pass
    os._exit(128 + signum)


def _started_as_command() -> None:
    argv = getattr(sys, "argv", None)
    if not argv or not argv[0]:
        return
    from .options import GROUP_SCRIPT, console_scripts, version_name

    prog = os.path.basename(argv[0])
    if prog in console_scripts():
        early_handlers(None if _pool_worker() else version_name(prog, argv[1:]) if prog == GROUP_SCRIPT else prog)


def _pool_worker() -> bool:
    """Whether this process is a multiprocessing child (a ``--jobs`` worker started by spawn or forkserver,
    importing the console script as its parent's main module); multiprocessing is not imported to ask."""
    process = sys.modules.get("multiprocessing.process")
    return process is not None and process.parent_process() is not None


_started_as_command()
