"""What a session held when the server opened it: each member's stored conversation,
for the page to show above the runs this server makes."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from autobyteus_like.store._session import Session

__all__ = ["stored_history"]


def _result_text(result: dict[str, Any]) -> str:
    if result.get("status") == "success":
        content = result.get("content")
        return content if isinstance(content, str) else json.dumps(content, ensure_ascii=False)
    error = result.get("error") or {}
    return f"{error.get('code')}: {error.get('message')}"


def stored_history(session: Session | None) -> dict[str, Any]:
    """``{"session": name, "members": {member: [message, ...]}}`` (every epoch, in order);
    ``{"session": None, "members": {}}`` without a session."""
    if session is None:
        return {"session": None, "members": {}}
    store, name = session.store, session.name
    members: dict[str, list[dict[str, Any]]] = {}
    for agent in store.agents(name):
        members[agent] = [{
            "role": message.role, "content": message.content,
            "calls": [{"id": str(call.get("id")), "name": str(call.get("name")),
                       "arguments": json.dumps(call.get("arguments"), ensure_ascii=False)}
                      for call in message.tool_calls],
            "results": [{"id": str(result.get("invocation_id")), "text": _result_text(result)}
                        for result in message.tool_results],
        } for message in store.history(name, agent, every_epoch=True)]
    return {"session": name, "members": members}
