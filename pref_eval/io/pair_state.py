"""Reading a ``zelo_pairs`` state file (tournament or adaptive): the text and the name for messages.

The document is validated and rebuilt by :func:`pref_eval.zelo.pair_state.parse_state`
(which strategy, its schema; an adaptive state resumes from what it stores, a format-1 one is replayed once).
"""
from __future__ import annotations

from .textfile import display_name, read_input_text


def read_state_text(path: str) -> tuple[str, str]:
    """``(text, display name)`` of a state file (gzip, BOM, CRLF as every input; errors name the file)."""
    return read_input_text(path, what="zelo_pairs state"), display_name(path)
