"""Reader of ``zelo_pairs`` state files (JSON; the strategy it declares: Clarke's tournament or the
adaptive strategy). The parsing and the schema check are the strategies' own
(:func:`pref_eval.zelo.pair_state.parse_state`, :mod:`pref_eval.zelo.state_schema`); errors name the
file and the JSON path.
"""
from __future__ import annotations

from typing import Any

from .textfile import display_name, read_input_text


def read_pairs_state(path: str) -> Any:
    """Read and validate a state file: the strategy object it declares."""
    from ..zelo.pair_state import parse_state

    return parse_state(read_input_text(path, what="zelo_pairs state"), display_name(path))
