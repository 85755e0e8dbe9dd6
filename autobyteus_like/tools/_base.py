"""BaseTool: a class-based tool with its own pydantic ``Arguments`` model."""

from __future__ import annotations

import inspect
from typing import Any, ClassVar

from pydantic import BaseModel

from autobyteus_like.errors import ToolDeclarationError
from autobyteus_like.tools._definition import ToolDefinition
from autobyteus_like.tools._docstring import parse_docstring

__all__ = ["BaseTool"]


class BaseTool:
    """Subclass, set ``name`` and ``Arguments``, implement ``run(self, args)`` (sync or async).

    Useful when a tool holds state or configuration (a client, a root directory) that a plain
    function would have to capture in a closure.
    """

    name: ClassVar[str] = ""
    description: ClassVar[str] = ""
    Arguments: ClassVar[type[BaseModel]]
    requires_approval: ClassVar[bool] = False
    timeout_s: ClassVar[float | None] = None
    sequential: ClassVar[bool] = False
    category: ClassVar[str] = "custom"

    def run(self, args: Any) -> Any:
        """Do the work; ``args`` is a validated instance of ``Arguments``."""
        raise NotImplementedError(f"{type(self).__name__}.run is not implemented")

    def definition(self) -> ToolDefinition:
        """This tool as a ToolDefinition, bound to this instance."""
        cls = type(self)
        arguments = getattr(cls, "Arguments", None)
        if not (isinstance(arguments, type) and issubclass(arguments, BaseModel)):
            raise ToolDeclarationError(
                f"{cls.__name__} needs an 'Arguments' class that subclasses pydantic.BaseModel"
            )
        if cls.run is BaseTool.run:
            raise ToolDeclarationError(f"{cls.__name__} must implement run(self, args)")
        description = cls.description or parse_docstring(inspect.getdoc(cls)).description
        return ToolDefinition(
            name=cls.name or cls.__name__,
            description=description,
            arguments_model=arguments,
            function=self.run,
            requires_approval=cls.requires_approval,
            timeout_s=cls.timeout_s,
            sequential=cls.sequential,
            category=cls.category,
            call_with_model=True,
        )
