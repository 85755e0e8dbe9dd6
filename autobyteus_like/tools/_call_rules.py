"""CallRules: what a member's model may or must call in one reply (``tool_choice``,
``parallel_tool_calls``), as one value every layer reads.

The native wires map it to each provider's own fields (OpenAI ``tool_choice`` and
``parallel_tool_calls``; Anthropic ``tool_choice`` with ``disable_parallel_tool_use``; Gemini
``function_calling_config``). The text formats teach it in the manifest and enforce it while
parsing (a reply without the required call, or a second call when one is allowed, comes back to
the model as an error it can act on).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

__all__ = ["CallRules", "ToolChoice"]

ChoiceMode = Literal["auto", "required", "none", "tool"]


@dataclass(frozen=True, slots=True)
class ToolChoice:
    """``auto`` (the model decides), ``required`` (it must call some tool), ``none`` (it may
    call none), or ``tool`` with the one ``name`` it must call."""

    mode: ChoiceMode = "auto"
    name: str | None = None

    def __post_init__(self) -> None:
        if (self.mode == "tool") != bool(self.name):
            raise ValueError("tool_choice 'tool' needs the tool's name, and only it takes one")

    @classmethod
    def parse(cls, value: Any) -> ToolChoice:
        """``auto | required | none``, ``{tool: NAME}``, or a ToolChoice; ``ValueError`` saying
        what is accepted otherwise."""
        if isinstance(value, ToolChoice):
            return value
        if isinstance(value, str) and value.strip().lower() in ("auto", "required", "none"):
            mode: ChoiceMode = value.strip().lower()  # type: ignore[assignment]
            return cls(mode)
        if isinstance(value, dict) and set(value) == {"tool"}:
            name = value["tool"]
            if isinstance(name, str) and name.strip():
                return cls("tool", name.strip())
        raise ValueError(f"tool_choice must be auto, required, none or {{tool: NAME}}, got "
                         f"{value!r}")

    def as_data(self) -> str | dict[str, str]:
        """The value as a config file writes it."""
        return {"tool": self.name or ""} if self.mode == "tool" else self.mode

    @property
    def forces_a_call(self) -> bool:
        """Whether every reply must hold a call (``required`` or a named tool)."""
        return self.mode in ("required", "tool")


@dataclass(frozen=True, slots=True)
class CallRules:
    """A member's rules for calls: ``choice`` (None: the provider's default, sent as ``auto``
    where tools are declared) and ``parallel`` (None: the provider's default; False: one call
    per reply)."""

    choice: ToolChoice | None = None
    parallel: bool | None = None

    @property
    def any(self) -> bool:
        """Whether any rule is set (otherwise nothing needs to teach or enforce it)."""
        return self.choice is not None or self.parallel is not None

    @property
    def one_call_only(self) -> bool:
        """Whether a reply may hold at most one call."""
        return self.parallel is False
