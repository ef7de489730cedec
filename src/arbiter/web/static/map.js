// The battle map: one SVG drawn from the state JSON alone, for the GM console and the
// player view (docs/web.md, "The map").
//
// Two shapes, told apart by the creatures' fields, never by the ruleset's name:
// - a grid, when creatures carry `position` ([x, y] or null): squares sized to fit the
//   positions and the terrain with a margin, the terrain the state's `extra` holds (lists of
//   squares, or "x,y" → kind mappings), tokens coloured by side, a ring on the creature whose
//   turn it is, and (GM) a tray of the creatures not on the grid, grouped by `sphere` and
//   `quadrant` when they have them;
// - zones, when creatures carry `zone`: each zone a labelled area (with its neighbours
//   linked, from `extra.zones`), the creatures of one engagement drawn together inside it.
//
// Dragging a token builds a command from the catalogue (each command's declared arguments):
// the creature's own move on its turn (a `squares` path, a `square` destination, or the
// `zone`/`engagement` it declares), else the GM's placing command (a GM command taking just a
// creature and a square), else an override of the field with a reason. While hovering, the
// map asks the server's odds for that command and shows the answer or the refusal; on a
// drop it sends it. Nothing is drawn that the state does not contain.
import { creatureName } from "./ui.js";

const NS = "http://www.w3.org/2000/svg";
const U = 32; // one square (or one token slot) in SVG units
const MIN_COLS = 12;
const MIN_ROWS = 8;
const MARGIN = 2;
const PER_ROW = 5; // token slots per line inside a zone
const SIDES = 8; // colours for sides (CSS .s0 ... .s7)
const PHONE = "(max-width: 760px)";
let uid = 0;

function el(tag, attrs = {}, ...children) {
  const node = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    node.setAttribute(k, String(v));
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return node;
}

function html(tag, cls, text) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined) node.textContent = text;
  return node;
}

const isSquare = (p) => Array.isArray(p) && p.length === 2 && Number.isInteger(p[0]) && Number.isInteger(p[1]);
const same = (a, b) => a && b && a[0] === b[0] && a[1] === b[1];
const key = (p) => `${p[0]},${p[1]}`;
const slug = (text) => String(text).toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "") || "x";

/** Which map a state calls for: "grid", "zones" or null (no positions of any kind). */
export function mapKind(state) {
  const all = Object.values((state && state.entities) || {});
  if (all.some((e) => "position" in e)) return "grid";
  if (all.some((e) => typeof e.zone === "string")) return "zones";
  return null;
}

/** Whether anyone is somewhere on the map (then the map opens by itself). */
export function hasPositions(state) {
  const all = Object.values((state && state.entities) || {});
  const kind = mapKind(state);
  if (kind === "grid") return all.some((e) => isSquare(e.position) || (e.sphere !== undefined && e.sphere !== null));
  return kind === "zones";
}

/** The squares from `a` (left out) to `b`, each one step (straight or diagonal) from the last. */
export function stepsBetween(a, b) {
  const dx = b[0] - a[0];
  const dy = b[1] - a[1];
  const n = Math.max(Math.abs(dx), Math.abs(dy));
  const out = [];
  for (let i = 1; i <= n; i += 1) out.push([a[0] + Math.round((dx * i) / n) || 0, a[1] + Math.round((dy * i) / n) || 0]);
  return out;
}

// Squares the state's `extra` marks: a list of squares under a key ("difficult"), or a
// mapping of "x,y" to a kind ("wall", "window"...). Anything else in `extra` is not terrain.
export function terrainOf(state) {
  const out = [];
  for (const [name, value] of Object.entries((state && state.extra) || {})) {
    if (Array.isArray(value) && value.length && value.every(isSquare)) {
      for (const sq of value) out.push({ x: sq[0], y: sq[1], kind: name });
    } else if (value && typeof value === "object" && !Array.isArray(value)) {
      const entries = Object.entries(value);
      if (entries.length && entries.every(([k, v]) => /^-?\d+,-?\d+$/.test(k) && typeof v === "string")) {
        for (const [k, v] of entries) {
          const [x, y] = k.split(",").map(Number);
          out.push({ x, y, kind: v });
        }
      }
    }
  }
  return out;
}

function args(spec) {
  return Object.entries((spec && spec.args) || {});
}

function requiredOthers(spec, names) {
  return args(spec).filter(([n, a]) => a.required && !names.includes(n));
}

// The command a creature moves itself with: a player command with an actor, taking a path
// of squares (or a square), or the map's own field (`zone`); a "move"-cost one first.
function findMove(commands, fieldKinds) {
  const found = [];
  for (const [name, spec] of Object.entries(commands || {})) {
    if (spec.who !== "player" || spec.actor === "none") continue;
    const arg = args(spec).find(([n, a]) => fieldKinds(n, a));
    if (!arg || requiredOthers(spec, [arg[0]]).length) continue;
    found.push({ name, spec, arg: arg[0], kind: arg[1].kind });
  }
  const rank = (m) => (m.spec.cost === "move" ? 0 : 2) + (m.kind === "squares" ? 0 : 1);
  found.sort((a, b) => rank(a) - rank(b));
  return found[0] || null;
}

// The GM's command that puts a creature somewhere: a GM command taking a creature and a
// location and nothing else.
function findPlace(commands, fieldKinds) {
  for (const [name, spec] of Object.entries(commands || {})) {
    if (spec.who !== "gm" || spec.actor !== "none") continue;
    const list = args(spec);
    if (list.length !== 2) continue;
    const who = list.find(([, a]) => a.kind === "creature" && a.required);
    const where = list.find(([n, a]) => fieldKinds(n, a));
    if (who && where) return { name, spec, who: who[0], arg: where[0], kind: where[1].kind, optional: !where[1].required };
  }
  return null;
}

function oddsText(odds) {
  const parts = [];
  const walk = (prefix, v) => {
    if (parts.length >= 6) return;
    if (v && typeof v === "object" && ("percent" in v || "float" in v)) {
      parts.push(`${prefix} ${"percent" in v ? `${v.percent}%` : Number(v.float.toFixed(2))}`);
    } else if (v && typeof v === "object") {
      for (const [k, w] of Object.entries(v)) walk(prefix ? `${prefix} ${k}` : k, w);
    } else if (v !== null && v !== undefined) {
      parts.push(`${prefix} ${v}`);
    }
  };
  walk("", odds);
  return parts.map((p) => p.replace(/_/g, " ")).join(" · ");
}

const noOdds = (message) => /computes no odds|no odds for/.test(String(message));

export class BattleMap {
  /**
   * panel: a <details> holding an element `.mapbody`.
   * opts.role: "gm" or "player"; opts.commands: the catalogue the page may use;
   * opts.odds(command) and opts.submit(command): promises (the server's answers).
   */
  constructor(panel, opts) {
    this.panel = panel;
    this.body = panel.querySelector(".mapbody");
    this.role = opts.role;
    this.commands = opts.commands || {};
    this.odds = opts.odds;
    this.submit = opts.submit;
    this.state = null;
    this.id = `map${++uid}`;
    this.tokens = new Map();
    this.sideColour = new Map();
    this.drag = null;
    this.touched = false;
    this.gridKey = "";
    this.terrainKey = "";
    this.build();
    panel.querySelector("summary").addEventListener("click", () => { this.touched = true; });
    panel.addEventListener("toggle", () => { if (panel.open) this.draw(); });
  }

  build() {
    this.info = html("p", "mapinfo");
    this.info.setAttribute("aria-live", "polite");
    this.error = html("p", "error");
    this.error.setAttribute("role", "alert");
    this.svg = el("svg", { class: "battlemap", role: "img", "aria-label": "battle map" });
    this.defs = el("defs", {},
      el("pattern", { id: `${this.id}-hatch`, width: 8, height: 8, patternUnits: "userSpaceOnUse", patternTransform: "rotate(45)" },
        el("line", { x1: 0, y1: 0, x2: 0, y2: 8, class: "hatch" })));
    this.layers = {};
    this.svg.append(this.defs);
    for (const name of ["ground", "terrain", "links", "areas", "path", "tokens"]) {
      this.layers[name] = el("g", { class: `layer-${name}` });
      this.svg.append(this.layers[name]);
    }
    this.scroll = html("div", "mapscroll");
    this.scroll.append(this.svg);
    this.legend = html("div", "maplegend");
    this.note = html("p", "mapnote muted");
    this.body.replaceChildren(this.info, this.scroll, this.error, this.legend, this.note);
    this.svg.addEventListener("pointerdown", (e) => this.down(e));
    this.svg.addEventListener("pointermove", (e) => this.move(e));
    this.svg.addEventListener("pointerup", (e) => this.up(e));
    this.svg.addEventListener("pointercancel", () => this.cancel());
    this.svg.addEventListener("lostpointercapture", () => { if (this.drag && !this.drag.dropping) this.cancel(); });
    document.addEventListener("keydown", (e) => { if (e.key === "Escape" && this.drag) this.cancel(); });
  }

  /** A new encounter: forget the choices made for the last one. */
  reset() {
    this.touched = false;
    this.state = null;
    this.drag = null;
    this.sideColour.clear();
    for (const g of this.tokens.values()) g.remove();
    this.tokens.clear();
    this.gridKey = "";
    this.terrainKey = "";
    this.error.textContent = "";
    delete this.info.dataset.keep;
    this.say("");
  }

  setCommands(commands) {
    this.commands = commands || {};
  }

  update(state) {
    if (this.state && state && state.version !== this.state.version && !this.drag) delete this.info.dataset.keep;
    this.state = state;
    const kind = mapKind(state);
    this.panel.hidden = !kind;
    if (!kind) return;
    if (!this.touched) {
      const want = hasPositions(state) && !window.matchMedia(PHONE).matches;
      if (this.panel.open !== want) this.panel.open = want;
    }
    if (this.drag) return; // drawn again when the drag ends
    this.draw();
  }

  // -- drawing --------------------------------------------------------------------------
  draw() {
    const st = this.state;
    if (!st || !this.panel.open) return;
    this.kind = mapKind(st);
    this.laidOut = new Map(); // id -> {x, y} centre in SVG units
    if (this.kind === "grid") this.drawGrid(st);
    else if (this.kind === "zones") this.drawZones(st);
    this.drawTokens(st);
    this.drawLegend(st);
  }

  colour(side) {
    const name = side || "(no side)";
    if (!this.sideColour.has(name)) this.sideColour.set(name, this.sideColour.size % SIDES);
    return this.sideColour.get(name);
  }

  footprint(e) {
    return Array.isArray(e.footprint) && e.footprint.every(isSquare) ? e.footprint : [[0, 0]];
  }

  drawGrid(st) {
    const all = Object.values(st.entities);
    const placed = all.filter((e) => isSquare(e.position));
    const terrain = terrainOf(st);
    const xs = [];
    const ys = [];
    for (const e of placed) for (const [dx, dy] of this.footprint(e)) { xs.push(e.position[0] + dx); ys.push(e.position[1] + dy); }
    for (const t of terrain) { xs.push(t.x); ys.push(t.y); }
    let minX = 0, minY = 0, maxX = MIN_COLS - 1, maxY = MIN_ROWS - 1;
    if (xs.length) {
      minX = Math.min(...xs) - MARGIN; maxX = Math.max(...xs) + MARGIN;
      minY = Math.min(...ys) - MARGIN; maxY = Math.max(...ys) + MARGIN;
      // Squares from 0 up stay from 0 up; the origin stays in view when it is near.
      if (minX + MARGIN >= 0 && minX <= MARGIN) minX = 0;
      if (minY + MARGIN >= 0 && minY <= MARGIN) minY = 0;
      if (maxX - minX + 1 < MIN_COLS) maxX = minX + MIN_COLS - 1;
      if (maxY - minY + 1 < MIN_ROWS) maxY = minY + MIN_ROWS - 1;
    }
    const cols = maxX - minX + 1;
    const rows = maxY - minY + 1;
    this.grid = { minX, minY, cols, rows };
    // Off the grid: grouped by sphere (and quadrant) when the creature has one, else the
    // GM's tray; a creature whose position the state does not give is only named below.
    const off = all.filter((e) => "position" in e && !isSquare(e.position));
    const groups = new Map();
    for (const e of off) {
      const where = e.sphere ? `${e.sphere} sphere${e.quadrant ? ` · ${e.quadrant}` : ""}` : "not on the grid";
      if (!groups.has(where)) groups.set(where, []);
      groups.get(where).push(e.id);
    }
    const perLine = Math.max(cols - 1, 4);
    let y = rows * U + U * 0.4;
    this.trays = [];
    for (const [label, ids] of groups) {
      const lines = Math.ceil(ids.length / perLine);
      this.trays.push({ label, ids, y, height: U * (0.7 + lines) });
      ids.forEach((id, i) => this.laidOut.set(id, { x: (i % perLine) * U + U, y: y + U * 0.7 + Math.floor(i / perLine) * U + U / 2 }));
      y += U * (0.9 + lines);
    }
    const height = this.trays.length ? y : rows * U;
    this.size(cols * U, height, cols);
    for (const e of placed) {
      const [px, py] = e.position;
      this.laidOut.set(e.id, { x: (px - minX) * U + U / 2, y: (py - minY) * U + U / 2, square: [px, py] });
    }
    const gridKey = `${minX},${minY},${cols},${rows}|${this.trays.map((t) => `${t.label}:${t.ids.length}`).join(";")}`;
    if (gridKey !== this.gridKey) {
      this.gridKey = gridKey;
      const cell = `${this.id}-cell`;
      this.defs.querySelector(`#${cell}`)?.remove();
      this.defs.append(el("pattern", { id: cell, width: U, height: U, patternUnits: "userSpaceOnUse" },
        el("path", { d: `M ${U} 0 L 0 0 0 ${U}`, class: "gridline" })));
      const labels = [];
      for (let x = minX; x <= maxX; x += 1) {
        if (x % 5 === 0 || x === minX) labels.push(el("text", { x: (x - minX) * U + 3, y: 9, class: "coord" }, x));
      }
      for (let yy = minY; yy <= maxY; yy += 1) {
        if ((yy % 5 === 0 || yy === minY) && yy !== minY) labels.push(el("text", { x: 3, y: (yy - minY) * U + 9, class: "coord" }, yy));
      }
      this.layers.ground.replaceChildren(...[
        el("rect", { x: 0, y: 0, width: cols * U, height: rows * U, class: "board" }),
        el("rect", { x: 0, y: 0, width: cols * U, height: rows * U, fill: `url(#${cell})` }),
        el("rect", { x: 0, y: 0, width: cols * U, height: rows * U, class: "boardedge" }),
        labels,
        this.trays.map((t) => [
          el("rect", { x: 0, y: t.y, width: cols * U, height: t.height, rx: 6, class: "tray" }),
          el("text", { x: 6, y: t.y + U * 0.5, class: "traylabel" },
            t.label === "not on the grid" && this.role === "gm" ? "not on the grid: drag onto a square to place" : t.label),
        ])].flat(2));
    }
    const terrainKey = JSON.stringify(terrain) + gridKey;
    if (terrainKey !== this.terrainKey) {
      this.terrainKey = terrainKey;
      this.layers.terrain.replaceChildren(...terrain.map((t) => el("rect", {
        x: (t.x - minX) * U, y: (t.y - minY) * U, width: U, height: U,
        class: `terrain t-${slug(t.kind)}`, fill: /wall|window|smoke/.test(t.kind) ? null : `url(#${this.id}-hatch)`,
      }, el("title", {}, `${t.kind} (${t.x}, ${t.y})`))));
    }
    this.layers.links.replaceChildren();
    this.layers.areas.replaceChildren();
    const unknown = all.filter((e) => !("position" in e)).map((e) => e.name || e.id);
    this.note.textContent = unknown.length
      ? `Not on this map (the server does not tell you where they are): ${unknown.join(", ")}.` : "";
  }

  size(width, height, cols) {
    this.svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
    // A square is 14 to 40 pixels: a wide map scrolls sideways, a small one stays small.
    this.svg.style.minWidth = `${Math.round((width / U) * 14)}px`;
    this.svg.style.maxWidth = `${Math.round((width / U) * 40)}px`;
    this.svg.dataset.cols = String(cols);
  }

  drawZones(st) {
    const all = Object.values(st.entities).filter((e) => typeof e.zone === "string");
    const known = (st.extra && st.extra.zones && typeof st.extra.zones === "object") ? st.extra.zones : {};
    const order = [];
    const add = (z) => { if (typeof z === "string" && !order.includes(z)) order.push(z); };
    for (const e of all) {
      add(e.zone);
      for (let i = 0; i < order.length; i += 1) for (const n of (known[order[i]] || {}).adjacent || []) add(n);
    }
    for (const z of Object.keys(known)) {
      add(z);
      for (let i = 0; i < order.length; i += 1) for (const n of (known[order[i]] || {}).adjacent || []) add(n);
    }
    // Other mappings of `extra` keyed by zone (lights...) become tags on the zone.
    const tags = {};
    for (const [name, value] of Object.entries(st.extra || {})) {
      if (name === "zones" || !value || typeof value !== "object" || Array.isArray(value)) continue;
      const ks = Object.keys(value);
      if (ks.length && ks.every((k) => order.includes(k))) for (const k of ks) (tags[k] ||= []).push(name.replace(/_/g, " "));
    }
    const n = order.length;
    const cols = n <= 1 ? 1 : n <= 4 ? 2 : 3;
    const PAD = U * 0.35;
    const HEAD = U * 0.85;
    const GAP = U * 1.1;
    const width = PER_ROW * U + 2 * PAD;
    // Lay out each zone's engagements (creatures sharing `engagement` are drawn together).
    const inner = new Map();
    for (const z of order) {
      const clusters = new Map();
      for (const e of all.filter((c) => c.zone === z)) {
        const k = e.engagement ?? e.group ?? e.id;
        if (!clusters.has(k)) clusters.set(k, []);
        clusters.get(k).push(e.id);
      }
      let cx = 0, line = 0;
      const spots = [];
      const boxes = [];
      for (const [eng, ids] of clusters) {
        if (cx > 0 && cx + Math.min(ids.length, PER_ROW) > PER_ROW + 0.01) { cx = 0; line += 1; }
        const first = { cx, line };
        ids.forEach((id, i) => {
          if (i > 0 && cx + 1 > PER_ROW + 0.01) { cx = 0; line += 1; }
          spots.push({ id, cx, line });
          cx += 1;
        });
        boxes.push({ eng, ids, first, last: { cx: cx - 1, line } });
        cx += 0.4;
      }
      inner.set(z, { spots, boxes, lines: Math.max(line + 1, 2) });
    }
    const rowsOf = [];
    order.forEach((z, i) => {
      const r = Math.floor(i / cols);
      rowsOf[r] = Math.max(rowsOf[r] || 0, HEAD + inner.get(z).lines * U + PAD);
    });
    const rowY = [];
    let y = 0;
    rowsOf.forEach((hgt, r) => { rowY[r] = y; y += hgt + GAP; });
    this.zoneBoxes = new Map();
    const boxesEls = [];
    order.forEach((z, i) => {
      const r = Math.floor(i / cols);
      const x0 = (i % cols) * (width + GAP);
      const y0 = rowY[r];
      const info = known[z] || {};
      const box = { zone: z, x: x0, y: y0, w: width, h: rowsOf[r], clusters: [] };
      this.zoneBoxes.set(z, box);
      const { spots, boxes } = inner.get(z);
      for (const s of spots) this.laidOut.set(s.id, { x: x0 + PAD + s.cx * U + U / 2, y: y0 + HEAD + s.line * U + U / 2, zone: z });
      const tagText = [info.indoor ? "indoors" : null, ...(tags[z] || [])].filter(Boolean).join(" · ");
      const rings = [];
      for (const b of boxes) {
        const top = y0 + HEAD + b.first.line * U;
        const multi = b.first.line !== b.last.line;
        const bx = x0 + PAD + (multi ? 0 : b.first.cx * U);
        const bw = multi ? PER_ROW * U : (b.last.cx - b.first.cx + 1) * U;
        const bh = (b.last.line - b.first.line + 1) * U;
        box.clusters.push({ engagement: b.eng, ids: b.ids, x: bx, y: top, w: bw, h: bh });
        if (b.ids.length > 1) rings.push(el("rect", { x: bx + 1, y: top + 1, width: bw - 2, height: bh - 2, rx: U / 2, class: "engagement" }, el("title", {}, `engaged: ${b.ids.map((id) => creatureName(st, id)).join(", ")}`)));
      }
      boxesEls.push(el("g", { class: `zone${info.indoor ? " indoor" : ""}`, "data-zone": z },
        el("rect", { x: x0, y: y0, width, height: rowsOf[r], rx: 10, class: "zonebox" }),
        el("text", { x: x0 + PAD, y: y0 + HEAD * 0.62, class: "zonelabel" }, z),
        tagText ? el("text", { x: x0 + width - PAD, y: y0 + HEAD * 0.62, class: "zonetag", "text-anchor": "end" }, tagText) : null,
        rings));
    });
    const links = [];
    const drawn = new Set();
    for (const [z, info] of Object.entries(known)) {
      for (const other of info.adjacent || []) {
        const pair = [z, other].sort().join("|");
        const a = this.zoneBoxes.get(z);
        const b = this.zoneBoxes.get(other);
        if (drawn.has(pair) || !a || !b || z === other) continue;
        drawn.add(pair);
        links.push(el("line", { x1: a.x + a.w / 2, y1: a.y + a.h / 2, x2: b.x + b.w / 2, y2: b.y + b.h / 2, class: "adjacent" }, el("title", {}, `${z} and ${other} are next to each other`)));
      }
    }
    const totalW = Math.max(cols * width + (cols - 1) * GAP, width);
    this.size(totalW, Math.max(y - GAP, U * 3), 0);
    this.layers.ground.replaceChildren();
    this.layers.terrain.replaceChildren();
    this.gridKey = "";
    this.terrainKey = "";
    this.layers.links.replaceChildren(...links);
    this.layers.areas.replaceChildren(...boxesEls);
    const unknown = Object.values(st.entities).filter((e) => typeof e.zone !== "string").map((e) => e.name || e.id);
    this.note.textContent = unknown.length
      ? `Not on this map (the server does not tell you where they are): ${unknown.join(", ")}.` : "";
  }

  initials(st) {
    const ids = Object.keys(st.entities);
    const words = (id) => String(creatureName(st, id)).replace(/['’]s\b/g, "").replace(/[^\p{L}\p{N}\s]/gu, " ").split(/\s+/).filter(Boolean);
    const one = new Map(ids.map((id) => [id, (words(id)[0] || id)[0].toUpperCase()]));
    const count = (m) => { const c = new Map(); for (const v of m.values()) c.set(v, (c.get(v) || 0) + 1); return c; };
    let seen = count(one);
    const two = new Map(ids.map((id) => {
      if (seen.get(one.get(id)) === 1) return [id, one.get(id)];
      const w = words(id);
      return [id, ((w[0] || id)[0] + (w[1] ? w[1][0] : (w[0] || id)[1] || "")).toUpperCase()];
    }));
    seen = count(two);
    const out = new Map();
    const used = new Map();
    for (const id of ids) {
      let label = two.get(id);
      if (seen.get(label) > 1) {
        const k = (used.get(label) || 0) + 1;
        used.set(label, k);
        label = `${label[0]}${k}`;
      }
      out.set(id, label);
    }
    return out;
  }

  drawTokens(st) {
    const labels = this.initials(st);
    const sizes = ["tiny", "small"];
    const gone = new Set(this.tokens.keys());
    for (const e of Object.values(st.entities)) {
      const at = this.laidOut.get(e.id);
      if (!at) continue;
      gone.delete(e.id);
      let g = this.tokens.get(e.id);
      if (!g) {
        g = el("g", { class: "tok", "data-id": e.id },
          el("circle", { class: "turnring", r: U * 0.5 }),
          el("circle", { class: "body", r: U * 0.4 }),
          el("text", { class: "ini", "text-anchor": "middle", dy: "0.35em" }),
          el("text", { class: "badge", x: U * 0.42, y: -U * 0.3, "text-anchor": "middle" }),
          el("title"));
        this.tokens.set(e.id, g);
      }
      this.layers.tokens.append(g); // document order = drawing order: keep the state's
      const current = st.in_combat && st.current === e.id;
      const down = e.dead === true || e.down === true || e.status === "down"
        || (typeof e.health === "number" && typeof e.health_max === "number" && e.health <= 0);
      const classes = ["tok", `s${this.colour(e.side)}`];
      if (current) classes.push("current");
      if (e.hidden) classes.push("hid");
      if (down) classes.push("down");
      if (this.canDrag(e.id)) classes.push("movable");
      if (st.characters && st.characters.includes(e.id)) classes.push("mine");
      g.setAttribute("class", classes.join(" "));
      g.setAttribute("transform", `translate(${at.x} ${at.y})`);
      g.setAttribute("aria-label", e.name || e.id);
      g.querySelector(".body").setAttribute("r", String(U * (sizes.includes(e.size) ? (e.size === "tiny" ? 0.28 : 0.34) : 0.4)));
      g.querySelector(".ini").textContent = labels.get(e.id);
      const badge = [];
      if (typeof e.altitude === "number" && e.altitude > 0) badge.push(`↑${e.altitude}`);
      g.querySelector(".badge").textContent = badge.join(" ");
      const where = at.square ? ` · (${at.square[0]}, ${at.square[1]})` : at.zone ? ` · ${at.zone}` : "";
      const facts = [e.side, e.size && e.size !== "medium" ? e.size : null, e.altitude ? `altitude ${e.altitude}` : null,
        e.hidden ? "hidden from players" : null, current ? "its turn" : null].filter(Boolean);
      g.querySelector("title").textContent = `${e.name || e.id}${where}${facts.length ? ` · ${facts.join(", ")}` : ""}`;
    }
    for (const id of gone) {
      this.tokens.get(id).remove();
      this.tokens.delete(id);
    }
  }

  drawLegend(st) {
    const items = [];
    const sides = [...new Set(Object.values(st.entities).filter((e) => this.laidOut.has(e.id)).map((e) => e.side || "(no side)"))];
    for (const side of sides) {
      const chip = html("span", `lg s${this.colour(side === "(no side)" ? null : side)}`);
      chip.append(html("i", "dot"), side);
      items.push(chip);
    }
    if (this.kind === "grid") {
      for (const kind of [...new Set(terrainOf(st).map((t) => t.kind))]) {
        const chip = html("span", `lg t-${slug(kind)}`);
        chip.append(html("i", "sq"), kind);
        items.push(chip);
      }
    }
    this.legend.replaceChildren(...items);
    if (!this.drag && !this.info.dataset.keep) this.idle();
  }

  // The info line when nothing is dragged: what a drag does here.
  idle() {
    const st = this.state;
    let text = "Drag a token: whose turn it is moves; anyone else is placed (Shift: place it too).";
    if (this.role !== "gm") {
      const mine = (st.characters || []).filter((id) => st.entities[id]);
      text = mine.some((id) => this.canDrag(id)) ? "Your turn: drag your character to move it."
        : "On your character's turn, drag it to move it.";
    }
    this.say(text, "mapinfo idle");
  }

  say(text, cls = "mapinfo") {
    this.info.textContent = text;
    this.info.title = text;
    this.info.className = cls;
  }

  // -- what a drag means ----------------------------------------------------------------
  gridFields(n, a) {
    return a.kind === "squares" || a.kind === "square";
  }

  zoneFields(n) {
    return n === "zone";
  }

  moveSpec() {
    return findMove(this.commands, this.kind === "grid" ? this.gridFields : this.zoneFields);
  }

  placeSpec() {
    return this.role === "gm" ? findPlace(this.commands, this.kind === "grid" ? (n, a) => a.kind === "square" : this.zoneFields) : null;
  }

  canDrag(id) {
    const st = this.state;
    const e = st && st.entities[id];
    if (!e) return false;
    if (this.role === "gm") return true;
    const where = this.kind === "grid" ? isSquare(e.position) : typeof e.zone === "string";
    return Boolean(st.characters && st.characters.includes(id) && st.in_combat && st.current === id && where && this.moveSpec());
  }

  // The command for dropping `id` on `target` ({square} or {zone, engagement} or {tray}),
  // with how it reads; or {none: why}.
  plan(id, target, shift) {
    const st = this.state;
    const e = st.entities[id];
    const name = creatureName(st, id);
    const placed = this.kind === "grid" ? isSquare(e.position) : typeof e.zone === "string";
    const own = st.in_combat && st.current === id && placed && !(shift && this.role === "gm");
    if (this.kind === "grid") {
      if (target.tray) {
        if (!placed) return { none: "" };
        const place = this.placeSpec();
        if (place && place.optional) return { command: { do: place.name, [place.who]: id }, text: `${name}: off the grid` };
        return { command: this.override(id, "position", null), text: `${name}: off the grid (override)` };
      }
      const sq = target.square;
      if (own || this.role !== "gm") {
        const move = this.moveSpec();
        if (!move) return { none: "this ruleset declares no command to move on the grid" };
        const command = { do: move.name, actor: id };
        command[move.arg] = move.kind === "squares" ? this.drag.path.map((p) => [p[0], p[1]]) : [sq[0], sq[1]];
        if (move.kind === "squares" && !this.drag.path.length) return { none: "" };
        const diag = move.kind === "squares" ? this.diagonals() : 0;
        const steps = move.kind === "squares" ? `: ${this.drag.path.length} step${this.drag.path.length === 1 ? "" : "s"}${diag ? ` (${diag} diagonal)` : ""}` : "";
        return { command, move: true, text: `${name} moves to (${sq[0]}, ${sq[1]})${steps}` };
      }
      const place = this.placeSpec();
      if (place) return { command: { do: place.name, [place.who]: id, [place.arg]: [sq[0], sq[1]] }, text: `${name} is placed at (${sq[0]}, ${sq[1]})` };
      return { command: this.override(id, "position", [sq[0], sq[1]]), text: `${name} is placed at (${sq[0]}, ${sq[1]}) (override)` };
    }
    // zones: the zone, and the engagement when dropped on other creatures
    const changes = {};
    if (target.zone !== e.zone) changes.zone = target.zone;
    if (target.engagement !== undefined && target.engagement !== e.engagement) changes.engagement = target.engagement;
    if (!Object.keys(changes).length) return { none: "" };
    const joined = changes.engagement !== undefined ? ` (engaging ${target.ids.map((x) => creatureName(st, x)).join(", ")})` : "";
    if (own || this.role !== "gm") {
      const move = this.moveSpec();
      if (!move) return { none: "this ruleset declares no command to move between zones" };
      const command = { do: move.name, actor: id };
      for (const [k, v] of Object.entries(changes)) if (k === move.arg || (move.spec.args && move.spec.args[k])) command[k] = v;
      return { command, move: true, text: `${name} moves to ${target.zone}${joined}` };
    }
    const place = this.placeSpec();
    if (place && changes.engagement === undefined) return { command: { do: place.name, [place.who]: id, [place.arg]: target.zone }, text: `${name} is placed in ${target.zone}` };
    const overrides = Object.entries(changes).map(([k, v]) => this.override(id, k, v));
    const command = overrides.length === 1 || !this.commands.batch ? overrides[0] : { do: "batch", commands: overrides };
    return { command, text: `${name} is put in ${target.zone}${joined} (override)` };
  }

  override(id, field, value) {
    return { do: "override", path: `${id}.${field}`, value, reason: "placed on the map by the game master" };
  }

  diagonals() {
    let n = 0;
    let prev = this.drag.origin;
    for (const p of this.drag.path) {
      if (p[0] !== prev[0] && p[1] !== prev[1]) n += 1;
      prev = p;
    }
    return n;
  }

  // -- pointer --------------------------------------------------------------------------
  point(e) {
    const m = this.svg.getScreenCTM();
    if (!m) return { x: 0, y: 0 };
    const p = new DOMPoint(e.clientX, e.clientY).matrixTransform(m.inverse());
    return { x: p.x, y: p.y };
  }

  targetAt(p) {
    if (this.kind === "grid") {
      const { minX, minY, cols, rows } = this.grid;
      if (p.y >= rows * U) return this.role === "gm" && p.x >= 0 && p.x <= cols * U ? { tray: true } : null;
      const x = Math.min(Math.max(Math.floor(p.x / U), 0), cols - 1) + minX;
      const y = Math.min(Math.max(Math.floor(p.y / U), 0), rows - 1) + minY;
      return { square: [x, y] };
    }
    for (const box of this.zoneBoxes.values()) {
      if (p.x < box.x || p.x > box.x + box.w || p.y < box.y || p.y > box.y + box.h) continue;
      const c = box.clusters.find((k) => p.x >= k.x && p.x <= k.x + k.w && p.y >= k.y && p.y <= k.y + k.h
        && !(k.ids.length === 1 && k.ids[0] === this.drag.id));
      return c ? { zone: box.zone, engagement: c.engagement, ids: c.ids.filter((i) => i !== this.drag.id) } : { zone: box.zone };
    }
    return null;
  }

  down(e) {
    const g = e.target.closest && e.target.closest(".tok");
    if (!g || e.button > 0 || this.drag) return;
    const id = g.dataset.id;
    if (!this.canDrag(id)) return;
    const ent = this.state.entities[id];
    e.preventDefault();
    this.svg.setPointerCapture(e.pointerId);
    const at = this.laidOut.get(id);
    this.drag = {
      id, g, pointer: e.pointerId, start: { x: e.clientX, y: e.clientY }, from: at, moved: false,
      origin: this.kind === "grid" && isSquare(ent.position) ? [ent.position[0], ent.position[1]] : null,
      path: [], target: null, seq: 0, timer: null,
    };
    g.classList.add("dragging");
    delete this.info.dataset.keep;
    this.error.textContent = "";
  }

  move(e) {
    const d = this.drag;
    if (!d || e.pointerId !== d.pointer || d.dropping) return;
    if (!d.moved && Math.hypot(e.clientX - d.start.x, e.clientY - d.start.y) < 4) return;
    d.moved = true;
    const p = this.point(e);
    d.g.setAttribute("transform", `translate(${p.x} ${p.y})`);
    const target = this.targetAt(p);
    if (JSON.stringify(target) === JSON.stringify(d.target)) return;
    d.target = target;
    if (target && target.square && d.origin) this.extendPath(target.square);
    this.showTarget(e.shiftKey);
  }

  extendPath(sq) {
    const d = this.drag;
    const last = d.path.length ? d.path[d.path.length - 1] : d.origin;
    if (same(sq, last)) return;
    for (const p of stepsBetween(last, sq)) {
      if (same(p, d.origin)) { d.path = []; continue; }
      const i = d.path.findIndex((q) => same(q, p));
      if (i >= 0) d.path = d.path.slice(0, i + 1);
      else d.path.push(p);
    }
  }

  showTarget(shift) {
    const d = this.drag;
    const top = this.layers.path;
    top.replaceChildren();
    this.highlight(null);
    const target = d.target;
    if (!target) {
      this.say(`${creatureName(this.state, d.id)}: drop it on the map`);
      return;
    }
    const plan = this.plan(d.id, target, shift);
    d.plan = plan;
    if (this.kind === "grid" && target.square) {
      const { minX, minY } = this.grid;
      const c = (p) => `${(p[0] - minX) * U + U / 2},${(p[1] - minY) * U + U / 2}`;
      if (plan.move && d.origin) {
        const route = this.moveSpec().kind === "squares" ? [d.origin, ...d.path] : [d.origin, target.square];
        top.append(el("polyline", { points: route.map(c).join(" "), class: "route" }));
      }
      top.append(el("rect", { x: (target.square[0] - minX) * U + 1, y: (target.square[1] - minY) * U + 1, width: U - 2, height: U - 2, rx: 3, class: "aim", "data-square": key(target.square) }));
    } else if (target.zone) {
      this.highlight(target.zone);
    }
    if (plan.none !== undefined) {
      this.say(plan.none || `${creatureName(this.state, d.id)} stays where it is`);
      return;
    }
    this.say(plan.text);
    clearTimeout(d.timer);
    if (!plan.move || !this.odds) return;
    const seq = ++d.seq;
    d.timer = setTimeout(async () => {
      let text;
      let cls = "mapinfo";
      try {
        const out = await this.odds(plan.command);
        text = oddsText(out.odds) || "the rules allow it";
        cls = "mapinfo ok";
      } catch (err) {
        if (noOdds(err.message)) text = "no cost preview (the rules check it on the drop)";
        else { text = `refused: ${err.message}`; cls = "mapinfo bad"; }
      }
      if (!this.drag || this.drag !== d || d.seq !== seq) return;
      this.say(`${plan.text} · ${text}`, cls);
      const aim = top.querySelector(".aim");
      if (aim) aim.classList.add(cls.includes("bad") ? "bad" : cls.includes("ok") ? "ok" : "unknown");
    }, 90);
  }

  highlight(zone) {
    for (const g of this.layers.areas.querySelectorAll(".zone")) g.classList.toggle("over", g.dataset.zone === zone);
  }

  async up(e) {
    const d = this.drag;
    if (!d || e.pointerId !== d.pointer || d.dropping) return;
    if (!d.moved) { this.cancel(); return; }
    d.dropping = true;
    clearTimeout(d.timer);
    const plan = d.target ? this.plan(d.id, d.target, e.shiftKey) : { none: "" };
    if (!plan.command) { this.cancel(plan.none ? plan.none : ""); return; }
    d.g.classList.add("pending");
    this.say(`${plan.text}…`);
    this.info.dataset.keep = "1"; // the outcome stays until the next change
    try {
      await this.submit(plan.command);
      this.say(`Done: ${plan.text}`, "mapinfo ok");
      this.error.textContent = "";
    } catch (err) {
      this.error.textContent = err.message;
      this.say(`${plan.text}: refused (the reason is below the map)`, "mapinfo bad");
    }
    this.end();
  }

  cancel(message) {
    if (!this.drag) return;
    clearTimeout(this.drag.timer);
    if (message) {
      this.say(message);
      this.info.dataset.keep = "1";
    }
    this.end();
  }

  end() {
    const d = this.drag;
    this.drag = null;
    if (d) {
      d.g.classList.remove("dragging", "pending");
      try { this.svg.releasePointerCapture(d.pointer); } catch { /* already released */ }
    }
    this.layers.path.replaceChildren();
    this.highlight(null);
    this.draw();
  }
}
