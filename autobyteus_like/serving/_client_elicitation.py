"""An elicitation of a served team's MCP server, forwarded to the MCP client whose ask it came
from (``serve-mcp``): the question goes back up the request that asked (the client's own
``elicitation/create`` handler answers it), the answer comes back down to the server.
Declined when that client did not announce elicitation, when its connection cannot carry a
request from the server, or when it does not answer within the server's
``elicitation_timeout_s``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import anyio
import anyio.from_thread
import anyio.lowlevel
from loguru import logger

if TYPE_CHECKING:
    from mcp.server.mcpserver import Context

    from autobyteus_like.mcp import ElicitationHandler, ElicitationRequest

__all__ = ["client_asker"]


def client_asker(ctx: Context, team: str) -> ElicitationHandler | None:
    """The asker sending an ask's elicitations to the client of ``ctx``'s request (None: that
    client cannot be asked). Call it on the server's event loop."""
    session = ctx.request_context.session
    capabilities = session.client_capabilities
    if capabilities is None or capabilities.elicitation is None or not session.can_send_request:
        return None
    token = anyio.lowlevel.current_token()
    request_id = ctx.request_id

    def ask(request: ElicitationRequest) -> dict[str, Any] | bool | None:
        async def forward() -> Any:
            with anyio.fail_after(request.timeout_s):
                return await session.elicit_form(
                    f"(MCP server {request.server!r} of team {team!r}) {request.message}",
                    request.schema, related_request_id=request_id)

        try:
            result = anyio.from_thread.run(forward, token=token)
        except Exception as exc:  # the client gone, an error answer, no answer in time
            logger.info("serve-mcp: an elicitation of mcp server {} was declined: the client "
                        "did not answer it ({}: {})", request.server, type(exc).__name__, exc)
            return None
        if result.action == "accept":
            return dict(result.content or {})
        return False if result.action == "cancel" else None

    return ask
