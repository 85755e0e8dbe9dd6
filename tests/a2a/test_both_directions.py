"""Both directions at once: two teams of this project, each served by ``serve-a2a`` in its own
process and each having the other as an ``a2a:`` member, are asked at the same moment; each
caller gets its own right answer."""

from __future__ import annotations

import json
import socket
import threading
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from pathlib import Path

import anyio
import httpx
import pytest

pytest.importorskip("a2a", reason="the A2A tests need autobyteus-like[a2a]")

from a2a.client import ClientConfig, create_client
from a2a.types import TaskState

from tests.a2a.test_serve_a2a import collect, message, served


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def team(tmp_path: Path, name: str, answer: str, peer: int) -> Path:
    path = tmp_path / f"{name}.yaml"
    path.write_text(json.dumps({
        "name": name, "coordinator": "lead",
        "members": [{"name": "lead", "llm": {"provider": "scripted", "responses": [answer]}},
                    {"name": "peer", "a2a": {"url": f"http://127.0.0.1:{peer}/",
                                             "timeout_s": 60}}]}))
    return path


def ask_peer(url: str, context: str, barrier: threading.Barrier) -> str:
    """Ask the served team's ``peer`` member (the other team) once the other caller is ready."""
    async def talk() -> str:
        async with httpx.AsyncClient(timeout=60) as http:
            client = await create_client(url, ClientConfig(httpx_client=http))
            request = message("what do you say?", context_id=context)
            request.message.metadata.update({"skill": "peer"})
            barrier.wait(30)
            events = await collect(client, request)
            await client.close()
        [last] = [e for e in events if e.HasField("status_update")][-1:]
        assert last.status_update.status.state == TaskState.TASK_STATE_COMPLETED
        assert last.status_update.context_id == context  # the caller's own context
        answers = [e.artifact_update.artifact for e in events if e.HasField("artifact_update")]
        return "".join(p.text for p in [a for a in answers if a.name == "answer"][-1].parts)

    return str(anyio.run(talk))


@pytest.mark.slow  # two served teams, each in its own process
def test_two_served_teams_call_each_other_at_the_same_moment(tmp_path):
    ports = free_port(), free_port()
    files = (team(tmp_path, "alpha", "alpha says 4", ports[1]),
             team(tmp_path, "beta", "beta says 9", ports[0]))
    with ExitStack() as stack:
        with ThreadPoolExecutor(2) as pool:  # both start at once (each takes seconds)
            starting = [pool.submit(stack.enter_context,
                                    served(path, "--http", f"127.0.0.1:{port}"))
                        for path, port in zip(files, ports, strict=True)]
            urls = [start.result(60)[0] for start in starting]
        barrier = threading.Barrier(2)
        answers: dict[str, str] = {}

        def caller(which: int) -> None:
            answers[urls[which]] = ask_peer(urls[which], f"caller-{which}", barrier)

        threads = [threading.Thread(target=caller, args=(i,)) for i in (0, 1)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(90)
        assert not any(thread.is_alive() for thread in threads)
    # alpha's peer is beta (whose coordinator answers), and the other way round
    assert answers == {urls[0]: "beta says 9", urls[1]: "alpha says 4"}
