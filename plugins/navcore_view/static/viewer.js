// navcore view: the page. Plain JavaScript on a 2D canvas, no library.
// The server sends the map once as tiles of pixels (RGB and the node each
// pixel shows, zlib-compressed), then per frame the agents, their paths,
// the frame's times and the tiles that changed (see navcore_view/wire.py
// for the binary layout).
"use strict";

const token = new URLSearchParams(location.search).get("token") || "";
const $ = (id) => document.getElementById(id);
const mapCanvas = $("map");
const ctx = mapCanvas.getContext("2d");
const CHART_FRAMES = 150;
// the layers the server draws into the map (its options)
const MAP_OPTIONS = ["areas", "borders", "tiles", "traffic"];

// what tests and curious users can read (window.navcoreViewer)
const V = window.navcoreViewer = {
  ready: false, frame: 0, playing: false, speed: 1, ended: null, hello: null,
  map: null, epoch: -1, tiles: 0, agents: 0, pos: new Float32Array(0),
  state: new Uint8Array(0), radius: new Float32Array(0), paths: null,
  messages: 0, frameBytes: [], mapBytes: 0, drawMs: [], history: [],
  lastQuery: null, lastInfo: null, errors: [], replies: 0,
};
window.addEventListener("error", (e) => V.errors.push(String(e.message)));

let base = null, baseCtx = null;       // the map's pixels
let edges = null, edgesCtx = null;     // polygon / cell outlines
let searched = null;                    // the nodes the last query closed, tinted
let nodeAt = new Int32Array(0);
let pick = [];                          // clicked world points
let hoverNode = -1, hoverSent = -1;
let socket = null;
let chain = Promise.resolve();          // messages are handled in order
let nextId = 1;

// -- coordinates ---------------------------------------------------------
function toPx(x, y) {
  const m = V.map;
  const px = (x - m.origin[0]) * m.scale * m.aspect;
  const py = m.y_up ? (m.origin[1] - y) * m.scale : (y - m.origin[1]) * m.scale;
  return [px, py];
}
function toWorld(px, py) {
  const m = V.map;
  const x = m.origin[0] + px / (m.scale * m.aspect);
  const y = m.y_up ? m.origin[1] - py / m.scale : m.origin[1] + py / m.scale;
  return [x, y];
}
function eventPixel(e) {
  const r = mapCanvas.getBoundingClientRect();
  return [(e.clientX - r.left) * mapCanvas.width / r.width,
          (e.clientY - r.top) * mapCanvas.height / r.height];
}
// the viewport point showing world point (x, y) (tests click there)
V.clientPoint = function (x, y) {
  const [px, py] = toPx(x, y);
  const r = mapCanvas.getBoundingClientRect();
  return { x: r.left + px * r.width / mapCanvas.width, y: r.top + py * r.height / mapCanvas.height };
};
V.nodeAtWorld = function (x, y) {
  const [px, py] = toPx(x, y).map(Math.floor);
  if (!V.map || px < 0 || py < 0 || px >= V.map.width || py >= V.map.height) return -1;
  return nodeAt[py * V.map.width + px];
};

// -- messages ------------------------------------------------------------
function unpack(buffer) {
  const view = new DataView(buffer);
  const n = view.getUint32(0, true);
  const header = JSON.parse(new TextDecoder().decode(new Uint8Array(buffer, 4, n)));
  const start = 4 + n + ((8 - ((4 + n) % 8)) % 8);
  const blobs = {};
  for (const b of header.blobs) {
    const Kind = window[b.dtype];
    blobs[b.name] = new Kind(buffer, start + b.offset, b.length / Kind.BYTES_PER_ELEMENT);
  }
  return [header, blobs];
}

async function inflate(bytes) {
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("deflate"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

function newMap(info) {
  V.map = info;
  mapCanvas.width = info.width; mapCanvas.height = info.height;
  base = document.createElement("canvas"); base.width = info.width; base.height = info.height;
  baseCtx = base.getContext("2d");
  edges = document.createElement("canvas"); edges.width = info.width; edges.height = info.height;
  edgesCtx = edges.getContext("2d");
  nodeAt = new Int32Array(info.width * info.height).fill(-1);
  V.tiles = 0; V.mapBytes = 0;
  pick = []; V.lastQuery = null; searched = null;
}

async function onMap(header, blobs, size) {
  if (header.map) newMap(header.map);
  V.epoch = header.epoch;
  const m = V.map, T = m.tile;
  const bodies = await Promise.all(header.tiles.map((t) => inflate(blobs["t" + t.blob])));
  header.tiles.forEach((t, k) => {
    const x0 = t.x * T, y0 = t.y * T;
    const w = Math.min(T, m.width - x0), h = Math.min(T, m.height - y0);
    const body = bodies[k];
    const img = new ImageData(w, h);
    for (let i = 0, j = 0; i < w * h; i++, j += 3) {
      img.data[4 * i] = body[j]; img.data[4 * i + 1] = body[j + 1];
      img.data[4 * i + 2] = body[j + 2]; img.data[4 * i + 3] = 255;
    }
    baseCtx.putImageData(img, x0, y0);
    const copy = new DataView(body.buffer, body.byteOffset + w * h * 3, w * h * 4);
    for (let r = 0; r < h; r++)
      for (let c = 0; c < w; c++)
        nodeAt[(y0 + r) * m.width + x0 + c] = copy.getInt32(4 * (r * w + c), true);
    V.tiles += 1;
  });
  header.tiles.forEach((t) => outline(t.x * T - 1, t.y * T - 1, T + 2, T + 2));
  V.mapBytes += size;
  V.serial = header.serial;
  if (header.tiles.length && V.lastQuery) paintSearched();
}

// the pixels of the nodes the last clicked query's search closed, tinted
// magenta (from the node each pixel shows): a colour neither the areas'
// palette nor the traffic ramp (green, yellow, red) uses
const SEARCHED = [235, 40, 235, 140];
function paintSearched() {
  const q = V.lastQuery;
  searched = null;
  V.searchedPixels = 0;
  if (!q || !q.closed || !q.closed.length || !V.map) return;
  let top = 0;
  for (const n of q.closed) if (n > top) top = n;
  const mark = new Uint8Array(top + 1);
  for (const n of q.closed) mark[n] = 1;
  const m = V.map, img = new ImageData(m.width, m.height);
  for (let i = 0; i < nodeAt.length; i++) {
    const n = nodeAt[i];
    if (n < 0 || n > top || !mark[n]) continue;
    img.data.set(SEARCHED, 4 * i);
    V.searchedPixels += 1;
  }
  searched = document.createElement("canvas");
  searched.width = m.width; searched.height = m.height;
  searched.getContext("2d").putImageData(img, 0, 0);
}

// darken the first pixel right of and below a change of node: cell and
// polygon outlines, computed from the node each pixel shows
function outline(x0, y0, w, h) {
  const m = V.map;
  x0 = Math.max(0, x0); y0 = Math.max(0, y0);
  w = Math.min(m.width - x0, w); h = Math.min(m.height - y0, h);
  if (w <= 0 || h <= 0) return;
  const img = new ImageData(w, h);
  for (let r = 0; r < h; r++) {
    for (let c = 0; c < w; c++) {
      const i = (y0 + r) * m.width + x0 + c, n = nodeAt[i];
      if (n < 0) continue;
      const left = x0 + c > 0 ? nodeAt[i - 1] : n, up = y0 + r > 0 ? nodeAt[i - m.width] : n;
      if ((left >= 0 && left !== n) || (up >= 0 && up !== n)) img.data[4 * (r * w + c) + 3] = 110;
    }
  }
  edgesCtx.putImageData(img, x0, y0);
}

function onFrame(header, blobs, size) {
  V.frame = header.frame;
  V.playing = header.playing;
  V.ended = header.ended || V.ended;
  V.agents = header.agents;
  V.pos = blobs.pos; V.state = blobs.state; V.radius = blobs.radius;
  if (header.paths) V.paths = [blobs.path_offsets, blobs.path_points];
  V.frameBytes.push(size);
  if (V.frameBytes.length > 1000) V.frameBytes.shift();
  if (header.stats) {
    V.history.push(header.stats);
    if (V.history.length > CHART_FRAMES) V.history.shift();
  }
  showControls();
}

function handleBinary(buffer) {
  const t0 = performance.now();
  const [header, blobs] = unpack(buffer);
  V.messages += 1;
  const done = () => {
    if (header.type === "frame") {
      V.handleMs = performance.now() - t0;
      V.ready = V.map !== null && V.tiles > 0;
    }
    scheduleDraw();
  };
  if (header.type === "map") return onMap(header, blobs, buffer.byteLength).then(done);
  onFrame(header, blobs, buffer.byteLength);
  done();
}

function handleText(msg) {
  V.replies += 1;
  if (msg.type === "hello") {
    V.hello = msg;
    $("title").textContent = "navcore view: " + (msg.scene.name || "world") + " / " + msg.graph;
    fill($("graph"), msg.graphs, msg.graph);
    fill($("algorithm"), ["auto"].concat(msg.algorithms.filter((a) => a !== "auto")), "auto");
    for (const name of MAP_OPTIONS) {
      $("layer-" + name).checked = msg.options[name];
      const offer = $("offer-" + name);
      if (offer) offer.style.display = msg.offers[name] ? "" : "none";
    }
  }
  if (msg.type === "control" || msg.type === "hello") {
    V.playing = msg.playing; V.speed = msg.speed;
    if (msg.ended) V.ended = msg.ended;
    showControls();
  }
  if (msg.type === "path") { V.lastQuery = msg; paintSearched(); showQuery(); scheduleDraw(); }
  if (msg.type === "info") { V.lastInfo = msg; showInfo(); }
  if (msg.type === "options") V.options = msg.options;
  if (msg.type === "options" || msg.type === "hello") V.optionsReplies = (V.optionsReplies || 0) + 1;
  if (msg.type === "error") {
    V.lastError = msg;
    if (msg.op === "path") { V.lastQuery = { error: msg.message }; showQuery(); }
    else $("state").textContent = "error: " + msg.message;
  }
  if (msg.type === "end") { V.ended = msg.why; showControls(); }
}

function fill(select, values, chosen) {
  select.textContent = "";
  for (const v of values) {
    const o = document.createElement("option");
    o.value = o.textContent = String(v);
    if (String(v) === String(chosen)) o.selected = true;
    select.appendChild(o);
  }
}

function send(request) {
  if (socket && socket.readyState === WebSocket.OPEN) {
    request.id = nextId++;
    socket.send(JSON.stringify(request));
  }
}
V.send = send;

// -- drawing -------------------------------------------------------------
// messages only change the state; the picture is drawn once per display
// frame, so a burst of messages (a fast speed) costs one drawing
let drawPending = false;
function scheduleDraw() {
  if (drawPending) return;
  drawPending = true;
  requestAnimationFrame(() => {
    drawPending = false;
    const t0 = performance.now();
    draw();
    V.drawMs.push(performance.now() - t0 + (V.handleMs || 0));
    if (V.drawMs.length > 1000) V.drawMs.shift();
    V.drawn = V.frame;
  });
}

function draw() {
  if (!V.map || !base) return;
  // pixels per map unit (a grid cell, a navmesh unit, a 256th of a road
  // map's degree): line widths and markers, as the PNG renderer sizes them
  const m = V.map, s = m.scale * m.unit;
  ctx.drawImage(base, 0, 0);
  if ($("layer-polygons").checked) ctx.drawImage(edges, 0, 0);
  if ($("layer-search").checked && searched) ctx.drawImage(searched, 0, 0);
  if ($("layer-search").checked) drawIntervals(s);
  const pal = (V.hello && V.hello.palette) || {};
  if ($("layer-paths").checked && V.paths) {
    const [off, pts] = V.paths;
    ctx.strokeStyle = "rgba(255,255,255,0.45)";
    ctx.lineWidth = Math.max(1, s / 6);
    ctx.beginPath();
    for (let a = 0; a + 1 < off.length; a++) {
      if (off[a + 1] - off[a] < 2) continue;
      for (let k = off[a]; k < off[a + 1]; k++) {
        const [x, y] = toPx(pts[2 * k], pts[2 * k + 1]);
        if (k === off[a]) ctx.moveTo(x, y); else ctx.lineTo(x, y);
      }
    }
    ctx.stroke();
  }
  if ($("layer-agents").checked) {
    for (let i = 0; i < V.agents; i++) {
      const [x, y] = toPx(V.pos[2 * i], V.pos[2 * i + 1]);
      const r = Math.max(1.5, V.radius[i] * m.scale);
      const c = pal[V.state[i]] || [255, 255, 255];
      ctx.fillStyle = `rgb(${c[0]},${c[1]},${c[2]})`;
      ctx.beginPath(); ctx.arc(x, y, r, 0, 2 * Math.PI); ctx.fill();
      if (r >= 3) { ctx.strokeStyle = "#000"; ctx.lineWidth = 1; ctx.stroke(); }
    }
  }
  if ($("layer-query").checked) drawQuery(s);
  drawChart();
}

// the intervals of edges an interval search (Polyanya) closed, as
// segments in the search nodes' magenta, over the polygons they lead into
function drawIntervals(s) {
  const q = V.lastQuery, seg = q && q.closed_segments;
  if (!seg || !seg.length) return;
  ctx.strokeStyle = "rgb(235,40,235)"; ctx.lineWidth = Math.max(2, s / 5); ctx.lineCap = "round";
  ctx.beginPath();
  for (let k = 0; k + 3 < seg.length; k += 4) {
    const [x0, y0] = toPx(seg[k], seg[k + 1]), [x1, y1] = toPx(seg[k + 2], seg[k + 3]);
    ctx.moveTo(x0, y0); ctx.lineTo(x1, y1);
  }
  ctx.stroke();
  ctx.lineCap = "butt";
}

function drawQuery(s) {
  const q = V.lastQuery;
  const width = Math.max(2, s / 4);
  if (q && q.points && q.points.length > 1) {
    for (const [colour, w] of [["#fff", width + 2], ["rgb(20,30,150)", width]]) {
      ctx.strokeStyle = colour; ctx.lineWidth = w; ctx.lineJoin = "round";
      ctx.beginPath();
      q.points.forEach((p, k) => { const [x, y] = toPx(p[0], p[1]); k ? ctx.lineTo(x, y) : ctx.moveTo(x, y); });
      ctx.stroke();
    }
  }
  for (const p of pick) {
    const [x, y] = toPx(p[0], p[1]);
    ctx.fillStyle = "rgb(170,0,30)"; ctx.strokeStyle = "#fff"; ctx.lineWidth = 1.5;
    ctx.beginPath(); ctx.arc(x, y, Math.max(3, s / 2.5), 0, 2 * Math.PI); ctx.fill(); ctx.stroke();
  }
}

function drawChart() {
  const c = $("chart"), g = c.getContext("2d");
  g.clearRect(0, 0, c.width, c.height);
  const h = V.history;
  if (!h.length) return;
  const budget = h[h.length - 1].budget_ms;
  const top = Math.max(budget * 1.5, ...h.map((x) => x.updates_ms + x.requests_ms + x.move_ms), 0.1);
  const bw = c.width / CHART_FRAMES, y = (v) => c.height - v / top * c.height;
  h.forEach((st, k) => {
    let at = 0;
    for (const [v, col] of [[st.updates_ms, "#4e8cff"], [st.requests_ms, "#ffa53a"], [st.move_ms, "#59d47a"]]) {
      g.fillStyle = col; g.fillRect(k * bw, y(at + v), Math.max(1, bw - 0.5), y(at) - y(at + v)); at += v;
    }
  });
  g.strokeStyle = "#ff4d4d"; g.setLineDash([4, 3]);
  g.beginPath(); g.moveTo(0, y(budget)); g.lineTo(c.width, y(budget)); g.stroke(); g.setLineDash([]);
  const st = h[h.length - 1];
  $("stats").textContent =
    `total ${st.total_ms.toFixed(2)} ms of ${budget} ms budget\n` +
    `requests served ${st.served}, waiting ${st.waiting}, nodes expanded ${st.expanded}\n` +
    `dirty nodes ${st.dirty}, agents moved ${st.moved}`;
}

// -- text panels -----------------------------------------------------------
function showControls() {
  $("play").textContent = V.playing ? "pause" : "play";
  $("frame").textContent = `frame ${V.frame}` + (V.ended ? ` (${V.ended})` : "");
  $("state").textContent = (V.ended ? V.ended : V.playing ? "playing" : "paused") +
    `, speed x${V.speed}, ${V.agents} agents`;
}
function fmt(v) { return v === null || v === undefined ? "-" : (typeof v === "number" ? +v.toFixed(4) : v); }
function showQuery() {
  const q = V.lastQuery;
  $("query").textContent = !q ? "-" : q.error ? "error: " + q.error :
    `${q.status} (${q.algorithm})\ncost ${q.cost === null ? "inf" : fmt(q.cost)}\n` +
    `nodes expanded ${q.expanded}` + (q.closed_total !== null ? " (search nodes layer)" :
      q.expanded ? `\nsearch nodes not shown: ${q.closed_why}` : "") + `\npath nodes ${q.nodes}\n` +
    `from ${q.from.map(fmt).join(", ")}\nto ${q.to.map(fmt).join(", ")}`;
}
function showInfo() {
  const i = V.lastInfo;
  $("hover").textContent = !i ? "-" :
    `${i.label} of ${i.kind}\narea ${fmt(i.area)}${i.walkable ? "" : " (wall)"}\n` +
    `cheapest edge out ${fmt(i.cost)} (${i.edges} edges)` + (i.at ? `\nat ${i.at.map(fmt).join(", ")}` : "");
}

// -- controls --------------------------------------------------------------
$("play").onclick = () => send({ op: V.playing ? "pause" : "play" });
$("step").onclick = () => send({ op: "step" });
$("speed").onchange = (e) => send({ op: "speed", value: Number(e.target.value) });
$("graph").onchange = (e) => send({ op: "graph", id: e.target.value });
for (const name of MAP_OPTIONS)
  $("layer-" + name).onchange = () => {
    const request = { op: "options" };
    for (const n of MAP_OPTIONS) request[n] = $("layer-" + n).checked;
    send(request);
  };
for (const id of ["layer-polygons", "layer-search", "layer-agents", "layer-paths", "layer-query"])
  $(id).onchange = draw;
document.addEventListener("keydown", (e) => {
  if (e.target.tagName === "SELECT") return;
  if (e.key === " ") { e.preventDefault(); $("play").click(); }
  if (e.key === ".") $("step").click();
});
mapCanvas.addEventListener("click", (e) => {
  if (!V.map) return;
  const [px, py] = eventPixel(e);
  pick = pick.length >= 2 ? [] : pick;
  pick.push(toWorld(px, py));
  if (pick.length === 2) {
    V.lastQuery = null; searched = null;
    send({ op: "path", from: pick[0], to: pick[1], algorithm: $("algorithm").value });
  }
  draw();
});
mapCanvas.addEventListener("mousemove", (e) => {
  if (!V.map) return;
  const [px, py] = eventPixel(e).map(Math.floor);
  hoverNode = (px >= 0 && py >= 0 && px < V.map.width && py < V.map.height) ? nodeAt[py * V.map.width + px] : -1;
});
setInterval(() => {                      // hover asks at most ten times a second
  if (hoverNode !== hoverSent) {
    hoverSent = hoverNode;
    if (hoverNode >= 0) send({ op: "info", node: hoverNode });
    else { V.lastInfo = null; showInfo(); }
  }
}, 100);

// -- the socket -------------------------------------------------------------
function connect() {
  socket = new WebSocket(`ws://${location.host}/ws?token=${encodeURIComponent(token)}`);
  socket.binaryType = "arraybuffer";
  // the server sends the next frame once this one is acknowledged: a page
  // that draws slowly skips frames rather than falling behind
  let unacked = 0;
  socket.onmessage = (ev) => {
    const binary = typeof ev.data !== "string";
    if (binary) unacked += 1;
    chain = chain.then(() => (binary ? handleBinary(ev.data) : handleText(JSON.parse(ev.data))))
                 .catch((err) => { V.errors.push(String(err)); console.error(err); })
                 .then(() => {
                   if (binary && --unacked === 0 && socket.readyState === WebSocket.OPEN)
                     socket.send('{"op":"ack"}');
                 });
  };
  socket.onclose = () => { V.closed = true; showControls();
    $("state").textContent = (V.ended || "disconnected") + " (the server closed)"; };
}
connect();
