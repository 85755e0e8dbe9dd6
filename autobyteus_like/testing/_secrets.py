"""Secrets an export must not hold, masked by value wherever they appear.

Three kinds: API keys (the values of this process's environment variables named like a key,
token, secret or password: the providers' ``*_API_KEY`` among them), the values of
``Authorization`` headers (and bearer tokens) written anywhere in the session, and the
arguments a tool marks as masked (``masked_arguments``). Each value found is replaced wherever
it appears, in any text (a model that echoes a key, a tool result that prints a header).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Mapping
from typing import Any, TypeVar

__all__ = ["MASK", "mask", "secrets_of"]

MASK = "[REDACTED]"
_SECRET_NAME = re.compile(r"(API_?KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL)", re.I)
_HEADER = re.compile(
    r"(?:proxy-)?authorization[\"']?\s*[:=]\s*[\"']?((?:bearer|basic|token)\s+)?"
    r"([^\s\"',;}]{4,})", re.I)
_BEARER = re.compile(r"\bbearer\s+([A-Za-z0-9._~+/=-]{8,})", re.I)
_SHORTEST = 6
"""Shorter values are not masked (masking ``abc`` would mangle every text)."""

T = TypeVar("T")


def secrets_of(*trees: Any) -> set[str]:
    """The secret values to mask in ``trees``: the environment's keys, every header value and
    bearer token written in them, and the masked arguments of their calls."""
    found = {value for name, value in os.environ.items()
             if _SECRET_NAME.search(name) and len(value.strip()) >= _SHORTEST}
    for tree in trees:
        masked = _masked_arguments(tree)
        for text in _strings(tree):
            for match in _HEADER.finditer(text):
                found.add(match.group(2))
            found.update(match.group(1) for match in _BEARER.finditer(text))
        for arguments in _call_arguments(tree):
            for name in masked:
                value = arguments.get(name)
                if isinstance(value, str):
                    found.add(value)
    return {value for value in found if len(value) >= _SHORTEST and value != MASK}


def mask(tree: T, secrets: set[str]) -> T:
    """``tree`` with every secret replaced by ``[REDACTED]`` in every string (keys too)."""
    ordered = sorted(secrets, key=len, reverse=True)  # a longer secret first

    def masked(value: Any) -> Any:
        if isinstance(value, str):
            for secret in ordered:
                if secret in value:
                    value = value.replace(secret, MASK)
            return value
        if isinstance(value, Mapping):
            return {masked(key): masked(item) for key, item in value.items()}
        if isinstance(value, list | tuple):
            return [masked(item) for item in value]
        return value

    result: T = masked(tree)
    return result


def _strings(tree: Any) -> Iterator[str]:
    if isinstance(tree, str):
        yield tree
    elif isinstance(tree, Mapping):
        for key, value in tree.items():
            yield from _strings(key)
            yield from _strings(value)
    elif isinstance(tree, list | tuple):
        for item in tree:
            yield from _strings(item)


def _masked_arguments(tree: Any) -> set[str]:
    """The argument names any recorded tool definition marks as masked."""
    names: set[str] = set()
    if isinstance(tree, Mapping):
        if isinstance(tree.get("masked_arguments"), list):
            names.update(str(name) for name in tree["masked_arguments"])
        for value in tree.values():
            names |= _masked_arguments(value)
    elif isinstance(tree, list | tuple):
        for item in tree:
            names |= _masked_arguments(item)
    return names


def _call_arguments(tree: Any) -> Iterator[Mapping[str, Any]]:
    """Every mapping of arguments in ``tree`` (a call's ``arguments``, as data or JSON)."""
    if isinstance(tree, Mapping):
        for key, value in tree.items():
            if key in ("arguments", "args") and isinstance(value, Mapping):
                yield value
            elif key in ("arguments", "args") and isinstance(value, str):
                try:
                    import json

                    loaded = json.loads(value)
                except ValueError:
                    loaded = None
                if isinstance(loaded, Mapping):
                    yield loaded
            else:
                yield from _call_arguments(value)
    elif isinstance(tree, list | tuple):
        for item in tree:
            yield from _call_arguments(item)
