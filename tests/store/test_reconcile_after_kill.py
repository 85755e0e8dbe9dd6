"""kill -9 between a tool's side effect and its stored result, then resume: the call is settled
by its idempotency key (docs/sessions.md, "At most once, with keys"). A process runs an agent
on a session (SQLite, and a real PostgreSQL server) whose tool pays into a ledger file keyed by
``ToolContext.idempotency_key`` and is killed right after the payment, before its result is
stored. A new process resumes: a tool with ``reconcile(key)`` finds the payment and the model
is sent that outcome; an idempotent tool runs again with the same key (the ledger takes a key
once); a tool with neither comes back INTERRUPTED, "may have run". Nothing is paid twice."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from autobyteus_like import Agent, AgentConfig, ScriptedLLM, ToolContext, tool
from autobyteus_like.history._messages import ToolResultsMessage
from autobyteus_like.store import Session
from autobyteus_like.tools._invocation import MAY_HAVE_RUN
from tests.store.test_kill_at_each_stage import killed_when_reached

SCRIPT = [json.dumps({"name": "pay", "arguments": {"amount": 7}}), "done"]

CHILD = '''
import json, os, sys, time
from autobyteus_like import Agent, AgentConfig, ScriptedLLM, ToolContext, tool
from autobyteus_like.store import Session

store, folder, kind = sys.argv[1], sys.argv[2], sys.argv[3]

@tool(idempotent=kind == "idempotent")
def pay(amount: int, context: ToolContext) -> str:
    """Pays an amount (an effect that must not happen twice)."""
    fd = os.open(os.path.join(folder, "ledger"), os.O_WRONLY | os.O_APPEND | os.O_CREAT)
    os.write(fd, f"{context.idempotency_key} {amount}\\n".encode())
    os.close(fd)
    with open(os.path.join(folder, "reached"), "w") as marker:
        marker.write("paid")
    time.sleep(3600)  # killed now: paid, and the result never stored
    return "unreachable"

config = AgentConfig(name="a", llm=ScriptedLLM(json.loads(sys.argv[4])), tools=[pay],
                     tool_format="json")
with Agent(config, session=Session("s1", store)) as agent:
    agent.run("pay 7", timeout=60)
'''


def _killed_after_paying(store: str, folder: Path, kind: str) -> None:
    killed_when_reached([CHILD, store, str(folder), kind, json.dumps(SCRIPT)], folder,
                        "its payment")


def _ledger(folder: Path) -> dict[str, int]:
    """Key -> amount, each key taken once (as a payment API with idempotency keys does)."""
    taken: dict[str, int] = {}
    for line in (folder / "ledger").read_text().splitlines():
        key, amount = line.split()
        taken.setdefault(key, int(amount))
    return taken


@pytest.mark.parametrize("kind", ["reconcile", "idempotent", "neither"])
def test_a_call_killed_after_its_side_effect_is_settled_by_its_key(
        kind: str, store_url: str, tmp_path: Path):
    _killed_after_paying(store_url, tmp_path, kind)
    [(paid_key, _)] = _ledger(tmp_path).items()
    asked: list[str] = []
    ran: list[str] = []

    def reconcile(key: str) -> str | None:
        asked.append(key)
        amount = _ledger(tmp_path).get(key)
        return None if amount is None else f"paid {amount}"

    @tool(idempotent=kind == "idempotent", reconcile=reconcile if kind == "reconcile" else None)
    def pay(amount: int, context: ToolContext) -> str:
        """Pays an amount (an effect that must not happen twice)."""
        ran.append(context.idempotency_key)
        with open(tmp_path / "ledger", "a") as ledger:
            ledger.write(f"{context.idempotency_key} {amount}\n")
        return f"paid {amount}"

    llm = ScriptedLLM(SCRIPT)
    config = AgentConfig(name="a", llm=llm, tools=[pay], tool_format="json")
    with Agent(config, session=Session("s1", store_url)) as agent:
        [resumed] = agent.resume()
        assert resumed.reply.result(timeout=30) == "done"
        history = agent.history
    [results] = [m for m in history if isinstance(m, ToolResultsMessage)]
    [result] = results.results
    assert result.started  # the body had started in the killed process
    assert _ledger(tmp_path) == {paid_key: 7}  # paid once, whatever happened
    sent = llm.requests[-1].messages[-1].content
    if kind == "reconcile":
        assert asked == [paid_key] and ran == []  # found by the key the body used
        assert result.status == "success" and result.content == "paid 7"
        assert "paid 7" in sent
    elif kind == "idempotent":
        assert ran == [paid_key]  # ran again, with the same key
        assert result.status == "success" and result.content == "paid 7"
    else:
        assert ran == []
        assert result.error is not None and result.error.code == "INTERRUPTED"
        assert result.error.message.startswith(MAY_HAVE_RUN)
        assert MAY_HAVE_RUN in sent


def test_the_key_is_derived_from_the_session_member_and_call():
    from autobyteus_like.tools._context import call_key

    keys = {call_key("a", "call_1", "s1"), call_key("b", "call_1", "s1"),
            call_key("a", "call_2", "s1"), call_key("a", "call_1", "s2"),
            call_key("a", "call_1")}
    assert len(keys) == 5  # each part counts
    assert call_key("a", "call_1", "s1") == call_key("a", "call_1", "s1")  # stable
    assert ToolContext(agent="a", invocation_id="call_1", session="s1").idempotency_key == \
        call_key("a", "call_1", "s1")
    assert call_key("a/b", "c") != call_key("a", "b/c")  # no ambiguous joins
