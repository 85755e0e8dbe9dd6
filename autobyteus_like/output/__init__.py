"""Typed output: the final answer as a type, carried by the ``final_result`` tool."""

from autobyteus_like.output._spec import FINAL_RESULT, OutputSpec, OutputValidator

__all__ = ["FINAL_RESULT", "OutputSpec", "OutputValidator"]
