"""Spans exported over OTLP/HTTP (the SDK's exporter, batched) to a real receiver on 127.0.0.1:
a small HTTP server in this test decoding the protobuf with opentelemetry-proto, then read
back. The exporter finds it the standard way: ``OTEL_EXPORTER_OTLP_ENDPOINT``."""

from __future__ import annotations

import gzip
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)

from autobyteus_like import AgentConfig, AgentTeam, ScriptedLLM, TeamConfig
from autobyteus_like.tracing import Tracing, configure_tracing


class Receiver:
    """An OTLP/HTTP trace receiver: ``POST /v1/traces`` with protobuf, answered as a
    collector does; every decoded request is kept."""

    def __init__(self) -> None:
        self.requests: list[ExportTraceServiceRequest] = []
        self.paths: list[str] = []
        self.arrived = threading.Event()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers["Content-Length"]))
                if self.headers.get("Content-Encoding") == "gzip":
                    body = gzip.decompress(body)
                request = ExportTraceServiceRequest()
                request.ParseFromString(body)
                outer.requests.append(request)
                outer.paths.append(self.path)
                outer.arrived.set()
                reply = ExportTraceServiceResponse().SerializeToString()
                self.send_response(200)
                self.send_header("Content-Type", "application/x-protobuf")
                self.send_header("Content-Length", str(len(reply)))
                self.end_headers()
                self.wfile.write(reply)

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, name="otlp-receiver")

    @property
    def endpoint(self) -> str:
        host, port = self.server.server_address[:2]
        return f"http://{host}:{port}"

    def spans(self) -> list[tuple[str, dict[str, object], str]]:
        """(name, attributes, service name) of every span received."""
        found = []
        for request in self.requests:
            for resource_spans in request.resource_spans:
                service = next(a.value.string_value for a in resource_spans.resource.attributes
                               if a.key == "service.name")
                for scope in resource_spans.scope_spans:
                    for span in scope.spans:
                        attributes = {a.key: _value(a.value) for a in span.attributes}
                        found.append((span.name, attributes, service))
        return found


def _value(value: object) -> object:
    kind = value.WhichOneof("value")  # type: ignore[attr-defined]
    if kind == "array_value":
        return [_value(v) for v in value.array_value.values]  # type: ignore[attr-defined]
    return getattr(value, kind)


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    receiver = Receiver()
    receiver.thread.start()
    yield receiver
    receiver.server.shutdown()
    receiver.server.server_close()
    receiver.thread.join(5)


def test_spans_reach_a_real_otlp_receiver_and_read_back(receiver, monkeypatch):
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", receiver.endpoint)
    provider = configure_tracing("otlp", service_name="otlp-test")
    lead = AgentConfig(name="lead", llm=ScriptedLLM(["the answer"]), tool_format="json")
    try:
        team = AgentTeam(TeamConfig(name="t", coordinator="lead", members=[lead]),
                         tracing=Tracing(provider=provider))
        with team:
            assert team.run("go", timeout=10) == "the answer"
    finally:
        provider.shutdown()  # flushes the batch to the receiver
    assert receiver.arrived.is_set()
    assert set(receiver.paths) == {"/v1/traces"}
    spans = receiver.spans()
    assert sorted(name for name, _, _ in spans) == ["chat scripted", "invoke_agent lead"]
    chat = next(attributes for name, attributes, _ in spans if name == "chat scripted")
    assert chat["gen_ai.operation.name"] == "chat"
    assert chat["gen_ai.provider.name"] == "scripted"
    assert {service for _, _, service in spans} == {"otlp-test"}
