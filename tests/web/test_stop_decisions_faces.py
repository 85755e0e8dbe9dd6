"""Issue 36 item 1 through the faces the other tests do not take: once a stop is acknowledged,
every decision on its run is refused and the call never runs, for a run an AG-UI client
started (``POST /agui``, a real server in a subprocess) and for a Ray team behind the web
view (in process, a real local Ray cluster)."""

from __future__ import annotations

import pytest

from autobyteus_like.runtime import RayRuntime
from autobyteus_like.serving._team_host import TeamHost
from tests.runtime.scripted_teams import call, member, team_config
from tests.serving.team_tools import purge
from tests.web.served_team import WebServer
from tests.web.test_web_team import purging_team
from tests.web.test_web_team_decisions import drive, refused_after_its_stop


@pytest.mark.slow  # a real server in a subprocess
def test_a_run_an_agui_client_started_refuses_decisions_after_its_stop(tmp_path):
    marker = tmp_path / "marker"
    server = WebServer(purging_team(tmp_path, marker))
    run = {"threadId": "thread-1", "runId": "run-1", "state": {}, "tools": [], "context": [],
           "forwardedProps": {}, "messages": [{"id": "m1", "role": "user", "content": "purge"}]}
    try:
        stream = server.stream(path="/agui", body=run)
        waiting = next(event["value"] for _, event in stream
                       if event["type"] == "CUSTOM"
                       and event["name"] == "autobyteus.approval_requested")
        assert server.post("/api/stop")[1] == {"stopped": True}
        for path in ("/api/approve", "/api/deny"):
            status, reply = server.post(path, {"tool_call_id": waiting["tool_call_id"]})
            assert status == 409 and "was stopped" in reply["error"], reply
        rest = [event for _, event in stream]
        assert rest[-1]["type"] == "RUN_FINISHED" and rest[-1]["outcome"]["type"] == "cancelled"
        assert not any(e["type"] == "CUSTOM" and e["name"] == "autobyteus.tool_started"
                       for e in rest)
    finally:
        assert server.stop() == 0
    assert not marker.exists()


def test_a_ray_team_behind_the_web_view_refuses_decisions_after_a_stop(ray_cluster, tmp_path):
    marker = tmp_path / "marker"
    lead = member("lead", [call("purge", marker=str(marker)), "Purged.", "again"],
                  tools=["purge"], auto_execute_tools=False, approval_policy="marked")
    host = TeamHost(team_config(lead, runtime=RayRuntime(backend="ray")), tools=[purge])

    drive(host, refused_after_its_stop)
    assert not marker.exists()  # the call never ran, on its Ray host either
