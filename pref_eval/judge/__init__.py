"""``zelo_judge``: pairwise judgments from an ensemble of LLM (or program) judges.

Modules: :mod:`.prompt` (default prompt, placeholders, answer parsing),
:mod:`.spec` (judge specifications), :mod:`.judges` (OpenAI-compatible and
``cmd:`` judges), :mod:`.store` (the SQLite answer store),
:mod:`.scheduler` (concurrency, rate limit, retries, budget),
:mod:`.run` (pairs or a tournament → requests → votes).
"""
