/* The judge's table (web view of `tmg serve`). Every verdict comes from the service's command
   endpoints and is shown with its `text`; the table is the service's /render SVG (the renderer
   of `tmg render`). The page keeps the table as a scenario document (canonical, from
   /web/document), edits it (drag, add, remove; undo), and shares it in the link's fragment. */
"use strict";
const CFG = JSON.parse(document.getElementById("config").textContent);
const $ = (id) => document.getElementById(id);
const NS = "http://www.w3.org/2000/svg";
const HIT_MM = 9;                         // a model's hit area on screen, at any zoom
const S = { doc: null, before: null, undo: [], info: null, tr: null, pic: null, mode: "ask",
            sel: [], view: null, pending: null, lastMove: null, token: null, answers: {} };
window.tmgState = S;                      // read by the browser tests

/* ------------------------------------------------------------------ the service */
async function api(cmd, body, raw) {
  const headers = { "Content-Type": "application/json" };
  if (S.token) headers.Authorization = "Bearer " + S.token;
  const r = await fetch("/" + cmd, { method: "POST", headers, body: JSON.stringify(body) });
  if (raw && r.ok) return r;
  let j;
  try { j = await r.json(); } catch (e) { j = { error: { message: "HTTP " + r.status } }; }
  if (!r.ok) { const e = new Error((j.error && j.error.message) || ("HTTP " + r.status));
               e.status = r.status; throw e; }
  return j;
}
function ask(cmd, extra) { return api(cmd, Object.assign({ scenario: S.doc }, extra)); }

/* ------------------------------------------------------------------ answers */
function show(title, r, ok) {
  const d = document.createElement("div");
  d.className = "ans " + (ok === true ? "yes" : ok === false ? "no" : "");
  d.dataset.command = title;
  const b = document.createElement("b"); b.textContent = title; d.appendChild(b);
  d.appendChild(document.createTextNode(r.text || JSON.stringify(r)));
  $("answers").appendChild(d);
  S.answers[title] = r;
  return d;
}
function showError(title, e) {
  const d = show(title, { text: e.message }); d.classList.add("err"); return d;
}
function clearAnswers() { $("answers").textContent = ""; S.answers = {}; }
function hint(t) { $("hint").textContent = t; }

/* ------------------------------------------------------------------ drawing */
function toPic(p) { const t = S.tr; return [t.ox + t.scale * p[0], t.h - (t.oy + t.scale * p[1])]; }
function toWorld(px, py) { const t = S.tr; return [(px - t.ox) / t.scale, (t.h - py - t.oy) / t.scale]; }
function el(tag, attrs, parent) {
  const e = document.createElementNS(NS, tag);
  for (const k in attrs) e.setAttribute(k, attrs[k]);
  (parent || $("overlay")).appendChild(e); return e;
}
function clearOverlay() { $("overlay").textContent = ""; }
function line(pts, colour, w, extra) {
  return el("polyline", Object.assign({ points: pts.map(toPic).map((p) => p.join(",")).join(" "),
    fill: "none", stroke: colour, "stroke-width": w, "stroke-linecap": "round",
    "stroke-linejoin": "round" }, extra || {}));
}
function ring(at, r, colour, extra) {
  const p = toPic(at);
  return el("circle", Object.assign({ cx: p[0], cy: p[1], r: r * S.tr.scale, fill: "none",
    stroke: colour, "stroke-width": 4 }, extra || {}));
}
function baseRadius(m) { return m.r; }
function drawSelection() {
  for (const e of $("overlay").querySelectorAll(".sel")) e.remove();
  for (const m of S.sel) ring(m.at, baseRadius(m) + 0.15, "#f0a000", { class: "sel" });
}

async function render() {
  const t0 = performance.now();
  const [svgResp, info] = await Promise.all([
    api("render", { scenario: S.doc, format: "svg", width: 1600 }, true),
    ask("info", {})]);
  const text = await svgResp.text();
  const doc = new DOMParser().parseFromString(text, "image/svg+xml");
  const svg = doc.documentElement;
  const w = +svg.getAttribute("width"), h = +svg.getAttribute("height");
  S.tr = { scale: +svg.dataset.scale, ox: +svg.dataset.ox, oy: +svg.dataset.oy, h, w };
  const pic = $("pic"); pic.textContent = "";
  pic.appendChild(document.importNode(svg, true));
  $("board-wrap").style.setProperty("--ar", String(w / h));   // a phone's board: the picture's shape
  S.paintedAt = performance.now();        // since navigation start: the benchmark's first paint
  S.info = info; S.models = [];
  for (const u of info.units) {
    const mm = Array.isArray(u.base_mm) ? Math.max(...u.base_mm) : (u.base_mm || 25);
    for (const m of u.models) S.models.push({ ref: u.id + "/" + m.id, unit: u.id, id: m.id,
      owner: u.owner, at: m.at, r: mm / 25.4 / 2 });
  }
  S.markers = (info.markers || []).map((m) => ({ ref: "marker/" + m.id, at: m.at, r: 0.63,
                                               marker: true }));
  if (!S.view || S.view.pw !== w || S.view.ph !== h) fit(w, h);
  applyView();
  $("title").textContent = info.name || "table";
  S.sel = []; clearOverlay();
  S.firstPaint = performance.now() - t0;
  document.body.dataset.ready = String(Date.now());
}

/* ------------------------------------------------------------------ the table as a document */
async function setDoc(body, keepUndo) {
  const r = await api("web/document", body);
  if (S.doc && !keepUndo) S.undo.push(S.doc);
  S.doc = r.document;
  if (!S.before) S.before = S.doc;
  if (r.link_version && r.link_version !== CFG.version)
    show("warning", { text: "This link was made by engine " + r.link_version +
      "; this server runs " + CFG.version + ": answers may differ from the link's." });
  await render();
  return r;
}
function edited(doc) { S.undo.push(S.doc); S.doc = doc; return render(); }
function clone(x) { return JSON.parse(JSON.stringify(x)); }
function unitOf(doc, uid) { return (doc.unit || []).find((u) => u.id === uid); }
function movedDoc(positions) {     // positions: {ref: [x, y]}
  const d = clone(S.doc);
  for (const ref in positions) {
    const [uid, mid] = ref.split("/");
    if (uid === "marker") { const mk = d.marker.find((m) => String(m.id) === mid);
                            if (mk) mk.at = positions[ref]; continue; }
    const u = unitOf(d, uid); if (!u) continue;
    const m = u.models.find((m) => String(m.id) === mid); if (m) m.at = positions[ref];
  }
  return d;
}

/* ------------------------------------------------------------------ zoom and pan */
function fit(w, h) { S.view = { x: 0, y: 0, w, h, pw: w, ph: h }; }
function applyView() {
  const v = S.view; $("board").setAttribute("viewBox", `${v.x} ${v.y} ${v.w} ${v.h}`);
}
function svgPoint(ev) {
  const b = $("board"), pt = b.createSVGPoint(); pt.x = ev.clientX; pt.y = ev.clientY;
  return pt.matrixTransform(b.getScreenCTM().inverse());
}
function cssPxPerPic() { return 1 / $("board").getScreenCTM().inverse().a; }
function zoomAt(px, py, k) {
  const v = S.view, nw = Math.min(v.pw * 2, Math.max(v.pw / 40, v.w / k));
  const f = nw / v.w; v.x = px - (px - v.x) * f; v.y = py - (py - v.y) * f;
  v.w = nw; v.h = v.h * f; applyView();
}
function hitTest(ev) {
  const p = svgPoint(ev), w = toWorld(p.x, p.y);
  const cssPerInch = cssPxPerPic() * S.tr.scale;
  const minR = (HIT_MM / 2) * (96 / 25.4) / cssPerInch;   // 9 mm across, in inches
  let best = null, bestD = Infinity;
  for (const m of [...S.models, ...S.markers]) {
    const d = Math.hypot(m.at[0] - w[0], m.at[1] - w[1]);
    if (d <= Math.max(m.r, minR) && d - m.r < bestD) { best = m; bestD = d - m.r; }
  }
  return { thing: best, world: w };
}

const pointers = new Map();
let gesture = null;
function onDown(ev) {
  if (!S.tr) return;
  $("board").setPointerCapture(ev.pointerId);
  pointers.set(ev.pointerId, { x: ev.clientX, y: ev.clientY });
  if (pointers.size === 2) { gesture = { kind: "pinch" }; return; }
  const h = hitTest(ev), p = svgPoint(ev);
  gesture = { kind: "pan", start: [ev.clientX, ev.clientY], pic: [p.x, p.y], hit: h,
              moved: false };
  if (h.thing && (S.mode === "move" || S.mode === "edit")) gesture.kind = "drag";
}
function onMove(ev) {
  if (!pointers.has(ev.pointerId) || !gesture) return;
  const prev = pointers.get(ev.pointerId);
  pointers.set(ev.pointerId, { x: ev.clientX, y: ev.clientY });
  if (gesture.kind === "pinch" && pointers.size === 2) {
    const [a, b] = [...pointers.values()];
    const other = [...pointers.entries()].find(([id]) => id !== ev.pointerId)[1];
    const d0 = Math.hypot(prev.x - other.x, prev.y - other.y);
    const d1 = Math.hypot(a.x - b.x, a.y - b.y);
    const mid = svgPoint({ clientX: (a.x + b.x) / 2, clientY: (a.y + b.y) / 2 });
    if (d0 > 0) zoomAt(mid.x, mid.y, d1 / d0);
    return;
  }
  if (Math.hypot(ev.clientX - gesture.start[0], ev.clientY - gesture.start[1]) > 6)
    gesture.moved = true;
  if (gesture.kind === "pan" && gesture.moved) {
    const k = 1 / cssPxPerPic();
    S.view.x -= (ev.clientX - prev.x) * k; S.view.y -= (ev.clientY - prev.y) * k; applyView();
  } else if (gesture.kind === "drag" && gesture.moved) {
    const w = hitWorld(ev); gesture.to = w;
    drawGhost(gesture.hit.thing, w);
    if (S.mode === "move" && !gesture.hit.thing.marker) liveMove(gesture.hit.thing, w);
  }
}
function hitWorld(ev) { const p = svgPoint(ev); return toWorld(p.x, p.y).map((v) => Math.round(v * 1000) / 1000); }
function onUp(ev) {
  pointers.delete(ev.pointerId);
  if (!gesture) return;
  const g = gesture;
  if (pointers.size === 0) gesture = null;
  if (g.kind === "pinch") return;
  if (g.kind === "drag" && g.moved) { drop(g.hit.thing, g.to || hitWorld(ev)); return; }
  if (!g.moved) tap(g.hit);
}
function onWheel(ev) {
  ev.preventDefault(); const p = svgPoint(ev);
  zoomAt(p.x, p.y, ev.deltaY < 0 ? 1.2 : 1 / 1.2);
}

/* ------------------------------------------------------------------ the tools */
function drawGhost(m, w) {
  for (const e of $("overlay").querySelectorAll(".ghost")) e.remove();
  ring(w, m.r, "#333", { class: "ghost", "stroke-dasharray": "6 4", "stroke-width": 3 });
}
function drawPath(r, m) {
  for (const e of $("overlay").querySelectorAll(".path")) e.remove();
  if (!r.path || r.path.length < 2) return;
  const ok = r.legal !== false && r.possible !== false;
  line(r.path, ok ? "rgb(42,157,58)" : "rgb(214,48,44)", 2 * m.r * S.tr.scale,
       { class: "path swept", "stroke-opacity": 0.25 });
  line(r.path, ok ? "rgb(20,110,30)" : "rgb(170,20,20)", 3, { class: "path centre" });
  for (const ref in (r.positions || {})) ring(r.positions[ref], m.r, "#2b6cd6",
    { class: "path", "stroke-width": 2 });
}
let inFlight = false, queued = null;
async function liveMove(m, w) {
  if (inFlight) { queued = [m, w]; return; }
  inFlight = true;
  try { const r = await ask("move", { model: m.ref, to: w[0] + "," + w[1] });
        drawPath(r, m); hint(r.text.split("\n")[0]); } catch (e) { hint(e.message); }
  inFlight = false;
  if (queued) { const q = queued; queued = null; liveMove(...q); }
}
async function drop(m, w) {
  if (S.mode === "edit") { await edited(movedDoc({ [m.ref]: w })); return; }
  clearAnswers();
  while (inFlight) await new Promise((res) => setTimeout(res, 20));
  queued = null;
  try {
    const r = await ask("move", { model: m.ref, to: w[0] + "," + w[1] });
    drawPath(r, m); show("move", r, r.legal);
    S.lastMove = { r, m, to: w };
    hint(r.legal ? "Apply move puts the unit there." : "Not legal.");
  } catch (e) { showError("move", e); }
}
async function tap(h) {
  const t = h.thing;
  if (S.mode === "edit") { S.sel = t && !t.marker ? [t] : []; drawSelection(); S.addAt = h.world;
                           hint(t ? t.ref + " selected" : "point " + h.world.map((v) => v.toFixed(2)).join(", ")); return; }
  if (!t) { S.sel = []; drawSelection(); return; }
  if (S.mode === "ask" || S.mode === "template" || S.mode === "charge") {
    S.sel.push(t); if (S.sel.length > 2) S.sel = [t];
    drawSelection();
    if (S.sel.length === 1) { hint(t.ref + ": now tap another model or marker"); return; }
    const [a, b] = S.sel;
    if (S.mode === "ask") await askPair(a, b);
    else if (S.mode === "charge") await askCharge(a, b);
    else await askTemplate(a, b);
  }
}
async function askPair(a, b) {
  clearAnswers(); clearOverlay(); drawSelection();
  const jobs = [["los", ask("los", { a: a.ref, b: b.ref })],
                ["distance", ask("distance", { a: a.ref, b: b.ref })]];
  if (!b.marker && !a.marker) jobs.push(["engaged", ask("engaged", { a: a.ref, b: b.ref })]);
  for (const [name, p] of jobs) {
    try {
      const r = await p; const t0 = performance.now();   // the response is here
      show(name, r, name === "los" ? r.visible : name === "engaged" ? r.engaged : undefined);
      if (name === "los") {
        if (r.witness) line(r.witness, "rgb(42,157,58)", 4, { class: "witness" });
        else line([a.at, b.at], "rgb(214,48,44)", 3, { class: "blocked", "stroke-dasharray": "8 6" });
      }
      // drawn: the next frame after the answer and its lines are in the DOM (bench_web.py)
      if (name === "los") requestAnimationFrame(() => { S.drawMs = performance.now() - t0; });
    } catch (e) { showError(name, e); }
  }
  hint("");
}
async function askCharge(a, b) {
  clearAnswers(); clearOverlay(); drawSelection();
  const body = { unit: a.unit, targets: b.unit };
  if ($("roll").value) body.roll = +$("roll").value;
  try {
    const r = await ask("charge", body);
    const m = a; drawPath(r, m);
    const pl = r.placement && typeof r.placement === "object" ? r.placement.positions : r.positions;
    for (const ref in (pl || {})) ring(pl[ref], m.r, "#2b6cd6", { "stroke-width": 2 });
    if (r.end) ring(r.end, m.r, "#2a9d3a", { "stroke-width": 3 });
    show("charge", r, r.roll !== undefined ? r.roll_succeeds : r.possible);
  } catch (e) { showError("charge", e); }
}
async function askTemplate(a, b) {
  clearAnswers(); clearOverlay(); drawSelection();
  const body = { attacker: a.ref, target: b.ref }; body[$("tkind").value] = true;
  try {
    const r = await ask("template", body);
    if (r.template) line([...r.template, r.template[0]], "rgb(214,120,20)", 3, { class: "template", fill: "rgba(214,120,20,0.2)" });
    show("template", r);
  } catch (e) { showError("template", e); }
}

/* ------------------------------------------------------------------ edits */
async function applyMove() {
  const L = S.lastMove; if (!L || !L.r.legal) { hint("no legal move to apply"); return; }
  const pos = Object.assign({}, L.r.positions || {}); pos[L.m.ref] = L.r.path[L.r.path.length - 1];
  S.lastMove = null; await edited(movedDoc(pos));
}
async function addModel() {
  const m = S.sel[0]; if (!m || !S.addAt) { hint("tap a model of the unit, then a free spot… (select a model first)"); return; }
  const d = clone(S.doc), u = unitOf(d, m.unit);
  let n = u.models.length + 1; const ids = new Set(u.models.map((x) => String(x.id)));
  while (ids.has(String(n))) n++;
  u.models.push({ id: String(n), at: S.addAt });
  try { await edited(d); } catch (e) { S.doc = S.undo.pop(); showError("add", e); await render(); }
}
async function removeModel() {
  const m = S.sel[0]; if (!m) { hint("select a model first"); return; }
  const d = clone(S.doc), u = unitOf(d, m.unit);
  u.models = u.models.filter((x) => String(x.id) !== m.id);
  if (!u.models.length) d.unit = d.unit.filter((x) => x.id !== m.unit);
  if (u.leading === m.id) delete u.leading;
  await edited(d);
}
async function addUnit() {
  // A new unit of one model of the chosen catalogue type, at the last tapped spot.
  if (!S.addAt) { hint("tap a free spot of the table first"); return; }
  const type = $("utype").value, d = clone(S.doc); d.unit = d.unit || [];
  const ids = new Set(d.unit.map((u) => u.id)); let n = 1;
  while (ids.has(type + "-" + n)) n++;
  d.unit.push({ id: type + "-" + n, type, owner: $("uowner").value, models: [{ id: "1", at: S.addAt }] });
  try { await edited(d); } catch (e) { S.doc = S.undo.pop(); showError("add unit", e); await render(); }
}
async function undo() { if (!S.undo.length) return; S.doc = S.undo.pop(); await render(); }
function download() {
  const blob = new Blob([JSON.stringify(S.doc, null, 1)], { type: "application/json" });
  const a = document.createElement("a"); a.href = URL.createObjectURL(blob);
  a.download = ((S.info && S.info.name) || "table").replace(/[^A-Za-z0-9._-]+/g, "-") + ".json";
  a.click(); setTimeout(() => URL.revokeObjectURL(a.href), 1000);
}

/* ------------------------------------------------------------------ sharing */
function b64url(bytes) {
  let s = ""; for (let i = 0; i < bytes.length; i += 0x8000)
    s += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
  return btoa(s).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}
function unb64url(s) {
  const b = atob(s.replace(/-/g, "+").replace(/_/g, "/")); const out = new Uint8Array(b.length);
  for (let i = 0; i < b.length; i++) out[i] = b.charCodeAt(i); return out;
}
async function pipe(bytes, stream) {
  return new Uint8Array(await new Response(new Blob([bytes]).stream().pipeThrough(stream)).arrayBuffer());
}
async function fragment(doc) {
  const raw = new TextEncoder().encode(JSON.stringify({ f: "tmg-web/1", v: CFG.version, doc }));
  return b64url(await pipe(raw, new CompressionStream("deflate-raw")));
}
async function share() {
  // The link carries the whole table (#t=); the QR code carries it too when it fits a QR code
  // a phone reads off a screen, else the server's key of the table (#k=).
  const box = $("share"); box.hidden = false; $("qr").textContent = ""; $("qr-note").textContent = "";
  const withToken = S.token && confirm("Put the access token in the link?");
  const tok = withToken ? "&token=" + encodeURIComponent(S.token) : "";
  const url = CFG.public_url + "#t=" + (await fragment(S.doc)) + tok;
  let qrUrl = url;
  let qr = await fetch("/web/qr", { method: "POST", headers: authHeaders(), body: JSON.stringify({ url }) });
  if (qr.status === 413) {                 // too big for a QR code: the QR code goes by key
    const k = await api("web/share", { document: S.doc });
    qrUrl = CFG.public_url + "#k=" + k.key + tok;
    qr = await fetch("/web/qr", { method: "POST", headers: authHeaders(), body: JSON.stringify({ url: qrUrl }) });
    $("qr-note").textContent = "The table is too big for a QR code: the code opens it by its key on this server (" + qrUrl + ").";
  }
  $("link").value = url; S.shareUrl = url; S.qrUrl = qrUrl;
  if (qr.ok) $("qr").innerHTML = await qr.text();
  else showError("share", new Error("no QR code: HTTP " + qr.status));
}
function authHeaders() {
  const h = { "Content-Type": "application/json" }; if (S.token) h.Authorization = "Bearer " + S.token; return h;
}
async function openFragment() {
  const f = new URLSearchParams(location.hash.slice(1));
  if (f.get("token")) { S.token = f.get("token"); sessionStorage.setItem("tmg-token", S.token); }
  if (f.get("t")) return setDoc({ t: f.get("t") });
  if (f.get("k")) return setDoc({ k: f.get("k") });
  if (f.get("layout")) return setDoc({ scenario: f.get("layout"), deployment: f.get("card") || null });
  return setDoc({ scenario: "standard-1", deployment: null });
}

/* ------------------------------------------------------------------ set-up */
async function official() {
  S.before = null; S.undo = [];
  await setDoc({ scenario: $("layout").value, deployment: $("card").value || null });
  $("menu").hidden = true;
}
async function openFile(file) {
  const text = await file.text(); S.before = null; S.undo = [];
  clearAnswers();
  try { await setDoc({ file: { name: file.name, text } }); $("menu").hidden = true; }
  catch (e) { showError("open " + file.name, e); }
}
function setMode(m) {
  S.mode = m; S.sel = []; drawSelection();
  for (const b of document.querySelectorAll("#tools button")) b.classList.toggle("on", b.dataset.mode === m);
  for (const s of document.querySelectorAll("#opts span[data-for]")) s.classList.toggle("show", s.dataset.for === m);
  hint({ ask: "Tap a model, then another: line of sight, distance, engagement.",
         move: "Drag a model: its shortest legal path, live.",
         charge: "Tap a model of the charging unit, then one of its target.",
         template: "Tap the attacker, then the target model.",
         edit: "Drag to place; tap to select; Add puts a model of the selected unit at the last tapped spot." }[m]);
}
async function simple(cmd, body) {
  clearAnswers();
  try { const r = await api(cmd, body); show(cmd, r, r.legal !== undefined ? r.legal : r.in_coherency); return r; }
  catch (e) { showError(cmd, e); }
}
async function init() {
  S.token = sessionStorage.getItem("tmg-token");
  if (CFG.token_required && !S.token && !location.hash.includes("token=")) {
    S.token = prompt("This server wants its access token (ask the judge):") || null;
    if (S.token) sessionStorage.setItem("tmg-token", S.token);
  }
  const b = $("board");
  b.addEventListener("pointerdown", onDown); b.addEventListener("pointermove", onMove);
  b.addEventListener("pointerup", onUp); b.addEventListener("pointercancel", onUp);
  b.addEventListener("wheel", onWheel, { passive: false });
  $("menu-btn").onclick = () => { $("menu").hidden = !$("menu").hidden; };
  $("load-official").onclick = official;
  $("file").onchange = (e) => e.target.files[0] && openFile(e.target.files[0]);
  document.addEventListener("dragover", (e) => e.preventDefault());
  document.addEventListener("drop", (e) => { e.preventDefault(); const f = e.dataTransfer.files[0]; if (f) openFile(f); });
  $("download").onclick = download; $("undo").onclick = undo; $("share-btn").onclick = share;
  $("set-before").onclick = () => { S.before = S.doc; hint("this table is now the 'before' of check"); };
  $("apply").onclick = applyMove; $("add").onclick = addModel; $("add-unit").onclick = addUnit; $("remove").onclick = removeModel;
  $("markers").onclick = () => simple("markers", { scenario: S.doc });
  $("check").onclick = () => simple("check", { before: S.before, after: S.doc });
  $("coherency").onclick = () => S.sel[0] ? simple("coherency", { scenario: S.doc, unit: S.sel[0].unit })
                                          : hint("tap a model of the unit first");
  for (const t of document.querySelectorAll("#tools button")) t.onclick = () => setMode(t.dataset.mode);
  window.addEventListener("hashchange", () => openFragment().catch((e) => showError("link", e)));
  setMode("ask");
  try {
    const l = await api("layouts", {});
    for (const x of l.layouts) $("layout").add(new Option(x.name, x.id));
    for (const x of l.deployments) if (x.available !== false) $("card").add(new Option(x.name, x.id));
    const u = await api("units", {});
    for (const x of u.units) $("utype").add(new Option(x.name, x.id));
  } catch (e) { showError("layouts", e); }
  try { await openFragment(); } catch (e) { showError("table", e); }
}
init();
