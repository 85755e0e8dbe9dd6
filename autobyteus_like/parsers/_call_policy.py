"""A member's call rules (``tool_choice``, ``parallel_tool_calls``) enforced on a text format's
parser, so the model learns of a breach the way it learns of a malformed call: as an error
result it can act on, in its place among the reply's calls (seed 004's single-call rule).

- ``none``: every call is refused; ``{tool: NAME}``: a call of any other tool is refused.
- ``parallel_tool_calls: false``: the first call runs, each further one is refused.
- ``required`` (or a named tool): until the turn has made a call, a reply without any is
  answered once with an error asking for one; should the next reply again hold none, it
  stands as the answer (the turn ends rather than looping). Once a call was made, an answer
  without one ends the turn, as openai-agents resets its tool_choice after a tool ran.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from autobyteus_like.parsers._base import FormatParser, ParserFactory
from autobyteus_like.parsers._parse_events import (
    ParseEvent,
    ToolCallCompleted,
    ToolCallFailed,
)
from autobyteus_like.tools._call_rules import CallRules
from autobyteus_like.tools._invocation import ToolInvocation
from autobyteus_like.tools._invocation_ids import InvocationIdAllocator
from autobyteus_like.tools._registry import ToolRegistry

__all__ = ["CallPolicy"]


@dataclass
class CallPolicy:
    """The parser factory of one agent's format under its rules (it remembers whether the
    last reply was already asked for a call, so one agent's policy serves one agent)."""

    inner: ParserFactory
    rules: CallRules
    asked: bool = False
    satisfied: bool = False
    """Whether a call was made since the last answer (the requirement is met)."""
    missed: bool = False
    """Whether the last reply lacked the call the rules require."""

    def __call__(self, tools: ToolRegistry | None, ids: InvocationIdAllocator) -> FormatParser:
        return _PolicedParser(self, self.inner(tools, ids))


class _PolicedParser(FormatParser):
    def __init__(self, policy: CallPolicy, inner: FormatParser) -> None:
        self.format_name = inner.format_name
        self.calls = inner.calls
        self.tools = inner.tools
        self._policy = policy
        self._inner = inner
        self._ran = 0
        self._seen = 0

    def feed(self, chunk: str) -> list[ParseEvent]:
        return self._policed(self._inner.feed(chunk))

    def finish(self) -> list[ParseEvent]:
        events = self._policed(self._inner.finish())
        policy = self._policy
        choice = policy.rules.choice
        forced = choice is not None and choice.forces_a_call and not policy.satisfied
        policy.missed = not self._seen and forced
        if self._seen:
            policy.asked, policy.satisfied = False, True
        elif not policy.missed or policy.asked:  # an answer: it stands, the turn ends
            policy.asked = policy.satisfied = False
        elif choice is not None:
            policy.asked = True
            which = (f"the tool {choice.name!r}" if choice.mode == "tool"
                     else "one of the tools")
            events.append(self.calls.failure(
                f"a tool call is required before you answer (tool_choice: {choice.mode}) "
                f"and this reply made none; call {which} now", ""))
        return events

    def _policed(self, events: list[ParseEvent]) -> list[ParseEvent]:
        if not events:
            return events
        out: list[ParseEvent] = []
        for event in events:
            if isinstance(event, ToolCallFailed):
                self._seen += 1
            elif isinstance(event, ToolCallCompleted):
                self._seen += 1
                refusal = self._refusal(event.invocation)
                if refusal is None:
                    self._ran += 1
                else:
                    written = json.dumps(event.invocation.arguments, ensure_ascii=False,
                                         default=str)
                    event = self.calls.failure(refusal, f"{event.invocation.name}({written})",
                                               index=event.index, name=event.invocation.name)
            out.append(event)
        return out

    def _refusal(self, call: ToolInvocation) -> str | None:
        rules = self._policy.rules
        choice = rules.choice
        if choice is not None and choice.mode == "none":
            return "no tool may be called here (tool_choice: none); answer in prose"
        if choice is not None and choice.mode == "tool" and call.name != choice.name:
            return (f"only the tool {choice.name!r} may be called here (tool_choice); "
                    f"{call.name!r} was not run")
        if rules.one_call_only and self._ran:
            return ("one tool call per reply (parallel_tool_calls: false): this call was not "
                    "run; make it again in your next reply, after the first call's result")
        return None
