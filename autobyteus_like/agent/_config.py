"""AgentConfig: everything that defines one agent, validated with clear messages."""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from fnmatch import fnmatchcase
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    ConfigDict,
    Field,
    ValidationInfo,
    field_validator,
    model_validator,
)

from autobyteus_like._config_problems import ConfigModel
from autobyteus_like.agent._config_entries import carry, shared
from autobyteus_like.agent._config_values import import_type, llm_spec, output_spec_of
from autobyteus_like.agent._member_llm import AUTO_FORMAT, member_llm, native_by_default
from autobyteus_like.agent._prompt_ref import MCPPromptRef, check_prompt_data
from autobyteus_like.errors import ToolDeclarationError, UnknownToolError
from autobyteus_like.formats import ToolCallFormat, format_for_provider
from autobyteus_like.history._handover import check_handoff_history
from autobyteus_like.history._messages import HistoryMessage
from autobyteus_like.hooks._protocol import AgentHooks
from autobyteus_like.llm._base import LLM
from autobyteus_like.llm._fallback import FallbackLLM
from autobyteus_like.llm._remote_a2a import A2AMember, RemoteA2AAgent
from autobyteus_like.llm._spec import LLMSpec
from autobyteus_like.tools._call_rules import CallRules, ToolChoice
from autobyteus_like.tools._definition import ToolDefinition
from autobyteus_like.tools._handoff import HandoffEntry
from autobyteus_like.tools._registry import ToolRegistry, as_definition
from autobyteus_like.tools._sandbox import SandboxPolicy, default_sandbox
from autobyteus_like.usage._limits import UsageLimits
from autobyteus_like.usage._prices import PriceTable

if TYPE_CHECKING:
    from autobyteus_like.output._spec import OutputSpec

__all__ = ["AgentConfig"]


def _tool_or_name(item: Any) -> Any:
    """A tool's name, or a tool (as its definition); anything else is a located error."""
    if isinstance(item, str):
        return item
    try:
        return as_definition(item)
    except ToolDeclarationError as exc:
        raise ValueError(f"expected a tool or a tool's name, got {type(item).__name__} "
                         f"({exc})") from None


def _a_hook(item: Any) -> Any:
    """An ``AgentHooks`` (anything else is a located error)."""
    if not isinstance(item, AgentHooks):
        raise ValueError(f"expected an AgentHooks (subclass it), got {type(item).__name__}")
    return item


DEFAULT_EMPTY_REPLY_NUDGE = ("Your reply was empty: it had no text and no tool call. Answer "
                             "the request, or call a tool.")
"""What the model is told after an empty reply (``AgentConfig.empty_reply_nudge``)."""

TYPE_FOLDERS = "type_folders"
"""The validation context's key for the folders an ``output_type: "module:Name"`` is looked
for in besides the current one (``TeamConfig.from_yaml``: the team file's)."""

class AgentConfig(ConfigModel):
    """One agent: its LLM, tools, prompt and policies.

    ``tools`` holds definitions (``@tool`` functions, ``BaseTool``s) or names, resolved
    against the registry given to ``Agent``/``AgentTeam``. ``llm`` is an LLM object, or its
    description as data (``{"provider": "openai", "model": ...}``), which stays data (an
    ``LLMSpec``: no key, SDK or network needed) until the agent starts; a scripted LLM is built
    at once, since it needs none of them. The tool format follows one precedence
    (``member_llm.format_choice``, docs/models.md): ``tool_format`` if given (or XML when
    ``use_xml_tool_format``), else ``auto`` for a provider that calls tools natively (the
    stored eval verdict > what ``auto`` learned on that server > native), else the
    provider's text format (a scripted LLM keeps the one of the provider it imitates).
    """

    model_config = ConfigDict(arbitrary_types_allowed=True, frozen=True, extra="forbid")

    name: str = Field(min_length=1, pattern=r"^[A-Za-z0-9_.\-]+$")
    role: str = ""
    ask_conversation: Literal["fresh", "running"] = "fresh"
    """When a teammate asks this member as a tool (``ask:NAME``, docs/teams.md): a fresh
    conversation per call (calls run at once), or its running one (calls queue, in order)."""
    system_prompt: str = "You are a helpful assistant.\n\n{{tools}}"
    llm: LLM | LLMSpec
    prompt: MCPPromptRef | None = None
    """The system prompt from an MCP server's prompt, instead of ``system_prompt``
    (``{server, name, arguments}``; the tools are taught after it; docs/mcp.md)."""
    a2a: A2AMember | None = None
    """A remote A2A agent as this member's model, instead of ``llm`` (``{url, token_env,
    timeout_s}``; docs/a2a.md): ``llm`` becomes its ``RemoteA2AAgent``."""
    tools: list[Annotated[Any, AfterValidator(_tool_or_name)]] = Field(default_factory=list)
    tool_format: str | None = None
    """A format's name, or ``auto``: native calls where the provider and server handle them,
    else a text format (XML, then JSON), chosen for the rest of the agent's life
    (``agent.format_adapting``). None: ``auto`` where the provider calls tools natively,
    else the provider's text format."""
    use_xml_tool_format: bool = False
    manifest: Literal["full", "compact"] = "full"
    """How a text format teaches the tools: ``full`` (rules, each schema, an example), or
    ``compact`` for small models: one line per tool and, before the conversation, one
    exchange whose reply calls a tool in the format (``formatters.manifest.demonstration``)."""
    tool_choice: ToolChoice | None = None
    """``auto | required | none | {tool: NAME}``: whether each reply may, must or must not
    call a tool (or must call that one). Native calls send it to the provider (``auto`` by
    default); text formats teach it and enforce it (``parsers.call_policy``)."""
    parallel_tool_calls: bool | None = None
    """False: one call per reply (native: the provider's switch; text: the manifest says so
    and further calls get an error result). None: the provider's default."""
    auto_execute_tools: bool = True
    """Whether calls to unmarked tools run unasked. A tool marked ``requires_approval`` or
    ``dangerous`` waits for approve()/deny() whatever this says (``approval_policy``)."""
    approval_policy: Literal["all", "marked", "auto_approve_marked"] = "all"
    """With ``auto_execute_tools=False``: ``all`` asks for every call, ``marked`` only for
    marked tools. ``auto_approve_marked`` runs tools marked ``requires_approval`` unasked (the
    only way to waive the mark); ``dangerous`` tools always wait (``tools.waits_for_approval``,
    docs/approvals.md)."""
    tool_execution: Literal["parallel", "sequential"] | None = None
    """How a response's calls run: all at once, or one after another. By default the
    ``execute`` format runs its batch in order, as its protocol says (seed 000), and every
    other format runs calls in parallel."""
    max_iterations: int = Field(default=20, ge=1)
    """LLM round trips allowed per user message."""
    max_parallel_tools: int = Field(default=8, ge=1)
    tool_timeout_s: float | None = Field(default=120.0, gt=0)
    """Timeout for tools that do not declare their own ``timeout_s``; None waits forever."""
    max_result_chars: int = Field(default=100_000, ge=1)
    """Tool results longer than this (as text, JSON for structured ones) are cut, with a note
    telling the LLM how long they were; a tool's own ``max_result_chars`` wins."""
    require_why: bool = False
    """Reject calls without a one-sentence ``why`` (MISSING_WHY), and say so in the prompt."""
    handlers: Mapping[type, Any] = Field(default_factory=dict)
    """Extra or replacement event handlers, by event type."""
    hooks: tuple[Annotated[Any, AfterValidator(_a_hook)], ...] = ()
    """``AgentHooks`` of one's own, called at every step of every turn after the library's
    (the session writer, the usage meter, the spans): to watch, check or persist a turn. A
    tuple, checked once: the hooks are fixed when the config is made (one is not added to a
    running agent; a new config with it starts the next agent)."""
    sandbox: SandboxPolicy = Field(default_factory=default_sandbox)
    """Where tools may touch files and how much they may read, write, print and run."""
    tool_sandboxes: dict[str, SandboxPolicy] = Field(default_factory=dict)
    """Per-tool overrides of ``sandbox``, by tool name."""
    middleware: list[Any] = Field(default_factory=list)
    """Functions ``mw(call, next)`` wrapped around every tool execution, outermost first."""
    session_log: Path | None = None
    """Append a record of every tool call and result here (redacted like events)."""
    session_log_format: Literal["markdown", "jsonl"] = "markdown"
    limits: UsageLimits | None = None
    """Usage limits of each run of this agent (``max_tool_calls`` ...); crossing one ends the
    run with ``UsageLimitExceededError`` (in a team: the team's run)."""
    prices: PriceTable = Field(default_factory=PriceTable)
    """Prices of models of one's own (``provider/model`` or ``model`` -> per million tokens),
    over the price library's (and over the team's ``prices``)."""

    output_type: Any = None
    """The type of the final answer (a pydantic model, dataclass, TypedDict, ``list[...]``, a
    scalar; in YAML ``"module:Name"``): ``run`` returns one. The model gives it by calling
    the ``final_result`` tool, taught in the agent's format."""
    output_schema: dict[str, Any] | None = None
    """The final answer's JSON schema, instead of ``output_type``: ``run`` returns the JSON
    value (validated with jsonschema, the ``mcp`` extra)."""
    output_mode: Literal["tool", "provider"] = "tool"
    """How the model gives the answer: by calling ``final_result`` (every format), or as
    JSON text under the provider's own structured output (OpenAI ``response_format``
    json_schema, Gemini's response schema; native tool format only)."""
    empty_reply_nudge: str = Field(default=DEFAULT_EMPTY_REPLY_NUDGE, min_length=1)
    """What the model is told after a reply with no text and no call; it is asked again once,
    and a second empty reply ends the turn with an error saying the model returned nothing."""
    output_retries: int = Field(default=2, ge=0)
    """Wrong answers the model may correct in a turn; one more is ``OutputValidationError``."""
    output_validators: list[Callable[[Any], Any]] = Field(default_factory=list)
    """``fn(value)`` run on each answer that fits the type: raise ``ModelRetry("why")`` to
    send it back, return a value to replace it."""
    history: list[HistoryMessage] | None = None
    """The conversation the agent starts with (``agent.history`` of another agent, or
    ``history_from_json``), replayed in this agent's format; a session that already
    holds a conversation goes on from that instead."""
    history_processors: list[Callable[..., Any]] = Field(default_factory=list)
    """Functions over the message list run before each request (``keep_last_turns``,
    ``token_budget``, ``summarize_older``): they shape what is sent, never what is kept."""
    # -- handoffs (issue 37; docs/handoffs.md) --
    handoffs: list[str | HandoffEntry] = Field(default_factory=list)
    """Members of its team this member may hand the conversation over to, each taught as a
    ``transfer_to_<member>`` tool (the team checks the names): a name, or a mapping
    ``{to: billing, requires_approval: true}`` for a handoff that waits for approval."""
    handoff_history: Annotated[str, AfterValidator(check_handoff_history)] = "all"
    """What of the conversation this member is given when one is handed over to it: ``all``,
    ``user`` (only the user's messages), ``last:N`` (the last N turns) or ``summary`` (a
    summary the caller's model makes; the whole conversation if that fails)."""

    @field_validator("output_type", mode="before")
    @classmethod
    def _output_type_by_name(cls, value: Any, info: ValidationInfo) -> Any:
        if isinstance(value, str):  # looked for where --tools looks, and beside the team file
            context = info.context if isinstance(info.context, dict) else {}
            return import_type(value, context.get(TYPE_FOLDERS, ()))
        return value

    @field_validator("history")
    @classmethod
    def _whole_history(cls, value: list[HistoryMessage] | None) -> list[HistoryMessage] | None:
        from autobyteus_like.history._replay import history_problems

        problems = history_problems(value or [])
        if problems:
            raise ValueError("; ".join(problems))
        return value

    @model_validator(mode="after")
    def _one_output(self) -> AgentConfig:
        if self.output_type is not None and self.output_schema is not None:
            raise ValueError("give output_type or output_schema, not both")
        if self.output_type is not None or self.output_schema is not None:
            try:
                self.output_spec()  # made now, kept with the config
            except Exception as exc:  # a type pydantic cannot describe, a bad schema
                raise ValueError(f"output_type: {exc}") from None
        return self

    def __copy__(self) -> AgentConfig:  # ``model_copy``: the answer's spec goes with the copy
        copied = super().__copy__()
        carry(self, copied, "output")
        return copied

    def output_spec(self) -> OutputSpec | None:
        """The final answer's type and its ``final_result`` tool (None: a text answer), made
        once per config (no private attribute: a config without one is built faster)."""
        if self.output_type is None and self.output_schema is None:
            return None
        return shared(self, "output", output_spec_of)

    def sandbox_for(self, tool_name: str) -> SandboxPolicy:
        """The sandbox that applies to one tool."""
        return self.tool_sandboxes.get(tool_name, self.sandbox)

    @model_validator(mode="before")
    @classmethod
    def _a2a_member(cls, data: Any) -> Any:
        return check_prompt_data(A2AMember.into_member(data))

    @field_validator("llm", mode="before")
    @classmethod
    def _llm_from_data(cls, value: Any) -> Any:
        if isinstance(value, list) and value and all(isinstance(v, LLM) for v in value):
            return FallbackLLM(value)  # a list of models: each a fallback for the one before
        if isinstance(value, list):
            value = LLMSpec.from_list(value)
        if isinstance(value, dict):
            value = llm_spec(value)
        if isinstance(value, LLMSpec):
            return value.build() if value.offline else value
        if not isinstance(value, LLM):
            raise ValueError(
                "llm must be an LLM object, a mapping like {provider: scripted, responses: "
                "[...]}, or a list of them (fallback models)"
            )
        return value

    def build_llm(self) -> LLM:
        """The agent's LLM, built from its description if it is still data (raises
        ``LLMError`` naming a missing key or extra), with the member's call rules on its
        requests and, with ``tool_format: auto``, adapting its format to the server."""
        llm = self.llm.build() if isinstance(self.llm, LLMSpec) else self.llm
        if isinstance(llm, RemoteA2AAgent):  # one remote context per agent, never shared
            llm = llm.for_agent()
        return member_llm(llm, self.call_rules(), adapt=self.adapts_format())

    def adapts_format(self) -> bool:
        """Whether the member's format adapts to its server (``agent.format_adapting``):
        ``tool_format: auto``, or no ``tool_format`` (nor ``use_xml_tool_format``) for a
        provider that calls tools natively (``member_llm.native_by_default``)."""
        if self.tool_format is not None:
            return self.tool_format == AUTO_FORMAT
        return not self.use_xml_tool_format and native_by_default(self.llm)

    @field_validator("tool_format")
    @classmethod
    def _known_format(cls, value: str | None) -> str | None:
        if value is None:
            return None
        if isinstance(value, str) and value.strip().lower() == AUTO_FORMAT:
            return AUTO_FORMAT
        return ToolCallFormat.parse(value).value

    @field_validator("tool_choice", mode="before")
    @classmethod
    def _tool_choice(cls, value: Any) -> ToolChoice | None:
        return None if value is None else ToolChoice.parse(value)

    def call_rules(self) -> CallRules:
        """The member's ``tool_choice`` and ``parallel_tool_calls`` as one value."""
        return CallRules(self.tool_choice, self.parallel_tool_calls)

    def resolved_format(self) -> str:
        """The format this agent speaks."""
        if self.adapts_format():
            return ToolCallFormat.NATIVE.value  # the turn speaks native; the LLM adapts
        if self.tool_format is not None:
            return self.tool_format
        return format_for_provider(self.llm.provider, self.use_xml_tool_format).value

    def resolved_execution(self) -> Literal["parallel", "sequential"]:
        """``tool_execution`` if given, else what the agent's format calls for."""
        if self.tool_execution is not None:
            return self.tool_execution
        return "sequential" if self.resolved_format() == "execute" else "parallel"

    def tool_registry(self, named: ToolRegistry | None = None, *,
                      pending: Collection[str] = ()) -> ToolRegistry:
        """The agent's tools as a registry, names resolved against ``named``.

        A name may be a shell-style pattern (``fs.*``, ``web.search_?``) taking every tool it
        matches. A name or pattern under a namespace in ``pending`` (a tool source not
        started yet: ``fs`` for ``fs.read_file``) that matches nothing is left for later.
        """
        registry = ToolRegistry()

        def take(definition: ToolDefinition) -> None:
            if registry.find(definition.name) is not definition:
                registry.add(definition)  # a different tool of the same name is an error

        for item in self.tools:
            if isinstance(item, ToolDefinition):
                registry.add(item)
            elif _is_pattern(item):
                matches = [named.get(name) for name in named.names()
                           if fnmatchcase(name, item)] if named is not None else []
                if not matches and not _under(item, pending):
                    raise UnknownToolError(item, named.names() if named else [],
                                           where=f"agent {self.name!r}",
                                           listing=_listing(named)) from None
                for definition in matches:
                    take(definition)
            elif named is not None and item in named:
                take(named.get(item))
            elif not _under(item, pending):
                raise UnknownToolError(item, named.names() if named else [],
                                       where=f"agent {self.name!r}", listing=_listing(named))
        return registry


def _is_pattern(name: str) -> bool:
    return any(mark in name for mark in "*?[")


def _under(name: str, namespaces: Collection[str]) -> bool:
    """Whether ``name`` (or pattern) belongs to one of the namespaces (``fs`` for ``fs.x``)."""
    head, dot, _ = name.partition(".")
    return bool(dot) and head in namespaces


def _listing(named: ToolRegistry | None) -> str:
    return ", ".join(named.names()) if named else "none (no registry given)"
