"""The child process of one ``js.exec`` call: runs a script in a V8 isolate (``mini-racer``).

Started by path as ``python -I _js_child.py PROGRAM`` under the process supervisor (see
``_js``), it imports only the standard library and ``py_mini_racer``. PROGRAM is a JSON file
(deleted once read): ``code``, ``input_json``, ``timeout_s``, ``max_memory``, ``max_output``.
The isolate has no file system, network or process access (plain V8: no Node or browser APIs,
no Python callbacks installed); ``console.log`` and friends are captured; ``input_json`` is a
global. One JSON line on stdout reports ``{"result": TEXT, "logs": [...]}`` (TEXT is the last
expression's value as JSON) or ``{"error": KIND, "message": ..., "logs": [...]}`` with KIND one
of ``timeout``, ``memory``, ``throw``, ``result``.
"""

from __future__ import annotations

import json
import os
import sys

_MAX_LOGS = 1000

_PRELUDE = """
globalThis.__logs = [];
globalThis.__logRoom = %d;
(function () {
  function show(value) {
    if (typeof value === "string") return value;
    try { const text = JSON.stringify(value); if (text !== undefined) return text; }
    catch (e) { }
    return String(value);
  }
  function log(...values) {
    if (globalThis.__logs.length >= %d || globalThis.__logRoom <= 0) return;
    let line = values.map(show).join(" ");
    if (line.length > globalThis.__logRoom) line = line.slice(0, globalThis.__logRoom);
    globalThis.__logRoom -= line.length;
    globalThis.__logs.push(line);
  }
  globalThis.console = {log: log, info: log, warn: log, error: log, debug: log};
})();
globalThis.input_json = JSON.parse(%s);
"""

_RUN = """
(function () {
  const value = (0, eval)(%s);
  const text = value === undefined ? "null" : JSON.stringify(value);
  return text === undefined ? "null" : text;
})()
"""


def _report(payload: dict[str, object]) -> None:
    os.write(1, (json.dumps(payload) + "\n").encode("utf-8"))


def main() -> None:
    with open(sys.argv[1], encoding="utf-8") as program_file:
        program = json.load(program_file)
    os.unlink(sys.argv[1])
    from py_mini_racer import MiniRacer
    from py_mini_racer._exc import JSEvalException, JSOOMException, JSTimeoutException

    racer = MiniRacer()
    racer.set_hard_memory_limit(int(program["max_memory"]))
    max_output = int(program["max_output"])
    racer.eval(_PRELUDE % (max_output, _MAX_LOGS, json.dumps(json.dumps(program["input_json"]))))

    def logs() -> list[str]:
        try:
            return list(json.loads(str(racer.eval("JSON.stringify(globalThis.__logs)"))))
        except Exception:  # the isolate is beyond use (out of memory): no logs
            return []

    try:
        text = racer.eval(_RUN % json.dumps(program["code"]), timeout_sec=program["timeout_s"])
    except JSTimeoutException:
        _report({"error": "timeout", "message": "", "logs": logs()})
        return
    except JSOOMException as exc:
        _report({"error": "memory", "message": str(exc)[:2000], "logs": []})
        return
    except JSEvalException as exc:
        if racer.was_hard_memory_limit_reached():
            _report({"error": "memory", "message": str(exc)[:2000], "logs": []})
        else:
            _report({"error": "throw", "message": str(exc)[:4000], "logs": logs()})
        return
    if not isinstance(text, str) or len(text.encode("utf-8")) > max_output:
        _report({"error": "result", "message": f"the result is over {max_output} bytes as "
                 "JSON", "logs": logs()})
        return
    _report({"result": text, "logs": logs()})


if __name__ == "__main__":
    main()
    os._exit(0)  # skip V8's teardown: everything is reported
