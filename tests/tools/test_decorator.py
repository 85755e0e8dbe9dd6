import asyncio
from typing import Annotated

import pytest
from pydantic import BaseModel, Field

from autobyteus_like import BaseTool, ToolDefinition, tool
from autobyteus_like.tools import ToolDeclarationError
from tests.sample_tools import everything, write_file


def test_name_description_and_argument_docs_come_from_the_function():
    assert isinstance(write_file, ToolDefinition)
    assert write_file.name == "write_file"
    assert write_file.description == "Write text to a file."
    props = write_file.json_schema()["properties"]
    assert props["path"]["description"] == "Where to write, relative to the workspace."
    assert props["content"]["description"] == "The full text of the file."
    assert write_file.json_schema()["required"] == ["path", "content"]


def test_metadata_is_kept():
    assert everything.requires_approval is True
    assert everything.timeout_s == 5
    assert everything.category == "demo"
    assert everything.sequential is False


def test_every_argument_kind_has_a_schema_and_inline_schema_has_no_refs():
    schema = everything.inline_schema()
    props = schema["properties"]
    assert props["mode"]["enum"] == ["fast", "slow"]
    assert props["color"]["enum"] == ["red", "blue"]
    assert props["tags"] == {"description": "A list of strings.", "items": {"type": "string"},
                             "type": "array"}
    assert props["point"]["properties"]["x"]["type"] == "integer"
    assert props["points"]["items"]["properties"]["label"]["default"] == "origin"
    assert props["grid"]["items"]["items"]["type"] == "integer"
    assert props["meta"]["additionalProperties"] == {"type": "integer"}
    assert props["limit"]["default"] == 10
    assert "$ref" not in str(schema) and "$defs" not in schema
    assert "$defs" in everything.json_schema()  # the plain variant keeps pydantic's refs


def test_schema_copies_cannot_corrupt_the_definition():
    everything.inline_schema()["properties"].clear()
    assert "name" in everything.inline_schema()["properties"]


def test_decorated_function_is_still_callable():
    assert write_file("a.txt", "hi") == "wrote 2 chars to a.txt"


def test_annotated_description_is_kept():
    @tool
    def greet(who: Annotated[str, Field(description="Who to greet.")]) -> str:
        """Greet someone."""
        return f"hi {who}"

    assert greet.json_schema()["properties"]["who"]["description"] == "Who to greet."


def test_async_tools_run_sync_and_async():
    @tool
    async def double(n: int) -> int:
        """Double a number."""
        await asyncio.sleep(0)
        return n * 2

    assert double.is_async
    assert double.run({"n": "4"}) == 8
    assert asyncio.run(double.arun({"n": 5})) == 10


def test_class_based_tool():
    class Search(BaseTool):
        """Search the index."""

        name = "search"
        requires_approval = True

        class Arguments(BaseModel):
            query: str = Field(description="What to look for.")
            limit: int = 3

        def __init__(self, corpus: list[str]) -> None:
            self.corpus = corpus

        def run(self, args: "Search.Arguments") -> list[str]:
            return [doc for doc in self.corpus if args.query in doc][: args.limit]

    definition = Search(["apple pie", "apple tart", "pear"]).definition()
    assert definition.name == "search"
    assert definition.description == "Search the index."
    assert definition.requires_approval
    assert definition.run({"query": "apple", "limit": "1"}) == ["apple pie"]


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ("def f(x): pass", "argument 'x' needs a type hint"),
        ("def f(*args: int): pass", "*args/**kwargs"),
    ],
)
def test_undeclarable_functions_are_rejected(source, message):
    namespace: dict = {}
    exec(source, namespace)
    with pytest.raises(ToolDeclarationError, match=message.replace("*", r"\*")):
        tool(namespace["f"])


def test_bad_tool_name_is_rejected():
    with pytest.raises(ToolDeclarationError, match="invalid tool name 'has space'"):
        tool(name="has space")(lambda: None)
