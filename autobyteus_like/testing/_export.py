"""Export a recorded session as a self-contained offline test (``sessions export --test``).

The folder gets ``team.yaml`` (each member's ``llm:`` scripted with the replies its model wrote:
text, native calls with their ids, usage), ``recording.json`` (the outline a replay must
match, the tools' definitions and results as recorded, the requests the framework sent) and
``test_recorded.py``, a pytest module that replays it (``testing.replay_export``). Secrets are
masked by value wherever they appear (``testing/_secrets.py``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

from autobyteus_like.errors import UsageError
from autobyteus_like.formats import NATIVE, TEXT_FORMATS, builtin_format, parse_tool_calls
from autobyteus_like.mail._messaging import SEND_MESSAGE_TOOL
from autobyteus_like.store._store import SessionStore
from autobyteus_like.team._member_tools import ask_tool_name, asked_member
from autobyteus_like.testing._outline import session_outline
from autobyteus_like.testing._secrets import mask, secrets_of
from autobyteus_like.tools._definition import ToolDefinition
from autobyteus_like.tools._handoff import HANDOFF_PREFIX

__all__ = ["export_session"]

RECORDING = "recording.json"
TEAM = "team.yaml"
MODULE = "test_recorded.py"

_MODULE_TEXT = '''"""An offline test made from session {session!r} (`sessions export`).

It replays the team in team.yaml on the replies its models wrote and the tool results as
recorded, and fails with a readable diff when what happens differs from the recording."""

from pathlib import Path

from autobyteus_like.testing import replay_export

HERE = Path(__file__).resolve().parent


def test_session_{slug}_replays(tmp_path):
    replay_export(HERE, tmp_path, check_requests={check_requests!r}, live_tools={live_tools!r})
'''


def export_session(store: SessionStore, session: str, folder: str | Path, *,
                   live_tools: bool = False, check_requests: bool = False,
                   team_data: dict[str, Any] | None = None) -> Path:
    """Write ``session`` of ``store`` as a test in ``folder`` (made if missing); the test
    module's path. ``team_data``: the team file the session ran (its members' settings, such
    as prompts and formats, are kept; their ``llm:`` scripted)."""
    info = store.session(session)
    if info is None:
        raise UsageError(f"no session {session!r} in {store.database.url}")
    outline = session_outline(store, session)
    if not outline["user_messages"]:
        raise UsageError(f"session {session!r} holds no user message to replay")
    described = info.config.get("members", {})
    members = sorted(set(outline["members"]) | set(described))  # the idle ones too
    coordinator = _coordinator(store, session)
    tools = {member: store.recordings.tools(session, member) for member in members}
    requests = {member: store.recordings.requests(session, member) for member in members}
    responses = {member: [r for r in store.recordings.responses(session, member)
                          if "error" not in r] for member in members}
    results = {member: [{"name": call.name, "status": call.state.value,
                         "result": call.result} for call in store.calls(session, member)
                        if call.result is not None and call.result.get("started", True)]
               for member in members}
    recording = {"session": session, "team": info.team, "coordinator": coordinator,
                 "outline": outline, "tools": tools, "results": results,
                 "requests": requests}
    team = {"name": info.team, "coordinator": coordinator, "members": [
        _member(member, described.get(member, []), responses[member], requests[member],
                tools[member], team_data) for member in members]}
    secrets = secrets_of(recording, team)
    recording, team = mask(recording, secrets), mask(team, secrets)
    target = Path(folder)
    target.mkdir(parents=True, exist_ok=True)
    # escaped: any text a model or tool wrote (lone surrogates included) is written exactly
    (target / RECORDING).write_text(json.dumps(recording, indent=1, ensure_ascii=True) + "\n")
    (target / TEAM).write_text(yaml.safe_dump(team, sort_keys=False, allow_unicode=False))
    slug = "".join(c if c.isalnum() else "_" for c in session).strip("_").lower() or "session"
    module = target / MODULE
    module.write_text(_MODULE_TEXT.format(session=session, slug=slug, live_tools=live_tools,
                                          check_requests=check_requests))
    return module


def _coordinator(store: SessionStore, session: str) -> str:
    for mail in store.mail(session):
        if mail.sender is None:
            return mail.recipient
    raise UsageError(f"session {session!r} holds no user message")


def _member(name: str, tool_names: list[str], responses: list[dict[str, Any]],
            requests: list[dict[str, Any]], tools: dict[str, Any],
            team_data: dict[str, Any] | None) -> dict[str, Any]:
    entry: dict[str, Any] = {"name": name}
    for member in (team_data or {}).get("members", []):
        if isinstance(member, dict) and member.get("name") == name:
            entry.update({key: value for key, value in member.items()
                          if key not in ("llm", "hooks")})
    named: list[str] = []  # an ask: answers as recorded; ask:NAME.* as each skill asked
    for listed in entry.get("tools", sorted(tool_names)):
        callee = asked_member(listed)
        if callee is not None and callee.endswith(".*"):
            named += sorted(t for t in tools if t.startswith(ask_tool_name(callee[:-1])))
        else:
            named.append(listed if callee is None else ask_tool_name(callee))
    # mail only where it was taught (a team member always has it, taught or not)
    taught = not requests or SEND_MESSAGE_TOOL in json.dumps(requests[0])
    entry["tools"] = [name for name in named  # a tool
                      if (name in tools or (name == SEND_MESSAGE_TOOL and taught))  # never
                      and not name.startswith(HANDOFF_PREFIX)]  # called has no stand-in
    handoffs = [receiver if not tools.get(HANDOFF_PREFIX + receiver, {}).get(
                    "requires_approval") else {"to": receiver, "requires_approval": True}
                for receiver in sorted({name.removeprefix(HANDOFF_PREFIX)
                                        for name in [*tool_names, *tools]
                                        if name.startswith(HANDOFF_PREFIX)})]
    if handoffs:  # the team's own tools again, so a replayed handoff hands over
        entry.setdefault("handoffs", handoffs)
    entry.setdefault("tool_format", _format_of(responses, requests, tools))
    entry["llm"] = {"provider": "scripted", "responses": [_reply(r) for r in responses]}
    return entry


def _reply(response: dict[str, Any]) -> dict[str, Any]:
    reply: dict[str, Any] = {"text": response["text"]}
    if response["tool_calls"]:
        reply["tool_calls"] = [dict(call) for call in response["tool_calls"]]
    usage = response.get("usage") or {}
    for key in ("input_tokens", "output_tokens", "reasoning_tokens", "cached_input_tokens"):
        if usage.get(key):
            reply[key] = usage[key]
    if response.get("finish_reason") == "length":
        reply["finish_reason"] = "length"
    return reply


def _format_of(responses: list[dict[str, Any]], requests: list[dict[str, Any]],
               tools: dict[str, Any]) -> str:
    """The format the member's calls were read in: native when tools were declared to the
    provider, else the text format whose instructions its system prompt holds (or, failing
    that, the one that reads the calls its replies held)."""
    if any(request.get("tools") for request in requests) or any(
            response["tool_calls"] for response in responses):
        return NATIVE
    prompt = str(requests[0].get("system_prompt") or "") if requests else ""
    for candidate in TEXT_FORMATS:
        manifest = builtin_format(candidate).manifest([_SAMPLE])
        if manifest[:160] in prompt:
            return candidate.value
    names = set(tools) | {SEND_MESSAGE_TOOL}
    for response in responses:
        for candidate in TEXT_FORMATS:
            found = parse_tool_calls(response["text"], candidate.value)
            if found.invocations and {call.name for call in found.invocations} <= names:
                return candidate.value
    return "xml"


def _sample(text: str) -> str:
    """A tool that shows a format's instructions."""
    return text


_SAMPLE = ToolDefinition(name="sample", description="A sample.", arguments_model=None,
                         function=_sample, input_schema={"type": "object", "properties": {
                             "text": {"type": "string"}}})
