"""What the two OpenAI APIs' LLMs (Chat Completions: ``OpenAILLM``; Responses:
``OpenAIResponsesLLM``) share: each OpenAI-compatible provider's defaults, and the connection
made from them (the provider, its base URL and key, whether it takes images, the SDK's client
and the retry policy)."""

from __future__ import annotations

from autobyteus_like.llm._base import LLM
from autobyteus_like.llm._provider_setup import prepare, stainless_client
from autobyteus_like.llm._providers import LLMProvider
from autobyteus_like.llm._retry_policy import RetryPolicy

__all__ = ["NO_VISION", "OPENAI_COMPATIBLE", "OpenAIClientLLM"]

OPENAI_COMPATIBLE: dict[LLMProvider, tuple[str | None, str, bool]] = {
    LLMProvider.OPENAI: (None, "OPENAI_API_KEY", True),
    LLMProvider.DEEPSEEK: ("https://api.deepseek.com/v1", "DEEPSEEK_API_KEY", True),
    LLMProvider.MISTRAL: ("https://api.mistral.ai/v1", "MISTRAL_API_KEY", True),
    LLMProvider.GROK: ("https://api.x.ai/v1", "XAI_API_KEY", True),
    LLMProvider.OLLAMA: ("http://localhost:11434/v1", "OLLAMA_API_KEY", False),
    LLMProvider.VLLM: ("http://localhost:8000/v1", "VLLM_API_KEY", False),
    LLMProvider.LLAMACPP: ("http://localhost:8080/v1", "LLAMACPP_API_KEY", False),
}
"""Each provider's default base URL (None: the SDK's), API key variable, and whether it needs a
key. Servers people run themselves (Ollama, vLLM, llama.cpp) need none wherever they run; a key
set in the variable is still sent."""
NO_VISION = frozenset({LLMProvider.DEEPSEEK})
"""Providers whose API takes no images (``vision=True`` overrides, for a model that does)."""


class OpenAIClientLLM(LLM):
    """An LLM on the OpenAI SDK's client, for ``provider`` or any compatible server at
    ``base_url``; the self-hosted providers (``ollama``, ``vllm``, ``llamacpp``) need no key,
    local or remote."""

    def __init__(
        self,
        model: str,
        *,
        provider: LLMProvider | str,
        base_url: str | None,
        api_key: str | None,
        api_key_env: str | None,
        timeout_s: float,
        max_retries: int,
        vision: bool | None,
    ) -> None:
        self.provider = LLMProvider.parse(provider)
        default_url, default_env, key_required = OPENAI_COMPATIBLE.get(
            self.provider, (None, "OPENAI_API_KEY", True))
        self.model = model
        self.base_url = base_url or default_url
        self.vision = vision if vision is not None else self.provider not in NO_VISION
        key, openai = prepare(self.provider.value, key=api_key,
                              key_variable=api_key_env or default_env,
                              key_required=key_required, sdk="openai", package="openai",
                              extra="openai")
        self._sdk = openai
        self._retry = RetryPolicy(max_retries)
        self._client = stainless_client(
            openai, "OpenAI", api_key=key or "not-needed",  # self-hosted servers ignore it
            base_url=self.base_url, timeout_s=timeout_s)
