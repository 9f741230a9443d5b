"""The judging prompt and the parsing of answers.

A prompt is a template with placeholders replaced literally (no other
brace is special, so JSON examples in a prompt are safe):

``{query}`` query text, ``{doc_a}`` / ``{doc_b}`` the texts shown first and
second, ``{qid}``, ``{docno_a}``, ``{docno_b}`` the identifiers.

The answer is a score in -1..1 as zbench's judges give it: negative = the
first document (A) is more relevant, positive = the second (B), 0 = equal.
:func:`parse_answer` accepts a JSON object with a numeric ``"score"``
(optionally inside a Markdown code fence or surrounded by text) or a bare
number; a reasoning model's ``<think>...</think>`` block is not read. Anything
else, text naming two different scores, or a number outside -1..1, is a failed vote.
"""
from __future__ import annotations

import hashlib
import json
import math
import re
from ..errors import shown

DEFAULT_PROMPT = """You compare two documents for their relevance to a search query.

Query: {query}

Document A:
{doc_a}

Document B:
{doc_b}

Which document better answers the query? Reply with a JSON object {"score": S} and nothing else,
where S is a number from -1 to 1: -1 means Document A is much more relevant, 1 means Document B
is much more relevant, 0 means they are equally relevant; values in between express confidence.
"""

PLACEHOLDERS = ("{query}", "{doc_a}", "{doc_b}", "{qid}", "{docno_a}", "{docno_b}")
_PLACEHOLDER = r"\{(query|doc_a|doc_b|qid|docno_a|docno_b)\}"  # patterns compiled on use (re caches them)


def prompt_hash(template: str) -> str:
    """First 16 hex digits of the SHA-256 of the template (the store's prompt key)."""
    return hashlib.sha256(template.encode("utf-8")).hexdigest()[:16]


def check_template(template: str) -> None:
    """A usable template names the query and both documents."""
    from ..errors import UsageError, option_name

    missing = [p for p in ("{query}", "{doc_a}", "{doc_b}") if p not in template]
    if missing:
        raise UsageError(f"{option_name('prompt')}: the template lacks the placeholder(s) {', '.join(missing)}")


def render(template: str, *, query: str, doc_a: str, doc_b: str, qid: str, docno_a: str, docno_b: str) -> str:
    """Replace every placeholder in one pass (texts are never re-scanned)."""
    from ..io.texts import text_of

    # an id's byte that is not UTF-8 (kept as its surrogate escape) shown to the model as its Windows-1252
    # character, as the texts' (the id itself, stored and written, keeps its bytes)
    values = {"query": query, "doc_a": doc_a, "doc_b": doc_b, "qid": text_of(qid), "docno_a": text_of(docno_a),
              "docno_b": text_of(docno_b)}
    return re.sub(_PLACEHOLDER, lambda m: values[m.group(1)], template)


_SCORE_FIELD = r'"score"\s*:\s*(-?\d+(?:\.\d*)?(?:[eE][-+]?\d+)?)'
_FENCE = r"^```[a-zA-Z]*\s*|\s*```$"
_THINK = r"(?s)<think>.*?(</think>|$)"  # a reasoning model's thoughts (DeepSeek-R1, Qwen3): not its answer


def parse_answer(text: str | None) -> tuple[float | None, str | None]:
    """``(vote, None)`` for a usable answer, ``(None, reason)`` otherwise."""
    if text is not None:
        text = re.sub(_THINK, "", text)
    if text is None or not text.strip():
        return None, "empty answer"
    body = re.sub(_FENCE, "", text.strip()).strip()
    value = None
    try:
        obj = json.loads(body)
    except (ValueError, RecursionError):
        obj = None
    if isinstance(obj, dict) and "score" in obj:
        value = obj["score"]
    elif isinstance(obj, (int, float)) and not isinstance(obj, bool):
        value = obj
    else:
        found = {float(x) for x in re.findall(_SCORE_FIELD, body)}
        if len(found) > 1:  # which one is the answer? the first may be a hypothesis, the last a correction
            return None, "several different scores in the answer"
        if found:
            value = found.pop()
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None, "unparsable answer (expected {\"score\": number in -1..1})"
    v = float(value)
    if math.isnan(v) or not (-1.0 <= v <= 1.0):
        return None, f"score {shown(value)} outside -1..1"
    return v, None
