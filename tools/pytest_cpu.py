"""A pytest plugin: the CPU seconds of each test (the process and the children it waited for), one TSV per process.

The suite's time on a shared machine is measured in CPU seconds, not wall (NOTES.md, session 22, s31): the
wall of a test grows with the machine's load, its CPU hardly. ``getrusage`` of the process and of its
waited-for children around each test's setup, call and teardown (a module fixture counts for the test that
builds it; a subprocess for the test that waits for it)::

    PREF_EVAL_CPU_OUT=/tmp/cpu PYTHONPATH=$PWD:$PWD/tools pytest -q -n 2 -p pytest_cpu
    sort -rn /tmp/cpu/*.tsv | head -40

writes ``/tmp/cpu/cpu_<worker>.tsv`` (``seconds<TAB>node id``, appended); ``LONG_FIRST`` in tests/conftest.py
is ordered by these figures.
"""
from __future__ import annotations

import os
import resource
from collections.abc import Generator
from typing import Any

import pytest


def _cpu() -> float:
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Generator[None, Any, None]:
    out = os.environ.get("PREF_EVAL_CPU_OUT")
    start = _cpu()
    yield
    if out:
        os.makedirs(out, exist_ok=True)
        name = os.path.join(out, f"cpu_{os.environ.get('PYTEST_XDIST_WORKER', 'main')}.tsv")
        with open(name, "a", encoding="utf-8") as fh:
            fh.write(f"{_cpu() - start:.3f}\t{item.nodeid}\n")
