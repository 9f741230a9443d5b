"""Judge specifications (``--judge SPEC``).

``openai:MODEL[@BASE_URL][,key=ENV][,name=LABEL][,temperature=T][,max_tokens=N]``
    an OpenAI-compatible chat-completions server through the official
    ``openai`` client; the API key is read from the environment variable
    ``ENV`` (default: ``--api-key-env``, itself ``OPENAI_API_KEY`` by default).
``cmd:COMMAND``
    a program (run by ``/bin/sh -c``) speaking JSON lines on stdin/stdout.

A judge's *name* (its identity in the store and in the output) is the spec
without the ``key=`` option and without the port of ``BASE_URL`` (host in lower
case), or ``LABEL`` when ``name=`` is given: the model, its sampling parameters
and the server's host and path say which judge answers; the port only where the
server listens today. A server restarted on another port (vLLM's ``--port``)
is the same judge, its stored answers served; another host (or path) serving a
model of the same name is another judge, asked anew. Two servers on one host
serving different models under one name need ``name=``. Names stored before
session 21 held the port: :func:`identity` maps them to today's name.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

from ..errors import UsageError, option_name, shown

_OPENAI_OPTIONS = ("key", "name", "temperature", "max_tokens")
ENV_NAME = r"^[A-Za-z_][A-Za-z0-9_]{0,63}$"  # an environment variable's name (key=, --api-key-env); re caches it


@dataclass(frozen=True)
class JudgeSpec:
    kind: str  # "openai" or "cmd"
    name: str
    model: str = ""
    base_url: str | None = None
    key_env: str | None = None
    command: str = ""
    temperature: float | None = 0.0
    max_tokens: int | None = None
    extra: dict = field(default_factory=dict, compare=False)


def _masked(text: str) -> str:
    """``text`` for a message: the value of ``key=`` and any credentials in a URL replaced by ``***`` (a key
    pasted into a spec by mistake must not reach a terminal log)."""
    text = re.sub(r"(^|,)key=[^,]*", r"\1key=***", text)
    return re.sub(r"//[^/@,]*@", "//***@", text)


def command_files(specs: list[str]) -> list[str]:
    """The existing files a ``cmd:`` judge's command line names (``cmd:python3 judge.py`` -> the
    interpreter, ``judge.py``): inputs an output must not overwrite (``-o judge.py``)."""
    import os
    import shlex

    found: list[str] = []
    for spec in specs:
        if not spec.startswith("cmd:"):
            continue
        try:
            words = shlex.split(spec[4:])
        except ValueError:  # unbalanced quotes: refused when the judge starts
            continue
        found.extend(w for w in words if os.path.isfile(w))
    return found


def _without_port(url: str) -> str:
    """``url`` with no port, its host in lower case (``http://127.0.0.1:8001/v1`` -> ``http://127.0.0.1/v1``)."""
    from urllib.parse import urlsplit, urlunsplit

    try:
        parts = urlsplit(url)
        host = parts.hostname
        parts.port  # noqa: B018 - a port that is not a number raises ValueError: kept as written
    except ValueError:
        return url
    if not host:
        return url
    return urlunsplit(parts._replace(netloc=f"[{host}]" if ":" in host else host))


def _judge_option() -> str:
    """The judge option as the caller names it: ``--judge`` on a command line, ``judges`` in Python."""
    return option_name("judges", "--judge")


def _check_url(url: str) -> None:
    """A base URL the HTTP client cannot take (a port that is no number or out of range, an unclosed ``[``) is
    refused here, before the store is opened (it was a traceback from the client once the run started)."""
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError for a port that is no number in 0-65535
    except ValueError as err:
        raise UsageError(f"{_judge_option()}: not a usable base URL {shown(_masked(url))} ({err})") from None
    if not parts.hostname:
        raise UsageError(f"{_judge_option()}: no host in the base URL {shown(_masked(url))}")


def identity(name: str) -> str:
    """The judge a stored name stands for today: a name stored with the port of its server
    (``openai:m@http://h:8000/v1``, before session 21) -> ``openai:m@http://h/v1``; any other name unchanged."""
    if not name.startswith("openai:") or "@" not in name:
        return name
    try:
        return parse_spec(name).name
    except UsageError:
        return name


def parse_spec(spec: str) -> JudgeSpec:
    """Parse one ``--judge`` value (see the module docstring)."""
    if spec.startswith("cmd:"):
        command = spec[4:].strip()
        if not command:
            raise UsageError(f"{_judge_option()} cmd: needs a command, e.g. cmd:'python3 my_judge.py'")
        return JudgeSpec(kind="cmd", name=spec.strip(), command=command)
    if not spec.startswith("openai:"):
        raise UsageError(f"{_judge_option()}: expected openai:MODEL@BASE_URL or cmd:COMMAND, got {shown(spec)}")
    body, *opts = spec[7:].split(",")
    model, at, url = body.partition("@")
    if not model:
        raise UsageError(f"{_judge_option()}: no model name in {shown(spec)} (openai:MODEL@BASE_URL)")
    if at and not url.startswith(("http://", "https://")):
        raise UsageError(f"{_judge_option()}: the base URL must start with http:// or https://, got "
                         f"{shown(_masked(url))}")
    if at and "@" in url:  # credentials, USER:PASSWORD@HOST: also a password holding '/' (which ends the authority)
        raise UsageError(f"{_judge_option()}: the base URL holds credentials (USER:PASSWORD@HOST); they would be "
                         "part of the judge's name, in the store and the output: give the key in the environment "
                         "(key=ENV)")
    if at:
        _check_url(url)
    values: dict[str, str] = {}
    kept = [f"{model}@{_without_port(url)}" if at else body]
    for o in opts:
        k, eq, v = o.partition("=")
        if not eq or k not in _OPENAI_OPTIONS:
            # the value of an unknown option may be a key pasted by mistake: never echoed; nor a bare word
            # that does not look like an option name
            given = f"{k}=..." if eq else o if re.match(r"^[A-Za-z_]{1,20}$", o) else "..."
            raise UsageError(f"{_judge_option()}: unknown option {shown(given)} (one of "
                             f"{', '.join(k + '=' for k in _OPENAI_OPTIONS)})")
        values[k] = v
        if k not in ("key", "name"):
            kept.append(o)
    try:
        temperature = float(values["temperature"]) if "temperature" in values else 0.0
        max_tokens = int(values["max_tokens"]) if "max_tokens" in values else None
    except ValueError:
        raise UsageError(f"{_judge_option()}: temperature must be a number and max_tokens an integer in "
                         f"{shown(_masked(spec))}") from None
    if not math.isfinite(temperature) or temperature < 0:
        raise UsageError(f"{_judge_option()}: temperature must be a finite number >= 0 in {shown(_masked(spec))}")
    if max_tokens is not None and max_tokens < 1:
        raise UsageError(f"{_judge_option()}: max_tokens must be >= 1")
    if "key" in values and not re.match(ENV_NAME, values["key"]):  # also under --dry-run, which starts no judge
        raise UsageError(f"{_judge_option()}: key= must name an environment variable, not hold a key")
    name = values.get("name") or "openai:" + ",".join(kept)
    return JudgeSpec(kind="openai", name=name, model=model, base_url=url or None, key_env=values.get("key") or None,
                     temperature=temperature, max_tokens=max_tokens)
