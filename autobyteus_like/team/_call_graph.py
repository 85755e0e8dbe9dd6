"""Who waits for whom among a team's members called as tools: a call that would close a loop
(a member asking itself, directly or through others) or go deeper than the team allows is
refused before it starts, so no member ever waits for itself.

A node is one running instance: a member of the team (its running conversation, named by the
member's name) or a fresh instance made for one call (``callee@caller/call``). An edge is a
call in flight. The names along a fresh instance's chain catch a loop of fresh calls; the
edges catch one through a member's running conversation, which may be busy with someone
else's question when it asks. On Ray each host keeps its own graph: a call to a running
conversation in another host carries the edges that lead to it (``upstream``), which that
host holds while the call runs (``carry``, ``drop``), so a loop across hosts is seen there.
"""

from __future__ import annotations

import threading
from collections import Counter

from autobyteus_like.errors import ToolFailure
from autobyteus_like.tools._invocation import ErrorCode

__all__ = ["CallGraph"]


class CallGraph:
    """The calls in flight between a team's instances, and the team's depth limit."""

    def __init__(self, max_depth: int) -> None:
        self.max_depth = max_depth
        self._lock = threading.Lock()
        self._edges: dict[str, Counter[str]] = {}

    def enter(self, chain: tuple[str, ...], caller: str, callee: str, target: str) -> None:
        """Record ``caller`` (whose members from the team's running one are ``chain``) waiting
        for ``target``, an instance of the member ``callee``; a ``ToolFailure`` saying why
        when that would loop or go too deep."""
        if callee in chain:
            path = " -> ".join((*chain, callee))
            raise ToolFailure(ErrorCode.PERMISSION_DENIED,
                              f"refused: {callee} is already answering this call ({path}); a "
                              "member never asks itself, directly or through others",
                              suggestion="answer from what you have", recoverable=False)
        if len(chain) > self.max_depth:
            path = " -> ".join((*chain, callee))
            raise ToolFailure(ErrorCode.PERMISSION_DENIED,
                              f"refused: asking {callee} would nest {len(chain)} calls deep "
                              f"({path}); the team allows {self.max_depth} (ask_depth)",
                              suggestion="answer from what you have", recoverable=False)
        with self._lock:
            if self._reaches(target, caller):
                raise ToolFailure(ErrorCode.PERMISSION_DENIED,
                                  f"refused: {callee} is waiting (through its own calls) for "
                                  f"this answer; asking it would never end",
                                  suggestion="answer from what you have", recoverable=False)
            self._edges.setdefault(caller, Counter())[target] += 1

    def leave(self, caller: str, target: str) -> None:
        """The call from ``caller`` to ``target`` ended."""
        with self._lock:
            waits = self._edges.get(caller)
            if waits is None:
                return
            waits[target] -= 1
            if waits[target] <= 0:
                del waits[target]
            if not waits:
                del self._edges[caller]

    def upstream(self, node: str) -> list[tuple[str, str]]:
        """The calls in flight on the paths that lead to ``node`` (who waits for it, and who
        waits for them), as (caller, target) pairs."""
        with self._lock:
            edges = [(caller, target) for caller, waits in self._edges.items()
                     for target in waits]
        found: list[tuple[str, str]] = []
        todo, seen = [node], {node}
        while todo:
            after = todo.pop()
            for caller, target in edges:
                if target == after:
                    found.append((caller, target))
                    if caller not in seen:
                        seen.add(caller)
                        todo.append(caller)
        return found

    def carry(self, edges: list[tuple[str, str]]) -> None:
        """Hold another host's calls in flight (``upstream`` there) while its call runs."""
        with self._lock:
            for caller, target in edges:
                self._edges.setdefault(caller, Counter())[target] += 1

    def drop(self, edges: list[tuple[str, str]]) -> None:
        """The carried calls' call ended."""
        for caller, target in edges:
            self.leave(caller, target)

    def _reaches(self, start: str, goal: str) -> bool:
        seen = {start}
        todo = [start]
        while todo:
            node = todo.pop()
            if node == goal:
                return True
            for after in self._edges.get(node, ()):
                if after not in seen:
                    seen.add(after)
                    todo.append(after)
        return False
