"""The eval's suites: argument matchers, the built-in suite (shipped as package data) and a
user's YAML suite of their own tools, with located errors."""

from __future__ import annotations

import pytest

from autobyteus_like.errors import ConfigError
from autobyteus_like.evals import load_suite, matches


@pytest.mark.parametrize(("expected", "actual", "fits"), [
    ("any", {"x": 1}, True),
    ({"exact": "Paris"}, "Paris", True),
    ({"exact": "Paris"}, "paris", False),
    ({"type": "integer"}, 3, True),
    ({"type": "integer"}, True, False),  # a bool is not a number here
    ({"type": "number"}, 2.5, True),
    ({"type": "array"}, [1], True),
    ({"regex": "(?i)^par"}, "Paris", True),
    ({"regex": "^par"}, "Paris", False),
    (21, 21.0, True),
    (True, 1, False),
    ({"a": 1}, {"a": 1, "b": 2}, True),  # keys not named are free
    ({"a": 1}, {"b": 2}, False),
    ([{"name": {"regex": "apple"}}], [{"name": "apples", "n": 3}], True),
    ([1, 2], [1], False),
    ({"contact": {"address": {"city": {"regex": "London"}}}},
     {"contact": {"address": {"city": "London", "street": "x"}}}, True),
])
def test_matchers(expected, actual, fits):
    assert matches(expected, actual) is fits


def test_the_builtin_suite_covers_what_it_should():
    suite = load_suite()
    assert len(suite.tasks) == 20
    assert len(suite.tool_objects("builtin")) == 10
    covers = " ".join(task.covers for task in suite.tasks)
    for topic in ("one call", "two independent calls", "nested object", "array of objects",
                  "enum", "optional", "quotes", "newlines", "unicode", "code",
                  "needs no tool", "follow-up that uses a result", "retried"):
        assert topic in covers, topic
    assert any(not task.calls for task in suite.tasks)


def test_a_users_suite_of_their_own_tools(tmp_path):
    (tmp_path / "my_tools.py").write_text(
        "from autobyteus_like import tool\n\n@tool\ndef shout(text: str) -> str:\n"
        "    \"\"\"Shout.\"\"\"\n    return text.upper()\n")
    suite_file = tmp_path / "suite.yaml"
    suite_file.write_text("name: mine\ntools: ['my_tools:shout']\ntasks:\n"
                          "  - id: t1\n    prompt: Shout hi.\n"
                          "    calls: [{tool: shout, args: {text: {regex: '(?i)hi'}}}]\n")
    suite = load_suite(suite_file)
    [shout] = suite.tool_objects(str(suite_file))
    assert shout.name == "shout"
    assert suite.tasks[0].calls[0].fits("shout", {"text": "Hi"})


def test_a_broken_suite_says_where(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("tools: [x:y]\ntasks:\n  - id: a\n  - id: a\n    prompt: hi\n")
    with pytest.raises(ConfigError) as failed:
        load_suite(bad)
    assert "tasks.0.prompt: Field required" in str(failed.value)
    bad.write_text("tools: ['no_such_module_here:x']\ntasks:\n  - {id: a, prompt: hi}\n")
    with pytest.raises(ConfigError, match="'no_such_module_here:x' does not load"):
        load_suite(bad).tool_objects(str(bad))
    with pytest.raises(ConfigError, match="no task 'nope'"):
        load_suite().only(["nope"])
    with pytest.raises(ConfigError, match="cannot read the suite"):
        load_suite(tmp_path / "missing.yaml")
