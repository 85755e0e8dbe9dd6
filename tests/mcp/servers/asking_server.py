"""A test MCP server (official SDK, stdio) that asks its client things (elicitation, sampling,
through the SDK's resolvers: an input-required round on 2026-07-28 connections, a request
mid-call on older ones), and offers a prompt with arguments and a huge resource."""

from __future__ import annotations

from typing import Annotated

from mcp.server.elicitation import ElicitationResult
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.resolve import Elicit, Resolve, Sample
from mcp.types import CreateMessageResult, SamplingMessage, TextContent
from pydantic import BaseModel, Field

server = MCPServer("asking", log_level="WARNING")


class Name(BaseModel):
    name: str = Field(min_length=2)
    age: int = 0


def who() -> Elicit[Name]:
    return Elicit("Who are you?", Name)


def complete(prompt: str) -> Sample:
    return Sample([SamplingMessage(role="user", content=TextContent(type="text", text=prompt))],
                  max_tokens=50, system_prompt="Be brief.")


@server.tool()
async def ask(answer: Annotated[ElicitationResult[Name], Resolve(who)]) -> str:
    """Ask the person for their name."""
    data = getattr(answer, "data", None)
    return f"{answer.action} {data.model_dump() if data is not None else None}"


@server.tool()
async def sample(prompt: str,
                 result: Annotated[CreateMessageResult, Resolve(complete)]) -> str:
    """Ask the client's LLM to complete ``prompt``."""
    return f"sampled: {getattr(result.content, 'text', result.content)}"


@server.tool()
async def touch(ctx: Context) -> str:
    """Announce that notes://short changed."""
    await ctx.notify_resource_updated("notes://short")
    return "touched"


@server.prompt()
def reviewer(language: str) -> list[dict[str, str]]:
    """A code reviewer for a language."""
    return [{"role": "user", "content": f"You review {language} code strictly."},
            {"role": "assistant", "content": "Understood."}]


@server.resource("notes://big", mime_type="text/plain")
def big() -> str:
    """A resource longer than any result may be."""
    return "x" * 50_000


@server.resource("notes://short", mime_type="text/plain")
def short() -> str:
    """A short note."""
    return "the short note"


if __name__ == "__main__":
    server.run("stdio")
