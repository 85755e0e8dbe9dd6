"""What every real provider needs before its first request: a key and its SDK, or one clear
message saying what to set or install."""

from __future__ import annotations

import importlib
import os
from types import ModuleType

from autobyteus_like.errors import LLMError

__all__ = ["api_key", "import_sdk"]


def api_key(provider: str, given: str | None, variable: str, *, optional: bool = False
            ) -> str | None:
    """The key passed in, else the environment's; missing (and not optional) is an error."""
    key = given or os.environ.get(variable)
    if not key and not optional:
        raise LLMError(f"no API key for {provider}: set the {variable} environment variable "
                       "(or api_key_env / api_key)")
    return key


def import_sdk(module: str, package: str, extra: str, provider: str) -> ModuleType:
    """The provider's SDK module, imported now (never at ``import autobyteus_like``)."""
    try:
        return importlib.import_module(module)
    except ImportError:
        raise LLMError(f"the {provider} provider needs the {package} package: "
                       f"pip install 'autobyteus-like[{extra}]'") from None
