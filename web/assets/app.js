// The page of wield web: an AG-UI client of /agui, plus the server's small API for sessions and
// tools. Everything the server sends is shown as text (never parsed as HTML).
"use strict";

const $ = (id) => document.getElementById(id);
const el = (tag, attrs = {}, ...kids) => {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") e.className = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else if (v !== undefined && v !== null && v !== false) e.setAttribute(k, v === true ? "" : v);
  }
  for (const k of kids) if (k !== null && k !== undefined) e.append(k);
  return e;
};

// The URL's token is kept in a cookie by the server; take it off the address bar.
if (location.search.includes("token=")) history.replaceState(null, "", location.pathname);

let thread = newThread();
let running = false;
let tools = [];
const calls = new Map(); // toolCallId → {card, args, body, name, started}

function newThread() {
  const d = new Date(), p = (n) => String(n).padStart(2, "0");
  const r = Array.from(crypto.getRandomValues(new Uint8Array(2)), (b) => b.toString(16).padStart(2, "0")).join("");
  return `chat-${d.getFullYear()}${p(d.getMonth() + 1)}${p(d.getDate())}-${p(d.getHours())}${p(d.getMinutes())}${p(d.getSeconds())}-${r}`;
}
const newID = () => Array.from(crypto.getRandomValues(new Uint8Array(12)), (b) => b.toString(16).padStart(2, "0")).join("");

function status(text, error) {
  $("status").textContent = text;
  $("status").className = error ? "err" : "dim";
}
function showThread() { $("thread").textContent = "Session " + thread; }

async function api(path, opts) {
  const r = await fetch(path, opts);
  if (!r.ok) throw new Error(`${r.status}: ${(await r.text()).trim()}`);
  return r.json();
}

// ---- runs ----

async function run(input) {
  const timeline = new Timeline(!!input.resume);
  running = true;
  $("send").disabled = true;
  status("Working…");
  const body = { threadId: thread, runId: newID(), messages: [], tools: [], context: [], state: {}, forwardedProps: {}, ...input };
  let finished = false, refused = false;
  try {
    const r = await fetch("agui", { method: "POST", headers: { "Content-Type": "application/json", Accept: "text/event-stream" }, body: JSON.stringify(body) });
    if (!r.ok) { refused = true; throw new Error(`${r.status}: ${(await r.text()).trim()}`); }
    const reader = r.body.pipeThrough(new TextDecoderStream()).getReader();
    let buf = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buf += value;
      let i;
      while ((i = buf.indexOf("\n\n")) >= 0) {
        const frame = buf.slice(0, i);
        buf = buf.slice(i + 2);
        const data = frame.split("\n").filter((l) => l.startsWith("data:")).map((l) => l.slice(5).trimStart()).join("\n");
        if (data) {
          const ev = JSON.parse(data);
          timeline.event(ev);
          finished = onEvent(ev) || finished;
        }
      }
    }
    if (!finished) status("The connection ended before the run did.", true);
  } catch (e) {
    status("Error: " + e.message, true);
  } finally {
    running = false;
    $("send").disabled = false;
    const t = timeline.render();
    if (t) $("log").append(t);
  }
  return refused;
}

// ---- timeline ----

// Timeline places a run's model and tool calls on a time axis, from the events' timestamps: a
// tool call ran for its result's elapsedMs up to the result; a model call runs from the start of
// the run, or the end of its round's last tool call, until the model's calls are written out
// (their TOOL_CALL_END, sent as they start) or the run ends. A sub-agent's model calls start with
// its own call. Calls whose arguments arrive whole and run one after another in a round cannot
// be told from a round each: those show a model call between them.
class Timeline {
  constructor(resumed) {
    this.resumed = resumed;
    this.spans = [];
    this.agents = new Map(); // agent ("" for the turn's own) → where its calls stand
    this.names = new Map(); // toolCallId → tool name
    this.callStarts = new Map(); // tool name → when its latest call started
    this.t0 = null;
    this.end = null;
    this.usage = null;
    this.exact = false; // the server reports the turn's own model calls (wield.model_call)
    this.notes = []; // compactions
  }

  agent(name, ts) {
    let a = this.agents.get(name);
    if (!a) {
      // A resumed run starts with the decided calls; anything else starts with the model.
      const from = name ? this.callStarts.get(name.split("/").pop()) ?? ts : ts;
      a = { phase: name || !this.resumed ? "model" : "tools", from, written: new Set(), open: new Set() };
      this.agents.set(name, a);
    }
    return a;
  }

  model(a, name, to, failed) {
    this.spans.push({ kind: "model", agent: name, label: "model", start: a.from, end: to, failed });
  }

  event(ev) {
    const ts = ev.timestamp;
    if (typeof ts !== "number") return;
    if (this.t0 === null) this.t0 = ts;
    this.end = ts;
    const name = (ev.metadata && ev.metadata.agent) || "";
    const a = this.agent(name, ts);
    switch (ev.type) {
      case "TEXT_MESSAGE_CONTENT":
      case "REASONING_MESSAGE_CONTENT":
      case "TOOL_CALL_ARGS":
        if (a.phase === "gap") a.phase = "model";
        break;
      case "TOOL_CALL_START":
        this.names.set(ev.toolCallId, ev.toolCallName);
        if (a.phase === "gap") a.phase = "model";
        a.written.add(ev.toolCallId);
        break;
      case "TOOL_CALL_END":
        this.callStarts.set(this.names.get(ev.toolCallId), ts);
        if (a.phase === "model") this.model(a, name, ts, false);
        a.phase = "tools";
        a.open.add(ev.toolCallId);
        break;
      case "TOOL_CALL_RESULT": {
        const md = ev.metadata || {};
        const elapsed = md.elapsedMs || 0;
        const tool = this.names.get(ev.toolCallId) || "tool";
        this.spans.push({ kind: "tool", agent: name, label: tool, start: ts - elapsed, end: ts, failed: !!md.error });
        // A sub-agent's last model call ends with its call.
        for (const [sub, s] of this.agents) {
          if (sub && sub.split("/").pop() === tool && s.phase !== "tools") {
            this.model(s, sub, ts, false);
            this.agents.delete(sub);
          }
        }
        a.open.delete(ev.toolCallId);
        if (a.open.size === 0) { a.phase = "gap"; a.from = ts; }
        break;
      }
      case "CUSTOM": {
        const v = ev.value || {};
        if (ev.name === "wield.model_call" && typeof v.startedAt === "number" && typeof v.latencyMs === "number") {
          // The server measured this model call: it replaces the one inferred from the events.
          const u = v.usage || {};
          this.exact = true;
          this.spans.push({ kind: "model", agent: name, label: "model" + (v.model ? " " + v.model : ""), start: v.startedAt, end: v.startedAt + v.latencyMs,
            failed: !!v.error, exact: true, tokens: u.totalTokens ? `${num(u.inputTokens)} in, ${num(u.outputTokens)} out` : "" });
        } else if (ev.name === "wield.compaction") {
          this.notes.push({ at: ts, agent: name, text: compactionNote(v) });
        }
        break;
      }
      case "RUN_FINISHED":
      case "RUN_ERROR": {
        if (ev.usage && ev.usage[0]) this.usage = ev.usage[0];
        const top = this.agents.get("");
        if (top && top.phase !== "tools") this.model(top, "", ts, ev.type === "RUN_ERROR");
        break;
      }
    }
  }

  // render returns the timeline's element, or null for a run without calls.
  render() {
    if (!this.spans.length && !this.notes.length) return null;
    // Measured model calls replace those inferred for the turn's own agent.
    const spans = this.spans.filter((s) => !this.exact || s.exact || s.kind !== "model" || s.agent).sort((x, y) => x.start - y.start || (x.kind === "model" ? -1 : 1));
    const total = Math.max(1, this.end - this.t0);
    const models = spans.filter((s) => s.kind === "model").length;
    const ms = (n) => (n >= 1000 ? (n / 1000).toFixed(2) + " s" : Math.round(n) + " ms");
    let head = `Timeline · ${models} model call${models === 1 ? "" : "s"}, ${spans.length - models} tool call${spans.length - models === 1 ? "" : "s"} · ${ms(total)}`;
    if (this.notes.length) head += ` · ${this.notes.length} compaction${this.notes.length === 1 ? "" : "s"}`;
    if (this.usage && this.usage.totalTokens) head += ` · ${this.usage.inputTokens} in, ${this.usage.outputTokens} out tokens`;
    const list = el("ol", { "aria-label": "Calls in time order" });
    // In time order; within a millisecond what ended first, then a tool before a compaction
    // before the model call it shortened.
    const rank = (r) => (r.n ? 1 : r.s.kind === "model" ? 2 : 0);
    const rows = [...spans.map((s) => ({ at: s.start, end: s.end, s })), ...this.notes.map((n) => ({ at: n.at, end: n.at, n }))]
      .sort((x, y) => x.at - y.at || x.end - y.end || rank(x) - rank(y));
    for (const { s, n } of rows) {
      if (n) {
        const at = n.at - this.t0;
        list.append(el("li", { class: "note compaction", "data-kind": "compaction", "data-start": String(at), "data-label": n.text },
          el("span", { class: "what" }, (n.agent ? n.agent + " › " : "") + "compaction"), el("span", { class: "text" }, n.text), el("span", { class: "dur" }, "at " + ms(at))));
        continue;
      }
      const start = s.start - this.t0, dur = Math.max(0, s.end - s.start);
      const bar = el("span", { class: "bar" });
      bar.style.left = (100 * start / total).toFixed(2) + "%";
      bar.style.width = Math.max(0.5, 100 * dur / total).toFixed(2) + "%";
      const what = (s.agent ? s.agent + " › " : "") + s.label;
      list.append(el("li", { class: "span " + s.kind + (s.failed ? " failed" : ""), "data-kind": s.kind, "data-label": what,
        "data-start": String(start), "data-end": String(start + dur), "data-tokens": s.tokens || null,
        title: `${what}: from ${ms(start)} for ${ms(dur)}` + (s.tokens ? ` · ${s.tokens} tokens` : "") },
      el("span", { class: "what" }, what), el("span", { class: "track", "aria-hidden": "true" }, bar),
      el("span", { class: "dur" }, ms(dur))));
      if (s.tokens) list.lastChild.append(el("span", { class: "tokens dim" }, s.tokens + " tokens"));
    }
    return el("details", { class: "timeline", open: true }, el("summary", {}, head), list,
      el("div", { class: "axis dim", "aria-hidden": "true" }, el("span", {}, "0"), el("span", {}, ms(total))));
  }
}

const num = (n) => (typeof n === "number" ? n.toLocaleString("en") : "?");

// compactionNote says how a compaction shortened the conversation.
function compactionNote(v) {
  const parts = [`${num(v.before)} → ${num(v.after)} tokens of ${num(v.budget)}`];
  if (v.capped) parts.push(`${num(v.capped)} result${v.capped === 1 ? "" : "s"} capped`);
  if (v.cleared) parts.push(`${num(v.cleared)} cleared`);
  if (v.summarized) parts.push(`${num(v.summarized)} messages summarized`);
  if (v.summaryError) parts.push("summary failed: " + String(v.summaryError).slice(0, 200));
  if (v.retry) parts.push("after the model refused a request too long");
  return parts.join(" · ");
}

const texts = new Map(); // messageId → element

// container is where an event of a sub-agent goes: inside its call's card.
function container(ev) {
  const agent = ev.metadata && ev.metadata.agent;
  if (!agent) return $("log");
  let parent = null;
  for (const c of calls.values()) if (c.name === agent && !c.agent) parent = c; // the latest
  if (!parent) parent = { card: $("log") };
  let box = parent.card.querySelector(":scope > .agent");
  if (!box) {
    box = el("div", { class: "agent" }, el("div", { class: "label" }, "sub-agent " + agent));
    parent.card.append(box);
  }
  return box;
}

function onEvent(ev) {
  switch (ev.type) {
    case "TEXT_MESSAGE_START": {
      const m = el("div", { class: "msg assistant", "data-message": ev.messageId });
      texts.set(ev.messageId, m);
      container(ev).append(m);
      break;
    }
    case "TEXT_MESSAGE_CONTENT": {
      const m = texts.get(ev.messageId);
      if (m) m.textContent += ev.delta;
      break;
    }
    case "TOOL_CALL_START": {
      const known = calls.get(ev.toolCallId);
      if (known && known.card.isConnected && known.state) {
        // A resumed run starts again a call the page shows already (one that waited for a
        // decision): its card goes on.
        known.text = "";
        known.state.textContent = "running";
        break;
      }
      const args = el("pre", { class: "args" });
      const state = el("span", { class: "state" }, "writing arguments…");
      const card = el("div", { class: "call", "data-call": ev.toolCallId, "data-tool": ev.toolCallName },
        el("header", {}, el("span", { class: "name" }, ev.toolCallName), " ", state), args);
      container(ev).append(card);
      calls.set(ev.toolCallId, { card, args, state, name: ev.toolCallName, agent: ev.metadata && ev.metadata.agent, text: "" });
      break;
    }
    case "TOOL_CALL_ARGS": {
      const c = calls.get(ev.toolCallId);
      if (c) { c.text += ev.delta; c.args.textContent = c.text; }
      break;
    }
    case "TOOL_CALL_END": {
      const c = calls.get(ev.toolCallId);
      if (c) { c.state.textContent = "running"; c.args.textContent = pretty(c.text); }
      break;
    }
    case "TOOL_CALL_RESULT": {
      const c = calls.get(ev.toolCallId);
      if (!c) break;
      const md = ev.metadata || {};
      if (md.error) c.card.classList.add("error");
      c.state.textContent = (md.error ? "failed" : "done") + (md.elapsedMs !== undefined ? ` in ${md.elapsedMs} ms` : "");
      c.card.append(el("pre", { class: "result" }, ev.content));
      break;
    }
    case "RUN_ERROR":
      status("Error: " + ev.message, true);
      return true;
    case "RUN_FINISHED": {
      const out = ev.outcome || { type: "success" };
      if (out.type === "interrupt") {
        askApprovals(out.interrupts || []);
        status("Waiting for your decision.");
      } else {
        const u = (ev.usage && ev.usage[0]) || {};
        status(u.totalTokens ? `Done · ${u.inputTokens} in, ${u.outputTokens} out tokens` : "Done");
        loadSessions();
      }
      return true;
    }
  }
  return false;
}

function pretty(s) {
  try { return JSON.stringify(JSON.parse(s), null, 2); } catch { return s; }
}

// ---- approvals ----

// decisionButton is a button that decides a call. A click from the keyboard counts only when its
// key went down on the button: the Enter that sent the question, whose keypress can land on the
// Approve button focused as the turn stops, must not approve what it led to.
function decisionButton(attrs, label, act) {
  let armed = false;
  const b = el("button", { type: "button", ...attrs }, label);
  b.addEventListener("keydown", () => { armed = true; });
  b.addEventListener("blur", () => { armed = false; });
  b.addEventListener("click", (e) => {
    if (e.detail === 0 && !armed) return;
    armed = false;
    act();
  });
  return b;
}

// askApprovals shows one card per interrupt; once each is answered the turn resumes with all.
function askApprovals(interrupts) {
  const box = $("approvals");
  box.replaceChildren();
  const answers = new Map();
  const send = () => {
    if (answers.size < interrupts.length) return;
    box.replaceChildren();
    // A resume the server refuses (an answer off its schema) asks again: nothing is lost.
    run({ resume: interrupts.map((i) => ({ interruptId: i.id, status: "resolved", payload: answers.get(i.id) })) })
      .then((refused) => { if (refused) askApprovals(interrupts); });
  };
  let first = null;
  for (const i of interrupts) {
    const md = i.metadata || {};
    const call = calls.get(i.toolCallId);
    if (call && call.state) call.state.textContent = i.reason === "tool_approval" ? "waiting for approval" : "asks a question";
    const card = el("div", { class: "approval", role: "group", "aria-label": "Decision on " + md.tool, "data-interrupt": i.id });
    const decided = (payload, note) => {
      answers.set(i.id, payload);
      card.replaceChildren(el("p", { class: "dim" }, note));
      send();
    };
    card.append(el("p", {}, (md.agent ? `sub-agent ${md.agent}: ` : "") + (i.reason === "mcp_elicitation" ? `${md.server} asks (during ${md.tool}): ` : "") + (i.message || "Decide")));
    if (i.reason !== "mcp_elicitation") card.append(el("pre", {}, pretty(JSON.stringify(md.arguments ?? {}))));
    if (i.reason === "mcp_elicitation") {
      first = first || elicitCard(card, i, decided);
    } else if (i.reason === "tool_interrupt") {
      const answer = el("input", { type: "text", "aria-label": "Answer", class: "answer" });
      card.append(answer, el("div", { class: "actions" },
        decisionButton({ class: "primary" }, "Answer", () => decided({ answer: answer.value }, "Answered."))));
      first = first || answer;
    } else {
      const reason = el("input", { type: "text", "aria-label": "Reason for rejecting", placeholder: "Reason (optional)", class: "reason" });
      const approve = decisionButton({ class: "primary approve" }, "Approve", () => decided({ approved: true }, `Approved ${md.tool}.`));
      const reject = decisionButton({ class: "danger reject" }, "Reject", () => decided({ approved: false, reason: reason.value }, `Rejected ${md.tool}.`));
      const edit = el("button", { type: "button", class: "edit", onclick: () => {
        const t = tools.find((t) => t.name === md.tool);
        const form = schemaForm(t ? t.inputSchema : {}, md.arguments || {}, "Approve with these arguments", (args) => decided({ approved: true, arguments: args }, `Approved ${md.tool} with edited arguments.`));
        edit.disabled = true;
        card.append(form);
        const f = form.querySelector("input, textarea, select");
        if (f) f.focus();
      } }, "Edit arguments");
      card.append(el("div", { class: "actions" }, approve, reject, reason, edit));
      first = first || approve;
    }
    box.append(card);
  }
  if (first) first.focus();
}

// elicitCard fills the card of an MCP server's question: a form from the schema it requested
// (checked in the page, then by the server), or the URL it asks the user to visit, and decline
// and cancel. A schema the server refused to offer as a form can only be declined or cancelled.
// It returns the element to focus.
function elicitCard(card, i, decided) {
  const md = i.metadata || {};
  const decline = decisionButton({ class: "decline" }, "Decline", () => decided({ action: "decline" }, `Declined ${md.server}'s question.`));
  const cancel = decisionButton({ class: "cancel" }, "Cancel", () => decided({ action: "cancel" }, `Cancelled ${md.server}'s question.`));
  if (md.mode === "url") {
    let href = null;
    try { const u = new URL(md.url); if (u.protocol === "https:" || u.protocol === "http:") href = u.href; } catch { /* shown as text only */ }
    card.append(el("p", {}, href ? el("a", { href, target: "_blank", rel: "noopener noreferrer" }, href) : String(md.url || "")));
    const done = decisionButton({ class: "primary accept" }, "Done", () => decided({ action: "accept" }, "Done."));
    card.append(el("div", { class: "actions" }, done, decline, cancel));
    return done;
  }
  if (!md.requestedSchema) {
    card.append(el("p", { class: "err" }, "The server's form cannot be shown: " + String(md.schemaError || "no schema")));
    card.append(el("div", { class: "actions" }, decline, cancel));
    return decline;
  }
  const form = schemaForm(md.requestedSchema, {}, "Send", (content) => decided({ action: "accept", content }, `Answered ${md.server}.`), { elicit: true });
  card.append(form, el("div", { class: "actions" }, decline, cancel));
  return form.querySelector("input, textarea, select, button");
}

// ---- forms from JSON schemas ----

// schemaForm builds a form for an object schema, filled with value; submit gets the arguments
// once every field passes the schema's checks, which the page makes before anything is sent.
// With opts.elicit the schema is an MCP server's requested schema: fields take their labels from
// titles and their values from defaults, and patterns (which MCP forms do not have, and which a
// hostile server could make too slow to test) are left to the server.
function schemaForm(schema, value, label, submit, opts = {}) {
  const isObj = (x) => x !== null && typeof x === "object" && !Array.isArray(x);
  schema = isObj(schema) ? schema : {};
  value = isObj(value) ? value : {};
  const props = isObj(schema.properties) ? schema.properties : {};
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  const fields = [];
  const form = el("form", { class: "schema-form", novalidate: true });
  for (let [name, s] of Object.entries(props)) {
    s = isObj(s) ? s : {};
    const id = "f-" + newID();
    const type = Array.isArray(s.type) ? s.type.find((t) => t !== "null") : s.type;
    let input;
    let v = Object.hasOwn(value, name) ? value[name] : undefined;
    if (v === undefined && opts.elicit && s.default !== undefined) v = s.default;
    // Choices: an enumeration (with enumNames for labels), or oneOf/anyOf of titled constants.
    const choices = Array.isArray(s.enum) ? s.enum.map((o, k) => [o, Array.isArray(s.enumNames) && s.enumNames[k] != null ? String(s.enumNames[k]) : String(o)])
      : (Array.isArray(s.oneOf) || Array.isArray(s.anyOf)) && (s.oneOf || s.anyOf).every((c) => isObj(c) && "const" in c)
        ? (s.oneOf || s.anyOf).map((c) => [c.const, c.title != null ? String(c.title) : String(c.const)]) : null;
    const items = isObj(s.items) ? s.items : {};
    const itemChoices = type === "array" && (Array.isArray(items.enum) ? items.enum.map((o) => [o, String(o)])
      : (Array.isArray(items.anyOf) || Array.isArray(items.oneOf)) && (items.anyOf || items.oneOf).every((c) => isObj(c) && "const" in c)
        ? (items.anyOf || items.oneOf).map((c) => [c.const, c.title != null ? String(c.title) : String(c.const)]) : null);
    if (itemChoices) {
      input = el("select", { id, name, multiple: true, size: Math.min(6, itemChoices.length) });
      const chosen = new Set((Array.isArray(v) ? v : []).map((x) => JSON.stringify(x)));
      for (const [o, text] of itemChoices) input.append(el("option", { value: JSON.stringify(o), selected: chosen.has(JSON.stringify(o)) }, text));
    } else if (choices) {
      input = el("select", { id, name });
      if (!required.has(name)) input.append(el("option", { value: "" }, "—"));
      for (const [o, text] of choices) input.append(el("option", { value: JSON.stringify(o), selected: JSON.stringify(o) === JSON.stringify(v) }, text));
    } else if (type === "boolean") {
      input = el("input", { id, name, type: "checkbox", checked: v === true });
    } else if (type === "number" || type === "integer") {
      input = el("input", { id, name, type: "text", inputmode: type === "integer" ? "numeric" : "decimal", value: v ?? "" });
    } else if (type === "string") {
      const long = typeof v === "string" && (v.length > 60 || v.includes("\n"));
      input = long ? el("textarea", { id, name, rows: 4 }) : el("input", { id, name, type: "text" });
      input.value = v ?? "";
    } else {
      input = el("textarea", { id, name, rows: 3 });
      input.value = v === undefined ? "" : JSON.stringify(v, null, 2);
    }
    const problem = el("div", { class: "problem", id: id + "-problem", "aria-live": "polite" });
    input.setAttribute("aria-describedby", id + "-problem");
    const title = opts.elicit && s.title != null ? String(s.title) : name;
    form.append(el("div", { class: "field" },
      el("label", { for: id }, title + (required.has(name) ? " *" : "")),
      s.description != null ? el("div", { class: "hint" }, String(s.description)) : null, input, problem));
    fields.push({ name, s, type, input, problem, required: required.has(name), choices: !!choices, multi: !!itemChoices, patterns: !opts.elicit });
  }
  const extra = Object.keys(value).filter((k) => !Object.hasOwn(props, k));
  form.append(el("button", { type: "submit", class: "primary" }, label));
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    // Entries, not assignments: a field named __proto__ is a field.
    const entries = extra.map((k) => [k, value[k]]);
    let bad = null;
    for (const f of fields) {
      const [val, err] = readField(f);
      f.problem.textContent = err || "";
      f.input.setAttribute("aria-invalid", err ? "true" : "false");
      if (err) bad = bad || f.input;
      else if (val !== undefined) entries.push([f.name, val]);
    }
    if (bad) { bad.focus(); return; }
    submit(Object.fromEntries(entries));
  });
  return form;
}

// readField returns a field's value, or what is wrong with it.
function readField(f) {
  const { s, type, input } = f;
  if (f.multi) {
    const v = [...input.selectedOptions].map((o) => JSON.parse(o.value));
    if (!v.length && !s.minItems) return f.required ? [v, null] : [undefined, null];
    if (s.minItems !== undefined && v.length < s.minItems) return [undefined, `Choose at least ${s.minItems}.`];
    if (s.maxItems !== undefined && v.length > s.maxItems) return [undefined, `Choose at most ${s.maxItems}.`];
    return [v, null];
  }
  if (type === "boolean" && !f.choices) return [input.checked, null];
  const raw = input.value;
  if (raw === "") return f.required ? [undefined, "Required."] : [undefined, null];
  let v;
  if (f.choices) v = JSON.parse(raw);
  else if (type === "string") v = raw;
  else if (type === "number" || type === "integer") {
    if (!/^-?\d+(\.\d+)?([eE][-+]?\d+)?$/.test(raw.trim())) return [undefined, "Not a number."];
    v = Number(raw);
    if (type === "integer" && !Number.isInteger(v)) return [undefined, "Not a whole number."];
  } else {
    try { v = JSON.parse(raw); } catch { return [undefined, "Not valid JSON."]; }
    if (type === "object" && (typeof v !== "object" || v === null || Array.isArray(v))) return [undefined, "Not a JSON object."];
    if (type === "array" && !Array.isArray(v)) return [undefined, "Not a JSON array."];
  }
  if (typeof v === "number") {
    if (s.minimum !== undefined && v < s.minimum) return [undefined, `At least ${s.minimum}.`];
    if (s.maximum !== undefined && v > s.maximum) return [undefined, `At most ${s.maximum}.`];
    if (s.exclusiveMinimum !== undefined && v <= s.exclusiveMinimum) return [undefined, `More than ${s.exclusiveMinimum}.`];
    if (s.exclusiveMaximum !== undefined && v >= s.exclusiveMaximum) return [undefined, `Less than ${s.exclusiveMaximum}.`];
  }
  if (typeof v === "string") {
    const n = [...v].length;
    if (s.minLength !== undefined && n < s.minLength) return [undefined, `At least ${s.minLength} characters.`];
    if (s.maxLength !== undefined && n > s.maxLength) return [undefined, `At most ${s.maxLength} characters.`];
    const fmt = { email: /^[^@\s]+@[^@\s]+\.[^@\s]+$/, date: /^\d{4}-\d{2}-\d{2}$/ }[s.format];
    if (fmt && !fmt.test(v)) return [undefined, `Not ${s.format === "email" ? "an email address" : "a date (YYYY-MM-DD)"}.`];
    if (s.format === "uri") { try { new URL(v); } catch { return [undefined, "Not a URI."]; } }
    if (s.format === "date-time" && Number.isNaN(Date.parse(v))) return [undefined, "Not a date and time."];
    if (s.pattern && f.patterns) {
      let re = null;
      try { re = new RegExp(s.pattern, "u"); } catch { /* a pattern JavaScript cannot read: the tool checks it */ }
      if (re && !re.test(v)) return [undefined, `Does not match ${s.pattern}.`];
    }
  }
  return [v, null];
}

// ---- sessions ----

async function loadSessions() {
  try {
    const ids = await api("api/sessions");
    const list = $("session-list");
    list.replaceChildren(...ids.map((id) => el("li", {}, el("button", { type: "button", "data-session": id, "aria-current": id === thread ? "true" : null, onclick: () => openSession(id) }, id))));
    if (!ids.length) list.append(el("li", { class: "dim" }, "No sessions yet."));
  } catch (e) {
    status("Cannot list the sessions: " + e.message, true);
  }
}

async function openSession(id) {
  if (running) { status("Wait for the turn to end before opening another session.", true); return; }
  try {
    const { messages: msgs, pending } = await api("api/sessions/" + encodeURIComponent(id));
    thread = id;
    showThread();
    const log = $("log");
    log.replaceChildren();
    $("approvals").replaceChildren();
    calls.clear();
    for (const m of msgs) {
      if (m.role === "user") log.append(el("div", { class: "msg user" }, m.content || ""));
      else if (m.role === "assistant") {
        if (m.content) log.append(el("div", { class: "msg assistant" }, m.content));
        for (const c of m.toolCalls || []) {
          const state = el("span", { class: "state" });
          const args = el("pre", { class: "args" }, pretty(c.arguments || ""));
          const card = el("div", { class: "call", "data-call": c.id, "data-tool": c.name }, el("header", {}, el("span", { class: "name" }, c.name), " ", state), args);
          calls.set(c.id, { card, args, state, name: c.name, text: c.arguments || "" });
          log.append(card);
        }
      } else if (m.role === "tool") {
        for (const r of m.toolResults || []) {
          const c = calls.get(r.id);
          const pre = el("pre", { class: "result" }, r.content);
          if (c) { c.card.append(pre); if (r.isError) c.card.classList.add("error"); } else log.append(pre);
        }
      }
    }
    if (pending.length) {
      // The session's turn stopped for decisions: answering them resumes it.
      askApprovals(pending);
      status(`Opened ${id}: its turn waits for your decision.`);
    } else {
      status(`Opened ${id}: ${msgs.length} messages. Ask to continue it.`);
    }
    loadSessions();
    if (!pending.length) $("question").focus();
  } catch (e) {
    status("Cannot open the session: " + e.message, true);
  }
}

// ---- tools ----

async function loadTools() {
  try { tools = await api("api/tools"); } catch (e) { status("Cannot list the tools: " + e.message, true); }
  showTools();
}

function showTools() {
  const q = $("tool-search").value.trim().toLowerCase();
  const hits = tools.filter((t) => !q || t.name.toLowerCase().includes(q) || (t.description || "").toLowerCase().includes(q) || (t.source || "").toLowerCase().includes(q));
  $("tool-list").replaceChildren(...hits.map((t) => el("li", {}, el("button", { type: "button", "data-tool": t.name, title: t.description || "", onclick: () => toolForm(t) },
    t.name, el("span", { class: "src" }, (t.source || "") + (t.asks ? " · asks" : ""))))));
  if (!hits.length) $("tool-list").append(el("li", { class: "dim" }, "No tool matches."));
}

function toolForm(t) {
  const box = $("tool-call");
  const out = el("pre", { class: "result", "aria-live": "polite" });
  const form = schemaForm(t.inputSchema, {}, "Call " + t.name, async (args) => {
    out.textContent = "Calling…";
    try {
      const r = await api("api/tools/" + encodeURIComponent(t.name) + "/call", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(args) });
      out.className = "result" + (r.error ? " err" : "");
      out.textContent = `${r.error ? "failed" : "done"} in ${r.elapsedMs} ms\n${r.content}`;
    } catch (e) {
      out.className = "result err";
      out.textContent = e.message;
    }
  });
  box.replaceChildren(el("h2", {}, t.name), el("p", { class: "dim" }, t.description || ""), form, out);
  const f = form.querySelector("input, textarea, select, button");
  if (f) f.focus();
}

// ---- wiring ----

function toggle(panel, cls) {
  const p = $(panel), b = $("tab-" + panel);
  p.hidden = !p.hidden;
  b.setAttribute("aria-expanded", String(!p.hidden));
  $("layout").classList.toggle(cls, !p.hidden);
  if (!p.hidden) (p.querySelector("input, button") || p).focus();
}

$("tab-sessions").addEventListener("click", () => toggle("sessions", "with-sessions"));
$("tab-tools").addEventListener("click", () => toggle("tools", "with-tools"));
$("tool-search").addEventListener("input", showTools);
$("new-chat").addEventListener("click", () => {
  if (running) return;
  thread = newThread();
  showThread();
  $("log").replaceChildren();
  $("approvals").replaceChildren();
  calls.clear();
  status("");
  $("question").focus();
});
$("ask").addEventListener("submit", (e) => {
  e.preventDefault();
  const q = $("question").value.trim();
  if (!q || running) return;
  if ($("approvals").children.length) { status("Decide the pending calls first.", true); return; }
  $("question").value = "";
  $("log").append(el("div", { class: "msg user" }, q));
  run({ messages: [{ id: newID(), role: "user", content: q }] });
});
$("question").addEventListener("keydown", (e) => {
  if (e.key === "Enter" && !e.shiftKey && !e.isComposing) { e.preventDefault(); $("ask").requestSubmit(); }
});

showThread();
api("api/info").then((i) => { if (i.title) { $("title").textContent = "· " + i.title; document.title = "wield · " + i.title; } }).catch(() => {});
loadSessions();
loadTools();
document.body.dataset.ready = "1";
