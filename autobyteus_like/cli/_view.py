"""How the command line shows a run: a live rich log, or JSON lines; both end with a summary."""

from __future__ import annotations

import dataclasses
import json
import re
import time
from collections import defaultdict
from typing import TYPE_CHECKING, Any, TextIO

from pydantic_core import to_jsonable_python

from autobyteus_like.events import (
    AgentErrorOccurred,
    AgentEvent,
    ApprovalRequested,
    AssistantTextDelta,
    ConversationHandedOver,
    LLMAdapted,
    LLMModelSwitched,
    LLMRequestFailed,
    LLMRequestStarted,
    LLMResponseCompleted,
    ToolCallParsed,
    ToolResultReceived,
    ToolStarted,
    TurnCompleted,
)
from autobyteus_like.mail._events import MessageDelivered, TeamQuiescent
from autobyteus_like.usage._report import UsageReport

if TYPE_CHECKING:  # rich loads with the first RichView: --json and other commands skip it
    from rich.console import Console
    from rich.text import Text

__all__ = ["EventView", "JsonView", "RichView", "escaped", "event_json", "run_error"]


def event_json(event: AgentEvent) -> dict[str, Any]:
    """An event as a JSON object: its type and its fields (futures and the like left out)."""
    fields = {
        field.name: getattr(event, field.name)
        for field in dataclasses.fields(event)
        if field.compare
    }
    return {"type": type(event).__name__, **to_jsonable_python(fields, fallback=str)}


class EventView:
    """Counts what happened per agent; subclasses decide how to show it."""

    def __init__(self) -> None:
        self.stats: dict[str, dict[str, float]] = defaultdict(
            lambda: {"turns": 0, "llm_calls": 0, "tool_calls": 0, "failed_calls": 0, "errors": 0,
                     "input_tokens": 0, "output_tokens": 0, "llm_s": 0.0, "tools_s": 0.0}
        )
        self.messages = 0
        self._started: dict[tuple[str, object], float] = {}
        self._unreported: dict[str, int] = defaultdict(int)
        """Responses per agent that reported no token usage: its tokens are not known."""

    def show(self, event: AgentEvent) -> None:
        """Record one event (subclasses also display it)."""
        if isinstance(event, MessageDelivered):
            self.messages += 1
        if isinstance(event, MessageDelivered | TeamQuiescent | ConversationHandedOver):
            return  # the team's own events: not an agent's
        counts = self.stats[event.agent]
        now = time.perf_counter()
        if isinstance(event, LLMRequestStarted):
            counts["llm_calls"] += 1
            self._started[(event.agent, event.request_no)] = now
        elif isinstance(event, LLMResponseCompleted | LLMRequestFailed):
            started = self._started.pop((event.agent, event.request_no), None)
            counts["llm_s"] += 0.0 if started is None else now - started
            if isinstance(event, LLMResponseCompleted):
                counts["input_tokens"] += event.input_tokens or 0
                counts["output_tokens"] += event.output_tokens or 0
                if event.input_tokens is None and event.output_tokens is None:
                    self._unreported[event.agent] += 1
        elif isinstance(event, ToolStarted):  # a call that ran, as usage counts it
            counts["tool_calls"] += 1
            self._started[(event.agent, event.invocation.id)] = now
        elif isinstance(event, ToolResultReceived):
            started = self._started.pop((event.agent, event.result.invocation_id), None)
            counts["tools_s"] += 0.0 if started is None else now - started
            counts["failed_calls"] += event.result.status == "failure"
        elif isinstance(event, TurnCompleted):
            counts["turns"] += 1
        elif isinstance(event, AgentErrorOccurred):
            counts["errors"] += 1

    def shown_stats(self) -> dict[str, dict[str, float | str]]:
        """The counts per agent as shown: a token count with an unreported response is
        "unknown" (none reported) or "at least N", never a 0 taken for a figure."""
        shown: dict[str, dict[str, float | str]] = {}
        for agent, counts in self.stats.items():
            row: dict[str, float | str] = dict(counts)
            if self._unreported[agent]:
                for key in ("input_tokens", "output_tokens"):
                    value = int(counts[key])
                    row[key] = f"at least {value}" if value else "unknown"
            shown[agent] = row
        return shown

    def note(self, text: str) -> None:
        """A remark from the command line itself."""

    def ask_approval(self, event: ApprovalRequested) -> tuple[bool, str]:
        """Ask the person at the terminal; (approved, reason if denied)."""
        return False, "no one to ask"

    def summary(self, outcome: TeamQuiescent | None, elapsed: float,
                usage: UsageReport | None = None, error: str | None = None) -> None:
        """The end of the run (with the team's usage and cost, when given). ``error``: why
        the run failed (a usage limit, the deadline), which overrides what the coordinator
        answered; without one, the coordinator's error, or the deadline if it never ended."""


class JsonView(EventView):
    """One JSON object per line: every event, remarks, and a final ``RunSummary`` (whose
    ``answer`` is the JSON value a typed coordinator answered, with ``typed``, not its text)."""

    def __init__(self, out: TextIO, typed: bool = False) -> None:
        super().__init__()
        self._out = out
        self._typed = typed

    def _line(self, data: dict[str, Any]) -> None:
        self._out.write(json.dumps(data, ensure_ascii=False) + "\n")
        self._out.flush()

    def show(self, event: AgentEvent) -> None:
        super().show(event)
        self._line(event_json(event))

    def note(self, text: str) -> None:
        self._line({"type": "Note", "text": text})

    def summary(self, outcome: TeamQuiescent | None, elapsed: float,
                usage: UsageReport | None = None, error: str | None = None) -> None:
        error = run_error(outcome, error)
        self._line({
            "type": "RunSummary",
            "finished": error is None,
            "answer": self._answer(outcome.answer) if outcome is not None and error is None
            else None,
            "error": error,
            "elapsed_s": round(elapsed, 3),
            "messages": self.messages,
            "agents": {agent: {key: round(value, 4) if isinstance(value, float) else value
                               for key, value in counts.items()}
                       for agent, counts in self.shown_stats().items()},
            **({"usage": usage.as_json()} if usage is not None else {}),
        })


    def _answer(self, answer: str) -> Any:
        if not self._typed:
            return answer
        try:
            return json.loads(answer)  # a typed answer travels as JSON text
        except ValueError:
            return answer


def run_error(outcome: TeamQuiescent | None, error: str | None) -> str | None:
    """Why the run did not finish well: the error given, else the coordinator's, else the
    deadline when the team never went quiet."""
    if error is not None:
        return error
    if outcome is None:
        return "timed out"
    return outcome.error


_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def escaped(text: str) -> str:
    """Text with control characters (terminal escape sequences) shown as ``\\x1b``, so what a
    model or a tool wrote cannot drive the terminal; newlines and tabs are kept."""
    return _CONTROL.sub(lambda match: f"\\x{ord(match.group()):02x}", text)


def _shown(value: Any, limit: int | None = 80) -> str:
    """A value as one line of text, cut at ``limit`` characters (None: whole), control
    characters escaped."""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    text = escaped(text)
    if limit is None:
        return text
    text = text.replace("\n", " ")
    return text if len(text) <= limit else text[: limit - 1] + "…"


class RichView(EventView):
    """A live log: who is thinking, what they say, calls with arguments, results, messages,
    answers. Everything a model or a tool wrote is printed as plain text, never as markup."""

    def __init__(self, *, verbose: bool = False, console: Console | None = None) -> None:
        from rich.console import Console

        super().__init__()
        self._console = console or Console(highlight=False)
        self._prose: dict[str, list[str]] = defaultdict(list)
        self._verbose = verbose

    def _short(self, value: Any, limit: int = 80) -> str:
        return _shown(value, None if self._verbose else limit)

    def _say(self, agent: str, style: str, text: str) -> None:
        from rich.text import Text

        line = Text()
        line.append(f"{escaped(agent):>12} ", style="bold cyan")
        line.append(text, style=style)
        self._console.print(line)

    def _flush_prose(self, agent: str) -> None:
        """What the agent wrote so far, before the call or the end that follows it."""
        prose = "".join(self._prose.pop(agent, [])).strip()
        if prose:  # whole: what the model said is never cut
            self._say(agent, "", f"says: {escaped(prose)}")

    def show(self, event: AgentEvent) -> None:
        super().show(event)
        agent = event.agent
        if isinstance(event, LLMRequestStarted):
            self._say(agent, "dim", "is thinking…")
        elif isinstance(event, AssistantTextDelta):
            self._prose[agent].append(event.text)
        elif isinstance(event, LLMResponseCompleted):
            self._flush_prose(agent)
        elif isinstance(event, LLMModelSwitched):
            self._say(agent, "yellow", f"falls back from {event.from_model} to "
                                       f"{event.to_model} ({self._short(event.reason, 120)})")
        elif isinstance(event, LLMAdapted):
            now = "requests with tools unstreamed" if event.what == "wire" else \
                f"tool format {escaped(event.now)}"
            self._say(agent, "yellow", f"adapts: {now} ({self._short(event.reason, 160)})")
        elif isinstance(event, ToolCallParsed):
            self._flush_prose(agent)
            call = event.invocation
            self._say(agent, "yellow",
                      f"calls {escaped(call.name)}({self._short(call.arguments)})")
        elif isinstance(event, ApprovalRequested):
            self._say(agent, "magenta", f"waits for approval of {event.invocation.name}")
        elif isinstance(event, ToolResultReceived):
            result = event.result
            if result.status == "success" and result.tool_name == "memory.advise" and \
                    isinstance(result.content, dict):  # the agent's working set, as it is now
                kept = {kind: ", ".join(str(entry.get("path")) for entry in entries) or "-"
                        for kind, entries in result.content.items() if isinstance(entries, list)}
                self._say(agent, "green", f"working set: hot {escaped(kept.get('hot', '-'))}; "
                                          f"cold {escaped(kept.get('cold', '-'))}")
            elif result.status == "success":
                self._say(agent, "green",
                          f"{escaped(result.tool_name)} -> {self._short(result.content)}")
            elif result.error is not None:
                self._say(agent, "red", f"{escaped(result.tool_name)} failed: "
                                        f"{result.error.code.value}: "
                                        f"{self._short(result.error.message, 120)}")
        elif isinstance(event, MessageDelivered):
            self._say(event.sender or "user", "blue",
                      f"-> {escaped(event.recipient)}: {self._short(event.content, 120)}")
        elif isinstance(event, ConversationHandedOver):
            self._say(event.sender, "bold blue",
                      f"hands the conversation over to {escaped(event.receiver)}: "
                      f"{self._short(event.reason, 120)}")
        elif isinstance(event, TurnCompleted):
            if event.error:
                self._say(agent, "bold red", f"turn failed: {self._short(event.error, 160)}")
            else:
                self._say(agent, "bold", f"answers: {self._short(event.answer, 160)}")
        elif isinstance(event, AgentErrorOccurred):
            self._say(agent, "red", f"error: {self._short(event.message, 160)}")

    def note(self, text: str) -> None:
        from rich.text import Text

        self._console.print(Text(escaped(text), style="dim"))

    def ask_approval(self, event: ApprovalRequested) -> tuple[bool, str]:
        from rich.prompt import Confirm, Prompt
        from rich.text import Text

        call = event.invocation
        question = Text.assemble("Approve ", (event.agent, "bold"),
                                 f": {call.name}({self._short(call.arguments, 200)})?")
        try:
            if Confirm.ask(question, console=self._console):
                return True, ""
            return False, Prompt.ask("Reason", default="denied at the terminal",
                                     console=self._console)
        except EOFError:  # Ctrl-D, or the input was closed: nobody is there to approve
            self.note("no answer (the input ended); denied")
            return False, "no answer at the terminal (the input ended)"

    def summary(self, outcome: TeamQuiescent | None, elapsed: float,
                usage: UsageReport | None = None, error: str | None = None) -> None:
        from rich.measure import Measurement
        from rich.table import Table
        from rich.text import Text

        title = f"run summary ({elapsed:.2f} s, {self.messages} messages)"
        table = Table(title=title)
        for column in _COLUMNS:
            table.add_column(escaped(column), justify="left" if column == "agent" else "right",
                             no_wrap=True)
        rows = [[escaped(agent), *(f"{value:.2f}" if isinstance(value, float) else str(value)
                                   for value in counts.values())]
                for agent, counts in self.shown_stats().items()]
        for row in rows:
            table.add_row(*row)
        natural = Measurement.get(self._console, self._console.options.update_width(10_000),
                                  table).maximum
        if natural <= self._console.width:
            self._console.print(table)
        else:  # a narrow terminal or a pipe: one line per agent, names kept whole
            self._console.print(Text(title, style="italic"))
            for row in rows:
                self._console.print(Text(f"{row[0]}: " + ", ".join(
                    f"{name} {value}" for name, value in zip(_COLUMNS[1:], row[1:],
                                                             strict=True))))
        if usage is not None:
            self._console.print(_usage_line(usage, self.stats))
        if outcome is not None and outcome.error and error is None:
            self._console.print(Text.assemble(("the coordinator failed: ", "bold red"),
                                              escaped(outcome.error)))
        elif outcome is None or error is not None:
            self._console.print(Text.assemble(("the run did not finish: ", "bold red"),
                                              escaped(run_error(outcome, error) or "")))
        else:
            self._console.print(Text.assemble(("answer: ", "bold green"),
                                              escaped(outcome.answer)))


_COLUMNS = ("agent", "turns", "LLM calls", "tool calls", "failed calls", "errors",
            "input tokens", "output tokens", "LLM s", "tools s")


def _usage_line(usage: UsageReport, rows: dict[str, dict[str, float]] | None = None) -> Text:
    """The run's tokens and cost in one line; each member's cost after it. Calls the rows
    above do not show (made by the run's earlier processes, before it was resumed) are said
    as such, so the figures add up."""
    from rich.text import Text

    run = usage.run
    members = ", ".join(f"{name} {totals.cost_text}" for name, totals in usage.members.items())
    figure = run.token_figure  # "unknown" or "at least N" where responses reported none
    return Text(f"usage: {figure(run.input_tokens)} input tokens "
                f"({figure(run.cached_input_tokens)} cached), {figure(run.output_tokens)} "
                f"output tokens ({figure(run.reasoning_tokens)} reasoning), "
                f"{_calls(run.llm_calls, rows, 'llm_calls', 'LLM')}, "
                f"{_calls(run.tool_calls, rows, 'tool_calls', 'tool')}; cost {run.cost_text}"
                + (f" ({members})" if members else ""))


def _calls(total: int, rows: dict[str, dict[str, float]] | None, key: str, kind: str) -> str:
    shown = None if rows is None else int(sum(row[key] for row in rows.values()))
    if shown is None or total <= shown:
        return f"{total} {kind} calls"
    return f"{total} {kind} calls ({total - shown} before this process resumed the run)"
