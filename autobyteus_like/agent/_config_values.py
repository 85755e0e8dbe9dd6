"""How a config's data becomes values: a described model's ``LLMSpec`` (validated once per
description and shared), the final answer's ``OutputSpec``, and a type named ``module:Name``."""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, get_origin

from autobyteus_like.llm._spec import LLMSpec

if TYPE_CHECKING:
    from autobyteus_like.output._spec import OutputSpec

__all__ = ["import_type", "llm_spec", "output_spec_of"]

_SPECS: dict[tuple[tuple[str, type, Any], ...], LLMSpec] = {}
_SPECS_KEPT = 64


def llm_spec(data: dict[str, Any]) -> LLMSpec:
    """``data`` as an ``LLMSpec``, validated once for each distinct description of scalars (a
    spec is frozen: the configs of one model share it; a list in it is validated each time)."""
    try:
        key = tuple((name, type(value), value) for name, value in data.items())
        found = _SPECS.get(key)
    except TypeError:  # unhashable: responses, headers
        return LLMSpec.model_validate(data)
    if found is None:
        if len(_SPECS) >= _SPECS_KEPT:
            _SPECS.clear()
        found = _SPECS[key] = LLMSpec.model_validate(data)
    return found


def output_spec_of(config: Any) -> OutputSpec:
    """An ``AgentConfig``'s ``output_type`` or ``output_schema`` with its validators."""
    from autobyteus_like.output._spec import OutputSpec

    return OutputSpec(config.output_type, schema=config.output_schema,
                      validators=config.output_validators)


def import_type(reference: str, folders: Sequence[Path] = ()) -> Any:
    """``module:Name`` (or ``module.Name``) as the type it names, the module looked for in the
    current folder, then in ``folders`` (the team file's), then on the Python path. Importing
    the module runs it, as importing a tools file does: name only modules you trust."""
    import importlib
    import os
    import sys

    module, colon, name = reference.partition(":")
    if not colon:
        module, _, name = reference.rpartition(".")
    if not module or not name:
        raise ValueError(f"write the type as 'module:Name', got {reference!r}")
    places = list(dict.fromkeys([os.getcwd(), *(str(folder) for folder in folders)]))
    added = [place for place in places if place not in sys.path]
    sys.path[:0] = added
    try:
        found = importlib.import_module(module)
    except ImportError as exc:
        raise ValueError(f"cannot import {module!r} for {reference!r}: {exc} (looked in "
                         f"{', '.join(places)} and on the Python path)") from None
    finally:
        for place in added:
            with contextlib.suppress(ValueError):
                sys.path.remove(place)
    for part in name.split("."):
        if not hasattr(found, part):
            raise ValueError(f"{module!r} has no {name!r}")
        found = getattr(found, part)
    if not isinstance(found, type) and get_origin(found) is None:
        raise ValueError(f"{reference!r} is a {type(found).__name__}, not a type")
    return found
