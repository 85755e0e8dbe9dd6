"""Limits on what a parser accepts from a model, so that no text can exhaust the stack."""

from __future__ import annotations

__all__ = ["MAX_NESTING_DEPTH"]

MAX_NESTING_DEPTH = 100
"""The deepest nesting a tool call may have: arrays and objects in one JSON value (counted from
its outermost bracket, so a call's own wrapper objects count), or ``<arg>`` and ``<item>``
elements inside one XML call. Deeper is a parse error for that call only.

Python's ``json`` and everything recursive after parsing (coercion, validation, invocation ids,
result rendering) fail with ``RecursionError`` near 1,000 levels, less on a busy thread; no real
argument comes close to 100.
"""
