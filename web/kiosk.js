// kioskd-web's page: asks kioskd-web's API, which asks kioskd. Every change
// carries the session's CSRF token in X-CSRF-Token.
"use strict";
let csrf = "";
let session = {};
const $ = (id) => document.getElementById(id);

function problem(text) {
  $("problem").hidden = !text;
  $("problem").textContent = text || "";
}

async function api(path, form) {
  const answer = await fetch(path, form ? { method: "POST", headers: { "X-CSRF-Token": csrf }, body: form } : {});
  if (answer.status === 401) { location.href = "/login"; throw new Error("logged out"); }
  const reply = await answer.json();
  if (!reply.ok) throw new Error(reply.error);
  return reply;
}

async function command(line) {
  const form = new URLSearchParams({ line });
  try { await api("/api/command", form); problem(""); await refresh(); } catch (error) { problem(error.message); }
}

async function refresh() {
  try {
    const s = await api("/api/status");
    $("showing").textContent = s.file ? s.file.split("/").pop() : "nothing";
    $("count").textContent = s.count;
    $("display").textContent = `${s.display_state}, brightness ${s.brightness}`;
    $("slides").textContent = s.paused ? "paused" : `every ${s.interval} s`;
    $("pause").dataset.command = s.paused ? "resume" : "pause";
    $("pause").textContent = s.paused ? "Resume" : "Pause";
    if (document.activeElement !== $("brightness")) $("brightness").value = s.brightness;
    $("brightness-value").textContent = s.brightness;
  } catch (error) { problem(error.message); }
}

function upload(file) {
  const item = document.createElement("li");
  const name = document.createElement("span");
  const state = document.createElement("span");
  const bar = document.createElement("progress");
  name.textContent = file.name;
  bar.max = 1; bar.value = 0;
  item.append(name, state, bar);
  $("uploads").prepend(item);
  if (file.size > session.upload_max) {
    state.textContent = "too large"; state.className = "bad"; bar.remove();
    return;
  }
  const form = new FormData();
  form.append("file", file, file.name);
  const request = new XMLHttpRequest();
  request.open("POST", "/api/upload");
  request.setRequestHeader("X-CSRF-Token", csrf);
  request.upload.onprogress = (e) => { if (e.lengthComputable) bar.value = e.loaded / e.total; };
  request.onload = () => {
    let reply = {};
    try { reply = JSON.parse(request.responseText); } catch (e) { reply = { error: `answer ${request.status}` }; }
    state.textContent = reply.ok ? `added as ${reply.added.join(", ")}` : reply.error;
    state.className = reply.ok ? "" : "bad";
    bar.value = 1;
    refresh();
  };
  request.onerror = () => { state.textContent = "the upload broke off"; state.className = "bad"; };
  request.send(form);
}

// The live screen: kioskd-web asks kioskd for it at most once every 2 s.
function refreshScreen() {
  if (document.hidden) return;
  const next = new Image();
  next.onload = () => { $("screen").src = next.src; };
  next.src = `/api/screen?t=${Date.now()}`;
}

// kioskd's events: each one refreshes the state (and the screen, within its 2 s).
function listen() {
  const events = new EventSource("/api/events");
  let due = null;
  const soon = () => { if (!due) due = setTimeout(() => { due = null; refresh(); refreshScreen(); }, 300); };
  events.onmessage = soon;
  events.addEventListener("kiosk", (event) => {
    const state = JSON.parse(event.data);
    problem(state.ok ? "" : state.error);
    soon();
  });
}

async function start() {
  session = await api("/api/session");
  csrf = session.csrf;
  $("logout").addEventListener("submit", async (event) => {
    event.preventDefault();
    await fetch("/logout", { method: "POST", headers: { "X-CSRF-Token": csrf } });
    location.href = "/login";
  });
  // The controls are the protocol's commands: each takes its help from
  // kioskd's table, and one the table does not offer is not shown.
  const offered = new Map((await api("/api/commands")).commands.map((c) => [c.name, c]));
  document.querySelectorAll("[data-command]").forEach((button) => {
    const entry = offered.get(button.dataset.command.split(" ")[0]);
    if (!entry) { button.hidden = true; return; }
    button.title = entry.summary;
    button.addEventListener("click", () => command(button.dataset.command));
  });
  $("brightness").addEventListener("change", () => command(`display on ${$("brightness").value}`));
  $("message").addEventListener("submit", (event) => {
    event.preventDefault();
    const text = $("message-text").value.trim();
    if (text) command(`message --for ${$("message-for").value} ${text}`);
  });
  $("files").addEventListener("change", () => { [...$("files").files].forEach(upload); $("files").value = ""; });
  const drop = $("drop");
  drop.addEventListener("dragover", (event) => { event.preventDefault(); drop.classList.add("over"); });
  drop.addEventListener("dragleave", () => drop.classList.remove("over"));
  drop.addEventListener("drop", (event) => { event.preventDefault(); drop.classList.remove("over"); [...event.dataTransfer.files].forEach(upload); });
  await refresh();
  refreshScreen();
  listen();
  setInterval(refreshScreen, 2000);
  setInterval(refresh, 30000);
}

start().catch((error) => problem(error.message));
