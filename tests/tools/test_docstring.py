"""Docstrings in Google, numpy and Sphinx style give the same tool description and argument
descriptions (read with griffe)."""

from __future__ import annotations

import pytest

from autobyteus_like import tool
from autobyteus_like.tools._docstring import parse_docstring

GOOGLE = """Copy a file.

    Both paths are relative to the workspace.

    Args:
        src: Where to copy from.
        dst (str): Where the copy goes,
            created if missing.

    Returns:
        What was copied.
    """

NUMPY = """Copy a file.

    Both paths are relative to the workspace.

    Parameters
    ----------
    src : str
        Where to copy from.
    dst : str
        Where the copy goes,
        created if missing.

    Returns
    -------
    dict
        What was copied.
    """

SPHINX = """Copy a file.

    Both paths are relative to the workspace.

    :param src: Where to copy from.
    :type src: str
    :param dst: Where the copy goes,
        created if missing.
    :returns: What was copied.
    """


@pytest.mark.parametrize("doc", [GOOGLE, NUMPY, SPHINX], ids=["google", "numpy", "sphinx"])
def test_every_style_gives_the_same_description_and_arguments(doc):
    parsed = parse_docstring(doc)
    assert parsed.description == "Copy a file.\n\nBoth paths are relative to the workspace."
    assert parsed.arguments == {"src": "Where to copy from.",
                                "dst": "Where the copy goes, created if missing."}


@pytest.mark.parametrize("doc", [NUMPY, SPHINX], ids=["numpy", "sphinx"])
def test_a_tool_documented_in_numpy_or_sphinx_style_teaches_its_arguments(doc):
    def copy(src: str, dst: str) -> dict[str, str]:
        return {"src": src, "dst": dst}

    copy.__doc__ = doc
    schema = tool(copy).json_schema()
    assert tool(copy).description == "Copy a file.\n\nBoth paths are relative to the workspace."
    assert schema["properties"]["src"]["description"] == "Where to copy from."
    assert schema["properties"]["dst"]["description"] == "Where the copy goes, created if missing."


def test_prose_only_and_empty_docstrings():
    assert parse_docstring("Just say hi.\n\n    Nothing else.").description == (
        "Just say hi.\n\nNothing else.")
    assert parse_docstring(None).arguments == {}
    assert parse_docstring("   ").description == ""
