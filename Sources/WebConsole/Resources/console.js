"use strict";
const profile = document.getElementById("profile");
if (profile) profile.addEventListener("change", () => profile.form.submit());

const bar = document.getElementById("bar");
if (bar && bar.dataset.events) {
  const events = new EventSource(bar.dataset.events);
  events.onmessage = (event) => {
    const progress = JSON.parse(event.data);
    document.getElementById("progress").textContent = progress.line;
    bar.max = Math.max(progress.total, 1); bar.value = progress.done;
    if (progress.ended) { events.close(); location.reload(); }
  };
}

async function upload(files, path = "/upload") {
  const status = document.getElementById("upload-status");
  const notes = [];
  for (const file of files) {
    status.className = ""; status.textContent = "… " + file.name;
    const answer = await fetch(document.body.dataset.root + path + "?name=" + encodeURIComponent(file.name), { method: "POST", body: file });
    const said = await answer.json();
    if (!answer.ok) { status.className = "error"; status.textContent = said.error; return; }
    notes.push(...(said.notes || []));
  }
  if (notes.length === 0) { location.reload(); return; }
  status.textContent = "";
  for (const note of notes) { const line = document.createElement("div"); line.textContent = note; status.appendChild(line); }
  const again = document.createElement("a"); again.href = ""; again.textContent = status.dataset.show; status.appendChild(again);
}
const drop = document.getElementById("drop");
if (drop) {
  document.getElementById("files").addEventListener("change", (event) => upload(event.target.files));
  drop.addEventListener("dragover", (event) => { event.preventDefault(); drop.classList.add("over"); });
  drop.addEventListener("dragleave", () => drop.classList.remove("over"));
  drop.addEventListener("drop", (event) => { event.preventDefault(); drop.classList.remove("over"); upload(event.dataTransfer.files); });
}
const feedFiles = document.getElementById("feed-files");
if (feedFiles) feedFiles.addEventListener("change", (event) => upload(event.target.files, "/feeds/upload"));
