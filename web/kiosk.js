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

// The pictures in the show, a page of 60 at a time: thumbnails kioskd
// makes, the picture folder's with a Delete button, a server's marked.
let shownPictures = 0;
async function loadPictures(more) {
  if (more && $("more").disabled) return;
  $("more").disabled = true;
  try {
    const from = more ? shownPictures : 0;
    const page = await api(`/api/pictures?from=${from}`);
    if (!more) { $("picture-list").replaceChildren(); shownPictures = 0; }
    for (const picture of page.pictures) $("picture-list").append(pictureItem(picture));
    shownPictures = from + page.pictures.length;
    $("picture-count").textContent = `(${page.count})`;
    $("more").hidden = shownPictures >= page.count;
  } catch (error) { problem(error.message); }
  $("more").disabled = false;
}

function pictureItem(picture) {
  const item = document.createElement("li");
  const thumbnail = document.createElement("img");
  thumbnail.loading = "lazy";
  thumbnail.alt = picture.name;
  // The version (when the file was written, its size) makes a picture uploaded again under a name another address.
  thumbnail.src = `/api/thumbnail?index=${picture.index}&name=${encodeURIComponent(picture.name)}`
    + (picture.version ? `&v=${encodeURIComponent(picture.version)}` : "");
  const name = document.createElement("span");
  name.className = "name";
  name.textContent = picture.name;
  item.append(thumbnail, name);
  if (picture.kind && picture.kind !== "folder") {
    const badge = document.createElement("span");
    badge.className = "badge";
    badge.textContent = `from ${picture.kind === "immich" ? "Immich" : "WebDAV"}, cached`;
    item.append(badge);
  }
  if (picture.deletable) {
    const remove = document.createElement("button");
    remove.type = "button";
    remove.textContent = "Delete";
    remove.addEventListener("click", async () => {
      if (!confirm(`Delete ${picture.name} from the kiosk?`)) return;
      try {
        await api("/api/delete", new URLSearchParams({ index: picture.index, name: picture.name }));
        problem("");
        item.remove();
      } catch (error) { problem(error.message); }
      loadPictures(false);
    });
    item.append(remove);
  }
  return item;
}

// The settings, from kioskd's settings table: each with its help, the
// value it takes and what applies a change; those set needs the config
// file for are shown, not edited.
async function loadSettings() {
  try {
    const reply = await api("/api/settings");
    $("setting-list").replaceChildren(...reply.settings.map(settingForm));
    filterSettings();
  } catch (error) { problem(error.message); }
}

function settingForm(setting) {
  const form = document.createElement("form");
  form.className = "setting" + (setting.set ? " set" : "");
  form.dataset.name = setting.name;
  const id = `setting-${setting.name}`;
  const label = document.createElement("label");
  label.htmlFor = id;
  label.textContent = setting.name;
  const row = document.createElement("div");
  row.className = "row";
  let input;
  if (setting.takes === "true or false") {
    input = document.createElement("select");
    for (const choice of ["true", "false"]) input.append(new Option(choice, choice, false, setting.value === choice));
  } else {
    input = document.createElement("input");
    input.value = setting.value ?? "";
    input.placeholder = setting.takes;
  }
  input.id = id;
  input.disabled = !setting.settable;
  row.append(input);
  const said = document.createElement("span");
  said.className = "said";
  if (setting.settable) {
    const apply = document.createElement("button");
    apply.type = "submit";
    apply.textContent = "Apply";
    row.append(apply);
    if (setting.set) {
      const back = document.createElement("button");
      back.type = "button";
      back.className = "use-file";
      back.textContent = "Use the file's";
      back.addEventListener("click", () => change(`unset ${setting.name}`, said));
      row.append(back);
    }
    form.addEventListener("submit", (event) => { event.preventDefault(); change(`set ${setting.name} ${input.value.trim()}`, said); });
  }
  const help = document.createElement("p");
  help.className = "help";
  help.textContent = `${setting.help} Takes ${setting.takes}; default ${setting.default}. ${setting.settable ? "A change " + setting.applies : "Set in the config file: a change " + setting.applies}.`;
  form.append(label, row, said, help);
  return form;
}

async function change(line, said) {
  try {
    const reply = await api("/api/command", new URLSearchParams({ line }));
    said.className = "said";
    said.textContent = reply.changed && reply.changed.length ? `applied: ${reply.changed.join(", ")}` : "applied (nothing changed)";
    await loadSettings();
    const form = document.querySelector(`.setting[data-name="${line.split(" ")[1]}"] .said`);
    if (form) form.textContent = said.textContent;
    refresh();
  } catch (error) { said.className = "said bad"; said.textContent = error.message; }
}

// Settings whose name holds the words; when none does, those whose help does.
function filterSettings() {
  const wanted = $("setting-filter").value.trim().toLowerCase();
  const forms = [...document.querySelectorAll(".setting")];
  const byName = forms.some((form) => form.dataset.name.includes(wanted));
  forms.forEach((form) => {
    form.hidden = wanted !== "" && !(byName ? form.dataset.name : form.textContent.toLowerCase()).includes(wanted);
  });
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
  let listChanged = false;
  const soon = () => {
    if (!due) due = setTimeout(() => { due = null; refresh(); refreshScreen(); if (listChanged) { listChanged = false; loadPictures(false); } }, 300);
  };
  events.onmessage = (event) => {
    try { if (["playlist", "folder_back", "folder_gone"].includes(JSON.parse(event.data).event)) listChanged = true; } catch (e) { /* not JSON */ }
    soon();
  };
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
  $("more").addEventListener("click", () => loadPictures(true));
  $("setting-filter").addEventListener("input", filterSettings);
  await refresh();
  refreshScreen();
  loadPictures(false);
  loadSettings();
  listen();
  setInterval(refreshScreen, 2000);
  setInterval(refresh, 30000);
}

start().catch((error) => problem(error.message));
