"""Strict readers and writers. Every error names the file and the line."""
from .textfile import read_input_bytes, display_name
from .qrels import Qrels, read_qrels
from .runs import Run, read_run

__all__ = ["read_input_bytes", "display_name", "Qrels", "read_qrels", "Run", "read_run"]
