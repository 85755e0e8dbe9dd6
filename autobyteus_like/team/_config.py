"""TeamConfig: a team of agents as data, from Python objects or a YAML file.

Loading a file never runs code from it (``yaml.safe_load``); tools are named and resolved
against a registry the caller provides, or come from the team's ``mcp_servers``, whose tool
names are known only once the servers run (``autobyteus-like validate`` starts them).
"""

from __future__ import annotations

from collections.abc import Iterable
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BeforeValidator,
    ConfigDict,
    Field,
    ValidationError,
    model_validator,
)

from autobyteus_like._config_problems import ConfigModel, config_error, describe_problem
from autobyteus_like.agent._config import TYPE_FOLDERS, AgentConfig
from autobyteus_like.agent._prompt_ref import PromptMessage
from autobyteus_like.errors import ConfigError
from autobyteus_like.mail._messaging import SEND_MESSAGE_TOOL
from autobyteus_like.runtime._config import (
    LocalRuntime,
    MemberResources,
    RuntimeConfig,
    lift_member_resources,
)
from autobyteus_like.team._handoffs import handoff_entry_problems, handoff_problems
from autobyteus_like.team._remote_asks import ASK_PREFIX, asked_member, split_ask
from autobyteus_like.tools._registry import ToolLike, ToolRegistry, ToolSource, split_tool_sources
from autobyteus_like.usage._limits import UsageLimits
from autobyteus_like.usage._prices import PriceTable

__all__ = ["SEND_MESSAGE_TOOL", "TeamConfig"]



def _server_name(name: str) -> str:
    from autobyteus_like.mcp._server_config import SERVER_NAME  # only for teams that name servers

    if not SERVER_NAME.match(name):
        raise ValueError("a server's name is the namespace of its tools: letters, digits, '_' "
                         "or '-', starting with a letter or '_', no dots, at most 48 characters")
    return name


def _server_config(entry: Any) -> Any:
    """One ``mcp_servers`` entry as an ``MCPServerConfig``; the MCP package is imported only
    by teams that name servers."""
    from autobyteus_like.mcp._server_config import MCPServerConfig

    if isinstance(entry, MCPServerConfig):
        return entry
    try:
        return MCPServerConfig.model_validate(entry)
    except ValidationError as exc:
        raise ValueError("; ".join(describe_problem(error).removeprefix("(top level): ")
                                   for error in exc.errors())) from None


class TeamConfig(ConfigModel):
    """A team: its members (agent configs), its coordinator, and team-wide overrides.

    ``use_xml_tool_format``, when set, overrides every member (seed 003): True makes every
    member speak XML, False turns off each member's own XML flag.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field(min_length=1)
    coordinator: str
    members: list[AgentConfig] = Field(min_length=1)
    use_xml_tool_format: bool | None = None
    description: str = ""
    mcp_servers: dict[Annotated[str, AfterValidator(_server_name)],
                      Annotated[Any, BeforeValidator(_server_config)]] = Field(
        default_factory=dict)
    """MCP servers whose tools members may name (``fs.read_file``, or ``fs.*``): name ->
    ``{command, args, env, cwd}`` or ``{url, headers}``, plus policy (``MCPServerConfig``).
    The team starts them with itself and stops them with itself."""
    store: str | None = Field(default=None, min_length=1)
    """Where this team's sessions are kept: a SQLite file (relative to the YAML
    file's folder) or a ``postgresql://`` URL. Default: ``<team file>.sessions.db`` beside
    the YAML file. Used by ``run --session``."""
    limits: UsageLimits | None = None
    """Usage limits of each run of the whole team (members may have their own as well)."""
    prices: PriceTable = Field(default_factory=PriceTable)
    """Prices of models of one's own, for every member (a member's own ``prices`` win)."""
    # -- runtime (issue 15): where members live; see autobyteus_like/runtime/ --
    runtime: RuntimeConfig = Field(default_factory=LocalRuntime)
    member_resources: dict[str, MemberResources] = Field(default_factory=dict)
    """Per member, what it needs of a Ray node (``resources:`` under a member in YAML)."""
    # -- handoffs (issue 37; docs/handoffs.md) --
    max_handoffs: int = Field(default=10, ge=1, le=1_000)
    """How many times one user message may have the conversation handed over; the next
    handoff ends the run with an error naming the path (members handing it round a loop)."""
    next_message_to: Literal["holder", "coordinator"] = "holder"
    """Whom the user's next message goes to after a handoff: the member holding the
    conversation, or the coordinator (who then holds it again)."""
    # -- members as tools (issue 37): team/_member_tools.py --
    ask_depth: int = Field(default=3, ge=1, le=20)
    """How deep calls of members as tools (``ask:NAME``) may nest; a deeper one is refused."""
    message: PromptMessage | None = None
    """The message ``autobyteus-like run`` gives the coordinator when it is given no
    ``--message``: ``{prompt: {server, name, arguments}, resources: [{server, uri}]}``, an
    MCP server's prompt's text with those resources attached (docs/mcp.md)."""

    @model_validator(mode="before")
    @classmethod
    def _member_resources(cls, data: Any) -> Any:
        data, problems = lift_member_resources(data)
        if problems:
            raise ValueError("; ".join(problems))
        return data

    @model_validator(mode="after")
    def _coordinator_and_names(self) -> TeamConfig:
        names = [member.name for member in self.members]
        duplicates = sorted({name for name in names if names.count(name) > 1})
        if duplicates:
            raise ValueError(f"member names must be unique; repeated: {', '.join(duplicates)}")
        if self.coordinator not in names:
            raise ValueError(
                f"coordinator {self.coordinator!r} is not a member (members: {', '.join(names)})"
            )
        unknown = sorted(set(self.member_resources) - set(names))
        if unknown:
            raise ValueError(f"member_resources names no member: {', '.join(unknown)}")
        problems = handoff_problems(self.members)
        if problems:
            raise ValueError("; ".join(problems))
        return self

    def effective_member(self, member: AgentConfig) -> AgentConfig:
        """The member with the team-wide overrides applied."""
        if self.use_xml_tool_format is True:
            return member.model_copy(update={"tool_format": "xml", "use_xml_tool_format": True})
        if self.use_xml_tool_format is False:
            return member.model_copy(update={"use_xml_tool_format": False})
        return member

    def tool_problems(self, tools: ToolRegistry | Iterable[ToolLike | ToolSource] | None
                      ) -> list[str]:
        """Every tool name or pattern nothing resolves, located as ``members[i].tools[j]``.
        Names under an MCP server's (or a tool source's) namespace are checked once it runs."""
        named, sources = split_tool_sources(tools)
        known = set(named.names()) | {SEND_MESSAGE_TOOL}
        namespaces = [source.namespace for source in sources] + list(self.mcp_servers)
        repeated = sorted({n for n in namespaces if namespaces.count(n) > 1})
        problems = [f"mcp_servers: {name!r} is given twice (in the file and in tools=)"
                    for name in repeated]
        listing = ", ".join(sorted(known))
        for i, member in enumerate(self.members):
            for j, item in enumerate(member.tools):
                if (callee := asked_member(item)) is not None:
                    problems += _ask_problems(f"members[{i}].tools[{j}]", member.name, callee,
                                              self.members)
                    continue
                if not isinstance(item, str) or item.partition(".")[0] in namespaces:
                    continue
                if any(mark in item for mark in "*?["):
                    if not any(fnmatchcase(name, item) for name in known):
                        problems.append(f"members[{i}].tools[{j}]: the pattern {item!r} "
                                        f"matches no tool; available tools: {listing}")
                elif item not in known and (absent := _absent_builtin(item)) is not None:
                    problems.append(f"members[{i}].tools[{j}]: {absent}")
                elif item not in known:
                    problems.append(f"members[{i}].tools[{j}]: unknown tool {item!r}; "
                                    f"available tools: {listing}")
        return problems

    @classmethod
    def from_data(
        cls, data: Any, *, source: str = "<data>",
        tools: ToolRegistry | Iterable[ToolLike | ToolSource] | None = None,
        folder: Path | None = None,
    ) -> TeamConfig:
        """Validate plain data (as parsed from YAML); raise ``ConfigError`` naming each problem.
        An ``output_type: "module:Name"`` is looked for in the current folder, then in
        ``folder`` (the team file's), then on the Python path."""
        if not isinstance(data, dict):
            kind = type(data).__name__
            raise ConfigError(source, [f"the top level must be a mapping, got {kind}"])
        data, problems = lift_member_resources(data)  # located as members[i].resources
        problems += handoff_entry_problems(data)  # located as members[i].handoffs[j]
        if problems:
            raise ConfigError(source, problems)
        try:
            config = cls.model_validate(
                data, context={TYPE_FOLDERS: [folder] if folder is not None else []})
        except ValidationError as exc:
            raise config_error(source, exc) from None
        problems = config.tool_problems(tools)
        if problems:
            raise ConfigError(source, problems)
        return config

    @classmethod
    def from_yaml(cls, path: str | Path, *,
                  tools: ToolRegistry | Iterable[ToolLike | ToolSource] | None = None
                  ) -> TeamConfig:
        """Load a team from a YAML file; every problem names the file and the place in it."""
        from autobyteus_like.team._yaml_source import load_yaml  # PyYAML only for files

        data = load_yaml(path)
        return cls.from_data(data, source=str(path), tools=tools,
                             folder=Path(path).resolve().parent)


def _ask_problems(where: str, caller: str, asked: str, members: list[AgentConfig]
                  ) -> list[str]:
    """What is wrong with ``ask:ASKED`` in ``caller``'s tools (nothing: []): ``ask:NAME`` of a
    teammate, or ``ask:NAME.SKILL`` / ``ask:NAME.*`` of an ``a2a:`` member's skills."""
    names = [member.name for member in members]
    callee, skill = split_ask(asked, names)
    if callee == caller:
        return [f"{where}: {caller!r} cannot ask itself ({ASK_PREFIX}{asked}); a member "
                f"asks teammates: {', '.join(n for n in names if n != caller) or 'none'}"]
    if callee not in names:
        return [f"{where}: {ASK_PREFIX}{asked} names no member of the team "
                f"(members: {', '.join(names)})"]
    remote = next(member.a2a for member in members if member.name == callee)
    if skill is not None and (remote is None or not skill):
        return [f"{where}: {ASK_PREFIX}{asked}: only an a2a: member's skills are asked as "
                f"NAME.SKILL or NAME.*, and {callee!r} is "
                f"{'one: name a skill' if remote is not None else 'a member of ours'}"]
    return []


def _absent_builtin(name: str) -> str | None:
    """Which extra brings the builtin tool ``name``, if it is absent for want of one."""
    from autobyteus_like.tools.builtin import absent_tool

    return absent_tool(name)
