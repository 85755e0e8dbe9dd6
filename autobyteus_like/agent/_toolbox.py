"""What an agent teaches its model: its tools (the config's names resolved against the tools and
tool sources it was given), its format, and its system prompt, rendered when first read and
again after the tools change (``_per_config.config_prompt``: shared by the agents of one
config with the same tools)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from autobyteus_like.agent._per_config import Prompt, config_format, config_prompt
from autobyteus_like.tools._registry import ToolLike, ToolRegistry, ToolSource, split_tool_sources

if TYPE_CHECKING:
    from autobyteus_like.agent._config import AgentConfig
    from autobyteus_like.formats import FormatRegistry, ToolFormat
    from autobyteus_like.tools._definition import ToolDefinition

__all__ = ["Toolbox"]


class Toolbox:
    """An agent's ``tools``, ``format`` and system prompt (``prompt``, ``demonstration``)."""

    __slots__ = ("_fetched", "_output_tool", "_prompt", "config", "format", "named", "sources",
                 "tools")

    def __init__(self, config: AgentConfig,
                 tools: ToolRegistry | Iterable[ToolLike | ToolSource] | None,
                 formats: FormatRegistry | None, output_tool: ToolDefinition | None) -> None:
        self.config = config
        self.named, self.sources = split_tool_sources(tools)
        self.format: ToolFormat = config_format(config, formats)
        self._output_tool = output_tool  # ``final_result``, with ``output_mode: tool``
        self._fetched: str | None = None  # ``config.prompt``'s text, from its MCP server
        self._prompt: Prompt | None = None
        self.tools = self.resolved(pending=[source.namespace for source in self.sources])

    def resolved(self, pending: Iterable[str] = ()) -> ToolRegistry:
        """The agent's tools as its sources' tools are now (a name under a namespace in
        ``pending``, a source not started yet, may match nothing)."""
        named = self.named
        if self.sources:
            named = ToolRegistry(named)
            for source in self.sources:
                for definition in source.tools():
                    named.add(definition)  # a name given twice is an error, not a choice
        tools = self.config.tool_registry(named, pending=frozenset(pending))
        if self._output_tool is not None:
            tools.add(self._output_tool)
        return tools

    def take(self, tools: ToolRegistry) -> None:
        """Teach ``tools`` from now on (the prompt is rendered again when next read)."""
        self.tools, self._prompt = tools, None

    def refreshed(self) -> tuple[ToolRegistry, str]:
        """The sources' tools as they are now and the prompt teaching them, taken only when
        both could be made (else the error, the toolbox as it was)."""
        tools = self.resolved(pending=[source.namespace for source in self.sources])
        prompted = self._prompted(tools)
        self.tools, self._prompt = tools, prompted
        return tools, prompted[0]

    @property
    def prompt(self) -> str:
        """The system prompt, the tools taught in the format."""
        prompted = self._prompt
        if prompted is None:
            prompted = self._prompt = self._prompted(self.tools)
        return prompted[0]

    @prompt.setter
    def prompt(self, text: str) -> None:
        self._prompt = (text, self.demonstration)

    @property
    def demonstration(self) -> tuple[str, str] | None:
        """The compact manifest's example exchange (None under the full manifest)."""
        prompted = self._prompt
        if prompted is None:
            prompted = self._prompt = self._prompted(self.tools)
        return prompted[1]

    def _prompted(self, tools: ToolRegistry) -> Prompt:
        config = self.config
        if config.prompt is not None:  # an MCP server's, fetched once per agent
            fetched = self._fetched
            if fetched is None:
                fetched = self._fetched = config.prompt.text(self.sources)
            config = config.model_copy(update={"system_prompt": f"{fetched}\n\n{{{{tools}}}}",
                                               "prompt": None})
        return config_prompt(config, tools, self.format.formatter)
