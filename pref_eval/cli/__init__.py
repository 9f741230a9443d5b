"""Thin click command lines. Each module exposes ``main`` (console script)."""
