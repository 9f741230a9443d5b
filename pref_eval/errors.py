"""Exceptions raised by pref_eval.

Every user-facing failure is a :class:`PrefEvalError`; the command lines turn
it into one line on stderr and an exit code, never a traceback.

* :class:`InputError` -- a bad input file: names the file, the line number
  (1-based; 0 when the problem is the file as a whole) and what was expected.
* :class:`UsageError` -- a bad option or measure name.
* :class:`EvaluationError` -- inputs that parse but cannot be evaluated
  (a duplicate document in a run, as trec_eval refuses it).
* :class:`OutputError` -- an output file the system refuses to write
  (exit status 1; see docs/exit-codes.md).

And one warning class, :class:`PrefEvalWarning` (a :class:`UserWarning`): what the Python API warns about
(a run lacking qrels topics), so that a caller can filter or turn into errors exactly pref_eval's own.
"""
from __future__ import annotations

from contextvars import ContextVar


MESSAGE_LIMIT = 500  # characters of an error message a command prints (docs/exit-codes.md)


def shortened(text: str, limit: int = MESSAGE_LIMIT) -> str:
    """``text``, or when it is longer than ``limit`` characters its first 3/4 and last 1/5 of ``limit``
    with the middle replaced by ``… [N characters left out] …``.

    A message echoes what it refuses (``got "…"``); a 100 KB string or a 400-digit number in a judgment
    file would make the command's one error line 100 KB long. The start (file:line, what was expected,
    the start of the value) and the end (the closing hint) are kept.
    """
    if len(text) <= limit:
        return text
    head, tail = text[: limit * 3 // 4], text[len(text) - limit // 5:]
    return f"{head} … [{len(text) - len(head) - len(tail)} characters left out] … {tail}"


_VISIBLE = {0x0A: "\\n", 0x0D: "\\r"}
_CONTROLS = {c: _VISIBLE.get(c, f"\\x{c:02x}") for c in (*range(0x20), 0x7F, 0x85) if c != 0x09}
_CONTROLS.update({0x2028: "\\u2028", 0x2029: "\\u2029"})


def one_line(text: str) -> str:
    """``text`` with its line breaks and other control characters (a tab excepted) written as escapes
    (``\\n``, ``\\x1b``): a file name holding a newline (``-o $'a\\nb'``) split the command's one error
    line in two, and an escape sequence in a name or a value reached the terminal."""
    return text.translate(_CONTROLS)


#: The option flags (every spelling: ``-l``, ``--level``) the running command's command line named, set by
#: the commands around their call of the API (:func:`pref_eval.cli.common.options_given`); empty for a
#: Python caller. numpy imports :mod:`contextvars` anyway.
COMMAND_LINE_FLAGS: ContextVar[frozenset[str]] = ContextVar("pref_eval_command_line_flags", default=frozenset())


def option_given(flag: str, differs: bool) -> bool:
    """Whether option ``flag`` counts as given, for a check that refuses an option nothing would read.

    In Python an option is given when its value ``differs`` from the default (a function cannot tell
    ``digits=4`` from no ``digits``: passing the default is not refused); on a command line when it is
    named, whatever its value (``zelo_compare -o jsonl --digits 4`` is refused like ``--digits 3``)."""
    return differs or flag in COMMAND_LINE_FLAGS.get()


class PrefEvalError(Exception):
    """Base class; ``exit_code`` is what the command line exits with."""

    exit_code = 2


class InputError(PrefEvalError):
    """A malformed or unreadable input file.

    ``str(err)`` is ``"<path>:<line>: <message>"`` (or ``"<path>: <message>"``
    when ``line`` is 0).
    """

    def __init__(self, path: str, line: int, message: str) -> None:
        self.path = str(path)
        self.line = int(line)
        self.message = message
        super().__init__(str(self))

    def __reduce__(self):
        # pickled by ``--jobs`` (a worker's error is sent to the parent): rebuilt from the three fields, not
        # from ``args`` (the one formatted string), which ``__init__`` would not take -- a TypeError in the
        # pool's result thread, a broken pool, the workers killed with a traceback each and no error line
        return (type(self), (self.path, self.line, self.message))

    def __str__(self) -> str:
        if self.line:
            return f"{self.path}:{self.line}: {self.message}"
        return f"{self.path}: {self.message}"


class UsageError(PrefEvalError):
    """A bad command-line option, measure name or parameter."""


class EvaluationError(PrefEvalError):
    """Input that parses but cannot be evaluated (e.g. duplicate docnos)."""


class OutputError(PrefEvalError):
    """An output that cannot be written (missing directory, permission, disk full, closed stdout).

    Exit status 1: the inputs were fine, the operating system refused the output.
    """

    exit_code = 1


class PrefEvalWarning(UserWarning):
    """A warning of pref_eval's Python API (the commands write theirs to stderr): e.g. a run that lacks
    qrels topics, averaged over the topics in both. ``warnings.filterwarnings("error",
    category=PrefEvalWarning)`` makes them errors."""
