"""A team's handoffs: the ``transfer_to_<member>`` tools its members are given (their
``handoffs:``), the check of those names, whom a user's message goes to (the member holding
the conversation, or the coordinator: ``next_message_to``), and the hand-overs a session's
last process left undelivered."""

from __future__ import annotations

import re
from functools import partial
from typing import TYPE_CHECKING, Any, Protocol

from autobyteus_like.agent._agent import Agent
from autobyteus_like.history._handover import HandedOver, handed_history
from autobyteus_like.history._replay import to_history
from autobyteus_like.team._handoff_summary import ConversationTap, handoff_summary
from autobyteus_like.tools._handoff import entry_problems, handoff_target, handoff_tool

if TYPE_CHECKING:
    from autobyteus_like.agent._config import AgentConfig
    from autobyteus_like.history._messages import HistoryMessage
    from autobyteus_like.hooks._protocol import AgentHooks
    from autobyteus_like.mail._room import MailRoom
    from autobyteus_like.runtime._backend import Member
    from autobyteus_like.store._records import MailRecord
    from autobyteus_like.store._session import Session
    from autobyteus_like.tools._definition import ToolDefinition

__all__ = ["handoff_entry_problems", "handoff_problems", "handoff_tools", "is_handoff_mail",
           "resume_handoff", "retake_handoff", "user_recipient"]

_TOOL_NAME = re.compile(r"^[A-Za-z0-9_-]+$")


def handoff_problems(members: list[AgentConfig]) -> list[str]:
    """Every ``handoffs:`` entry that names no other member of the team, located as
    ``members[i].handoffs[j]``."""
    names = [member.name for member in members]
    problems = []
    for i, member in enumerate(members):
        targets = [handoff_target(entry)[0] for entry in member.handoffs]
        for j, target in enumerate(targets):
            where = f"members[{i}].handoffs[{j}]"
            if target == member.name:
                problems.append(f"{where}: {member.name!r} cannot hand the conversation to "
                                f"itself")
            elif target not in names:
                problems.append(f"{where}: {target!r} is no member of the team (members: "
                                f"{', '.join(names)})")
            elif not _TOOL_NAME.match(target):
                problems.append(f"{where}: {target!r} cannot name a tool (transfer_to_"
                                f"{target}): a member handed to is named with letters, digits, "
                                f"'_' or '-'")
            elif targets.index(target) != j:
                problems.append(f"{where}: {target!r} is named twice")
    return problems


def handoff_entry_problems(data: Any) -> list[str]:
    """Every ``handoffs:`` entry of plain team data (as parsed from YAML) given as a mapping
    that is no ``HandoffEntry``, located as ``members[i].handoffs[j]`` and naming the member
    (and whom it hands to), before the config is validated: one line that says it."""
    if not isinstance(data, dict) or not isinstance(data.get("members"), list):
        return []
    problems = []
    for i, member in enumerate(data["members"]):
        if not isinstance(member, dict) or not isinstance(member.get("handoffs"), list):
            continue
        for j, entry in enumerate(member["handoffs"]):
            if not isinstance(entry, dict):
                continue
            to = entry.get("to")
            where = (f"members[{i}].handoffs[{j}]: member {member.get('name')!r}"
                     + (f", handoff to {to!r}" if isinstance(to, str) else ""))
            problems += [f"{where}: {problem}" for problem in entry_problems(entry)]
    return problems


def handoff_tools(members: list[AgentConfig], member: AgentConfig
                  ) -> tuple[list[ToolDefinition], list[AgentHooks]]:
    """The ``transfer_to_<member>`` tools of ``member`` (each described by its receiver's
    role, marked ``requires_approval`` where its entry says so; one to a receiver with
    ``handoff_history: summary`` makes the summary), and the hooks they need."""
    roles = {other.name: other.role for other in members}
    summarised = {other.name for other in members if other.handoff_history == "summary"}
    tap = ConversationTap()
    tools = [handoff_tool(target, roles.get(target, ""), requires_approval=approval,
                          summary=partial(handoff_summary, tap, target)
                          if target in summarised else None)
             for target, approval in map(handoff_target, member.handoffs)]
    wanted = any(handoff_target(entry)[0] in summarised for entry in member.handoffs)
    return tools, [tap] if wanted else []


class Routing(Protocol):
    """What of a team's config routes the user's messages (``TeamConfig`` has it)."""

    @property
    def next_message_to(self) -> str: ...
    @property
    def max_handoffs(self) -> int: ...


def user_recipient(config: Routing, mail: MailRoom, to: str | None = None) -> str:
    """Whom the user's next message goes to: ``to`` when named, else the member holding the
    conversation, or with ``next_message_to: coordinator`` the coordinator (who holds it
    again). The message may have the conversation handed over ``max_handoffs`` times, counted
    from now."""
    mail.handed_path, mail.max_handoffs = [], config.max_handoffs
    if to is not None:
        return to
    if config.next_message_to == "coordinator":
        mail.holder = mail.coordinator
    return mail.holder


def is_handoff_mail(mail: MailRecord) -> bool:
    """Whether a stored message is one a handoff gives its receiver."""
    return mail.mail_id.startswith("handoff/")


def resume_handoff(mail: MailRoom, record: MailRecord, agents: dict[str, Member],
                   session: Session) -> None:
    """Deliver a hand-over its last process stored but never delivered: the receiver is
    given the sender's conversation as it is stored (its ``handoff_history`` of it)."""
    sender = record.sender or ""
    invocation_id = record.mail_id.rpartition("/")[2]
    history = _senders_conversation(sender, agents, session)
    handed = HandedOver("", sender=sender, receiver=record.recipient, reason="",
                        invocation_id=invocation_id, history=history)
    mail.hand_over(handed, handed_history(history, mail.handoff_history.get(
        record.recipient, "all")), note=record.content)


def retake_handoff(mail: MailRoom, name: str, agents: dict[str, Member],
                   session: Session) -> None:
    """Before ``name`` resumes: when its last process took a hand-over (the message stored
    as delivered, its turn queued) but died before that turn began and stored the
    conversation it was given, give it that conversation again from the stored hand-over
    (the sender's conversation as stored, its ``handoff_history`` of it), so the queued turn
    goes on with it. (A member in another process, Ray, is not covered.)"""
    member = getattr(agents.get(name), "local", None)  # in this process (runtime/_member.py)
    if not isinstance(member, Agent):
        return
    stored = session.restore(name)
    if stored.current is not None or not stored.queued:
        return  # a begun turn stored its conversation with its start
    first = stored.queued[0]
    if first.mail_id is None or not first.mail_id.startswith("handoff/"):
        return
    history = _senders_conversation(first.sender or "", agents, session)
    member._seed(handed_history(history, mail.handoff_history.get(name, "all")))


def _senders_conversation(sender: str, agents: dict[str, Member], session: Session
                          ) -> list[HistoryMessage]:
    """A hand-over's sender's conversation: as the resumed agent holds it, or for a member
    in another process (Ray) as its session stores it."""
    member = agents.get(sender)
    if isinstance(local := getattr(member, "local", None), Agent):
        return list(local.history)
    speaks = member.config.resolved_format() if member is not None else None
    return list(to_history(session.restore(sender).messages, speaks or "native"))
