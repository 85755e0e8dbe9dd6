"""What a response cost: a ``prices:`` table of one's own first (local or private models, or
overrides), then the maintained ``genai-prices`` library by provider and model. A price that
neither knows is unknown (None), never 0.

``genai-prices`` comes with each provider extra (``[openai]``, ``[anthropic]``, ``[gemini]``):
it is only needed when a real provider is, and is imported at the first priced response.
"""

from __future__ import annotations

import threading
from decimal import Decimal
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, RootModel

from autobyteus_like.llm._base import LLM

__all__ = ["ModelPrice", "PriceTable", "Pricing", "model_name"]

_MILLION = Decimal(1_000_000)
_PerMTok = Annotated[Decimal, Field(ge=0, allow_inf_nan=False)]

# Our provider names -> genai-prices provider ids; local servers have no list price.
_LIBRARY_PROVIDER = {"openai": "openai", "anthropic": "anthropic", "gemini": "google",
                     "deepseek": "deepseek", "mistral": "mistral", "grok": "x-ai"}
_OPENAI_URL = "https://api.openai.com/v1"


class ModelPrice(BaseModel):
    """US dollars per million tokens. Cached input defaults to the input price."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    input_per_mtok: _PerMTok
    output_per_mtok: _PerMTok
    cached_input_per_mtok: _PerMTok | None = None

    def cost(self, input_tokens: int, output_tokens: int, cached: int) -> Decimal:
        cached = min(cached, input_tokens)
        cached_price = (self.input_per_mtok if self.cached_input_per_mtok is None
                        else self.cached_input_per_mtok)
        return ((input_tokens - cached) * self.input_per_mtok + cached * cached_price
                + output_tokens * self.output_per_mtok) / _MILLION


class PriceTable(RootModel[dict[str, ModelPrice]]):
    """``prices:`` in YAML: ``provider/model`` or ``model`` -> ``ModelPrice``."""

    root: dict[str, ModelPrice] = Field(default_factory=dict)

    def find(self, provider: str, model: str) -> ModelPrice | None:
        return self.root.get(f"{provider}/{model}") or self.root.get(model)

    def merged_over(self, base: PriceTable) -> PriceTable:
        """This table's entries over ``base``'s (a member's over its team's)."""
        return base if not self.root else PriceTable({**base.root, **self.root})


def model_name(llm: LLM) -> str:
    """The model an LLM object talks to (the provider's name for a scripted one)."""
    model = getattr(llm, "model", None)
    return model if isinstance(model, str) and model else llm.provider.value


class Pricing:
    """Prices for one agent's LLM; lookups the library cannot answer are remembered."""

    def __init__(self, table: PriceTable, llm: LLM) -> None:
        self.provider = llm.provider.value
        self.model = model_name(llm)
        self.label = f"{self.provider}/{self.model}"
        self._table = table
        self._llm = llm
        self._others: dict[tuple[str, str], Pricing] = {}
        self._own = table.find(self.provider, self.model)
        base_url = getattr(llm, "base_url", None)
        self._api_url = (base_url if isinstance(base_url, str)
                         and base_url.rstrip("/") != _OPENAI_URL else None)
        self._library_knows: bool | None = None if self.provider in _LIBRARY_PROVIDER else False
        self._lock = threading.Lock()

    def of(self, answered_by: tuple[str, str] | None) -> Pricing:
        """The pricing of the model that answered: a fallback model's own, by its
        ``(provider, model)``, else this one."""
        if answered_by is None or answered_by == (self.provider, self.model):
            return self
        found = self._others.get(answered_by)
        if found is None:
            models = getattr(self._llm, "models", ())
            llm = next((m for m in models if (m.provider.value, model_name(m)) == answered_by),
                       None)
            found = self._others[answered_by] = (
                Pricing(self._table, llm) if llm is not None else self)
        return found

    def cost(self, input_tokens: int, output_tokens: int, cached: int) -> Decimal | None:
        """The cost of one response, or None when no price is known."""
        if self._own is not None:
            return self._own.cost(input_tokens, output_tokens, cached)
        if self._library_knows is False:
            return None
        price = _library_price(self.provider, self.model, self._api_url, input_tokens,
                               output_tokens, cached)
        with self._lock:
            self._library_knows = price is not None
        return price


def _library_price(provider: str, model: str, api_url: str | None, input_tokens: int,
                   output_tokens: int, cached: int) -> Decimal | None:
    try:
        from genai_prices import Usage, calc_price
    except ImportError:  # no provider extra installed: no list prices
        return None
    usage = Usage(input_tokens=input_tokens, output_tokens=output_tokens,
                  cache_read_tokens=cached or None)
    where: dict[str, Any] = ({"provider_api_url": api_url} if api_url
                             else {"provider_id": _LIBRARY_PROVIDER[provider]})
    try:
        return Decimal(calc_price(usage, model, **where).total_price)
    except LookupError:
        return None
