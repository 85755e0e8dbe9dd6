"""OpenTelemetry traces of agents and teams, by the GenAI semantic conventions.

The spans are one of the turn's hooks (``tracing.spans``). Importing this package imports
nothing of OpenTelemetry; spans are made only when an SDK is
configured (``configure_tracing``, or one's own) or a ``Tracing(provider=...)`` is given.
"""

from autobyteus_like.tracing._settings import CONTENT_SWITCH, SpanDirectory, Tracing
from autobyteus_like.tracing._setup import configure_tracing

__all__ = ["CONTENT_SWITCH", "SpanDirectory", "Tracing", "configure_tracing"]
