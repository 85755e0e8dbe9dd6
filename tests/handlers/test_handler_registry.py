import pytest

from autobyteus_like.events import TurnCompleted, UserMessageReceived
from autobyteus_like.handlers import HandlerRegistry, UserMessageHandler, default_handlers


def test_defaults_are_fresh_per_call_and_extendable():
    first, second = default_handlers(), default_handlers()
    assert isinstance(first.find(UserMessageReceived), UserMessageHandler)
    assert first.find(TurnCompleted) is None

    class Custom:
        def handle(self, event, ctx):
            pass

    first.register(TurnCompleted, Custom())
    assert first.find(TurnCompleted) is not None and second.find(TurnCompleted) is None


def test_bad_registrations_are_rejected():
    registry = HandlerRegistry()
    with pytest.raises(TypeError, match="is not an AgentEvent type"):
        registry.register(str, UserMessageHandler())  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="has no handle"):
        registry.register(TurnCompleted, object())  # type: ignore[arg-type]
