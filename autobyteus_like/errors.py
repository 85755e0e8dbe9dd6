"""The one exception hierarchy: everything the library raises on purpose is an
``AutobyteusLikeError``, so ``except AutobyteusLikeError`` catches exactly our errors.

An error that has long behaved like a built-in one (``ValueError``, ``KeyError``) keeps that
base too. Each carries the fields a handler needs; records that describe a failure
(``ToolErrorInfo``, ``ParseErrorInfo``) are data, not exceptions.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from pathlib import Path

from autobyteus_like._error_codes import ErrorCode

__all__ = [
    "AgentStoppedError",
    "AgentTurnError",
    "AutobyteusLikeError",
    "BadRequestError",
    "CallAlreadyDecidedError",
    "ConfigError",
    "DecisionRefusedError",
    "DuplicateToolError",
    "ErrorCode",
    "LLMError",
    "MissingExtraError",
    "ModelRetry",
    "OutputValidationError",
    "OwnThreadError",
    "PatchError",
    "RunRefusedError",
    "ScriptExhaustedError",
    "SessionInUseError",
    "SessionLostError",
    "StoreError",
    "StrayEventError",
    "ToolArgumentError",
    "ToolDeclarationError",
    "ToolFailure",
    "TransientStoreError",
    "UnfinishedSessionError",
    "UnknownApprovalError",
    "UnknownMemberError",
    "UnknownToolError",
    "UsageError",
    "UsageLimitExceededError",
]


class AutobyteusLikeError(Exception):
    """The root of every exception the library raises on purpose."""


# -- configuration and the command line ----------------------------------------------------


class ConfigError(AutobyteusLikeError, ValueError):
    """A configuration that cannot be used; each problem reads ``SOURCE: where: what``."""

    shown = 20
    """At most this many problems are spelled out in the message (all are in ``problems``)."""

    def __init__(self, source: str | Path, problems: list[str]) -> None:
        self.source = str(source)
        self.problems = problems
        lines = [f"{self.source}: {problem}" for problem in problems[: self.shown]]
        if len(problems) > self.shown:
            lines.append(f"{self.source}: ... and {len(problems) - self.shown} more problems")
        super().__init__("\n".join(lines))


class MissingExtraError(AutobyteusLikeError, ImportError):
    """A feature needs an optional extra that is not installed; the message names the
    ``pip install`` that adds it."""

    def __init__(self, what: str, package: str, extra: str) -> None:
        self.what = what
        self.package = package
        self.extra = extra
        super().__init__(f"{what} needs the {package} package: "
                         f"pip install 'autobyteus-like[{extra}]'", name=package)


class UsageError(AutobyteusLikeError):
    """The command line (or a ``--tools`` source it names) cannot be carried out as given."""


# -- tools ---------------------------------------------------------------------------------


class ToolDeclarationError(AutobyteusLikeError, TypeError):
    """A function or class cannot become a tool (missing type hint, bad name, ...)."""


class DuplicateToolError(AutobyteusLikeError, ValueError):
    """A registry already holds a tool of that name."""

    def __init__(self, name: str) -> None:
        self.name = name
        super().__init__(f"a tool named {name!r} is already registered")


def did_you_mean(name: str, known: Sequence[str]) -> str:
    """`` (did you mean 'x'?)`` for the closest known name, or ''."""
    close = difflib.get_close_matches(name, list(known), n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


class UnknownToolError(AutobyteusLikeError, KeyError, ValueError):
    """No tool of that name; ``available`` lists the ones there are. ``where`` (an agent)
    starts the message when given. A ``KeyError`` (a registry lookup) and a ``ValueError`` (a
    config naming it) alike."""

    def __init__(self, name: str, available: list[str], *, where: str = "",
                 listing: str | None = None) -> None:
        self.name = name
        self.available = available
        shown = listing if listing is not None else (", ".join(available) or "none")
        prefix = f"{where}: " if where else ""
        if any(mark in name for mark in "*?["):  # a pattern: no hint, it matched nothing
            what = f"the pattern {name!r} matches no tool"
        else:
            what = f"unknown tool {name!r}{did_you_mean(name, available)}"
        super().__init__(f"{prefix}{what}; available tools: {shown}")

    def __str__(self) -> str:
        return str(self.args[0])


class UnknownMemberError(AutobyteusLikeError, KeyError, ValueError):
    """A team has no member of that name; ``members`` lists the ones it has."""

    def __init__(self, team: str, name: str, members: list[str]) -> None:
        self.team = team
        self.name = name
        self.members = members
        super().__init__(f"team {team!r} has no member {name!r}{did_you_mean(name, members)}; "
                         f"members: {', '.join(members)}")

    def __str__(self) -> str:
        return str(self.args[0])


class UnknownApprovalError(AutobyteusLikeError, KeyError, ValueError):
    """No call of that id waits for approval; ``waiting`` lists the ones that do."""

    def __init__(self, agent: str, invocation_id: str, waiting: list[str]) -> None:
        self.agent = agent
        self.invocation_id = invocation_id
        self.waiting = waiting
        listing = ", ".join(waiting) if waiting else "none"
        super().__init__(f"agent {agent!r}: no call {invocation_id!r} waits for approval"
                         f"{did_you_mean(invocation_id, waiting)}; waiting: {listing}")

    def __reduce__(self) -> tuple[object, ...]:  # it crosses to a Ray driver
        return UnknownApprovalError, (self.agent, self.invocation_id, self.waiting)

    def __str__(self) -> str:
        return str(self.args[0])


class ToolArgumentError(AutobyteusLikeError, ValueError):
    """Arguments do not fit a tool's schema; ``problems`` lists each one in plain words."""

    def __init__(self, tool_name: str, problems: list[str]) -> None:
        self.tool_name = tool_name
        self.problems = problems
        super().__init__(f"invalid arguments for tool {tool_name!r}: " + "; ".join(problems))


class ToolFailure(AutobyteusLikeError):
    """Raised by a tool body to fail with a specific code (seed 001): the LLM gets the code,
    the message and the suggestion instead of a generic INTERNAL error."""

    def __init__(
        self, code: ErrorCode, message: str, *, suggestion: str | None = None,
        recoverable: bool = True,
    ) -> None:
        self.code = code
        self.message = message
        self.suggestion = suggestion
        self.recoverable = recoverable
        super().__init__(message)


class PatchError(AutobyteusLikeError, ValueError):
    """A unified diff is malformed or does not match the text; the message says where."""


# -- LLMs ----------------------------------------------------------------------------------


class LLMError(AutobyteusLikeError):
    """An LLM call failed. The agent reports it as the turn's error; it never crashes.

    ``provider``/``model``: which LLM; ``status``: the HTTP status (None: no response);
    ``attempts``: requests made (retries included); ``server_message``: what the server said.
    The SDK's own exception is the ``__cause__``."""

    def __init__(self, message: str, *, provider: str | None = None, model: str | None = None,
                 status: int | None = None, attempts: int | None = None,
                 server_message: str | None = None) -> None:
        self.message = message
        self.provider = provider
        self.model = model
        self.status = status
        self.attempts = attempts
        self.server_message = server_message
        super().__init__(message)


class RemoteQuestion(LLMError):
    """A remote A2A agent asks for input; its task ``task_id`` waits for the answer
    (``RemoteA2AAgent.ask(answer, ..., task=task_id)``)."""

    def __init__(self, url: str, question: str, task_id: str) -> None:
        super().__init__(f"A2A agent at {url}: it asks for input ({question}); its task "
                         f"{task_id} waits for the answer", provider="a2a", model=url)
        self.question, self.task_id, self.url = question, task_id, url


class MalformedCallError(LLMError):
    """The model wrote a call its format's parser could not read (the proxy's HTTP 502)."""


class ScriptExhaustedError(LLMError):
    """A ScriptedLLM had no response left for a request."""


# -- agents --------------------------------------------------------------------------------


class AgentTurnError(AutobyteusLikeError):
    """A turn ended with an error (LLM failure, max_iterations, a crashed handler)."""

    def __init__(self, agent: str, message: str) -> None:
        self.agent = agent
        self.message = message
        super().__init__(f"agent {agent!r}: {message}")


class OutputValidationError(AgentTurnError):
    """The model's final answer did not fit the agent's ``output_type`` within its
    ``output_retries``; ``problems`` lists what was wrong with the last answer."""

    def __init__(self, agent: str, attempts: int, problems: list[str]) -> None:
        self.attempts = attempts
        self.problems = problems
        super().__init__(agent, f"the final answer did not fit the output type after "
                                f"{attempts} attempts: " + "; ".join(problems))


class ModelRetry(AutobyteusLikeError):
    """Raised by an output validator (or a tool) to send the answer back to the model with
    this message, so it can correct it."""


class AgentStoppedError(AutobyteusLikeError):
    """The agent (or its team) stopped before the turn or run finished."""


class OwnThreadError(AutobyteusLikeError, RuntimeError):
    """A call that waits for the agent was made on one of its own threads (a hook, a handler,
    a tool), where it would wait for itself."""


class StrayEventError(AutobyteusLikeError):
    """Raised by an agent's event handler for an event that belongs to no turn (a result
    arriving after its turn ended, a duplicate): nothing stored it, so it is not published
    either. The agent drops it; nobody else sees this error."""


# -- sessions --------------------------------------------------------------------------------


class StoreError(AutobyteusLikeError):
    """The session store cannot be used: it cannot be opened, was written by a newer release,
    or does not hold what was asked for."""


class SessionInUseError(StoreError):
    """Another process holds the session (its lease has not expired and it is alive)."""

    def __init__(self, session: str, owner: str, until_ms: int | None) -> None:
        self.session = session
        self.owner = owner
        self.until_ms = until_ms
        super().__init__(f"session {session!r} is in use by {owner}; wait for it to finish, "
                         "or stop it")


class SessionLostError(StoreError):
    """Another process took the session over (this holder's lease ran out, say while it was
    paused): this holder's write was refused, nothing of it is stored, and it must stop."""

    def __init__(self, session: str, generation: int, now: int | None) -> None:
        self.session = session
        self.generation = generation
        self.now = now
        whose = ("it was removed" if now is None
                 else f"another process took it over (lease generation {now}, this process "
                      f"held {generation})")
        super().__init__(f"session {session!r} is no longer held by this "
                         f"process: {whose}; this process stopped writing to it")


class UnfinishedSessionError(AutobyteusLikeError):
    """A message (or a reset) was given to an agent or team whose session still holds
    what its last process left unfinished: that is settled first, one way or the other."""

    def __init__(self, session: str, what: str, owner: str) -> None:
        self.session = session
        super().__init__(f"session {session!r}: its last process left {what} unfinished; call "
                         f"{owner}.resume() to go on with it, or "
                         f"{owner}.abandon_unfinished(reason) to end it, before sending a new "
                         "message")


class TransientStoreError(StoreError):
    """A store failure worth trying again, which the store's transactions retry: the
    transaction it happened in is gone (rolled back, or its connection dropped,
    ``connection_lost``), so nothing of it was applied, except that a ``COMMIT`` whose
    connection dropped may or may not have been."""

    def __init__(self, message: str, *, connection_lost: bool) -> None:
        super().__init__(message)
        self.connection_lost = connection_lost


class CallAlreadyDecidedError(StoreError):
    """A person decided a call that another decision had already settled (two ``approve`` /
    ``deny`` racing): the first decision stands."""

    def __init__(self, session: str, invocation_id: str, state: str) -> None:
        self.session = session
        self.invocation_id = invocation_id
        self.state = state
        super().__init__(f"call {invocation_id!r} of session {session!r} was already "
                         f"decided: {state}")


# -- usage limits ----------------------------------------------------------------------------


class BadRequestError(AutobyteusLikeError, ValueError):
    """A request to a served face (the web view) that cannot be taken: its body is not the
    JSON asked for, or too large. ``status`` is the HTTP status the client gets."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


class RunRefusedError(AutobyteusLikeError):
    """A served team cannot start a run now (another one is running)."""


class DecisionRefusedError(AutobyteusLikeError):
    """A decision on a call that is not waiting (already decided, or unknown)."""


class UsageLimitExceededError(AutobyteusLikeError):
    """A run went past one of its ``limits``: the run ended there, nothing of it left running.

    ``scope``: whose limit (``team 'x'``); ``limit``: which (``max_tool_calls``); ``allowed``:
    its value; ``figure``: what the run reached (``unknown``: a cost with no known price)."""

    def __init__(self, scope: str, limit: str, allowed: object, figure: object, *,
                 detail: str = "", refused: bool = False) -> None:
        self.scope = scope
        self.limit = limit
        self.allowed = allowed
        self.figure = figure
        self.refused = refused  # a call limit: ``allowed`` made, the next (figure-th) was not
        self.detail = detail
        extra = f" ({detail})" if detail else ""
        if refused:
            super().__init__(f"usage limit {limit}={allowed} of {scope} reached: {allowed} "
                             f"made, the next was not{extra}; the run was ended")
            return
        unknown = "the cost is unknown" if limit == "max_cost_usd" else "the figure is unknown"
        reached = f"reached {figure}" if figure != "unknown" else unknown
        super().__init__(f"usage limit {limit}={allowed} of {scope} exceeded: {reached}"
                         f"{extra}; the run was ended")


class MemberStartFailed(AutobyteusLikeError):
    """A member of the host could not start (an LLM without its key, ...): the host's
    ``__init__`` fails with it, and the driver reads the member and the reason from the last
    line Ray reports: ``MemberStartFailed: member 'NAME': REASON``."""

    def __init__(self, member: str, reason: str) -> None:
        super().__init__(f"member {member!r}: {reason}")
        self.member = member
        self.reason = reason

    def __reduce__(self) -> tuple[object, ...]:
        return MemberStartFailed, (self.member, self.reason)
