"""Bad configs fail at load, naming the file, the place in it and what is wrong."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from autobyteus_like import AgentConfig, ConfigError, ScriptedLLM, TeamConfig, ToolRegistry, tool


@tool
def lookup(term: str) -> str:
    """Look a term up."""
    return term


GOOD = """
name: t
coordinator: lead
members:
  - name: lead
    llm: {provider: scripted, responses: ["hi"]}
    tools: [send_message_to, lookup]
"""


def load(tmp_path: Path, text: str) -> TeamConfig:
    path = tmp_path / "team.yaml"
    path.write_text(textwrap.dedent(text))
    return TeamConfig.from_yaml(path, tools=ToolRegistry([lookup]))


def problems(tmp_path: Path, text: str) -> list[str]:
    with pytest.raises(ConfigError) as caught:
        load(tmp_path, text)
    assert str(caught.value).startswith(str(tmp_path / "team.yaml") + ": ")
    return caught.value.problems


def test_a_good_config_loads(tmp_path):
    config = load(tmp_path, GOOD)
    assert config.coordinator == "lead"
    assert isinstance(config.members[0].llm, ScriptedLLM)
    assert config.members[0].tools == ["send_message_to", "lookup"]


@pytest.mark.parametrize(("change", "expected"), [
    (("tools: [send_message_to, lookup]", "tools: [lookup, fs.reed]"),
     "members[0].tools[1]: unknown tool 'fs.reed'; available tools: lookup, send_message_to"),
    (("coordinator: lead", "coordinator: boss"),
     "(top level): coordinator 'boss' is not a member (members: lead)"),
    (("  - name: lead\n", "  - role: x\n"), "members[0].name: missing required field"),
    (("name: t\n", ""), "name: missing required field"),
    (("tools: [send_message_to, lookup]", "max_iterations: many"),
     "members[0].max_iterations: Input should be a valid integer, unable to parse string as an "
     "integer"),
    (("tools: [send_message_to, lookup]", "tool_format: yaml"),
     "members[0].tool_format: unknown tool call format 'yaml'; known formats: openai, gemini, "
     "json, xml, execute, tool_call, native"),
    (("tools: [send_message_to, lookup]", "colour: red"), "members[0].colour: unknown field"),
    (("{provider: scripted", "{provider: gpt"),
     "members[0].llm.provider: Input should be 'scripted', 'openai', 'deepseek', 'mistral', "
     "'grok', 'ollama', 'vllm', 'llamacpp', 'anthropic' or 'gemini'"),
    (("{provider: scripted, responses: [\"hi\"]}", "{provider: ollama}"),
     "members[0].llm: provider 'ollama' needs a model name (model: ...)"),
])
def test_each_problem_is_located_and_explained(tmp_path, change, expected):
    assert problems(tmp_path, GOOD.replace(*change)) == [expected]


def test_duplicate_members_invalid_yaml_and_unreadable_files(tmp_path):
    doubled = GOOD + "  - name: lead\n    llm: {provider: scripted}\n"
    assert problems(tmp_path, doubled) == [
        "(top level): member names must be unique; repeated: lead"]
    assert problems(tmp_path, "name: [unclosed") == [
        "line 1, column 16: invalid YAML: expected ',' or ']', but got '<stream end>'"]
    assert problems(tmp_path, "- just a list") == ["the top level must be a mapping, got list"]
    with pytest.raises(ConfigError, match=r"missing\.yaml: cannot read the file: No such file"):
        TeamConfig.from_yaml(tmp_path / "missing.yaml")


def test_loading_never_runs_code_from_the_file(tmp_path):
    evil = GOOD.replace('responses: ["hi"]', 'responses: !!python/object/apply:os.system ["x"]')
    [problem] = problems(tmp_path, evil)
    assert "could not determine a constructor" in problem


def test_python_objects_build_the_same_config():
    config = TeamConfig(name="t", coordinator="a", members=[
        AgentConfig(name="a", llm=ScriptedLLM(["x"]), tools=["send_message_to"])])
    assert config.tool_problems(None) == []
    assert config.tool_problems(ToolRegistry()) == []


@pytest.mark.parametrize(("fields", "problem"), [
    ({"coordinator": "boss"}, "coordinator 'boss' is not a member"),
    ({"members": "twice"}, "member names must be unique; repeated: lead"),
])
def test_a_team_built_in_python_with_a_mistake_is_a_config_error(fields, problem):
    from autobyteus_like import AgentConfig, ScriptedLLM, TeamConfig
    from autobyteus_like.errors import ConfigError

    lead = AgentConfig(name="lead", llm=ScriptedLLM([]))
    members = [lead, lead] if "members" in fields else [lead]  # the parameter is shared:
    rest = {key: value for key, value in fields.items() if key != "members"}  # never changed
    with pytest.raises(ConfigError) as raised:
        TeamConfig(**{"name": "t", "coordinator": "lead", "members": members, **rest})
    assert raised.value.source == "TeamConfig(name='t')"
    assert problem in raised.value.problems[0]
