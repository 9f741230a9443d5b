"""Strict readers and writers. Every error names the file and the line.

The names below are loaded on first use (PEP 562), so that a command importing one reader
(e.g. ``pref_eval.io.judgments``) does not also load the qrels and run readers (start-up, issue #13).
"""
from __future__ import annotations

import importlib

_EXPORTS = {"read_input_bytes": "textfile", "display_name": "textfile", "Qrels": "qrels", "read_qrels": "qrels",
            "Run": "runs", "read_run": "runs"}

__all__ = ["read_input_bytes", "display_name", "Qrels", "read_qrels", "Run", "read_run"]


def __getattr__(name: str):
    if name in _EXPORTS:
        return getattr(importlib.import_module(f".{_EXPORTS[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
