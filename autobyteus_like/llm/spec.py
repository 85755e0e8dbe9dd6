"""LLMSpec: an LLM described as data (team YAML), turned into an LLM object."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from autobyteus_like.llm.base import LLM
from autobyteus_like.llm.scripted import ScriptedLLM
from autobyteus_like.providers import LLMProvider

__all__ = ["LLMSpec"]


class LLMSpec(BaseModel):
    """``{provider: scripted, responses: [...]}``: a scripted model that runs offline.

    ``imitates`` makes it choose the tool format a real model of that provider would get.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    provider: Literal["scripted"]
    responses: list[str] = Field(default_factory=list)
    chunk_size: int | tuple[int, int] | None = None
    seed: int = 0
    imitates: LLMProvider = LLMProvider.SCRIPTED

    def build(self) -> LLM:
        """The LLM this spec describes."""
        return ScriptedLLM(self.responses, provider=self.imitates, chunk_size=self.chunk_size,
                           seed=self.seed)
