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

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (type checkers read it as true)
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, TypeVar

    F = TypeVar("F", bound=Callable[..., Any])


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
_CONTROLS.update({0xDC00 + b: f"\\x{b:02x}" for b in range(0x80, 0x100)})  # a byte that was not UTF-8


def shown(value: object) -> str:
    """How a message shows a field it refuses or names: ``repr`` (quoted, control characters escaped), a
    byte that was not UTF-8 in its file as ``\\xNN`` -- ``got '1\\xe9'`` for the Latin-1 bytes ``31 e9``
    (read as ``'1\\udce9'``, surrogateescape) and for ``b'1\\xe9'`` alike. One rule for every reader's
    messages (trec_eval keeps ids as bytes; the docs write them ``q\\xe9``); UTF-8 text stays as its
    characters (``'naïve'``). Any other value: its ``repr``."""
    if isinstance(value, bytes | bytearray):
        value = bytes(value).decode("utf-8", "surrogateescape")
    text = repr(value)
    if type(value) is not str:
        return text
    return bytes_in_repr(text)


def bytes_in_repr(text: str) -> str:
    """``text`` holding ``repr``s of strings (click's ``Invalid value for '-x': 'h\\udce9' is not one of ...``)
    with each escape ``\\udcNN`` of a byte that was not UTF-8 written ``\\xNN``, as :func:`shown` writes it."""
    if "\\udc" not in text:
        return text
    import re

    # an escape \udcNN of repr is preceded by an even number of backslashes (repr doubles a real one)
    return re.sub(r"(?<!\\)((?:\\\\)*)\\udc([89a-f][0-9a-f])", r"\1\\x\2", text)


def one_line(text: str) -> str:
    """``text`` with its line breaks and other control characters (a tab excepted) written as escapes
    (``\\n``, ``\\x1b``): a file name holding a newline (``-o $'a\\nb'``) split the command's one error
    line in two, and an escape sequence in a name or a value reached the terminal. A byte that was not UTF-8
    (a surrogate escape ``\\udce9`` of a Latin-1 id or file name) is written ``\\xe9``, as :func:`shown`
    writes it."""
    return text.translate(_CONTROLS)


#: The option flags (every spelling: ``-l``, ``--level``) the running command's command line named, set by
#: the commands around their call of the API (:func:`pref_eval.cli.common.options_given`; an empty set while
#: a command runs, cli/common.py ``_run``); None for a Python caller. numpy imports :mod:`contextvars` anyway.
COMMAND_LINE_FLAGS: ContextVar[frozenset[str] | None] = ContextVar("pref_eval_command_line_flags", default=None)


def option_given(flag: str, differs: bool) -> bool:
    """Whether option ``flag`` counts as given, for a check that refuses an option nothing would read.

    In Python an option is given when its value ``differs`` from the default (a function cannot tell
    ``digits=4`` from no ``digits``: passing the default is not refused); on a command line when it is
    named, whatever its value (``zelo_compare -o jsonl --digits 4`` is refused like ``--digits 3``)."""
    return differs or flag in (COMMAND_LINE_FLAGS.get() or ())


def command_running() -> bool:
    """Whether a command (cli/common.py ``_run``) is running, not a Python caller of the API."""
    return COMMAND_LINE_FLAGS.get() is not None


def option_name(keyword: str, flag: str | None = None) -> str:
    """How a refusal names an option: ``flag`` (``--run-id``; default ``--`` and the keyword with ``-`` for
    ``_``) while a command runs, the API's ``keyword`` (``run_id_mode``) for a Python caller, who passed no flag."""
    if not command_running():
        return keyword
    return flag if flag is not None else "--" + keyword.replace("_", "-")


def option_value(keyword: str, flag: str, value: object) -> str:
    """An option with its value as the caller wrote it: ``-o jsonl`` while a command runs,
    ``output_format='jsonl'`` for a Python caller."""
    return f"{flag} {value}" if command_running() else f"{keyword}={value!r}"


def renamed_keywords(**old_names: str) -> Callable[[F], F]:
    """Keep old keyword spellings of a function working: ``@renamed_keywords(fmt="judgments_format")`` takes
    ``fmt=X`` as ``judgments_format=X`` with a :class:`DeprecationWarning` naming the new keyword, and raises
    :class:`UsageError` when both are given. The signature (``inspect.signature``, the docs) shows the new
    names only (session 25: one vocabulary for the public API, docs/api.md)."""

    def decorate(func: F) -> F:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            for old, new in old_names.items():
                if old in kwargs:
                    if new in kwargs:
                        raise UsageError(f"{old} and {new} given: {old} is the old name of {new}; give {new} only")
                    import warnings

                    warnings.warn(f"{func.__name__}({old}=...) is deprecated: the keyword is {new}",
                                  DeprecationWarning, stacklevel=2)
                    kwargs[new] = kwargs.pop(old)
            return func(*args, **kwargs)

        for name in ("__module__", "__name__", "__qualname__", "__doc__"):  # functools.wraps without functools
            setattr(wrapper, name, getattr(func, name))
        wrapper.__dict__.update(func.__dict__)
        wrapper.__wrapped__ = func  # type: ignore[attr-defined]  # inspect.signature shows func's parameters
        wrapper.renamed_keywords = dict(old_names)  # type: ignore[attr-defined]  # (tests, docs)
        return wrapper  # type: ignore[return-value]

    return decorate


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
