// codex-autopilot dashboard. Plain JavaScript, no build step, no library.
// Everything shown comes from /api/* and is inserted as text (textContent), never as HTML:
// transcript and tool text is hostile evidence. Summaries refresh every 15 s and right after an
// action; sources are read when the Handover tab first opens, then only when asked; readiness (doctor) on
// load and when asked.
"use strict";

const REFRESH_MS = 15000;
const $ = (id) => document.getElementById(id);
const SVG = "http://www.w3.org/2000/svg";
const ui = { run: null, chosen: null, packet: null, rules: {}, approvals: true, overview: null };

function h(tag, attrs, ...kids) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") el.className = v;
    else if (k === "text") el.textContent = v;
    else if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else el.setAttribute(k, v === true ? "" : String(v));
  }
  for (const kid of kids.flat()) {
    if (kid === null || kid === undefined || kid === false) continue;
    el.append(kid instanceof Node ? kid : document.createTextNode(String(kid)));
  }
  return el;
}
const s = (tag, attrs) => {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs || {})) el.setAttribute(k, String(v));
  return el;
};
const clear = (el) => { while (el.firstChild) el.removeChild(el.firstChild); return el; };
const short = (text, n) => { const t = String(text ?? ""); return t.length > n ? t.slice(0, n - 1) + "…" : t; };
const usd = (x) => "$" + Number(x || 0).toFixed(4);
// Every time the page shows, in one format (UTC to the second), whatever the answer held: ISO 8601 text, or
// epoch seconds or milliseconds (Codex's app server lists threads with epoch seconds).
const when = (t) => {
  if (t == null || t === "") return "—";
  const n = typeof t === "number" ? t : /^\d+(\.\d+)?$/.test(String(t)) ? Number(t) : null;
  const d = n != null ? new Date(n < 1e12 ? n * 1000 : n) : new Date(String(t));
  return isNaN(d) ? String(t) : d.toISOString().replace("T", " ").replace(/\.\d+Z$/, " UTC");
};
const bytes = (b) => (b == null ? "—" : b < 1024 ? `${b} B` : b < 1 << 20 ? `${(b / 1024).toFixed(1)} KiB` : `${(b / 1048576).toFixed(1)} MiB`);
// A stored text as stored: control characters, escape introducers, line separators and invisible format characters
// (bidi overrides, zero-width) shown as their escapes, as autopilot.output.printable shows them in a terminal.
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}\p{Cn}]/gu;
const NAMED = { "\t": "\\t", "\n": "\\n", "\r": "\\r" };
const visible = (text) => String(text ?? "").replace(INVISIBLE, (ch) => {
  if (NAMED[ch]) return NAMED[ch];
  const code = ch.codePointAt(0);
  if (code <= 0xff) return "\\x" + code.toString(16).padStart(2, "0");
  return code > 0xffff ? "\\U" + code.toString(16).padStart(8, "0") : "\\u" + code.toString(16).padStart(4, "0");
});
const badge = (status) => h("span", { class: `badge status-${status}`, text: status || "?" });

// The session: traded once for the launch code in the address (#code=…), kept in sessionStorage (this origin,
// this port, this tab) and sent as a bearer token. No cookie: nothing of ours reaches another local server.
const SESSION_KEY = "autopilot-dashboard-session";
async function startSession() {
  const found = /^#code=([A-Za-z0-9_-]+)/.exec(location.hash);
  if (found) {
    history.replaceState(null, "", location.pathname);
    const resp = await fetch("/api/session", { method: "POST", credentials: "omit", headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ code: found[1] }) });
    const data = await resp.json().catch(() => ({ error: `HTTP ${resp.status}` }));
    if (!resp.ok) { sessionStorage.removeItem(SESSION_KEY); throw new Error(data.error || `HTTP ${resp.status}`); }
    sessionStorage.setItem(SESSION_KEY, data.session);
  }
  if (!sessionStorage.getItem(SESSION_KEY)) {
    throw new Error("No dashboard session: open the address `codex-bridge dashboard` printed (each works once, for two minutes).");
  }
}

async function api(path, body) {
  const opts = { credentials: "omit", headers: { Authorization: `Bearer ${sessionStorage.getItem(SESSION_KEY) || ""}` } };
  if (body !== undefined) {
    opts.method = "POST";
    opts.headers["Content-Type"] = "application/json";
    opts.body = JSON.stringify(body);
  }
  const resp = await fetch(path, opts);
  let data = null;
  try { data = await resp.json(); } catch (e) { data = { error: `HTTP ${resp.status}` }; }
  if (resp.status === 401) sessionStorage.removeItem(SESSION_KEY);
  if (!resp.ok) {
    const err = new Error((data && data.error) || `HTTP ${resp.status}`);
    err.hint = data && data.hint;
    err.status = resp.status;
    throw err;
  }
  return data;
}

function say(message, isError) {
  const el = $("status");
  el.textContent = message;
  el.className = isError ? "error" : "";
}
const fail = (err) => say(err.message + (err.hint ? ` (${err.hint})` : ""), true);
// An API error shown where its answer would have been (a table's body, a box): what failed, why, and the hint;
// never an empty panel. The status line says it too.
function problem(el, err, what) {
  const text = `${what} could not be loaded: ${err.message}${err.hint ? ` (${err.hint})` : ""}`;
  if (el.tagName === "TBODY") {
    const cols = el.closest("table").querySelectorAll("thead th").length;
    clear(el).append(h("tr", {}, h("td", { colspan: cols, class: "bad panel-error", role: "alert", text })));
  } else if (el.tagName === "P") {
    el.textContent = text;
    el.className = "bad panel-error";
  } else {
    clear(el).append(h("p", { class: "bad panel-error", role: "alert", text }));
  }
  say(text, true);
}

// ---- tabs --------------------------------------------------------------------------------
const TABS = ["autopilot", "handover", "active", "passive", "durable"];
function show(name, focus) {
  for (const t of TABS) {
    const on = t === name;
    $(`tab-${t}`).setAttribute("aria-selected", on ? "true" : "false");
    $(`tab-${t}`).tabIndex = on ? 0 : -1;
    $(`panel-${t}`).hidden = !on;
  }
  if (focus) $(`tab-${name}`).focus();
  history.replaceState(null, "", `#${name}`);
  if (name === "handover" && !ui.sourcesRead) { ui.sourcesRead = true; loadSources(); }  // listed on first open
}
function setupTabs() {
  TABS.forEach((t, i) => {
    const tab = $(`tab-${t}`);
    tab.addEventListener("click", () => show(t));
    tab.addEventListener("keydown", (e) => {
      const step = e.key === "ArrowRight" ? 1 : e.key === "ArrowLeft" ? -1 : 0;
      if (step) { e.preventDefault(); show(TABS[(i + step + TABS.length) % TABS.length], true); }
    });
  });
  const start = location.hash.slice(1);
  show(TABS.includes(start) ? start : "autopilot");
}

// ---- overview ----------------------------------------------------------------------------
async function loadOverview() {
  let o;
  try { o = await api("/api/overview"); } catch (err) { problem($("project"), err, "This project's overview"); return; }
  ui.overview = o;
  const p = o.project || {};
  $("project").textContent = p.worktree
    ? `Project ${p.worktree} · ${o.runs.total} runs · ${o.packets.total} packets · codex-autopilot ${o.version}`
    : `No git repository at ${p.directory}: handover needs one (${p.error})`;
  ui.approvals = o.approvals.enabled;
  $("approvals-off").hidden = o.approvals.enabled;
  $("approvals-off").textContent = o.approvals.why || "";
}

// ---- autopilot ---------------------------------------------------------------------------
async function loadRuns() {
  const body = $("runs").querySelector("tbody");
  let data;
  try { data = await api("/api/runs"); } catch (err) { problem(body, err, "The runs"); return; }
  clear(body);
  if (!data.runs.length) body.append(h("tr", {}, h("td", { colspan: 8, class: "muted", text: "No runs on this machine yet." })));
  for (const r of data.runs) {
    const spend = r.spend || {};
    const tr = h("tr", { class: r.run === ui.run ? "selected" : null, "data-run": r.run },
      h("td", {}, h("code", { text: short(r.workspace || r.run, 48), title: r.workspace || "" })),
      h("td", {}, badge(r.status)),
      h("td", { text: short(r.goal || r.error || "—", 80) }),
      h("td", { text: r.task ? `${r.task.id}: ${short(r.task.title, 40)}` : "—" }),
      h("td", { text: r.exists ? `${r.iteration} of ${r.max_iterations}` : "—" }),
      h("td", {},
        h("meter", { min: 0, max: spend.budget_usd || 1, value: spend.used_usd || 0, title: `${usd(spend.used_usd)} of ${usd(spend.budget_usd)}` }),
        " ", `${usd(spend.used_usd)} / $${Number(spend.budget_usd || 0).toFixed(2)}`),
      h("td", { text: when(r.updated_at) }),
      h("td", {}, h("button", { type: "button", class: "open-run", onclick: () => openRun(r.run), text: "Open", "aria-label": `Open run ${r.run}` })));
    body.append(tr);
  }
}

async function openRun(name) {
  ui.run = name;
  await loadRun();
  await loadRuns();
  $("run-title").focus?.();
}

function listInto(el, items, render) {
  clear(el);
  for (const item of items || []) el.append(h("li", {}, render(item)));
}

async function loadRun() {
  if (!ui.run) return;
  let rep;
  try { rep = await api(`/api/runs/${encodeURIComponent(ui.run)}`); } catch (err) {
    $("run").hidden = false;
    problem($("run-facts"), err, `Run ${ui.run}`);
    return;
  }
  const r = rep.summary;
  $("run").hidden = false;
  $("run-title").textContent = `Run ${r.run}`;
  $("run-title").tabIndex = -1;
  const facts = clear($("run-facts"));
  const fact = (k, v) => facts.append(h("dt", { text: k }), h("dd", {}, v));
  fact("Workspace", h("code", { text: r.workspace || "?" }));
  fact("Status", h("span", {}, badge(r.status), r.stop_reason ? ` ${r.stop_reason}` : ""));
  fact("Goal", r.goal || "—");
  fact("Iteration", r.exists ? `${r.iteration} of ${r.max_iterations} (no progress ${r.no_progress_streak} of ${r.no_progress_threshold})` : "—");
  const sp = r.spend || {};
  fact("Spend", h("span", {}, h("meter", { min: 0, max: sp.budget_usd || 1, value: sp.used_usd || 0 }), ` ${usd(sp.used_usd)} of $${Number(sp.budget_usd || 0).toFixed(2)}`, sp.plan_usd ? ` (plan ${usd(sp.plan_usd)}, not counted)` : ""));
  const fc = r.forecast;
  if (fc) fact("Forecast", `${usd(fc.usd_per_iteration)} an iteration; ${usd(fc.usd_at_limit)} by iteration ${r.max_iterations}${fc.over_budget && fc.iterations_affordable != null ? ` (over the cap: the budget pays for ${fc.iterations_affordable} more)` : ""}`);
  fact("Backend", `${r.backend || "?"}${r.model ? ", " + r.model : ""}${r.effort ? ", effort " + r.effort : ""}`);
  fact("Owner", r.owner_session_id || "unclaimed");
  const rl = rep.rate_limits;
  const win = (name, w) => w ? `${name}: ${w.left_percent}% left${w.resets_at ? ", resets " + when(w.resets_at) : ""}` : null;
  fact("Codex limits", rl ? [win("5-hour", rl.primary), win("weekly", rl.secondary)].filter(Boolean).join("; ") || "—" : "none recorded in the last week");
  $("run-stop").disabled = !r.stoppable;
  $("run-resume").disabled = !r.resumable;
  $("run-task").textContent = r.task ? `${r.task.id}: ${r.task.title} (${r.task.position ?? "?"} of ${r.task.of})` : "No current task.";
  listInto($("run-criteria"), r.task ? r.task.acceptance : [], (c) => c);
  const lr = r.last_review;
  $("run-review").textContent = lr ? `${lr.decision} on ${lr.task_id}, ${lr.issues_count} issues (${when(lr.timestamp)}): ${lr.summary}` : "No review yet.";
  listInto($("run-findings"), rep.review ? rep.review.issues : [], (i) =>
    h("span", {}, h("span", { class: `badge ${i.severity === "critical" ? "bad" : ""}`, text: i.severity }), ` ${i.file || ""}${i.line ? ":" + i.line : ""} ${i.message}`));
  const lv = r.last_verdict;
  $("run-verdict").textContent = lv ? `${lv.decision} (${lv.progressed ? "progress" : "no progress"}, ${when(lv.timestamp)}): ${lv.reason}` : "No verdict yet.";
  listInto($("run-verdict-criteria"), rep.verdict ? rep.verdict.criteria : [], (c) =>
    h("span", {}, h("span", { class: c.met ? "ok" : "bad", text: c.met ? "met" : "not met" }), ` ${c.criterion}: `, h("q", { text: c.evidence })));
  const le = r.last_error;
  $("run-error").textContent = le ? `${le.phase} ${le.kind} (${when(le.timestamp)}, ${r.consecutive_errors} in a row): ${le.message}` : "None.";
  $("run-lines").textContent = (r.lines || []).join("\n");
  drawChart(rep.calls);
  const body = clear($("run-calls").querySelector("tbody"));
  for (const c of rep.calls.calls.slice().reverse()) {
    body.append(h("tr", {},
      h("td", { text: when(c.ts) }), h("td", { text: c.phase }), h("td", { text: c.outcome }),
      h("td", { text: c.latency_ms == null ? "—" : `${c.latency_ms} ms` }),
      h("td", { text: c.tokens.input }), h("td", { text: c.tokens.cached }), h("td", { text: c.tokens.output }),
      h("td", { text: usd(c.usd) })));
  }
}

function drawChart(calls) {
  const box = clear($("run-chart"));
  const list = calls.calls;
  const W = 900, H = 240, L = 64, R = 64, T = 16, B = 40;
  const earlier = calls.other_runs ? ` (${calls.other_runs} calls of this workspace's earlier runs not shown)` : "";
  const caption = `${list.length} calls of this run${calls.older_not_read ? " (the newest)" : ""}${earlier}${calls.malformed ? `, ${calls.malformed} malformed lines skipped` : ""}. Bars: cost per call (left axis). Line: tokens per call, input + output (right axis).`;
  $("run-chart-caption").textContent = caption;
  const svg = s("svg", { viewBox: `0 0 ${W} ${H}`, class: "chart", role: "img", "aria-labelledby": "run-chart-title" });
  const title = s("title", { id: "run-chart-title" });
  title.textContent = `Cost and tokens per call over time: ${caption}`;
  svg.append(title);
  if (!list.length) {
    const t = s("text", { x: W / 2, y: H / 2, "text-anchor": "middle" });
    t.textContent = "No calls yet";
    svg.append(t);
    box.append(svg);
    return;
  }
  const maxUsd = Math.max(...list.map((c) => c.usd), 1e-9);
  const tokens = list.map((c) => c.tokens.input + c.tokens.output);
  const maxTok = Math.max(...tokens, 1);
  const step = (W - L - R) / list.length;
  const y = (v, max) => T + (H - T - B) * (1 - v / max);
  svg.append(s("line", { x1: L, y1: H - B, x2: W - R, y2: H - B, class: "axis" }));
  svg.append(s("line", { x1: L, y1: T, x2: L, y2: H - B, class: "axis" }));
  svg.append(s("line", { x1: W - R, y1: T, x2: W - R, y2: H - B, class: "axis" }));
  const label = (x, yy, text, anchor) => { const t = s("text", { x, y: yy, "text-anchor": anchor }); t.textContent = text; svg.append(t); };
  label(L - 6, T + 10, usd(maxUsd), "end");
  label(L - 6, H - B, "$0", "end");
  label(W - R + 6, T + 10, maxTok.toLocaleString(), "start");
  label(W - R + 6, H - B, "0", "start");
  label(L, H - 8, when(list[0].ts), "start");
  label(W - R, H - 8, when(list[list.length - 1].ts), "end");
  const points = [];
  list.forEach((c, i) => {
    const x = L + i * step;
    const top = y(c.usd, maxUsd);
    const bar = s("rect", { x: x + step * 0.15, y: top, width: Math.max(step * 0.7, 1), height: H - B - top, class: "bar" });
    const tip = s("title");
    tip.textContent = `${when(c.ts)} ${c.phase} ${c.outcome}: ${usd(c.usd)}, ${tokens[i].toLocaleString()} tokens`;
    bar.append(tip);
    svg.append(bar);
    if (list.length <= 30) label(x + step / 2, H - B + 14, c.phase || "?", "middle");
    points.push(`${x + step / 2},${y(tokens[i], maxTok)}`);
  });
  svg.append(s("polyline", { points: points.join(" "), class: "line" }));
  points.forEach((p) => { const [cx, cy] = p.split(","); svg.append(s("circle", { cx, cy, r: 2.5, class: "dot" })); });
  box.append(svg);
}

async function runAction(action) {
  const body = action === "stop" ? { reason: $("stop-reason").value } : {};
  try {
    const res = await api(`/api/runs/${encodeURIComponent(ui.run)}/${action}`, body);
    say(action === "stop" ? `Stopped: the run is ${res.status} (spend kept).` : res.resumed ? "Resumed: the run is running." : `The run is ${res.status}.`);
  } catch (err) { fail(err); }
  await refresh();
}

// ---- handover ----------------------------------------------------------------------------
async function loadSources() {
  const agent = $("src-agent").value;
  const asked = (ui.sourcesAsked = (ui.sourcesAsked || 0) + 1);  // a slower answer to an earlier choice is dropped
  const body = clear($("sources").querySelector("tbody"));
  body.append(h("tr", {}, h("td", { colspan: 7, class: "muted", text: `Reading ${agent === "codex" ? "Codex" : "Claude Code"} sessions…` })));
  $("src-note").textContent = "";
  say(`Reading ${agent} sessions…`);
  let data;
  try {
    data = await api(`/api/sources/${agent}${$("src-latest").checked ? "?latest=1" : ""}`);
  } catch (err) {
    if (asked === ui.sourcesAsked) problem(body, err, `The ${agent} sessions`);
    return;
  }
  if (asked !== ui.sourcesAsked) return;
  clear(body);
  if (!data.sessions.length) body.append(h("tr", {}, h("td", { colspan: 7, class: "muted", text: `No ${agent === "codex" ? "Codex" : "Claude Code"} session was recorded in this worktree.` })));
  for (const row of data.sessions) {
    const id = agent === "codex" ? row.threadId : row.sessionId;
    const radio = h("input", { type: "radio", name: "session", value: id, "aria-label": `Choose session ${id}`,
      onchange: () => choose(agent, id) });
    if (ui.chosen && ui.chosen.id === id) radio.checked = true;
    // what names the session: its title (Claude Code's, or a named Codex thread), else Codex's preview, its first prompt
    const title = row.title || (row.preview ? `first prompt: ${row.preview}` : "");
    body.append(h("tr", {},
      h("td", {}, radio), h("td", {}, h("code", { text: id })), h("td", { text: row.gitBranch || "—" }),
      h("td", { text: when(row.lastTimestamp || row.updatedAt || row.createdAt) }),
      h("td", { class: title ? null : "muted", text: title ? short(visible(title), 90) : "untitled" }),
      h("td", { class: row.lastPrompt ? null : "muted", text: row.lastPrompt ? short(visible(row.lastPrompt), 90) : "—" }),
      h("td", { text: bytes(row.bytes), title: row.bytes == null ? "the app server does not say a thread's size" : "" })));
  }
  const other = (data.otherWorktrees || []).length;
  const hidden = data.hidden && data.hidden.count ? ` ${data.hidden.count} hidden: ${data.hidden.why}.` : "";
  const from = data.sourceUsed ? ` Read from ${data.sourceUsed === "app-server" ? "Codex's app server" : "the local files"}${data.sourceNote ? ` (${data.sourceNote})` : ""}.` : "";
  const n = data.sessions.length;
  $("src-note").textContent = `${n} session${n === 1 ? "" : "s"} in this worktree${other ? `, ${other} in other worktrees (not listed)` : ""}.${hidden}${from} Read ${when(Date.now())}. Choosing is yours: nothing is picked for you.`;
  const gaps = (data.coverage || {}).gaps || [];
  $("src-gaps").hidden = !gaps.length;
  clear($("src-gaps")).append(...gaps.map((g) => h("li", {}, h("strong", { text: `${g.kind}: ` }), visible(g.detail || ""))));
  say("");
}

function choose(agent, id) {
  ui.chosen = { agent, id };
  $("chosen-session").textContent = `${agent} ${id}`;
  $("export-to").value = agent === "claude" ? "codex" : "claude";
  $("export-preview").disabled = false;
  $("export-go").disabled = false;
}

function claimList(title, items, render) {
  if (!items || !items.length) return null;
  return h("div", {}, h("h4", { text: title }), h("ul", {}, items.map((i) => h("li", {}, render(i)))));
}
function goToEvidence(e, ref) {
  const row = document.getElementById(`ev-${ref}`);
  if (!row) return;
  e.preventDefault();
  row.closest("details").open = true;
  row.scrollIntoView({ block: "center" });
  row.classList.add("selected");
}
const refs = (c) => (c && c.refs && c.refs.length
  ? h("span", { class: "muted" }, " [", c.refs.flatMap((r, i) => [i ? ", " : "", h("a", { href: `#ev-${r}`, text: r, onclick: (e) => goToEvidence(e, r) })]), "]")
  : "");
const quote = (text) => h("div", { class: "evidence", text: text ?? "" });

function packetSummary(p) {
  return h("div", {},
    h("h4", { text: "Objective" }), quote(p.objective ? p.objective.text : "—"), refs(p.objective),
    h("h4", { text: "Next action (an inference)" }), quote(p.nextAction ? p.nextAction.text : "—"),
    p.nextAction && p.nextAction.why ? h("p", { class: "muted", text: `why: ${p.nextAction.why}` }) : null,
    claimList("Coverage gaps", (p.coverage || {}).gaps, (g) => `${g.kind}: ${g.detail}`),
    h("p", { class: "muted", text: `~${p.estimates.tokens} tokens (${p.estimates.bytes} bytes; ${p.estimates.method})` }));
}

async function doExport(preview) {
  if (!ui.chosen) return;
  say(preview ? "Building a preview…" : "Exporting…");
  try {
    const res = await api("/api/export", { agent: ui.chosen.agent, session: ui.chosen.id, to: $("export-to").value, preview });
    const out = clear($("export-result"));
    if (preview) {
      out.append(h("p", {}, "Preview of ", h("code", { text: res.packet }), " (nothing written)."), packetSummary(res.contents));
      say("Preview ready: nothing was written.");
    } else {
      out.append(h("p", {}, "Wrote ", h("code", { text: res.packet }), "."));
      say(`Exported ${res.packet.slice(0, 19)}…`);
      await loadPackets();
      await inspect(res.packet);
    }
  } catch (err) { fail(err); }
}

// A packet a teammate shared through the git remote (`share pull`): who the commit says, from which machine, when.
function sharedBy(origin) {
  if (!origin) return null;
  return h("div", { class: "muted shared", text: `shared by ${visible(origin.by)} from ${visible(origin.machine)}, ${when(origin.at)} (source not on this machine)` });
}

async function loadPackets() {
  const body = $("packets").querySelector("tbody");
  let data;
  try { data = await api("/api/packets"); } catch (err) { problem(body, err, "The packets"); return; }
  clear(body);
  if (!data.packets.length) body.append(h("tr", {}, h("td", { colspan: 7, class: "muted", text: "No packets yet." })));
  for (const p of data.packets) {
    body.append(h("tr", { class: p.packet === ui.packet ? "selected" : null },
      h("td", {}, h("code", { text: p.packet.slice(0, 19) + "…", title: p.packet })),
      h("td", { text: when(p.createdAt) }), h("td", {}, `${p.from || "?"} → ${p.to || "?"}`, sharedBy(p.shared)),
      h("td", {}, h("code", { text: short(p.session, 14) })), h("td", { text: short(p.objective || p.unreadable || "", 70) }),
      h("td", { text: p.branch || "—" }),
      h("td", {}, h("button", { type: "button", class: "inspect", onclick: () => inspect(p.packet), text: "Inspect", "aria-label": `Inspect ${p.packet}` }))));
  }
}

function evidenceTable(contents, index) {
  const excerpts = {};
  for (const e of (index && index.entries) || []) excerpts[e.ref] = e;
  const transcript = (contents.source || {}).transcript || "";
  const rows = (contents.evidence || []).map((e) => {
    const p = e.pointer || {};
    const where = p.line ? `${transcript}:${p.line} (bytes ${p.offset}+${p.bytes})` : JSON.stringify(p);
    const ex = excerpts[e.ref];
    return h("tr", { id: `ev-${e.ref}` },
      h("td", {}, h("code", { text: e.ref })), h("td", { text: e.kind }), h("td", {}, h("code", { text: where })),
      h("td", {}, ex ? h("div", { class: "evidence", text: short(ex.excerpt, 400) }) : h("span", { class: "muted", text: "no excerpt" })));
  });
  return h("details", {}, h("summary", { text: `Evidence links (${rows.length})` }),
    h("div", { class: "scroll" }, h("table", {}, h("thead", {}, h("tr", {}, ["Ref", "Kind", "Pointer", "Excerpt"].map((t) => h("th", { scope: "col", text: t })))), h("tbody", {}, rows))));
}

function driftView(d) {
  if (!d) return null;
  if (!d.comparable) return h("p", { class: "muted", text: `Drift now: not comparable (${d.why})` });
  const g = d.gitDrift;
  const stale = Object.entries(d.staleClaims).reduce((n, [, v]) => n + v.length, 0);
  return h("div", {},
    h("h4", { text: "Drift now" }),
    h("ul", {},
      h("li", { class: g.branch.changed ? "stale" : "" , text: `branch: ${g.branch.then} → ${g.branch.now}${g.branch.changed ? " (changed)" : ""}` }),
      h("li", { class: g.head.changed ? "stale" : "", text: `HEAD: ${short(g.head.then, 12)} → ${short(g.head.now, 12)}${g.head.changed ? " (changed)" : ""}` }),
      h("li", { text: `changed paths: ${g.changedPaths.length ? g.changedPaths.join(", ") : "none"}` }),
      h("li", { class: stale ? "stale" : "ok", text: `${stale} claim(s) stale now` })));
}

async function inspect(pid) {
  ui.packet = pid;
  say("Verifying the packet…");
  try {
    const res = await api(`/api/packets/${encodeURIComponent(pid)}`);
    const c = res.contents;
    $("inspect").hidden = false;
    $("inspect-title").textContent = `Packet ${pid.slice(0, 23)}…`;
    const repo = c.repository || {};
    const src = c.source || {};
    const work = c.completedWork || {};
    const un = c.unresolved || {};
    const body = clear($("inspect-body"));
    const parts = [
      h("p", {}, h("span", { class: "ok", text: "verified" }), ` (packet hash, evidence index). ${res.importable ? "Importable." : res.importNote}`),
      h("dl", {},
        h("dt", { text: "Source" }), h("dd", { text: `${src.agent} ${src.agentVersion || ""}, session ${src.threadId || src.sessionId}, events ${(src.eventRange || {}).first}–${(src.eventRange || {}).last}` }),
        h("dt", { text: "To" }), h("dd", { text: (c.destination || {}).agent }),
        h("dt", { text: "At export" }), h("dd", { text: `branch ${repo.branch}, HEAD ${short(repo.head, 12)}, ${(repo.dirty || []).length} dirty paths${repo.branchMismatch ? " (the session ran on " + repo.sessionBranch + ")" : ""}` }),
        h("dt", { text: "Made" }), h("dd", { text: when(c.createdAt) }),
        h("dt", { text: "Approval" }), h("dd", { text: `${(c.approval || {}).status}: ${(c.approval || {}).note || ""}` })),
      packetSummary(c),
      claimList("Constraints", c.constraints, (k) => {
        const i = c.constraints.indexOf(k);
        return h("span", {}, quote(k.text), refs(k), " ",
          h("button", { type: "button", class: "propose-from-packet", onclick: () => proposeFromPacket(pid, i), text: "Propose as a rule" }));
      }),
      claimList("Files changed", work.filesChanged, (f) => h("span", {}, h("code", { text: f.path }), ` ${f.tool}, ${f.status}; git now: ${f.gitNow}`, refs(f))),
      claimList("Test and lint runs (historical: rerun them)", work.validations, (v) => h("span", {}, h("code", { text: v.command }), ` ${v.outcome}${v.exitCode != null ? " (exit " + v.exitCode + ")" : ""}, ${v.freshness}`, refs(v))),
      claimList("Pending commands (never replayed)", un.pendingCommands, (p) => h("span", {}, h("code", { text: p.input || p.command || "" }), refs(p))),
      claimList("Failed attempts", un.failedAttempts, (f) => h("span", {}, h("code", { text: short(f.input, 200) }), quote(short(f.error, 400)), refs(f))),
      claimList("Blockers", un.blockers, (b) => h("span", {}, quote(b.text || b.error || JSON.stringify(b)), refs(b))),
      claimList("Hypotheses (inferences)", un.hypotheses, (x) => h("span", {}, quote(x.text), refs(x))),
      driftView(res.driftNow),
      evidenceTable(c, res.evidenceIndex)];
    body.append(...parts.filter(Boolean));
    $("import-to").value = (c.destination || {}).agent || "codex";
    clear($("import-result"));
    say("");
    await loadPackets();
  } catch (err) { $("inspect").hidden = false; problem($("inspect-body"), err, `Packet ${pid.slice(0, 19)}…`); }
}

async function listReceiving() {
  const agent = $("import-to").value;
  try {
    const data = await api(`/api/sources/${agent}`);
    const list = clear($("import-sessions"));
    for (const row of data.sessions) {
      const id = agent === "codex" ? row.threadId : row.sessionId;
      list.append(h("option", { value: id, text: `${when(row.lastTimestamp || row.updatedAt || row.createdAt)} ${short(row.lastPrompt || row.preview || "", 60)}` }));
    }
    say(`${data.sessions.length} ${agent} sessions in this worktree: choose one (or tick "a new session" and type its id).`);
  } catch (err) { fail(err); }
}

async function doImport() {
  const session = $("import-session").value.trim();
  if (!session) { say("Choose the receiving session first: it is never picked for you.", true); return; }
  say("Importing…");
  try {
    const res = await api(`/api/packets/${encodeURIComponent(ui.packet)}/import`, { to: $("import-to").value, session, newSession: $("import-new").checked });
    const stale = Object.values(res.staleClaims).reduce((n, v) => n + v.length, 0);
    const out = clear($("import-result"));
    out.append(
      h("p", {}, "Imported into ", h("code", { text: `${res.to} ${res.receivingSession.sessionId}` }), `: ${stale} stale claim(s); ${res.contextChars} characters of context (~${res.contextTokensEstimate} tokens).`),
      h("p", { class: "muted", text: res.verified.sourceNote || "source unchanged since export" }),
      h("details", { open: true }, h("summary", { text: "Context for the receiving session" }), h("pre", { id: "import-context", text: res.context })));
    say(`Imported into ${res.to} session ${res.receivingSession.sessionId}.`);
  } catch (err) { fail(err); }
}

// ---- memories ----------------------------------------------------------------------------
const textOf = (x) => (x && typeof x === "object" ? x.text : x) || "";

async function loadActive() {
  const box = $("active");
  let data;
  try { data = await api("/api/memory/active"); } catch (err) { problem(box, err, "The active memory"); return; }
  clear(box);
  if (!data.sessions.length) box.append(h("p", { class: "muted", text: `No session of ${data.worktree} has active memory yet (the plugin's hooks record it; \`codex-bridge handoff checkpoint\` or \`recover\` add to it).` }));
  for (const v of data.sessions) {
    const cp = v.checkpoint;
    const inj = (v.injections && v.injections.shown) || [];
    const cov = v.coverage || {};
    box.append(h("div", { class: "card active-session" },
      h("h3", { text: `${v.agent} ${v.session}` }),
      h("dl", {},
        h("dt", { text: "Objective" }), h("dd", {}, quote(textOf(v.objective) || "—"), v.objective ? h("span", { class: "muted", text: `from ${v.objective.source}` }) : null),
        h("dt", { text: "Next action" }), h("dd", {}, quote(textOf(v.nextAction) || "—")),
        h("dt", { text: "Checkpoint age" }), h("dd", { text: cp && cp.ageSeconds != null ? `${Math.round(cp.ageSeconds)} s (the agent's claim, not proof)` : "no checkpoint" }),
        h("dt", { text: "Coverage" }), h("dd", { class: cov.status === "complete" ? "ok" : "warn", text: `${cov.status || "?"}${(cov.reasons || []).length ? ": " + cov.reasons.map((r) => r.detail || r.kind || r).join("; ") : ""}` })),
      cov.status === "degraded" ? h("button", { type: "button", class: "recover", text: "Recover from the transcript",
        "aria-label": `Recover ${v.agent} session ${v.session} from its transcript`, onclick: () => recover(v.agent, v.session) }) : null,
      claimList(`Unresolved (${(v.unresolved || []).length})`, v.unresolved, (u) => h("span", {}, quote(textOf(u)), h("span", { class: "muted", text: ` ${u.source || ""}` }))),
      claimList(`Injection history (${(v.injections || {}).total || 0})`, inj, (i) => `${when(i.at)} ${i.event || ""} into ${i.session || v.session}: ${(i.fields || []).join ? (i.fields || []).join(", ") : JSON.stringify(i.fields)} (${i.bytes} bytes)`)));
  }
}

async function recover(agent, session) {
  say(`Recovering ${agent} session ${session} from its transcript…`);
  try {
    const res = await api("/api/memory/recover", { agent, session });
    const added = Object.values(res.recovered.added || {}).reduce((a, b) => a + b, 0);
    say(`Recovered ${added} observation(s) the hooks missed; coverage is now ${res.view.coverage.status}.`);
    await loadActive();
  } catch (err) { fail(err); }
}

async function loadReadiness() {
  const box = $("readiness-body");
  try {
    const r = await api("/api/readiness");
    clear(box).append(h("p", { class: r.ok ? "ok" : "bad", text: r.ok ? `All is well (codex-autopilot ${r.version}).` : `${r.checks.filter((c) => c.status === "fail").length} problem(s) need action.` }));
    box.append(h("ul", { class: "readiness" }, r.checks.map((c) => h("li", { class: c.status === "ok" ? "ok" : c.status === "warn" ? "warn" : "bad" },
      h("strong", { text: `${c.status.toUpperCase()} ${c.name}` }), ` ${c.detail}`,
      c.fix ? h("div", {}, "fix: ", h("code", { text: c.fix })) : null))));
  } catch (err) { problem(box, err, "The readiness checks"); }
}

async function loadArchive() {
  const box = $("archive");
  let a;
  try { a = await api("/api/archive"); } catch (err) { problem(box, err, "The archive"); return; }
  clear(box);
  if (!a.total) { box.append(h("p", { class: "muted", text: `Nothing archived yet (${a.archive}).` })); return; }
  box.append(h("p", { class: "muted", text: `${a.total} archived packet(s) in ${a.archive}.` }));
  box.append(h("ul", {}, a.packets.map((p) => h("li", {}, h("code", { text: short(p.packet, 23) }),
    ` ${when(p.createdAt)} ${p.from || "?"} → ${p.to || "?"}: `, short(p.objective || "", 120)))));
}

async function doSearch(e) {
  e.preventDefault();
  const box = clear($("search-result"));
  const q = $("search-q").value.trim();
  if (!q) return;
  try {
    const data = await api(`/api/search?q=${encodeURIComponent(q)}${$("search-archived").checked ? "&archived=1" : ""}`);
    box.append(h("p", { class: "muted", text: `${data.results.length} result(s) for “${data.query}” (branch ${data.scope.branch || "-"}). ${data.trust}` }));
    for (const r of data.results) {
      const p = r.pointer || {};
      const fresh = r.freshness || {};
      const outcome = (r.outcome || {}).status;
      box.append(h("div", { class: "card search-result" },
        h("p", {}, h("strong", { text: `#${r.rank} ${r.role || ""}` }), outcome ? ` — ${outcome} ` : " ",
          h("span", { class: `badge ${fresh.state === "current" ? "ok" : "warn"}`, text: fresh.state || "?" }),
          h("span", { class: "muted", text: ` ${r.scope || ""}, ${r.branch || "no branch"}, ${when(r.time)}` })),
        quote(short(r.excerpt || "", 1200)),
        h("p", { class: "muted", text: `${r.agent || ""} session ${short(r.session, 14)} · ${p.packet ? `packet ${p.packet.slice(0, 19)}… ${p.ref || ""}` : p.log ? `active memory: ${p.log} entry ${p.index}` : `${p.kind || ""} ${p.ref || ""}`}${p.line ? ` line ${p.line}${p.source ? " of " + p.source : ""}` : ""}` }),
        sharedBy(r.shared),
        (fresh.reasons || []).length ? h("p", { class: "warn", text: fresh.reasons.join("; ") }) : null,
        r.supersededBy ? h("p", { class: "stale", text: `superseded by #${r.supersededBy.rank} (${r.supersededBy.outcome})` }) : null));
    }
    for (const c of data.conflicts || []) {
      box.append(h("p", { class: "warn", text: `conflicting outcomes on ${c.branch} in ${c.worktree}: ${c.items.map((i) => `#${i.rank} ${i.role} ${i.outcome}`).join(" → ")} (the last one stands)` }));
    }
    for (const n of data.notes || []) box.append(h("p", { class: "muted", text: `note: ${n}` }));
    say("");
  } catch (err) { problem(box, err, `The search for “${q}”`); }
}

async function loadDurable() {
  let data;
  try { data = await api("/api/durable"); } catch (err) { problem($("rules").querySelector("tbody"), err, "The rules and decisions"); return; }
  ui.rules = {};
  for (const r of data.rules) ui.rules[r.id] = r;
  const integ = data.integrity;
  $("integrity").hidden = integ.ok;
  $("integrity").textContent = integ.ok ? "" :
    `The durable log has problems: ${integ.chainBreaks.length} chain break(s) at lines ${integ.chainBreaks.join(", ")}, ${integ.malformedLines} malformed, ${integ.refusedLines.length} refused line(s). Lines edited or added by hand are not trusted.`;
  const sup = $("propose-supersedes");
  const keep = sup.value;
  clear(sup).append(h("option", { value: "", text: "nothing" }));
  for (const r of data.rules.filter((x) => x.status === "approved")) sup.append(h("option", { value: r.id, text: `${r.id}: ${short(r.text, 50)}` }));
  sup.value = keep && ui.rules[keep] ? keep : "";
  const body = clear($("rules").querySelector("tbody"));
  if (!data.rules.length) body.append(h("tr", {}, h("td", { colspan: 7, class: "muted", text: "No rules or decisions yet." })));
  for (const r of data.rules) {
    const decided = r.revoked ? `revoked by ${r.revoked.person} (${r.revoked.channel}, ${when(r.revoked.at)})${r.revoked.reason ? ": " + r.revoked.reason : ""}`
      : r.approved && r.approved.channel === "signed" ? `shared by the team, signed by ${visible(r.approved.person)} in commit ${short(r.approved.commit, 12)} (${when(r.approved.at)})`
      : r.approved ? `approved by ${r.approved.person} (${r.approved.channel}, ${when(r.approved.at)})` : "—";
    const links = [];
    if (r.supersedes) links.push(h("span", {}, "supersedes ", h("a", { href: `#rule-${r.supersedes}`, text: r.supersedes })));
    if (r.supersededBy) links.push(h("span", {}, "superseded by ", h("a", { href: `#rule-${r.supersededBy}`, text: r.supersededBy })));
    if (r.source && r.source.packet) links.push(h("span", { class: "muted", text: `from packet ${r.source.packet.slice(0, 19)}… constraint ${r.source.constraint} [${(r.source.refs || []).join(", ")}]` }));
    const actions = [];
    if (r.status === "candidate") actions.push(h("button", { type: "button", class: "approve primary", disabled: !ui.approvals, onclick: () => decide("approve", r), text: "Approve", "aria-label": `Approve ${r.id}` }));
    if (r.status === "candidate" || r.status === "approved") actions.push(h("button", { type: "button", class: "revoke danger", disabled: !ui.approvals, onclick: () => decide("revoke", r), text: r.status === "candidate" ? "Reject" : "Revoke", "aria-label": `Revoke ${r.id}` }));
    body.append(h("tr", { id: `rule-${r.id}`, "data-rule": r.id },
      h("td", {}, h("code", { class: "nowrap", text: r.id }), h("br"), h("span", { class: "muted", text: r.kind })),
      h("td", {}, badge(r.status)), h("td", {}, visible(r.text), r.why ? h("div", { class: "muted", text: `why: ${visible(r.why)}` }) : null,
        h("div", { class: "muted", text: r.project ? `holds in ${r.project.root}` : "holds in every project" })),
      h("td", { text: `${r.proposed.by} (${r.proposed.channel}, ${when(r.proposed.at)})` }),
      h("td", { text: decided }), h("td", {}, links.flatMap((l, i) => (i ? [h("br"), l] : [l]))), h("td", {}, actions)));
  }
}

function decide(action, rule) {
  const person = $("person").value.trim();
  if (!person) { say("Type your name first: a decision is taken by a named person.", true); $("person").focus(); return; }
  localStorage.setItem("autopilot-person", person);
  $("confirm-title").textContent = `${action === "approve" ? "Approve" : "Revoke"} ${rule.id} as ${person}`;
  const old = action === "approve" && rule.supersedes ? ui.rules[rule.supersedes] : null;
  $("confirm-supersedes").hidden = !(old && old.status === "approved");
  $("confirm-supersedes").textContent = old && old.status === "approved"
    ? `This approval supersedes ${old.id} (approved by ${visible(old.approved && old.approved.person)}): it will no longer apply. Its text: ${visible(old.text)}`
    : "";
  $("confirm-text").textContent = visible(rule.text);
  $("confirm-where").textContent = rule.project ? `Holds in ${rule.project.root} (every worktree).` : "Holds in every project.";
  $("confirm-secret").value = "";
  $("confirm-reason").value = "";
  $("confirm-reason").hidden = action !== "revoke";
  $("confirm-reason-label").hidden = action !== "revoke";
  const dlg = $("confirm");
  dlg.onclose = async () => {
    const secret = $("confirm-secret").value;
    $("confirm-secret").value = "";
    if (dlg.returnValue !== "ok") { say("Nothing decided."); return; }
    try {
      const res = await api(`/api/durable/${encodeURIComponent(rule.id)}/${action}`, { person, secret, reason: $("confirm-reason").value || null });
      say(`${res.id} is ${res.status}.`);
    } catch (err) { fail(err); }
    await refresh();
  };
  dlg.showModal();
  $("confirm-secret").focus();
}

async function propose(e) {
  e.preventDefault();
  try {
    const res = await api("/api/durable", { kind: $("propose-kind").value, text: $("propose-text").value, why: $("propose-why").value || null,
      supersedes: $("propose-supersedes").value || null, by: $("person").value.trim() || "dashboard" });
    say(`Proposed ${res.id}: a candidate until a person approves it.`);
    $("propose-text").value = "";
    $("propose-why").value = "";
  } catch (err) { fail(err); }
  await loadDurable();
}

async function proposeFromPacket(pid, index) {
  try {
    const res = await api("/api/durable", { packet: pid, constraint: index, by: $("person").value.trim() || "dashboard" });
    say(`Proposed ${res.id} from the packet's constraint: a candidate until a person approves it (Durable memory).`);
  } catch (err) { fail(err); }
  await loadDurable().catch(fail);
}

// ---- refresh -----------------------------------------------------------------------------
async function refresh() {
  const jobs = [loadOverview(), loadRuns(), loadRun(), loadPackets(), loadDurable(), loadActive(), loadArchive()];
  const results = await Promise.allSettled(jobs);
  const failed = results.find((r) => r.status === "rejected");
  if (failed) fail(failed.reason);
  $("refreshed").textContent = `Refreshed ${when(Date.now())} (every 15 s and after each action).`;
}

document.addEventListener("DOMContentLoaded", async () => {
  try { await startSession(); } catch (err) { fail(err); $("project").textContent = "No dashboard session"; setupTabs(); return; }
  setupTabs();
  $("person").value = localStorage.getItem("autopilot-person") || "";
  $("run-stop").addEventListener("click", () => runAction("stop"));
  $("run-resume").addEventListener("click", () => runAction("resume"));
  $("src-refresh").addEventListener("click", loadSources);
  $("src-agent").addEventListener("change", () => { ui.sourcesRead = true; loadSources(); });
  $("src-latest").addEventListener("change", () => { ui.sourcesRead = true; loadSources(); });
  $("export-preview").addEventListener("click", () => doExport(true));
  $("export-go").addEventListener("click", () => doExport(false));
  $("import-list").addEventListener("click", listReceiving);
  $("import-go").addEventListener("click", doImport);
  $("search-form").addEventListener("submit", doSearch);
  $("readiness-check").addEventListener("click", loadReadiness);
  loadReadiness();
  $("propose-form").addEventListener("submit", propose);
  refresh();
  setInterval(refresh, REFRESH_MS);
});
