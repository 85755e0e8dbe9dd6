import pytest

from autobyteus_like import ToolArgumentError
from tests.sample_tools import everything, write_file

GOOD = {
    "name": "n", "count": "5", "ratio": " 1.5 ", "enabled": "true", "mode": "fast",
    "color": "blue", "tags": '["a", "b"]', "numbers": [1, "2"], "point": '{"x": "3"}',
    "points": [{"x": 1}], "grid": "[[1, 2], [3]]", "meta": {"a": "1"},
}


def test_lax_input_is_coerced_and_defaults_filled():
    assert everything.validate_arguments(GOOD) == {
        "name": "n", "count": 5, "ratio": 1.5, "enabled": True, "mode": "fast",
        "color": "blue", "tags": ["a", "b"], "numbers": [1, 2], "point": {"x": 3,
        "label": "origin"}, "points": [{"x": 1, "label": "origin"}], "grid": [[1, 2], [3]],
        "meta": {"a": 1}, "note": None, "limit": 10,
    }


def test_every_problem_is_listed_in_plain_words():
    with pytest.raises(ToolArgumentError) as caught:
        write_file.validate_arguments({"path": 7, "colour": "red"})
    error = caught.value
    assert error.tool_name == "write_file"
    assert error.problems == [
        "unknown argument 'colour' (this tool takes: path, content)",
        "argument 'path': Input should be a valid string (got 7)",
        "missing required argument 'content' (string)",
    ]
    assert str(error).startswith("invalid arguments for tool 'write_file': unknown argument")


def test_nested_paths_and_wrong_types_are_named():
    bad = dict(GOOD, count="many", points=[{"x": "left"}], mode="medium")
    with pytest.raises(ToolArgumentError) as caught:
        everything.validate_arguments(bad)
    text = str(caught.value)
    assert "argument 'count': Input should be a valid integer" in text
    assert "(got 'many')" in text
    assert "argument 'points[0].x'" in text
    assert "argument 'mode': Input should be 'fast' or 'slow'" in text


def test_non_object_arguments_are_rejected():
    with pytest.raises(ToolArgumentError, match="arguments must be a JSON object, got list"):
        write_file.validate_arguments([1, 2])  # type: ignore[arg-type]


def test_run_validates_first():
    with pytest.raises(ToolArgumentError, match="missing required argument 'content'"):
        write_file.run({"path": "a"})
    assert write_file.run({"path": "a", "content": "xyz"}) == "wrote 3 chars to a"


def test_class_based_tools_get_the_same_leniency_and_their_own_model():
    from pydantic import BaseModel

    from autobyteus_like import BaseTool

    class Resize(BaseTool):
        name = "resize"

        class Arguments(BaseModel):
            width: int
            keep_ratio: bool = True
            sizes: list[int] = []

        def run(self, args: Arguments) -> str:
            assert isinstance(args, Resize.Arguments)
            return f"{args.width} {args.keep_ratio} {args.sizes}"

    definition = Resize().definition()
    assert definition.run({"width": " 640 ", "keep_ratio": "\nfalse\n", "sizes": "[1, 2]"}) == (
        "640 False [1, 2]")


def test_text_no_python_int_can_hold_is_a_problem_not_a_crash():
    with pytest.raises(ToolArgumentError) as caught:
        everything.validate_arguments(dict(GOOD, count="9" * 5000))
    assert any(problem.startswith("argument 'count':") for problem in caught.value.problems)


def test_empty_text_is_null_for_optional_numbers_and_empty_containers():
    from autobyteus_like import tool

    @tool
    def page(size: int | None, tags: list[str], meta: dict[str, int], title: str | None) -> str:
        """Page through things."""
        return ""

    assert page.validate_arguments({"size": " ", "tags": "", "meta": "", "title": "  "}) == {
        "size": None, "tags": [], "meta": {}, "title": "  "}  # text stays text
