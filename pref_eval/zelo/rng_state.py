"""A seeded random stream as JSON, so that a resumed ``zelo_pairs`` state draws what the running one would.

NumPy's default generator (PCG64, :func:`numpy.random.default_rng`) is fully described by its 128-bit
state and increment and a buffered 32-bit half-word; a state file keeps them as
``{"state": HEX, "inc": HEX, "has_uint32": 0 | 1, "uinteger": int}`` (hexadecimal strings: JSON readers
other than Python's lose integers above 2**53). Restoring it continues the stream exactly where it was
saved (O'Neill, "PCG: a family of simple fast space-efficient statistically good algorithms for random
number generation", HMC-CS-2014-0905; NumPy's ``BitGenerator.state``).
"""
from __future__ import annotations

import re
from typing import Any

import numpy as np

_HEX = r"[0-9a-f]{1,32}"  # compiled on use (re's cache)
KEYS = frozenset({"state", "inc", "has_uint32", "uinteger"})


def rng_to_json(rng: np.random.Generator) -> dict[str, Any]:
    """The JSON form of ``rng``'s PCG64 state (see the module docstring)."""
    st = rng.bit_generator.state
    return {"state": format(st["state"]["state"], "x"), "inc": format(st["state"]["inc"], "x"),
            "has_uint32": int(st["has_uint32"]), "uinteger": int(st["uinteger"])}


def rng_problem(obj: Any) -> str | None:
    """What is wrong with a JSON rng state (None: it is one ``rng_to_json`` could have written)."""
    if not isinstance(obj, dict) or set(obj) != KEYS:
        return f"expected an object with the keys {sorted(KEYS)}"
    if not all(isinstance(obj[k], str) and re.fullmatch(_HEX, obj[k]) for k in ("state", "inc")):
        return "expected state and inc as hexadecimal strings of at most 32 digits"
    if int(obj["inc"], 16) % 2 == 0:
        return "expected an odd inc (a PCG64 increment)"
    if obj["has_uint32"] not in (0, 1) or isinstance(obj["has_uint32"], bool):
        return "expected has_uint32 0 or 1"
    u = obj["uinteger"]
    if not isinstance(u, int) or isinstance(u, bool) or not 0 <= u < 2**32:
        return "expected uinteger an integer in [0, 2**32)"
    return None


def rng_from_json(obj: dict[str, Any]) -> np.random.Generator:
    """A generator continuing the stream saved by :func:`rng_to_json` (``obj`` checked by :func:`rng_problem`)."""
    bg = np.random.PCG64()
    bg.state = {"bit_generator": "PCG64", "state": {"state": int(obj["state"], 16), "inc": int(obj["inc"], 16)},
                "has_uint32": obj["has_uint32"], "uinteger": obj["uinteger"]}
    return np.random.Generator(bg)
