"""Session: one named conversation in a store, held by this process while it runs.

``Agent(config, session=Session("chat-1", "chat.db"))`` or
``AgentTeam.from_yaml(path, session=Session("run-7", "team.sessions.db"))``: the agent or team
holds the session's lease while it runs (a second process gets ``SessionInUseError``), writes
every step as it goes, and on the next start picks up where it stopped.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from loguru import logger

from autobyteus_like.errors import ConfigError, SessionInUseError, SessionLostError, StoreError
from autobyteus_like.store._database import Durability
from autobyteus_like.store._records import MailRecord, MailState, TurnRecord
from autobyteus_like.store._restore import TurnSnapshot, restore_agent
from autobyteus_like.store._store import SessionStore, open_store, process_owner

__all__ = ["Session", "describe_members"]


def describe_members(members: Mapping[str, Sequence[str]]) -> dict[str, Any]:
    """What a session records about the configuration it ran: each member and its tools."""
    return {"members": {name: sorted(tools) for name, tools in members.items()}}


class Session:
    """A named session in a store (a location, or a ``SessionStore`` already open)."""

    def __init__(self, name: str, store: SessionStore | str | Path, *,
                 durability: Durability = "process", lease_s: float | None = None) -> None:
        if not name or not name.strip():
            raise ValueError("a session needs a name")
        self.name = name
        self.durability: Durability = durability
        self._owns_store = not isinstance(store, SessionStore)
        self.store: SessionStore = (store if isinstance(store, SessionStore)
                                    else open_store(store, durability=durability,
                                                    lease_s=lease_s))
        self.location = _absolute(store.database.url if isinstance(store, SessionStore)
                                  else str(store))
        """Where the store is (another process, in another folder, opens it from here)."""
        self.owner = process_owner()
        self.held = False
        self.lost: SessionLostError | None = None
        """Set when this process's hold was taken over (it found out at a write, a renewal or
        its release): what it did after that point was refused, not stored."""
        self._attached = False
        self.created = False
        self._writers: set[str] = set()
        self._heartbeat: threading.Thread | None = None
        self._released = threading.Event()
        self._run_goes_on = False
        """Taken unfinished: the run of its last process goes on (its usage with it)."""
        self._usage_taken: set[str] = set()

    @classmethod
    def attached(cls, name: str, location: str, durability: Durability = "process", *,
                 holder: str) -> Session:
        """The session as seen from another process of the same run (a team member's Ray
        actor): it writes its agent's turns under the lease the team's process (``holder``,
        its lease owner) holds, and takes or gives up nothing. Its writes are fenced by that
        lease's generation, so none lands once another process took the session over."""
        session = cls(name, location, durability=durability)
        session.held = session._attached = True
        session.owner = holder
        session.store.transactions.fence(name, holder, session.store.leases.generation(
            name, holder))
        return session

    def conversation(self, conversation: str) -> Session:
        """The session record of a team's conversation ``conversation``: ``NAME@ID`` in the
        same store (the default conversation's record is this one)."""
        return Session(f"{self.name}@{conversation}", self.store, durability=self.durability)

    def fork(self, at: int, name: str | None = None, *, member: str | None = None
             ) -> Session:
        """A new session holding this one's conversation, calls, mail and recordings up to
        turn ``at`` (the team's user messages counted from 1; with ``member``, that member's
        own turns), in the same store; this one is untouched, and its lease neither taken
        nor waited for (a running session is forked at its last committed point). ``name``:
        the fork's (default ``NAME.forkAT``, numbered when taken)."""
        from autobyteus_like.store._fork import fork_session

        if name is None:
            name = f"{self.name}.fork{at}"
            number = 2
            while self.store.session(name) is not None:
                name = f"{self.name}.fork{at}-{number}"
                number += 1
        fork_session(self.store, self.name, at, name, member)
        return Session(name, self.store, durability=self.durability)

    def hold(self, team: str, members: Mapping[str, Sequence[str]]) -> None:
        """Take the session for this process (creating it if new). A session that exists must
        be the same team, with every member and tool it used still there (``ConfigError``
        naming what is gone); another live holder is a ``SessionInUseError``."""
        config = describe_members(members)
        fingerprint = hashlib.sha256(json.dumps(config, sort_keys=True).encode()).hexdigest()
        existing = self.store.session(self.name)
        if existing is not None:
            problems = _changes(existing.team, existing.config, team, config)
            if problems:
                raise ConfigError(f"session {self.name!r}", problems)
        _, self.created = self.store.hold(self.name, team=team, fingerprint=fingerprint,
                                          config=config, owner=self.owner)
        self._run_goes_on = not self.created and self.standing() != "done"
        self._usage_taken.clear()
        self.held = True
        self.lost = None
        self.store.set_status(self.name, "active")
        self._released.clear()
        self._heartbeat = threading.Thread(target=self._keep_alive, daemon=True,
                                           name=f"session-{self.name}-lease")
        self._heartbeat.start()

    def _keep_alive(self) -> None:
        """Renew the lease every third of its length while the session is held, however long
        a turn waits (for a person, a slow tool): a live holder never loses it."""
        while not self._released.wait(self.store.lease_s / 3):
            try:
                self.store.renew(self.name, self.owner)
            except SessionLostError as exc:  # taken over: its writes are refused from now on
                logger.warning("{}", exc)
                return
            except Exception as exc:  # a store gone away: the holder finds out at its write
                logger.warning("session {}: cannot renew its lease: {}", self.name, exc)

    def standing(self) -> str:
        """Where the session's work stands: waiting (for a person), unfinished or done."""
        return self.store.standing(self.name)

    def has_mail(self, mail_id: str) -> bool:
        """Whether a message of this id was stored (delivered, or to be on resume)."""
        return self.store.has_mail(self.name, mail_id)

    def queue_mail(self, mail: MailRecord) -> None:
        """Store a message before it is delivered (``QUEUED``)."""
        self.store.queue_mail(self.name, mail)

    def mail(self) -> list[MailRecord]:
        """Every message of the team stored in the session, in the order it was sent."""
        return self.store.mail(self.name)

    def turns(self, agent: str) -> list[TurnRecord]:
        """``agent``'s turns as stored, oldest first."""
        return self.store.turns(self.name, agent)

    def undelivered_mail(self) -> list[MailRecord]:
        """The team's messages stored and not yet delivered (its last process stopped
        first), in the order they were sent."""
        return self.store.undelivered_mail(self.name)

    def drop_undelivered_mail(self, reason: str) -> None:
        """Mark the team's messages not yet delivered FAILED with ``reason`` (a new run
        began without them): no later resume delivers them."""
        for mail in self.store.undelivered_mail(self.name):
            self.store.set_mail(self.name, mail.mail_id, MailState.FAILED, error=reason)

    def carries_usage(self, agent: str) -> bool:
        """Whether ``agent``'s run starting now counts on from the usage stored of it: its
        first start since this process took the session, which was left unfinished (a
        later start here is a new run, from zero)."""
        first = agent not in self._usage_taken
        self._usage_taken.add(agent)
        return first and self._run_goes_on

    def save_usage(self, usage: dict[str, Any], run: str = "team") -> None:
        """Store what the run has spent of its budget, so a resume counts on from it (the
        usage meter calls this as it counts; fenced like every write of the session)."""
        self.store.save_usage(self.name, usage, run)

    def saved_usage(self, run: str = "team") -> dict[str, Any] | None:
        """What the run had spent when its last process stopped (None: nothing stored)."""
        return self.store.usage(self.name, run)

    def holder(self) -> str | None:
        """Who holds the conversation since a handoff (None: the coordinator)."""
        return self.store.holder(self.name)

    def last_mail_seq(self) -> int:
        """The sequence number of the session's last stored message (0: none)."""
        return max((mail.seq for mail in self.mail()), default=0)

    def release(self, status: str) -> None:
        """Give the session up, recording where it stands (done, waiting, stopped, failed)."""
        if self._attached:
            self._writers.clear()
            return
        if self.held:
            self.held = False
            self._released.set()
            if self._heartbeat is not None:
                self._heartbeat.join()
                self._heartbeat = None
            self._writers.clear()
            self.lost = self.store.release(self.name, self.owner, status)

    def restore(self, agent: str) -> TurnSnapshot:
        """Where ``agent`` stands in this session."""
        return restore_agent(self.store, self.name, agent)

    def claim_writer(self, agent: str) -> None:
        """``agent`` writes its turns to this session from now on (one writer per name)."""
        if not self.held:
            raise StoreError(f"session {self.name!r} is not held by this process")
        if agent in self._writers:  # two agents of one name would write one history
            raise SessionInUseError(self.name, f"another agent named {agent!r} in this process",
                                    None)
        self._writers.add(agent)

    def stopped(self, agent: str) -> None:
        """``agent`` no longer writes to the session."""
        self._writers.discard(agent)

    def close(self) -> None:
        """Release the session and close the store if this session opened it."""
        if self.held and not self._attached:
            self.release(self.standing())
        if self._owns_store:
            self.store.close()

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _changes(old_team: str, old: Mapping[str, Any], team: str, new: Mapping[str, Any]
             ) -> list[str]:
    """What a session needs that the configuration no longer has."""
    problems = []
    if old_team != team:
        problems.append(f"it belongs to team {old_team!r}, not {team!r}")
    old_members: Mapping[str, list[str]] = old.get("members", {})
    new_members: Mapping[str, list[str]] = new.get("members", {})
    for member, tools in old_members.items():
        if member not in new_members:
            problems.append(f"member {member!r} is gone from the configuration")
            continue
        gone = sorted(set(tools) - set(new_members[member]))
        if gone:
            problems.append(f"member {member!r} no longer has the tools it used: "
                            f"{', '.join(gone)}")
    return problems


def _absolute(location: str) -> str:
    """A SQLite file's path made absolute (a URL to a server stays as it is)."""
    if location.startswith(("postgresql://", "postgres://")):
        return location
    return str(Path(location.removeprefix("sqlite:///")).resolve())
