"""What every real provider needs before its first request: a key (for providers that ask for
one) and its SDK, or one clear message saying everything that is missing; and the client of a
Stainless-made SDK (OpenAI's, Anthropic's) set up the one way every such LLM uses it."""

from __future__ import annotations

import importlib
import os
from types import ModuleType
from typing import Any

from autobyteus_like.errors import LLMError
from autobyteus_like.llm._connection_watch import CONNECT_TIMEOUT_S, client_options

__all__ = ["import_sdk", "prepare", "stainless_client"]


def prepare(provider: str, *, key: str | None, key_variable: str, key_required: bool,
            sdk: str, package: str, extra: str) -> tuple[str | None, ModuleType]:
    """The API key (given, else from ``key_variable``) and the SDK module; if either is missing
    one ``LLMError`` names both (so a new user fixes everything in one go)."""
    resolved = key or os.environ.get(key_variable) or None
    missing: list[str] = []
    if resolved is None and key_required:
        missing.append(f"an API key: set the {key_variable} environment variable "
                       "(or api_key_env / api_key)")
    module: ModuleType | None = None
    try:
        module = importlib.import_module(sdk)
    except ImportError:
        missing.append(f"the {package} package: pip install 'autobyteus-like[{extra}]'")
    if missing or module is None:
        raise LLMError(f"the {provider} provider needs {' and '.join(missing)}",
                       provider=provider)
    return resolved, module


def import_sdk(module: str, package: str, extra: str, provider: str) -> ModuleType:
    """One more module of a provider's SDK, imported now (never at ``import autobyteus_like``)."""
    try:
        return importlib.import_module(module)
    except ImportError:
        raise LLMError(f"the {provider} provider needs the {package} package: "
                       f"pip install 'autobyteus-like[{extra}]'", provider=provider) from None


def stainless_client(sdk: ModuleType, client_class: str, *, api_key: str | None,
                     base_url: str | None, timeout_s: float) -> Any:
    """``sdk.<client_class>`` (``OpenAI``, ``Anthropic``) with no retries of its own (a
    ``ProviderCall`` retries, cancellably), ``timeout_s`` with the connect timeout capped, and
    the HTTP client whose connections a cancel can cut (``connection_watch``)."""
    return getattr(sdk, client_class)(
        api_key=api_key, base_url=base_url, max_retries=0,
        timeout=sdk.Timeout(timeout_s, connect=min(timeout_s, CONNECT_TIMEOUT_S)),
        http_client=sdk.DefaultHttpxClient(**client_options()),
    )
