"""LLMSpec: an LLM described as data (team YAML), turned into an LLM object."""

from __future__ import annotations

import json
from typing import Any, Literal, TypedDict

from pydantic import BaseModel, ConfigDict, Field, model_validator

from autobyteus_like.llm._base import LLM
from autobyteus_like.llm._fallback import DEFAULT_FALLBACK_ON, FallbackLLM, FallbackReason
from autobyteus_like.llm._messages import NativeToolCall, TokenUsage
from autobyteus_like.llm._providers import LLMProvider
from autobyteus_like.llm._scripted import ScriptedLLM, ScriptedReply

__all__ = ["LLMSpec"]


class _ProviderSettings(TypedDict):
    """The settings every real provider takes, by the same names."""

    base_url: str | None
    api_key_env: str | None
    temperature: float | None
    max_tokens: int | None
    timeout_s: float
    max_retries: int


class ScriptedCallSpec(BaseModel):
    """A native tool call of a scripted reply, as a provider's decoder hands it over: its id,
    the tool's name and the arguments as JSON text (or a mapping, written as JSON)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str | None = None
    name: str
    arguments: str | dict[str, Any] = "{}"

    def call(self) -> NativeToolCall:
        """The call a ``ScriptedLLM`` streams."""
        arguments = self.arguments if isinstance(self.arguments, str) else json.dumps(
            self.arguments)
        return NativeToolCall(self.id, self.name, arguments)


class ScriptedResponseSpec(BaseModel):
    """A scripted reply as a model wrote it: its text, its native calls with their ids, the
    token usage it reports and its finish reason (a recorded reply, exported as a test)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    text: str = ""
    tool_calls: list[ScriptedCallSpec] = Field(default_factory=list)
    input_tokens: int = Field(default=0, ge=0)
    output_tokens: int = Field(default=0, ge=0)
    reasoning_tokens: int | None = Field(default=None, ge=0)
    cached_input_tokens: int | None = Field(default=None, ge=0)
    finish_reason: str | None = None

    def reply(self) -> ScriptedReply:
        """The reply a ``ScriptedLLM`` streams."""
        return ScriptedReply(self.text, tuple(call.call() for call in self.tool_calls),
                             finish_reason=self.finish_reason,
                             usage=TokenUsage(self.input_tokens, self.output_tokens,
                                              self.reasoning_tokens, self.cached_input_tokens))


class LLMSpec(BaseModel):
    """``{provider: scripted, responses: [...]}`` runs offline; ``{provider: openai, model: ...}``
    (or deepseek, mistral, grok, ollama) talks to an OpenAI-compatible server,,
    ``{provider: anthropic, model: ...}`` to Claude and ``{provider: gemini, model: ...}`` to
    Gemini.

    ``imitates`` makes a scripted model choose the tool format a real model of that provider
    would get. Keys come from the environment (``api_key_env``), never from the file.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    provider: Literal[
        "scripted", "openai", "deepseek", "mistral", "grok", "ollama", "vllm", "llamacpp",
        "anthropic", "gemini",
    ]
    responses: list[str | ScriptedResponseSpec] = Field(default_factory=list)
    """A scripted model's replies: text, or ``{text, tool_calls, input_tokens, output_tokens,
    finish_reason}`` to have the reply hold native calls (``{id, name, arguments}``) and report
    token usage (for sums, costs and token limits offline)."""
    chunk_size: int | tuple[int, int] | None = None
    seed: int = 0
    imitates: LLMProvider = LLMProvider.SCRIPTED
    model: str | None = None
    base_url: str | None = None
    api_key_env: str | None = None
    temperature: float | None = None
    max_tokens: int | None = Field(default=None, gt=0)
    timeout_s: float = Field(default=60.0, gt=0, le=86_400)
    """Seconds a request may take (at most a day)."""
    max_retries: int = Field(default=3, ge=0, le=100)
    strict: bool = False
    """OpenAI-compatible providers: declare every tool in OpenAI's strict schema subset (a tool
    whose schema cannot be made strict is a ConfigError when the agent starts)."""
    api: Literal["chat", "responses"] = "chat"
    """OpenAI and compatible servers: Chat Completions, or the Responses API."""
    reasoning_effort: str | None = None
    """Responses API: ``reasoning: {effort: ...}`` for reasoning models."""
    previous_response: bool = False
    """Responses API: send ``previous_response_id`` and only the new items (``store: true``)
    instead of the whole conversation."""
    prompt_cache: bool = True
    """Anthropic: ``cache_control`` breakpoints; OpenAI: a ``prompt_cache_key`` per agent."""
    vision: bool | None = None
    """OpenAI-compatible servers: whether the model takes images (default: all but DeepSeek)."""
    fallback: list[LLMSpec] = Field(default_factory=list)
    """Models tried in order when this one fails before answering (``FallbackLLM``)."""
    fallback_on: list[FallbackReason] = Field(default_factory=lambda: list(DEFAULT_FALLBACK_ON))
    """Which failures move on to the next model."""

    @model_validator(mode="after")
    def _model_for_real_providers(self) -> LLMSpec:
        if self.provider != "scripted" and not self.model:
            raise ValueError(f"provider {self.provider!r} needs a model name (model: ...)")
        if self.strict and self.provider in ("scripted", "anthropic", "gemini"):
            raise ValueError(f"strict is OpenAI's schema mode; provider {self.provider!r} "
                             "has none")
        if self.api == "responses" and self.provider in ("anthropic", "gemini", "scripted"):
            raise ValueError(f"api: responses is for OpenAI-compatible providers, not "
                             f"{self.provider!r}")
        return self

    @classmethod
    def from_list(cls, models: list[Any]) -> LLMSpec:
        """``llm: [{...}, {...}]``: the first model, with the others as its fallback."""
        if not models:
            raise ValueError("llm: an empty list names no model")
        first = models[0]
        if isinstance(first, LLMSpec):
            first = first.model_dump(exclude_unset=True)
        if not isinstance(first, dict):
            raise ValueError("llm: each model in the list must be a mapping like "
                             "{provider: ..., model: ...}")
        if first.get("fallback"):
            raise ValueError("llm: give fallback models either as the list or as fallback:, "
                             "not both")
        return cls.model_validate({**first, "fallback": models[1:]})

    @property
    def offline(self) -> bool:
        """Whether it (and every fallback) is scripted: nothing to wait for to build it."""
        return self.provider == "scripted" and all(spec.offline for spec in self.fallback)

    def build(self) -> LLM:
        """The LLM this spec describes (a ``FallbackLLM`` when it has fallback models)."""
        if self.fallback:
            models = [self.model_copy(update={"fallback": []}).build()]
            models += [spec.build() for spec in self.fallback]
            return FallbackLLM(models, fallback_on=self.fallback_on)
        if self.provider == "scripted":
            return ScriptedLLM([r if isinstance(r, str) else r.reply() for r in self.responses],
                               provider=self.imitates,
                               chunk_size=self.chunk_size, seed=self.seed)
        assert self.model is not None
        settings: _ProviderSettings = {
            "base_url": self.base_url, "api_key_env": self.api_key_env,
            "temperature": self.temperature, "max_tokens": self.max_tokens,
            "timeout_s": self.timeout_s, "max_retries": self.max_retries,
        }
        if self.provider == "gemini":
            from autobyteus_like.llm._gemini import GeminiLLM

            return GeminiLLM(self.model, **settings)
        if self.provider == "anthropic":
            from autobyteus_like.llm._anthropic import AnthropicLLM

            return AnthropicLLM(self.model, prompt_cache=self.prompt_cache, **settings)
        if self.api == "responses":
            from autobyteus_like.llm._openai_responses import OpenAIResponsesLLM

            return OpenAIResponsesLLM(self.model, provider=self.provider,
                                      reasoning_effort=self.reasoning_effort,
                                      previous_response=self.previous_response,
                                      prompt_cache=self.prompt_cache, vision=self.vision,
                                      **settings)
        from autobyteus_like.llm._openai import OpenAILLM

        return OpenAILLM(self.model, provider=self.provider, strict=self.strict,
                         prompt_cache=self.prompt_cache, vision=self.vision, **settings)
