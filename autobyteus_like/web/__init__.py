"""``autobyteus-like serve``: watch and steer a team in the browser, over AG-UI.

A local web server (Starlette and uvicorn; ``pip install 'autobyteus-like[web]'``) streams the
team's events as AG-UI events over SSE, takes the standard AG-UI run request, and serves a page
with one panel per member, the calls each made in order with their arguments and results, the
calls waiting for a person, Stop, and the run's usage and cost.
"""

from autobyteus_like.web._app import build_app
from autobyteus_like.web._server import serve_web
from autobyteus_like.web._team import WebTeam

__all__ = ["WebTeam", "build_app", "serve_web"]
