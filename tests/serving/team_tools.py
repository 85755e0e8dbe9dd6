"""Tools for the teams the tests serve, over MCP and on the web (``--tools team_tools.py:TOOLS``):
a call that waits (and says whether it was cancelled), one that needs approval, an echo."""

from __future__ import annotations

import asyncio
from pathlib import Path

from autobyteus_like import tool


@tool
async def wait(seconds: float, marker: str) -> str:
    """Wait; writes 'started' to the marker file, then 'cancelled' if the call is cancelled."""
    Path(marker).write_text("started")
    try:
        await asyncio.sleep(seconds)
    except asyncio.CancelledError:
        Path(marker).write_text("cancelled")
        raise
    return "waited"


@tool(requires_approval=True)
def purge(marker: str) -> str:
    """Append 'purged' to the marker file (a call that needs approval)."""
    with Path(marker).open("a") as file:
        file.write("purged\n")
    return "purged"


@tool
def echo(text: str) -> str:
    """Return the text as it is."""
    return text


TOOLS = [wait, purge, echo]
