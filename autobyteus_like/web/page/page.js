"use strict";
// The team's page: reads the AG-UI event stream (/events), draws one panel per member, and
// sends the page's commands. Every text from a model, a tool or a person is put in the page
// as text (textContent), never as HTML. Events are drawn in batches, a few milliseconds per
// frame, and each panel keeps its newest entries only, so a run of many thousands of events
// never freezes the page.
(function () {
  const token = new URLSearchParams(location.search).get("token") || "";
  const MAX_ENTRIES = 150;      // entries kept in a panel; older ones are counted, not kept
  const FRAME_BUDGET_MS = 12;   // drawing time per animation frame
  const $ = (id) => document.getElementById(id);
  const stats = { events: 0, duplicates: 0, lastId: 0, prefix: "autobyteus." };
  window.__teamPage = stats;
  const panels = new Map();     // member -> {entries, status, hidden, count}
  const messages = new Map();   // text message id -> text node
  const calls = new Map();      // the call's AG-UI id (member:id) -> call element
  const nestedOf = new Map();   // a member answering a call as a tool -> {parent, callee}
  let drawing = false;
  let coordinator = "";

  function el(tag, cls, text) {
    const node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  function api(path, body) {
    return fetch(path, {
      method: "POST", headers: { "Authorization": "Bearer " + token, "Content-Type": "application/json" },
      body: JSON.stringify(body || {}),
    }).catch((error) => {
      serverGone();  // no answer at all: the server is not there
      throw new Error("the server is gone (" + (error.message || error) + ")");
    }).then(async (response) => {
      const data = await response.json().catch(() => ({}));
      if (!response.ok) throw new Error(data.error || ("HTTP " + response.status));
      return data;
    });
  }

  function getJSON(path) {
    return fetch(path, { headers: { "Authorization": "Bearer " + token } }).then((r) => {
      if (!r.ok) throw new Error(path + ": HTTP " + r.status);
      return r.json();
    });
  }

  function notice(text) { $("notice").textContent = text || ""; }

  function panel(member) {
    let p = panels.get(member);
    if (p) return p;
    // a member answering a teammate's call as a tool: a panel inside that call's entry
    const nested = nestedOf.get(member);
    const host = nested && calls.get(nested.parent);
    const root = el("section", host ? "panel nested" : "panel");
    root.dataset.member = member;
    if (host) root.dataset.parent = nested.parent;
    const head = el(host ? "h3" : "h2", null, host ? nested.callee + " (asked as a tool)" : member);
    const role = el("span", "role");
    const status = el("span", "status", "idle");
    status.dataset.status = "idle";
    head.append(role, status);
    const entries = el("div", "entries");
    const hidden = el("div", "hidden-count");
    entries.append(hidden);
    root.append(head, entries);
    (host || $("members")).append(root);
    p = { root, entries, status, role, hidden, count: 0, dropped: 0 };
    panels.set(member, p);
    return p;
  }

  function add(member, node) {
    const p = panel(member || coordinator);
    const stick = p.entries.scrollTop + p.entries.clientHeight >= p.entries.scrollHeight - 30;
    p.entries.append(node);
    p.count += 1;
    while (p.count > MAX_ENTRIES) {
      p.hidden.nextSibling.remove();
      p.count -= 1;
      p.dropped += 1;
    }
    if (p.dropped) p.hidden.textContent = p.dropped + " earlier entries not shown";
    if (stick) p.entries.scrollTop = p.entries.scrollHeight;
    return node;
  }

  function callElement(member, id, name) {
    const key = id;
    let call = calls.get(key);
    if (call) return call;
    call = el("div", "entry call");
    call.dataset.callId = id;
    const head = el("div", "head");
    const num = el("span", "num", "#?");
    const title = el("span", "name", name || "?");
    const state = el("span", "state", "");
    head.append(num, title, state);
    call.append(head, el("div", "args", ""), el("div", "result", ""));
    call._num = num; call._state = state;
    call._args = call.children[1]; call._result = call.children[2];
    calls.set(key, call);
    add(member, call);
    return call;
  }

  function ordinal(n) {
    const tens = n % 100, ones = n % 10;
    const suffix = tens >= 11 && tens <= 13 ? "th" : ones === 1 ? "st" : ones === 2 ? "nd" : ones === 3 ? "rd" : "th";
    return n + suffix;
  }

  function setState(call, text) { call._state.textContent = text; call.dataset.state = text; }

  function showUsage(usage) {
    const run = usage.run || {};
    $("usage").textContent = `${run.input_tokens || 0} in / ${run.output_tokens || 0} out tokens, ` +
      `${run.llm_calls || 0} LLM calls, ${run.tool_calls || 0} tool calls, cost ` +
      (run.cost_usd === "unknown" || run.cost_usd === undefined ? "unknown" : "$" + run.cost_usd);
  }

  function runState(state, text) {
    const node = $("run-state");
    node.dataset.state = state;
    node.textContent = text || state;
    $("stop").disabled = state !== "running" || !connected;
  }

  // While the server is gone every control is disabled (nothing sent can arrive) and the page
  // says so; the stream is retried, and once the server answers again the controls come back
  // (a restarted server, a new process, makes the page start afresh: a reload).
  let connected = true;
  let serverId = null;
  const CONTROLS = ["message", "send", "resume", "abandon", "abandon-reason"];

  function setControls() {
    for (const id of CONTROLS) $(id).disabled = !connected;
    for (const button of $("approvals").querySelectorAll("button")) {
      if (!button.closest(".approval").dataset.decided) button.disabled = !connected;
    }
    $("stop").disabled = !connected || $("run-state").dataset.state !== "running";
  }

  function serverGone(why) {
    if (connected) {
      connected = false;
      document.body.dataset.server = "gone";
      delete document.body.dataset.connected;
      runState("gone", "server gone");  // whatever ran, the page cannot know now
      setControls();
    }
    notice(why || "The server is gone: its controls are disabled until it is back. Reconnecting…");
  }

  function serverBack(state) {
    if (serverId !== null && state.server !== serverId) { location.reload(); return; }
    serverId = state.server;
    document.body.dataset.connected = "1";
    if (connected) return;
    connected = true;
    delete document.body.dataset.server;
    notice("The server is back.");
    runState(state.running ? "running" : "idle");  // (the stream then says how a run ended)
    setControls();
  }

  function approvalCard(member, value) {
    const card = el("div", "approval");
    card.dataset.callId = value.tool_call_id;
    card.dataset.member = member;
    const approve = el("button", "approve", "Approve");
    const deny = el("button", "deny", "Deny");
    const reason = el("input", "reason");
    reason.placeholder = "reason (for Deny)";
    const outcome = el("span", "outcome", "");
    const decide = (yes) => {
      approve.disabled = deny.disabled = true;
      card.dataset.decided = "1";
      const body = { tool_call_id: value.tool_call_id };  // the id the event shows
      if (!yes) body.reason = reason.value;
      api(yes ? "/api/approve" : "/api/deny", body)
        .then((data) => { outcome.textContent = data.done; })
        .catch((error) => {
          outcome.textContent = error.message; card.dataset.refused = "1";
          if (!connected) { delete card.dataset.decided; }  // not sent: decide again once back
        });
    };
    approve.addEventListener("click", () => decide(true));
    deny.addEventListener("click", () => decide(false));
    approve.disabled = deny.disabled = !connected;
    card.append(el("strong", null, member), el("span", null, "wants to run " + value.name),
                approve, deny, reason, outcome,
                el("div", "args", JSON.stringify(value.arguments, null, 1)));
    $("approvals").append(card);
  }

  // An MCP server's question (elicitation): a form made from its schema's flat fields.
  function fieldOf(name, spec, required) {
    const label = el("label", "field", name + (required ? " *" : "") + " ");
    const choices = spec.enum || (spec.oneOf || []).map((o) => o.const)
      .concat(spec.items ? (spec.items.enum || (spec.items.anyOf || []).map((o) => o.const)) : []);
    let input;
    if (spec.type === "boolean") { input = el("input"); input.type = "checkbox"; input.checked = spec.default === true; }
    else if (choices.length) {
      input = el("select"); input.multiple = spec.type === "array";
      for (const choice of choices) { const o = el("option", null, choice); o.value = String(choice); input.append(o); }
      if (spec.default !== undefined && !input.multiple) input.value = String(spec.default);
    } else {
      input = el("input"); input.type = spec.type === "number" || spec.type === "integer" ? "number" : "text";
      if (spec.default !== undefined) input.value = String(spec.default);
    }
    input.name = name; input.dataset.kind = spec.type || "string";
    label.append(input);
    return [label, input];
  }

  function valueOf(input) {
    const kind = input.dataset.kind;
    if (kind === "boolean") return input.checked;
    if (kind === "array") return Array.from(input.selectedOptions, (o) => o.value);
    if (input.value === "") return undefined;
    return kind === "integer" || kind === "number" ? Number(input.value) : input.value;
  }

  function elicitationCard(member, v) {
    const card = el("div", "approval elicitation");
    card.dataset.elicitationId = v.id;
    const schema = v.schema || {};
    const required = new Set(schema.required || []);
    const inputs = [], fields = el("div", "fields");
    for (const [name, spec] of Object.entries(schema.properties || {})) {
      const [label, input] = fieldOf(name, spec || {}, required.has(name));
      inputs.push(input); fields.append(label);
    }
    const outcome = el("span", "outcome", "");
    const buttons = ["accept", "decline", "cancel"].map((action) => {
      const button = el("button", action, action[0].toUpperCase() + action.slice(1));
      button.type = "button";
      button.addEventListener("click", () => {
        const content = {};
        for (const input of inputs) { const value = valueOf(input); if (value !== undefined) content[input.name] = value; }
        for (const b of buttons) b.disabled = true;
        api("/api/elicitation", { id: v.id, action, content: action === "accept" ? content : {} })
          .then((data) => { outcome.textContent = data.done; })
          .catch((error) => { outcome.textContent = error.message; for (const b of buttons) b.disabled = !connected; });
      });
      button.disabled = !connected;
      return button;
    });
    card.append(el("strong", null, "MCP server " + v.server), el("span", null, (member ? "(a call of " + member + ") " : "") + "asks:"),
                el("span", "message", v.message), fields, ...buttons, outcome,
                el("div", "args", "declined unless answered within " + v.timeout_s + " s"));
    $("approvals").append(card);
  }

  function removeCard(member, id) {
    for (const card of $("approvals").children) {
      if (card.dataset.callId === id && card.dataset.member === member) { card.remove(); return; }
    }
  }

  const custom = {
    user_message(m, v) {
      const text = v.abandon ? "abandoning the unfinished work: " + v.abandon
        : v.resumed ? "the session goes on" : "user: " + v.text;
      add(coordinator, el("div", "entry note", text));
    },
    session_abandoned(m, v) { add(coordinator, el("div", "entry note", "the unfinished work was abandoned: " + v.reason)); },
    member_status(m, v) { const p = panel(m); p.status.textContent = v.status.replace("_", " "); p.status.dataset.status = v.status; },
    tool_call(m, v) { const c = callElement(m, v.tool_call_id, v.name); c._num.textContent = "#" + v.number; c.dataset.number = v.number; if (v.why) c.title = v.why; },
    approval_requested(m, v) { setState(callElement(m, v.tool_call_id, v.name), "waits for approval"); approvalCard(m, v); },
    approval_decided(m, v) {
      removeCard(m, v.tool_call_id);
      setState(callElement(m, v.tool_call_id), v.approved ? "approved" : "denied");
    },
    elicitation_requested(m, v) { elicitationCard(m, v); if (m) add(m, el("div", "entry note", "MCP server " + v.server + " asks: " + v.message)); },
    elicitation_settled(m, v) {
      for (const card of $("approvals").querySelectorAll(".elicitation")) if (card.dataset.elicitationId === v.id) card.remove();
      add(coordinator, el("div", "entry note", "the question of MCP server " + v.server + " was " + v.outcome + " (" + v.why + ")"));
    },
    tool_started(m, v) { setState(callElement(m, v.tool_call_id), "running"); },
    tool_result(m, v) {
      const c = callElement(m, v.tool_call_id);
      c.dataset.outcome = v.status;
      setState(c, (v.status === "success" ? "done" : "failed " + (v.code || "")) + ", finished " + ordinal(v.finished));
    },
    working_set(m, v) {
      const paths = (entries) => entries.map((e) => e.path).join(", ") || "-";
      add(m, el("div", "entry note working-set", "working set: hot " + paths(v.hot) + "; cold " + paths(v.cold)));
    },
    parse_failed(m, v) { add(m, el("div", "entry error", "could not read a call: " + v.message)); },
    message(m, v) { if (v.sender) add(v.recipient, el("div", "entry note", "message from " + v.sender + ": " + v.content)); },
    handed_over(m, v) {
      add(v.sender, el("div", "entry note", "handed the conversation over to " + v.receiver + ": " + v.reason));
      add(v.receiver, el("div", "entry note", "holds the conversation now (from " + v.sender + ": " + v.reason + ")"));
    },
    turn_completed(m, v) { add(m, el("div", v.error ? "entry error" : "entry note", v.error ? "turn failed: " + v.error : "turn done")); },
    member_error(m, v) { add(m, el("div", "entry error", v.type + ": " + v.message)); },
    usage(m, v) { showUsage(v); },
  };

  function handle(event) {
    const member = (event.metadata && event.metadata.member) || null;
    if (member && event.metadata.parent && !nestedOf.has(member)) {
      nestedOf.set(member, { parent: event.metadata.parent, callee: event.metadata.callee || member });
    }
    switch (event.type) {
      case "RUN_STARTED":
        runState("running"); $("answer").textContent = ""; $("unfinished").hidden = true; break;
      case "RUN_FINISHED":
        if (event.outcome && event.outcome.type === "cancelled") runState("stopped");
        else { runState("finished"); $("answer").textContent = event.result == null ? "" : String(event.result); }
        $("approvals").replaceChildren();
        break;
      case "RUN_ERROR":
        runState("failed", "failed: " + event.message); $("approvals").replaceChildren(); break;
      case "TEXT_MESSAGE_START": {
        const node = add(member, el("div", "entry text", ""));
        node.dataset.messageId = event.messageId;
        const text = document.createTextNode("");
        node.append(text);
        messages.set(event.messageId, text);
        break;
      }
      case "TEXT_MESSAGE_CONTENT": {
        const text = messages.get(event.messageId);
        if (text) text.appendData(event.delta);
        break;
      }
      case "TEXT_MESSAGE_END": messages.delete(event.messageId); break;
      case "TOOL_CALL_START": callElement(member, event.toolCallId, event.toolCallName); break;
      case "TOOL_CALL_ARGS": callElement(member, event.toolCallId)._args.append(event.delta); break;
      case "TOOL_CALL_RESULT": callElement(member, event.toolCallId)._result.textContent = event.content; break;
      case "CUSTOM": {
        const name = String(event.name || "");
        const fn = name.startsWith(stats.prefix) && custom[name.slice(stats.prefix.length)];
        if (fn) fn(member, event.value || {});
        break;
      }
    }
  }

  // The stream is read with fetch, not EventSource: a browser's EventSource hands every
  // message to the page in one task per network read (thousands at once in a big run), where
  // this only appends the text read; frames are parsed and drawn in the frame budget.
  let pending = "";             // text received, not yet drawn (whole frames, then a part)

  function draw() {
    const until = performance.now() + FRAME_BUDGET_MS;
    let position = 0;
    while (performance.now() < until) {
      const end = pending.indexOf("\n\n", position);
      if (end < 0) break;
      const frame = pending.slice(position, end);
      position = end + 2;
      let id = 0, data = null;
      for (const line of frame.split("\n")) {
        if (line.startsWith("id: ")) id = Number(line.slice(4));
        else if (line.startsWith("data: ")) data = line.slice(6);
      }
      if (data === null) continue;
      if (id <= stats.lastId) { stats.duplicates += 1; continue; }
      stats.lastId = id;
      stats.events += 1;
      try { handle(JSON.parse(data)); } catch (error) { console.error("event", id, error); }
    }
    pending = pending.slice(position);
    document.body.dataset.drawn = String(stats.events);
    if (pending.indexOf("\n\n") >= 0) requestAnimationFrame(draw); else drawing = false;
  }

  function received(text) {
    pending += text;
    if (!drawing) { drawing = true; requestAnimationFrame(draw); }
  }

  function lastReceivedId() {
    // the id of the last whole frame received (drawn or not): where a new stream goes on
    const whole = pending.lastIndexOf("\n\n");
    pending = pending.slice(0, whole + 2);  // a frame cut by the disconnection comes again
    const start = pending.lastIndexOf("id: ", whole);
    return start >= 0 && (start === 0 || pending[start - 1] === "\n")
      ? Math.max(stats.lastId, parseInt(pending.slice(start + 4), 10)) : stats.lastId;
  }

  async function follow() {
    for (;;) {
      try {
        if (!connected) serverBack(await getJSON("/api/state"));  // (a new server: reloads)
        const response = await fetch("/events", { headers: {
          "Authorization": "Bearer " + token, "Last-Event-ID": String(lastReceivedId()) } });
        if (!response.ok) throw new Error("the event stream: HTTP " + response.status);
        document.body.dataset.connected = "1";
        const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          received(value);
        }
        serverGone();  // the stream ended: the server went away
      } catch (error) {
        const refused = String(error.message || error).includes("HTTP 403");
        serverGone(refused ? "The server is back but does not take this page's token: open the URL it printed." : undefined);
      }
      await new Promise((resolve) => setTimeout(resolve, 1000));  // (a request to this machine)
    }
  }

  function history(data) {
    for (const [member, list] of Object.entries(data.members || {})) {
      if (!list.length) continue;
      const p = panel(member);
      const box = el("details", "history");
      box.append(el("summary", null, "stored history (" + list.length + " messages)"));
      for (const m of list) {
        box.append(el("div", "entry", "[" + m.role + "] " + m.content));
        for (const c of m.calls) box.append(el("div", "entry note", "calls " + c.name + " " + c.arguments));
        for (const r of m.results) box.append(el("div", "entry note", "result " + r.id + ": " + r.text));
      }
      p.root.insertBefore(box, p.entries);
    }
  }

  $("ask").addEventListener("submit", (e) => {
    e.preventDefault();
    const text = $("message").value;
    if (!text.trim()) return;
    notice("");
    api("/api/run", { message: text }).then(() => { $("message").value = ""; })
      .catch((error) => { notice(error.message); getJSON("/api/state").then(showUnfinished); });
  });
  $("stop").addEventListener("click", () => { api("/api/stop").catch((error) => notice(error.message)); });
  $("resume").addEventListener("click", () => {
    notice("");
    api("/api/run", { resume: true }).catch((error) => notice(error.message));
  });
  $("abandon").addEventListener("click", () => {
    const reason = $("abandon-reason").value;
    if (!reason.trim()) { notice("say why the unfinished work is abandoned (a reason)"); $("abandon-reason").focus(); return; }
    notice("");
    api("/api/abandon", { reason }).then(() => { $("abandon-reason").value = ""; })
      .catch((error) => notice(error.message));
  });

  function showUnfinished(state) {
    // what the session's last process left, neither resumed nor abandoned: a new message
    // is refused until one of the two settles it
    $("unfinished").hidden = !state.unfinished || Boolean(state.running);
    if (state.unfinished) {
      $("unfinished-text").textContent = state.unfinished === "waiting"
        ? "This session has a call waiting for a decision, left by its last process. Resume it (the call asks again), or abandon it with a reason."
        : "This session has an unfinished turn, left by its last process. Resume it, or abandon it with a reason.";
    }
  }

  getJSON("/api/state").then((state) => {
    serverId = state.server;
    $("team").textContent = state.team;
    $("session").textContent = state.session ? "session " + state.session : "";
    coordinator = state.coordinator;
    stats.prefix = state.custom_prefix;
    showUnfinished(state);
    for (const m of state.members) panel(m.name).role.textContent = m.role || "";
    return getJSON("/api/history").then(history);
  }).then(follow).catch((error) => notice(error.message));
})();
