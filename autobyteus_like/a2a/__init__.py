"""A2A (Agent2Agent) with the official ``a2a-sdk`` (``pip install 'autobyteus-like[a2a]'``):
a team served as an A2A agent (``serve_a2a``, ``autobyteus-like serve-a2a``), its agent card at
``/.well-known/agent-card.json`` and the JSON-RPC binding of A2A 1.0 at ``/``.

Importing this package loads no A2A SDK; building or serving an app does.
"""

from autobyteus_like.a2a._server import build_a2a_app, serve_a2a

__all__ = ["build_a2a_app", "serve_a2a"]
