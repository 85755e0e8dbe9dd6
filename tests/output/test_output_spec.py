"""OutputSpec: the output type as a tool, an answer written as text, the CLI's JSON."""

from __future__ import annotations

import json

import pytest
from pydantic import BaseModel

from autobyteus_like.cli._main import main
from autobyteus_like.errors import ToolFailure
from autobyteus_like.output import FINAL_RESULT, OutputSpec


class Score(BaseModel):
    points: int


def test_a_type_that_is_not_an_object_is_one_argument_named_result():
    spec = OutputSpec(list[int])
    assert spec.wrapped and spec.tool.argument_names == ("result",)
    assert spec.tool.json_schema()["properties"]["result"]["type"] == "array"
    assert OutputSpec(Score).tool.argument_names == ("points",)


@pytest.mark.parametrize(("text", "ok"), [
    ('{"points": 3}', True),
    ('```json\n{"points": 3}\n```', True),
    ('{"points": "three"}', False),
    ("three points", False),
    ("[1, 2]", False),
])
def test_an_answer_written_as_text_is_read_when_it_is_json_that_fits(text, ok):
    accepted, found = OutputSpec(Score).from_text(text)
    assert accepted is ok
    if ok:
        assert found == {"points": 3}
    else:
        assert isinstance(found, str) and found


def test_a_text_type_takes_plain_text_and_validators_may_replace_the_value():
    spec = OutputSpec(str, validators=[lambda value: value.upper()])
    assert spec.from_text("hello") == (True, "HELLO")
    assert spec.value(OutputSpec.answer("HELLO")) == "HELLO"


def test_accept_names_what_is_wrong():
    with pytest.raises(ToolFailure) as caught:
        OutputSpec(Score).accept({"points": "many"})
    assert "points" in caught.value.message and "integer" in caught.value.message


def test_the_command_line_prints_a_typed_answer_as_json(capsys, tmp_path):
    call = json.dumps({"name": FINAL_RESULT, "arguments": {"city": "Paris", "rank": 1}})
    (tmp_path / "team.yaml").write_text(f"""
name: typed
coordinator: geo
members:
  - name: geo
    tool_format: json
    output_schema:
      type: object
      properties: {{city: {{type: string}}, rank: {{type: integer}}}}
      required: [city, rank]
    llm: {{provider: scripted, responses: [{json.dumps(call)}]}}
""")
    assert main(["run", str(tmp_path / "team.yaml"), "-m", "Where?", "--json"]) == 0
    summary = [json.loads(line) for line in capsys.readouterr().out.splitlines()][-1]
    assert json.loads(summary["answer"]) == {"city": "Paris", "rank": 1}
    assert main(["run", str(tmp_path / "team.yaml"), "-m", "Where?"]) == 0
    assert '{"city": "Paris", "rank": 1}' in capsys.readouterr().out


def test_a_schema_answer_written_as_text_is_checked_against_the_schema():
    spec = OutputSpec(schema={"type": "object", "properties": {"n": {"type": "integer"}},
                              "required": ["n"]})
    assert spec.from_text('{"n": 3}') == (True, {"n": 3})
    ok, problem = spec.from_text('{"m": 3}')
    assert not ok and "n" in problem
    listed = OutputSpec(schema={"type": "array", "items": {"type": "string"}})
    assert listed.from_text('["a", "b"]') == (True, ["a", "b"])
    assert not listed.from_text("[1, 2]")[0]
