"""The call shapes open models write as text, read by every text format's parser.

Models trained on their own templates keep writing them whatever the manifest teaches (checked
against the parser tests of llama.cpp, vLLM, SGLang and Ollama). ``OpenModelShapes`` reads, in
any text format, around the format's own parser:

- pythonic call lists (Llama 3.2/4, Granite): ``[get_weather(location='Paris'), add(a=1, b=2)]``,
  for known tools, read with ``ast`` (literals only, nothing evaluated);
- ``<function=name>{"a": 1}</function>`` (Llama 3.1, Functionary) and
  ``<function name="name">{...}</function>``; the body may also be Qwen's
  ``<parameter=a>1</parameter>`` elements;
- Mistral's ``[TOOL_CALLS]name{"a": 1}`` (also with ``[ARGS]`` between) and the older
  ``[TOOL_CALLS][{...}]`` (in the JSON formats the JSON after the marker is their own call);
- tag-named XML as coding agents write it, for a known tool and its argument names:
  ``<read_file><path>src/a.ts</path></read_file>``; inside a Markdown code fence it is an
  example, text (the coding agents that write this shape treat a fenced block so; ``CodeFences``
  says where the fences are). The other shapes and the format's own calls are calls wherever
  they stand: models do wrap real calls in fences.

Only what the format's own parser left as prose is read, so nothing inside a call of the format
is ever taken for a shape. Such a shape naming a known tool that cannot be read is a parse
error fed back to the model, never prose. A shape is held whole until it closes (or the reply
or the prose run ends, which makes it a cut-off error), so streaming equals batch.
"""

from __future__ import annotations

import ast
import functools
import json
import re
from typing import Any

from autobyteus_like.parsers._base import FormatParser, ParserFactory
from autobyteus_like.parsers._call_shapes import CallSpec, extract_calls
from autobyteus_like.parsers._code_fences import CodeFences
from autobyteus_like.parsers._parse_events import ParseEvent, TextDelta
from autobyteus_like.tools._invocation_ids import InvocationIdAllocator
from autobyteus_like.tools._registry import ToolRegistry

__all__ = ["OpenModelShapes", "open_model_shapes"]

_HOLD = 96
"""A possible opener at the end of a chunk is held this far back, until the next decides it."""
_MAX_SHAPE = 200_000
"""A shape longer than this is not waited for: it is read (or refused) as it stands."""
_NAME = r"[A-Za-z_][\w.\-]{0,63}"


@functools.lru_cache(maxsize=64)
def _starts(tool_names: tuple[str, ...]) -> re.Pattern[str]:
    """Built once per set of tool names: a parser is made for every LLM request."""
    names = sorted((re.escape(n) for n in tool_names), key=len, reverse=True)
    known = "|".join(names) or r"(?!)"
    return re.compile(
        rf"\[TOOL_CALLS\]|<function=({_NAME})>|<function name=\"({_NAME})\">"
        rf"|\[\s*(?:{known})\s*\(|<({known})>")


class OpenModelShapes(FormatParser):
    """``inner`` reading the open models' shapes too (see the module)."""

    def __init__(self, inner: FormatParser, tools: ToolRegistry | None) -> None:
        self.format_name = inner.format_name
        self.calls = inner.calls
        self.tools = inner.tools
        self._inner = inner
        self.format_feed = inner.feed
        """The format's parser's ``feed``, bound once: it runs for every chunk (``EntityRepair``
        calls it directly and hands its events to ``read``)."""
        self._registry = tools
        self._names: tuple[str, ...] | None = None
        """The known tools' names, read when the first possible shape is (most replies hold
        no ``[`` or ``<`` outside the format's own calls)."""
        self._pending = ""
        self._fences = CodeFences()

    @property
    def _known(self) -> set[str]:
        return set(self._tool_names())

    def _tool_names(self) -> tuple[str, ...]:
        if self._names is None:
            tools = self._registry
            self._names = tuple(tools.names()) if tools else ()
        return self._names

    def feed(self, chunk: str) -> list[ParseEvent]:
        events = self.format_feed(chunk)
        return self.read(events) if events else events

    def read(self, events: list[ParseEvent]) -> list[ParseEvent]:
        """The format's events for one chunk, shapes read out; the common case, one piece of
        prose with no ``[`` or ``<`` and nothing held, is handed back as it is."""
        if len(events) == 1 and not self._pending:
            event = events[0]
            if type(event) is TextDelta and "[" not in event.text and "<" not in event.text:
                self._fences.feed(event.text)
                return events
        return self._read(events, final=False)

    def finish(self) -> list[ParseEvent]:
        events = self._inner.finish()
        return self._read(events, final=True) if events or self._pending else []

    def _read(self, events: list[ParseEvent], *, final: bool) -> list[ParseEvent]:
        """The format's events with the shapes read out of its prose: a shape is prose to the
        format's parser, so only its prose is scanned (never the inside of its calls)."""
        out: list[ParseEvent] = []
        in_call = False  # (one call's events tell the fences once)
        for event in events:
            if isinstance(event, TextDelta):
                in_call = False
                if self._pending or "[" in event.text or "<" in event.text:
                    out += self._scan(self._pending + event.text, final=False)
                else:
                    self._fences.feed(event.text)
                    out.append(event)
            else:
                if self._pending:  # (the flush is inlined: most replies hold nothing)
                    out += self._flush()
                if not in_call:
                    self._fences.interrupt()
                    in_call = True
                out.append(event)
        if final and self._pending:
            out += self._flush()
        return out

    def _flush(self) -> list[ParseEvent]:
        """A held shape ends here (a call of the format, or the reply's end)."""
        data, self._pending = self._pending, ""
        return self._scan(data, final=True) if data else []

    def _scan(self, data: str, *, final: bool) -> list[ParseEvent]:
        self._pending = ""
        events: list[ParseEvent] = []
        starts = _starts(self._tool_names())
        i = 0
        while i < len(data):
            found = starts.search(data, i)
            if found is None:
                keep = 0 if final else _held(data, i)
                self._prose(data[i : len(data) - keep], events)
                self._pending = data[len(data) - keep :]
                return events
            self._prose(data[i : found.start()], events)
            if found.group(3) is not None and self._fences.inside():
                self._prose(found.group(0), events)  # an example in a code fence: text
                i = found.end()
                continue
            end, read = self._shape(data, found, final)
            if end is None:  # not closed yet: wait for more
                self._pending = data[found.start() :]
                return events
            self._fences.interrupt()
            events += read
            i = end
        return events

    def _prose(self, text: str, events: list[ParseEvent]) -> None:
        if text:
            self._fences.feed(text)
            events.append(TextDelta(text))

    def _shape(self, data: str, found: re.Match[str], final: bool
               ) -> tuple[int | None, list[ParseEvent]]:
        """Where the shape ends and its events; (None, []) while it may still grow."""
        opener = found.group(0)
        start = found.start()
        if opener == "[TOOL_CALLS]":
            return self._mistral(data, found.end(), final)
        if opener.startswith("<function"):
            return self._function_tag(data, found, final, found.group(1) or found.group(2))
        if opener.startswith("<"):
            return self._tag_named(data, found, final, found.group(3))
        end = _balanced(data, start, "[", "]")
        if end is None:
            return self._open_end(data, start, final, "the call list is cut off")
        return end, self._pythonic(data[start:end])

    def _open_end(self, data: str, start: int, final: bool, message: str
                  ) -> tuple[int | None, list[ParseEvent]]:
        if final or len(data) - start > _MAX_SHAPE:
            raw = data[start:]
            name = _first_name(raw, self._known)
            return len(data), [self.calls.failure(message, raw, name=name)]
        return None, []

    def _mistral(self, data: str, at: int, final: bool) -> tuple[int | None, list[ParseEvent]]:
        rest = data[at:]
        stripped = rest.lstrip()
        if not stripped and not final:
            return None, []
        if not stripped:
            return at, []  # the JSON after it was a call of the format's own (JSON family)
        if stripped[:1] in ("[", "{"):  # [TOOL_CALLS][{...}] where the format reads no JSON
            begin = at + len(rest) - len(stripped)
            end = _balanced(data, begin, stripped[0], "]" if stripped[0] == "[" else "}")
            if end is None:
                return self._open_end(data, at - 12, final, "the [TOOL_CALLS] list is cut off")
            return end, self._json_calls(data[begin:end], data[at - 12 : end])
        head = re.match(rf"\s*({_NAME})\s*(?:\[ARGS\])?\s*", rest)
        if head is None or at + head.end() >= len(data):
            return (None, []) if not final else (len(data), [self.calls.failure(
                "a [TOOL_CALLS] call needs a tool name and a JSON object of arguments",
                data[at - 12 :])])
        name, body = head.group(1), at + head.end()
        if not final and data[body] == "[" and "[ARGS]".startswith(data[body : body + 6]) \
                and len(data) - body < 6:
            return None, []  # perhaps [ARGS], still arriving
        if data[body] != "{":
            return body, [self.calls.failure(
                f"the arguments of {name!r} after [TOOL_CALLS] must be a JSON object",
                data[at - 12 : body + 40], name=name)]
        end = _balanced(data, body, "{", "}")
        if end is None:
            return self._open_end(data, at - 12, final, f"the call of {name!r} is cut off")
        return end, self._call(name, data[body:end], data[at - 12 : end])

    def _function_tag(self, data: str, found: re.Match[str], final: bool, name: str
                      ) -> tuple[int | None, list[ParseEvent]]:
        close = data.find("</function>", found.end())
        if close < 0:
            return self._open_end(data, found.start(), final,
                                  f"the call of {name!r} is cut off: no closing </function>")
        end = close + len("</function>")
        body = data[found.end() : close].strip()
        raw = data[found.start() : end]
        if body.startswith("<parameter"):
            pairs = re.findall(r"<parameter(?:=|\s+name=\")([\w.\-]+)\"?>(.*?)</parameter>",
                               body, re.DOTALL)
            return end, self.calls.from_spec(CallSpec(name, {k: _scalar(v.strip())
                                                             for k, v in pairs}), raw)
        return end, self._call(name, body or "{}", raw)

    def _tag_named(self, data: str, found: re.Match[str], final: bool, name: str
                   ) -> tuple[int | None, list[ParseEvent]]:
        closing = f"</{name}>"
        close = data.find(closing, found.end())
        if close < 0:
            return self._open_end(data, found.start(), final,
                                  f"the call of {name!r} is cut off: no closing {closing}")
        end = close + len(closing)
        body = data[found.end() : close]
        tool = self.tools.find(name) if self.tools is not None else None
        wanted = set(tool.inline_schema().get("properties", {})) if tool is not None else set()
        pairs = re.findall(r"<([\w.\-]+)>(.*?)</\1>", body, re.DOTALL)
        leftover = re.sub(r"<([\w.\-]+)>(.*?)</\1>", "", body, flags=re.DOTALL).strip()
        raw = data[found.start() : end]
        if leftover or any(key not in wanted for key, _ in pairs):
            unknown = [key for key, _ in pairs if key not in wanted]
            return end, [self.calls.failure(
                f"the call of {name!r} could not be read: write each argument as "
                f"<argument_name>value</argument_name>"
                + (f" (unknown arguments: {', '.join(unknown)})" if unknown else ""),
                raw, name=name)]
        return end, self.calls.from_spec(CallSpec(name, {k: _scalar(v.strip())
                                                         for k, v in pairs}), raw)

    def _json_calls(self, text: str, raw: str) -> list[ParseEvent]:
        try:
            value = json.loads(text)
        except json.JSONDecodeError as exc:
            return [self.calls.failure(f"the [TOOL_CALLS] JSON is not valid ({exc.msg})", raw,
                                       name=_first_name(raw, self._known))]
        events: list[ParseEvent] = []
        for item in extract_calls(value, explicit=True) or []:
            events += (self.calls.from_spec(item, raw) if isinstance(item, CallSpec)
                       else [self.calls.failure(item.message, raw, name=item.name)])
        return events

    def _call(self, name: str, arguments: str, raw: str) -> list[ParseEvent]:
        return self.calls.from_spec(CallSpec(name, arguments), raw)

    def _pythonic(self, raw: str) -> list[ParseEvent]:
        try:
            tree = ast.parse(raw.strip(), mode="eval").body
            if not isinstance(tree, ast.List):
                raise ValueError("not a list of calls")
            specs = [self._python_call(node) for node in tree.elts]
        except SyntaxError as exc:
            return [self.calls.failure(f"the call list is not valid Python call syntax "
                                       f"({exc.msg})", raw,
                                       name=_first_name(raw, self._known))]
        except (ValueError, TypeError, RecursionError, MemoryError) as exc:
            return [self.calls.failure(f"the call list could not be read as Python calls "
                                       f"with literal arguments ({exc})", raw,
                                       name=_first_name(raw, self._known))]
        events: list[ParseEvent] = []
        for spec in specs:
            events += self.calls.from_spec(spec, raw)
        return events

    def _python_call(self, node: ast.expr) -> CallSpec:
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
            raise ValueError("each element must be a call like name(key=value)")
        name = node.func.id
        arguments: dict[str, Any] = {}
        if node.args:
            tool = self.tools.find(name) if self.tools is not None else None
            order = list(tool.inline_schema().get("properties", {})) if tool else []
            if len(node.args) > len(order):
                raise ValueError(f"{name}() takes its arguments by name")
            for key, value in zip(order, node.args, strict=False):
                arguments[key] = _literal(name, key, value)
        for keyword in node.keywords:
            if keyword.arg is None:
                raise ValueError(f"{name}(**...) is not a literal argument")
            arguments[keyword.arg] = _literal(name, keyword.arg, keyword.value)
        return CallSpec(name, arguments)


def _literal(name: str, key: str, node: ast.expr) -> Any:
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, RecursionError):
        raise ValueError(f"the value of {key!r} in {name}() is not a literal (a string, "
                         "number, list, dict, True, False or None)") from None


def _held(data: str, i: int) -> int:
    """How much of the end of ``data`` may begin a shape (held for the next chunk)."""
    last = max(data.rfind("[", max(i, len(data) - _HOLD)), data.rfind("<", max(i, len(data)
                                                                                  - _HOLD)))
    if last < i or last < 0:
        return 0
    tail = data[last:]
    return len(tail) if re.fullmatch(r"[\[<][\w=\s\"\-./\]]*\(?", tail) else 0


def _balanced(data: str, start: int, opening: str, closing: str) -> int | None:
    """The end (exclusive) of the bracketed text at ``start``, strings skipped (JSON's and
    Python's quotes); None if it is not closed yet."""
    depth, quote, i = 0, "", start
    while i < len(data):
        char = data[i]
        if quote:
            if char == "\\":
                i += 1
            elif char == quote:
                quote = ""
        elif char in "\"'":
            quote = char
        elif char == opening:
            depth += 1
        elif char == closing:
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return None


def _scalar(text: str) -> Any:
    """An XML-ish argument's text: JSON where it reads as JSON (numbers, lists), else text."""
    try:
        return json.loads(text)
    except ValueError:
        return text


def _first_name(raw: str, known: set[str]) -> str | None:
    for match in re.finditer(_NAME, raw):
        if match.group(0) in known:
            return match.group(0)
    return None


def open_model_shapes(factory: ParserFactory) -> ParserFactory:
    """``factory``'s parsers, each reading the open models' call shapes too."""

    def make(tools: ToolRegistry | None, ids: InvocationIdAllocator) -> FormatParser:
        return OpenModelShapes(factory(tools, ids), tools)

    return make
