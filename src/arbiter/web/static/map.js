// @ts-check
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
// map asks the server's odds for that command and shows the answer (for a move: its cost,
// what is left after it and what it triggers) or the refusal; on a drop it sends it.
// Nothing is drawn that the state does not contain: what the rules add (footprints, reach,
// lines of sight, range bands) comes in the state's `map` block, computed by the ruleset
// for the creatures the reader sees.
//
// A click selects a token (default: whose turn it is). Toggles above the map draw, from the
// selected creature: reach and threatened squares, lines of sight, and an area template
// whose chances for each creature come from the server's odds (a weapon with an area, then
// a click on a creature or a zone). The GM also paints terrain, describes zones and draws
// them on the scene's image (the commands the ruleset declares with the roles `paint`,
// `zone` and `region`): each is a command in the encounter's log, undone like any other.
import { creatureName, errorText } from "./ui.js";
import {
  areaCommand, areaHits, areaWeapons, boardBounds, cellsOf, footprintOf, isSquare, percent, reachSquares, roleCommand,
  sameSquare as same, squareKey as key, terrainOf, toolCommand,
} from "./board.js";
import { gridDistance, gridText, latestAsker, lineSteps, rulerWeapons, weaponText, zoneDistance, zoneText } from "./ruler.js";

/**
 * @typedef {import("./ui.js").Json} Json
 * @typedef {import("./board.js").Square} Square
 * @typedef {{role: string, commands?: import("./board.js").Catalogue, display?: import("./board.js").Display,
 *   odds: (command: Json) => Promise<Json>, submit: (command: Json) => Promise<Json>,
 *   onTap?: ((id: string) => void)|null, image?: ((hash: string) => Promise<Blob>)|null,
 *   picture?: ((hash: string) => Promise<Blob>)|null, onPicture?: ((hash: string) => void)|null}} MapOptions
 *   what a page gives its map: its role, the catalogue, the server's odds and submit, and
 *   the images' bytes
 */

const NS = "http://www.w3.org/2000/svg";
const U = 32; // one square (or one token slot) in SVG units
const PER_ROW = 5; // token slots per line inside a zone
const SIDES = 8; // colours for sides (CSS .s0 ... .s7)
const PHONE = "(max-width: 760px)";
/** @type {Record<string, string>} */
const BANDS = { engagement: "eng.", short: "short", medium: "med.", long: "long" };
let uid = 0;

// The overlays' own look, kept with the code that draws them (one constructed style sheet
// per page: the Content-Security-Policy forbids <style> elements, not the CSSOM).
const STYLE = `
.maptools { display: flex; flex-wrap: wrap; gap: 4px 6px; align-items: center; font-size: .8rem; }
.maptools[hidden], .maptools [hidden] { display: none; }
.maptools button { font-size: .8rem; padding: 1px 8px; }
.maptools button[aria-pressed=true] { background: var(--accent-2); color: #fff; border-color: var(--accent-2); }
.maptools select, .maptools input[type=text] { font-size: .8rem; padding: 1px 4px; max-width: 12em; }
.maptools .toolsub { display: inline-flex; gap: 4px; align-items: center; flex-wrap: wrap; }
.maptools .toolsub label.check { flex: none; color: inherit; }
.maptools .fog-vision input { width: 4em; font-size: .8rem; padding: 1px 4px; }
/* a line kept for a drag's warnings, empty or not: the board under the pointer never moves */
.maptriggers { font-size: .85rem; margin: 0; color: var(--bad); font-weight: 600; height: 1.4em; line-height: 1.4em; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.battlemap .tok .foot { stroke: #fff; stroke-width: 2; fill-opacity: .45; }
.battlemap .tok .band { font-size: 8px; font-weight: 700; fill: var(--accent-2); pointer-events: none; paint-order: stroke; stroke: #fff; stroke-width: 3px; }
.battlemap .tok .chance { font-size: 8px; font-weight: 700; fill: #7a1d12; pointer-events: none; paint-order: stroke; stroke: #fff; stroke-width: 3px; }
.battlemap .tok .selring { fill: none; stroke: none; }
.battlemap .tok.selected .selring { stroke: var(--accent-2); stroke-width: 2; }
.battlemap .reach-own { fill: rgba(47,93,124,.13); stroke: rgba(47,93,124,.45); stroke-width: 1; }
.battlemap .threat { fill: rgba(176,48,42,.13); stroke: rgba(176,48,42,.35); stroke-width: .5; }
.battlemap .sight { stroke-width: 2; stroke-dasharray: 5 3; fill: none; }
.battlemap .sight.clear { stroke: var(--ok); }
.battlemap .sight.blocked { stroke: var(--bad); }
.battlemap .blockmark { stroke: var(--bad); stroke-width: 2.5; }
.battlemap .template { fill: rgba(176,48,42,.10); stroke: var(--bad); stroke-width: 2; stroke-dasharray: 4 3; }
.battlemap .costlabel { font-size: 9px; font-weight: 700; fill: var(--accent-2); paint-order: stroke; stroke: #fff; stroke-width: 3px; pointer-events: none; }
.battlemap .paint { fill: rgba(176,122,18,.35); stroke: #b07a12; }
.battlemap.measuring, .battlemap.measuring .tok { cursor: crosshair; touch-action: none; }
.battlemap .ruler line { stroke: #1d2a33; stroke-width: 2.5; stroke-linecap: round; pointer-events: none; }
.battlemap .ruler line.under { stroke: #fff; stroke-width: 5; }
.battlemap .ruler circle { fill: #1d2a33; stroke: #fff; stroke-width: 1.5; pointer-events: none; }
.battlemap .ruler rect.end { fill: rgba(29,42,51,.12); stroke: #1d2a33; stroke-width: 1.5; stroke-dasharray: 3 2; pointer-events: none; }
.battlemap .ruler rect.end.ok { stroke: var(--ok); fill: rgba(63,125,58,.18); }
.battlemap .ruler rect.end.bad { stroke: var(--bad); fill: rgba(176,48,42,.18); }
.battlemap .rulerlabel { font-size: 10px; font-weight: 700; fill: #1d2a33; paint-order: stroke; stroke: #fff; stroke-width: 3.5px; pointer-events: none; }
.battlemap .rulerlabel .cost { fill: var(--accent-2); }
.battlemap .rulerlabel .bad { fill: var(--bad); }
`;

/** @type {CSSStyleSheet|null} */
let sheet = null;
const FOG_REVEAL = "fog: reveal";
const FOG_HIDE = "fog: hide";

function ensureStyle() {
  if (sheet) return;
  sheet = new CSSStyleSheet();
  sheet.replaceSync(STYLE);
  document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
}

/**
 * An SVG element with attributes (null, undefined and false left out) and children.
 * @param {string} tag
 * @param {Record<string, any>} [attrs]
 * @param {...any} children
 * @returns {SVGElement}
 */
function el(tag, attrs = {}, ...children) {
  const node = /** @type {SVGElement} */ (document.createElementNS(NS, tag));
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

/**
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {string} [cls]
 * @param {string} [text]
 * @returns {HTMLElementTagNameMap[K]}
 */
function html(tag, cls, text) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined) node.textContent = text;
  return node;
}

const slug = (/** @type {unknown} */ text) => String(text).toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "") || "x";

/** Which map a state calls for: "grid", "zones" or null (no positions of any kind). */
/**
 * @param {Json} state
 * @returns {"grid"|"zones"|null}
 */
export function mapKind(state) {
  /** @type {Json[]} */
  const all = Object.values((state && state.entities) || {});
  if (all.some((e) => "position" in e)) return "grid";
  if (all.some((e) => typeof e.zone === "string")) return "zones";
  return null;
}

/** Whether anyone is somewhere on the map (then the map opens by itself). */
/** @param {Json} state */
export function hasPositions(state) {
  /** @type {Json[]} */
  const all = Object.values((state && state.entities) || {});
  const kind = mapKind(state);
  if (kind === "grid") return all.some((e) => isSquare(e.position) || (e.sphere !== undefined && e.sphere !== null));
  return kind === "zones";
}

/** The squares from `a` (left out) to `b`, each one step (straight or diagonal) from the last. */
/**
 * @param {Square} a
 * @param {Square} b
 */
export function stepsBetween(a, b) {
  return lineSteps(a, b);  // the ruler's line (ruler.js), one geometry for both
}

export { terrainOf };  // board.js (the map's pure functions)

/**
 * @param {Json} spec
 * @returns {[string, Json][]}
 */
function args(spec) {
  return Object.entries((spec && spec.args) || {});
}

/** @param {Json} odds */
function oddsText(odds) {
  /** @type {string[]} */
  const parts = [];
  /** @type {(prefix: string, v: Json) => void} */
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


const plural = (/** @type {number} */ n, /** @type {string} */ word) => `${Number(Number(n).toFixed(2))} ${word}${n === 1 ? "" : "s"}`;
/** @type {(v: unknown) => string[]} */
const ids = (v) => (Array.isArray(v) ? v.filter((x) => typeof x === "string") : []);

/**
 * What a move's odds say, in words: {cost, after, warn, note, short}. The vocabulary is the
 * rulesets' `move` odds (docs/web.md): spaces, squares, distance, ap_spent, uses,
 * difficult_steps; ap_left, movement_left, squares_left, slowing_action_after; and what it
 * triggers: flank_reaction, leaves_reach, flanked_at_end, ends_in_space_of, leaves_cover, leaves_engagement,
 * joins_engagement, pairs, falls. Null when the answer is none of these.
 */
/**
 * @param {Json} odds
 * @param {Json} st
 */
export function moveFacts(odds, st) {
  const o = odds || {};
  const who = (/** @type {string[]} */ list) => list.map((id) => creatureName(st, id)).join(", ");
  const cost = [];
  const after = [];
  const warn = [];
  const note = [];
  if (typeof o.spaces === "number") cost.push(plural(o.spaces, "space"));
  if (typeof o.squares === "number") cost.push(plural(o.squares, "square"));
  if (typeof o.distance === "string" && o.distance !== "none") cost.push(`${o.distance} range`);
  if (typeof o.ap_spent === "number") {
    cost.push(`${o.ap_spent} AP${o.move_actions ? ` (${plural(o.move_actions, "move action")})` : ""}`);
  }
  if (typeof o.uses === "string") cost.push(o.uses);
  if (o.difficult_steps) cost.push(`${plural(o.difficult_steps, "step")} through difficult terrain`);
  if (typeof o.ap_left === "number") after.push(`${o.ap_left} AP left`);
  if (typeof o.movement_left === "number" && o.movement_left) after.push(`${plural(o.movement_left, "space")} of movement left`);
  if (typeof o.squares_left === "number") after.push(`${plural(o.squares_left, "square")} left this turn`);
  if (o.slowing_action_after === false) after.push("no slowing action after it");
  if (ids(o.flank_reaction).length) warn.push(`provokes a flanking reaction from ${who(ids(o.flank_reaction))}`);
  if (ids(o.leaves_reach).length) warn.push(`leaves the reach of ${who(ids(o.leaves_reach))}`);
  if (ids(o.flanked_at_end).length) warn.push(`flanked there by ${who(ids(o.flanked_at_end))}`);
  if (ids(o.ends_in_space_of).length) warn.push(`ends in ${who(ids(o.ends_in_space_of))}'s space: its turn cannot end there`);
  if (o.leaves_cover === true) warn.push("leaves cover");
  if (o.falls) warn.push(typeof o.falls === "string" ? `falls: ${o.falls}` : "falls");
  if (ids(o.leaves_engagement).length) note.push(`leaves the engagement with ${who(ids(o.leaves_engagement))}`);
  if (ids(o.joins_engagement).length) note.push(`engages ${who(ids(o.joins_engagement))}`);
  if (o.pairs && typeof o.pairs === "object") {
    for (const [id, on] of Object.entries(o.pairs)) note.push(`${creatureName(st, id)} ${on ? "joins" : "drops off"} its owner's network`);
  }
  if (!cost.length && !after.length && !warn.length && !note.length) return null;
  const short = [cost[0], after[0]].filter(Boolean).join(" · ");
  return { cost, after, warn, note, short };
}

// The chance of each creature an odds answer gives: the first mapping of creature ids to
// chances (an AoE's `inclusion`, a ZAoE's `high`, a search's `found`).
/**
 * @param {Json} odds
 * @param {Json} st
 * @returns {{key: string, chances: Record<string, Json>}|null}
 */
export function chancesOf(odds, st) {
  const known = (st && st.entities) || {};
  for (const key of ["inclusion", "high", "found"]) {
    const v = odds && odds[key];
    if (v && typeof v === "object" && Object.keys(v).every((k) => k in known)) return { key, chances: v };
  }
  for (const [key, v] of Object.entries(odds || {})) {
    if (v && typeof v === "object" && !("percent" in v) && Object.keys(v).length
      && Object.entries(v).every(([k, c]) => k in known && c && typeof c === "object" && "percent" in c)) return { key, chances: v };
  }
  return null;
}


export class BattleMap {
  /**
   * panel: a <details> holding an element `.mapbody`.
   * opts.role: "gm" or "player"; opts.commands: the catalogue the page may use;
   * opts.odds(command) and opts.submit(command): promises (the server's answers).
   */
  /**
   * @param {HTMLDetailsElement} panel
   * @param {MapOptions} opts
   */
  constructor(panel, opts) {
    this.panel = panel;
    this.body = /** @type {HTMLElement} */ (panel.querySelector(".mapbody"));
    this.role = opts.role;
    this.commands = opts.commands || {};
    this.display = opts.display || {};
    /** @type {ReturnType<typeof latestAsker>|null} */
    this.rulerAsker = null; // the ruler's odds, one request at a time (made on first use)
    this.odds = opts.odds;
    this.submit = opts.submit;
    this.onTap = opts.onTap || null; // a token clicked: (id) => void (the GM's target)
    this.image = opts.image || null; // the scene's image: (hash) => Promise<Blob>
    this.picture = opts.picture || null; // a token's picture: (hash) => Promise<Blob>
    this.onPicture = opts.onPicture || null; // a picture came: the page draws it elsewhere too
    /** @type {Map<string, string|null>} */
    this.pictures = new Map(); // hash -> object URL ("" while it loads, null if it failed)
    this.backdrop = { hash: "", url: "", failed: "" }; // the scene image drawn, once loaded
    /** @type {Json} the state drawn (the reader's view) */
    this.state = null;
    this.id = `map${++uid}`;
    /** @type {Map<string, SVGElement>} */
    this.tokens = new Map();
    /** @type {Map<string, number>} */
    this.sideColour = new Map();
    /** @type {Json} the drag in progress: its token, pointer, path, target and plan */
    this.drag = null;
    this.touched = false;
    this.gridKey = "";
    this.terrainKey = "";
    /** @type {string|null} */
    this.selected = null; // the token clicked last (overlays and range bands start from it)
    /** @type {Record<string, boolean>} */
    this.overlays = { reach: false, sight: false, area: false, paint: false, ruler: false };
    /** @type {Json} */
    this.measure = null; // the ruler's measure while the pointer is down (nothing is submitted)
    /** @type {Json} */
    this.area = null; // {by, weapon, at, chances, text} once the server answered
    /** @type {Json} */
    this.painting = null;
    /** @type {Json} */
    this.framing = null; // a zone's region being dragged over the scene's image
    this.dragEnded = 0;
    this.areaSeq = 0;
    /** @type {"grid"|"zones"|null} */
    this.kind = null;
    /** @type {Map<string, Json>} */
    this.laidOut = new Map(); // id -> {x, y} centre in SVG units
    /** @type {import("./board.js").Bounds} */
    this.grid = { minX: 0, minY: 0, cols: 0, rows: 0 };
    /** @type {{label: string, ids: string[], y: number, height: number}[]} */
    this.trays = [];
    /** @type {Map<string, Json>} */
    this.zoneBoxes = new Map();
    // made by build() and buildTools(), once
    const made = /** @type {any} */ (null);
    /** @type {HTMLParagraphElement} */ this.info = made;
    /** @type {HTMLParagraphElement} */ this.error = made;
    /** @type {SVGSVGElement} */ this.svg = made;
    /** @type {SVGElement} */ this.defs = made;
    /** @type {Record<string, SVGElement>} */ this.layers = made;
    /** @type {HTMLDivElement} */ this.scroll = made;
    /** @type {HTMLDivElement} */ this.legend = made;
    /** @type {HTMLParagraphElement} */ this.note = made;
    /** @type {HTMLParagraphElement} */ this.triggers = made;
    /** @type {HTMLDivElement} */ this.tools = made;
    /** @type {Record<string, HTMLButtonElement>} */ this.buttons = made;
    /** @type {HTMLSpanElement} */ this.areaBox = made;
    /** @type {HTMLSelectElement} */ this.weaponSelect = made;
    /** @type {HTMLSpanElement} */ this.paintBox = made;
    /** @type {HTMLSelectElement} */ this.paintKind = made;
    /** @type {HTMLSpanElement} */ this.zoneForm = made;
    /** @type {HTMLInputElement} */ this.zoneId = made;
    /** @type {HTMLInputElement} */ this.zoneNext = made;
    /** @type {HTMLInputElement} */ this.zoneIndoor = made;
    /** @type {HTMLLabelElement} */ this.visionBox = made;
    /** @type {HTMLInputElement} */ this.visionInput = made;
    /** @type {HTMLSpanElement} */ this.rulerBox = made;
    /** @type {HTMLSelectElement} */ this.rulerWeapon = made;
    ensureStyle();
    this.build();
    /** @type {HTMLElement} */ (panel.querySelector("summary")).addEventListener("click", () => { this.touched = true; });
    panel.addEventListener("toggle", () => { if (panel.open) this.draw(); });
  }

  build() {
    this.info = html("p", "mapinfo");
    this.info.setAttribute("aria-live", "polite");
    this.error = html("p", "error");
    this.error.setAttribute("role", "alert");
    this.svg = /** @type {SVGSVGElement} */ (el("svg", { class: "battlemap", role: "img", "aria-label": "battle map" }));
    this.defs = el("defs", {},
      el("pattern", { id: `${this.id}-hatch`, width: 8, height: 8, patternUnits: "userSpaceOnUse", patternTransform: "rotate(45)" },
        el("line", { x1: 0, y1: 0, x2: 0, y2: 8, class: "hatch" })),
      el("clipPath", { id: `${this.id}-round`, clipPathUnits: "objectBoundingBox" },
        el("circle", { cx: 0.5, cy: 0.5, r: 0.5 })));
    this.layers = {};
    this.svg.append(this.defs);
    for (const name of ["ground", "terrain", "links", "areas", "overlay", "path", "tokens"]) {
      this.layers[name] = el("g", { class: `layer-${name}` });
      this.svg.append(this.layers[name]);
    }
    this.scroll = html("div", "mapscroll");
    this.scroll.append(this.svg);
    this.legend = html("div", "maplegend");
    this.note = html("p", "mapnote muted");
    this.triggers = html("p", "maptriggers");
    this.triggers.setAttribute("aria-live", "polite");
    this.buildTools();
    this.body.replaceChildren(this.tools, this.info, this.triggers, this.scroll, this.error, this.legend, this.note);
    this.svg.addEventListener("pointerdown", (e) => this.down(e));
    this.svg.addEventListener("click", (e) => this.click(e));
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
    this.selected = null;
    this.area = null;
    this.painting = null;
    for (const k of Object.keys(this.overlays)) this.overlays[k] = false;
    delete this.info.dataset.keep;
    this.say("");
  }

  /**
   * The catalogue the page may use, and what the ruleset declares for the browser.
   * @param {import("./board.js").Catalogue|null} commands
   * @param {import("./board.js").Display|null} [display]
   */
  setCommands(commands, display = null) {
    this.commands = commands || {};
    this.display = display || {};
  }

  /** @param {Json} state */
  update(state) {
    if (this.state && state && state.version !== this.state.version && !this.drag) {
      delete this.info.dataset.keep;
      // a refusal under the map is about a state that is gone once anything else succeeded
      this.error.textContent = "";
      if (this.area) this.area = { ...this.area, stale: true }; // asked again below
    }
    this.state = state;
    const kind = mapKind(state);
    this.panel.hidden = !kind;
    if (!kind) return;
    if (!this.touched) {
      const want = hasPositions(state) && !window.matchMedia(PHONE).matches;
      if (this.panel.open !== want) this.panel.open = want;
    }
    if (this.drag || this.painting) return; // drawn again when the drag ends
    this.draw();
    if (this.area && this.area.stale && this.overlays.area) this.aim(this.area.at, true);
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
    this.drawOverlays(st);
    this.syncTools();
    this.drawLegend(st);
  }

  /** What the ruleset tells the map (the state's `map` block). */
  get extra() {
    return (this.state && this.state.map) || {};
  }

  /** The creature overlays start from: the one clicked, else whose turn it is, else mine. */
  sel() {
    const st = this.state;
    if (!st) return null;
    if (this.selected && st.entities[this.selected]) return this.selected;
    if (st.in_combat && st.current && st.entities[st.current]) return st.current;
    return (st.characters || []).find((/** @type {string} */ id) => st.entities[id]) || null;
  }

  /** @param {string|null|undefined} side */
  colour(side) {
    const name = side || "(no side)";
    if (!this.sideColour.has(name)) this.sideColour.set(name, this.sideColour.size % SIDES);
    return this.sideColour.get(name);
  }

  /** @param {Json} e */
  footprint(e) {
    return footprintOf(e, this.extra.footprints || {});
  }

  // The squares a creature covers on the grid (its footprint laid at its position).
  /** @param {Json} e */
  cells(e) {
    return cellsOf(e, this.extra.footprints || {});
  }

  /** @param {Json} st */
  drawGrid(st) {
    const all = Object.values(st.entities);
    const placed = all.filter((e) => isSquare(e.position));
    const terrain = terrainOf(st);
    const occupied = [...placed.flatMap((e) => this.cells(e)), ...terrain.map((t) => /** @type {[number, number]} */ ([t.x, t.y]))];
    // The scene's image covers squares from its offset on (`scene`: pixels per square): the
    // board is the image, and more only where a creature or terrain lies past it.
    const scene = this.sceneOf(st);
    const { minX, minY, cols, rows } = boardBounds(occupied, scene);
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
      ids.forEach((/** @type {string} */ id, /** @type {number} */ i) => this.laidOut.set(id, { x: (i % perLine) * U + U, y: y + U * 0.7 + Math.floor(i / perLine) * U + U / 2 }));
      y += U * (0.9 + lines);
    }
    const height = this.trays.length ? y : rows * U;
    this.size(cols * U, height, cols);
    for (const e of placed) {
      const [px, py] = e.position;
      const foot = this.footprint(e);
      const fx = foot.reduce((a, p) => a + p[0], 0) / foot.length;
      const fy = foot.reduce((a, p) => a + p[1], 0) / foot.length;
      this.laidOut.set(e.id, { x: (px + fx - minX) * U + U / 2, y: (py + fy - minY) * U + U / 2, square: [px, py], foot });
    }
    const gridKey = `${minX},${minY},${cols},${rows}|${this.trays.map((t) => `${t.label}:${t.ids.length}`).join(";")}|${scene ? JSON.stringify(scene) + this.backdrop.url : ""}`;
    if (gridKey !== this.gridKey) {
      this.gridKey = gridKey;
      const cell = `${this.id}-cell`;
      this.defs.querySelector(`#${cell}`)?.remove();
      this.defs.append(el("pattern", { id: cell, width: U, height: U, patternUnits: "userSpaceOnUse" },
        el("path", { d: `M ${U} 0 L 0 0 0 ${U}`, class: "gridline" })));
      const labels = [];
      for (let x = minX; x < minX + cols; x += 1) {
        if (x % 5 === 0 || x === minX) labels.push(el("text", { x: (x - minX) * U + 3, y: 9, class: "coord" }, x));
      }
      for (let yy = minY; yy < minY + rows; yy += 1) {
        if ((yy % 5 === 0 || yy === minY) && yy !== minY) labels.push(el("text", { x: 3, y: (yy - minY) * U + 9, class: "coord" }, yy));
      }
      const backdrop = scene && this.backdrop.url ? el("image", {
        href: this.backdrop.url, class: "backdrop", preserveAspectRatio: "none",
        x: (-scene.offset_x / scene.square - minX) * U, y: (-scene.offset_y / scene.square - minY) * U,
        width: (scene.width / scene.square) * U, height: (scene.height / scene.square) * U,
      }) : null;
      this.layers.ground.replaceChildren(...[
        el("rect", { x: 0, y: 0, width: cols * U, height: rows * U, class: "board" }),
        backdrop,
        el("rect", { x: 0, y: 0, width: cols * U, height: rows * U, fill: `url(#${cell})` }),
        el("rect", { x: 0, y: 0, width: cols * U, height: rows * U, class: "boardedge" }),
        labels,
        this.trays.map((t) => [
          el("rect", { x: 0, y: t.y, width: cols * U, height: t.height, rx: 6, class: "tray" }),
          el("text", { x: 6, y: t.y + U * 0.5, class: "traylabel" },
            t.label === "not on the grid" && this.role === "gm" ? "not on the grid: drag onto a square to place" : t.label),
        ])].flat(2).filter((x) => x !== null && x !== undefined));
    }
    const fog = st.fog && st.fog.enabled ? st.fog : null;
    const terrainKey = JSON.stringify(terrain) + gridKey + (fog ? JSON.stringify(fog.squares) : "");
    if (terrainKey !== this.terrainKey) {
      this.terrainKey = terrainKey;
      this.layers.terrain.replaceChildren(...terrain.map((t) => el("rect", {
        x: (t.x - minX) * U, y: (t.y - minY) * U, width: U, height: U,
        class: `terrain t-${slug(t.kind)}`, fill: /wall|window|smoke/.test(t.kind) ? null : `url(#${this.id}-hatch)`,
      }, el("title", {}, `${t.kind} (${t.x}, ${t.y})`))), fog ? this.fogPath(fog, minX, minY, cols, rows) : "");
    }
    this.layers.links.replaceChildren();
    this.layers.areas.replaceChildren();
    const unknown = all.filter((e) => !("position" in e)).map((e) => e.name || e.id);
    this.note.textContent = unknown.length
      ? `Not on this map (the server does not tell you where they are): ${unknown.join(", ")}.` : "";
  }

  /** The fog over every square of the board not revealed, as one path of row runs: the
   * players' map is dark there, the GM's shaded (what the players do not see). */
  /**
   * @param {Json} fog
   * @param {number} minX
   * @param {number} minY
   * @param {number} cols
   * @param {number} rows
   */
  fogPath(fog, minX, minY, cols, rows) {
    const open = new Set(fog.squares.map((/** @type {Square} */ [x, y]) => `${x},${y}`));
    const runs = [];
    for (let r = 0; r < rows; r += 1) {
      let start = -1;
      for (let c = 0; c <= cols; c += 1) {
        const dark = c < cols && !open.has(`${c + minX},${r + minY}`);
        if (dark && start < 0) start = c;
        if (!dark && start >= 0) {
          runs.push(`M${start * U} ${r * U}h${(c - start) * U}v${U}h${-(c - start) * U}z`);
          start = -1;
        }
      }
    }
    return el("path", { d: runs.join(""), class: `fog ${this.role === "gm" ? "fog-gm" : "fog-player"}` },
      el("title", {}, this.role === "gm" ? "fog: the players do not see here" : "unexplored"));
  }

  /** A token picture's object URL once fetched (asked once per hash; drawn when it comes). */
  /** @param {string} hash */
  pictureURL(hash) {
    if (!hash || !this.picture) return null;
    if (this.pictures.has(hash)) return this.pictures.get(hash) || null;
    this.pictures.set(hash, "");
    this.picture(hash).then((blob) => {
      this.pictures.set(hash, URL.createObjectURL(blob));
      this.draw();
      if (this.onPicture) this.onPicture(hash);
    }, () => this.pictures.set(hash, null));
    return null;
  }

  /** The state's scene when it has an image, which is fetched once (then drawn). */
  /** @param {Json} st */
  sceneOf(st) {
    const scene = st.scene;
    if (!scene || !scene.image || !(scene.square > 0) || !this.image) return null;
    // a player's image is dark where the fog is (the server masks it): asked again as it moves
    const key = this.role === "gm" || !st.fog || !st.fog.enabled ? scene.image : `${scene.image}.${st.fog.rev || 0}`;
    if (this.backdrop.hash !== key && this.backdrop.failed !== key) {
      const hash = key;
      if (this.backdrop.url) URL.revokeObjectURL(this.backdrop.url);
      this.backdrop = { hash, url: "", failed: "" };
      this.image(hash).then((blob) => {
        if (this.backdrop.hash !== hash) return;
        this.backdrop.url = URL.createObjectURL(blob);
        this.draw();
      }, () => { this.backdrop.failed = hash; });
    }
    return scene;
  }

  /**
   * @param {number} width
   * @param {number} height
   * @param {number} cols
   */
  size(width, height, cols) {
    this.svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
    // A square is 14 to 40 pixels: a wide map scrolls sideways, a small one stays small.
    this.svg.style.minWidth = `${Math.round((width / U) * 14)}px`;
    this.svg.style.maxWidth = `${Math.round((width / U) * 40)}px`;
    this.svg.dataset.cols = String(cols);
  }

  /** @param {Json} st */
  drawZones(st) {
    const all = Object.values(st.entities).filter((e) => typeof e.zone === "string");
    const known = (st.extra && st.extra.zones && typeof st.extra.zones === "object") ? st.extra.zones : {};
    /** @type {string[]} */
    const order = [];
    const add = (/** @type {unknown} */ z) => { if (typeof z === "string" && !order.includes(z)) order.push(z); };
    for (const e of all) {
      add(e.zone);
      for (let i = 0; i < order.length; i += 1) for (const n of (known[order[i]] || {}).adjacent || []) add(n);
    }
    for (const z of Object.keys(known)) {
      add(z);
      for (let i = 0; i < order.length; i += 1) for (const n of (known[order[i]] || {}).adjacent || []) add(n);
    }
    for (const z of Object.keys((st.extra && st.extra.regions) || {})) add(z);  // drawn on the scene
    // Other mappings of `extra` keyed by zone (lights...) become tags on the zone.
    /** @type {Record<string, string[]>} */
    const tags = {};
    for (const [name, value] of Object.entries(st.extra || {})) {
      if (name === "zones" || name === "regions" || !value || typeof value !== "object" || Array.isArray(value)) continue;
      const ks = Object.keys(value);
      if (ks.length && ks.every((k) => order.includes(k))) for (const k of ks) (tags[k] ||= []).push(name.replace(/_/g, " "));
    }
    // Zones drawn as regions of the scene's image (`region`: image pixels, `square` of them
    // a map unit) stand there; the others are laid out in rows below the image.
    const scene = this.sceneOf(st);
    const regions = (scene && st.extra && st.extra.regions) || {};
    const px = scene ? U / scene.square : 1;
    const placed = (/** @type {string} */ z) => Boolean(scene && Array.isArray(regions[z]) && regions[z].length === 4);
    const free = order.filter((z) => !placed(z));
    const n = free.length;
    const cols = n <= 1 ? 1 : n <= 4 ? 2 : 3;
    const PAD = U * 0.35;
    const HEAD = U * 0.85;
    const GAP = U * 1.1;
    const width = PER_ROW * U + 2 * PAD;
    const perRowOf = (/** @type {string} */ z) => (placed(z) ? Math.max(1, Math.floor((regions[z][2] * px - 2 * PAD) / U)) : PER_ROW);
    const top = scene ? scene.height * px + GAP : 0;
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
      /** @type {Json[]} */
      const spots = [];
      const boxes = [];
      const perRow = perRowOf(z);
      for (const [eng, ids] of clusters) {
        if (cx > 0 && cx + Math.min(ids.length, perRow) > perRow + 0.01) { cx = 0; line += 1; }
        const first = { cx, line };
        ids.forEach((/** @type {string} */ id, /** @type {number} */ i) => {
          if (i > 0 && cx + 1 > perRow + 0.01) { cx = 0; line += 1; }
          spots.push({ id, cx, line });
          cx += 1;
        });
        boxes.push({ eng, ids, first, last: { cx: cx - 1, line } });
        cx += 0.4;
      }
      inner.set(z, { spots, boxes, lines: Math.max(line + 1, 2) });
    }
    /** @type {number[]} */
    const rowsOf = [];
    free.forEach((z, i) => {
      const r = Math.floor(i / cols);
      rowsOf[r] = Math.max(rowsOf[r] || 0, HEAD + inner.get(z).lines * U + PAD);
    });
    /** @type {number[]} */
    const rowY = [];
    let y = top;
    rowsOf.forEach((hgt, r) => { rowY[r] = y; y += hgt + GAP; });
    this.zoneBoxes = new Map();
    /** @type {SVGElement[]} */
    const boxesEls = [];
    const fog = st.fog && st.fog.enabled ? new Set(st.fog.zones || []) : null;
    order.forEach((z) => {
      const i = free.indexOf(z);
      const r = Math.floor(i / cols);
      const [x0, y0, bw0, bh0] = placed(z) ? regions[z].map((/** @type {number} */ v) => v * px)
        : [(i % cols) * (width + GAP), rowY[r], width, rowsOf[r]];
      const info = known[z] || {};
      /** @type {{zone: string, x: number, y: number, w: number, h: number, clusters: Json[]}} */
      const box = { zone: z, x: x0, y: y0, w: bw0, h: bh0, clusters: [] };
      this.zoneBoxes.set(z, box);
      const { spots, boxes } = inner.get(z);
      for (const s of spots) this.laidOut.set(s.id, { x: x0 + PAD + s.cx * U + U / 2, y: y0 + HEAD + s.line * U + U / 2, zone: z });
      const tagText = [info.indoor ? "indoors" : null, ...(tags[z] || [])].filter(Boolean).join(" · ");
      const rings = [];
      for (const b of boxes) {
        const top = y0 + HEAD + b.first.line * U;
        const multi = b.first.line !== b.last.line;
        const bx = x0 + PAD + (multi ? 0 : b.first.cx * U);
        const bw = multi ? perRowOf(z) * U : (b.last.cx - b.first.cx + 1) * U;
        const bh = (b.last.line - b.first.line + 1) * U;
        box.clusters.push({ engagement: b.eng, ids: b.ids, x: bx, y: top, w: bw, h: bh });
        if (b.ids.length > 1) rings.push(el("rect", { x: bx + 1, y: top + 1, width: bw - 2, height: bh - 2, rx: U / 2, class: "engagement" }, el("title", {}, `engaged: ${b.ids.map((/** @type {string} */ id) => creatureName(st, id)).join(", ")}`)));
      }
      const fogged = fog && !fog.has(z) ? ` fogged ${this.role === "gm" ? "fog-gm" : "fog-player"}` : "";
      boxesEls.push(el("g", { class: `zone${info.indoor ? " indoor" : ""}${placed(z) ? " region" : ""}${fogged}`, "data-zone": z },
        el("rect", { x: x0, y: y0, width: bw0, height: bh0, rx: 10, class: "zonebox" }),
        el("text", { x: x0 + PAD, y: y0 + HEAD * 0.62, class: "zonelabel" }, z),
        tagText ? el("text", { x: x0 + bw0 - PAD, y: y0 + HEAD * 0.62, class: "zonetag", "text-anchor": "end" }, tagText) : null,
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
    const right = Math.max(0, ...order.filter(placed).map((z) => (regions[z][0] + regions[z][2]) * px));
    const totalW = Math.max(cols * width + (cols - 1) * GAP, width, scene ? scene.width * px : 0, right);
    this.size(totalW, Math.max(free.length ? y - GAP : top - GAP, U * 3), 0);
    this.layers.ground.replaceChildren(...(scene && this.backdrop.url ? [el("image", {
      href: this.backdrop.url, class: "backdrop", preserveAspectRatio: "none", x: 0, y: 0,
      width: scene.width * px, height: scene.height * px })] : []));
    this.layers.terrain.replaceChildren();
    this.gridKey = "";
    this.terrainKey = "";
    this.layers.links.replaceChildren(...links);
    this.layers.areas.replaceChildren(...boxesEls);
    const unknown = Object.values(st.entities).filter((e) => typeof e.zone !== "string").map((e) => e.name || e.id);
    this.note.textContent = unknown.length
      ? `Not on this map (the server does not tell you where they are): ${unknown.join(", ")}.` : "";
  }

  /** @param {Json} st */
  initials(st) {
    const ids = Object.keys(st.entities);
    const words = (/** @type {string} */ id) => String(creatureName(st, id)).replace(/['’]s\b/g, "").replace(/[^\p{L}\p{N}\s]/gu, " ").split(/\s+/).filter(Boolean);
    const one = new Map(ids.map((id) => [id, (words(id)[0] || id)[0].toUpperCase()]));
    const count = (/** @type {Map<string, string|undefined>} */ m) => { const c = new Map(); for (const v of m.values()) c.set(v, (c.get(v) || 0) + 1); return c; };
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
      let label = two.get(id) || id;
      if (seen.get(label) > 1) {
        const k = (used.get(label) || 0) + 1;
        used.set(label, k);
        label = `${label[0]}${k}`;
      }
      out.set(id, label);
    }
    return out;
  }

  /** @param {Json} st */
  drawTokens(st) {
    const labels = this.initials(st);
    const sizes = ["tiny", "small"];
    const gone = new Set(this.tokens.keys());
    const me = this.sel();
    const bands = (this.kind === "zones" && me && (this.extra.bands || {})[me]) || {};
    const chances = (this.overlays.area && this.area && this.area.chances) || {};
    for (const e of Object.values(st.entities)) {
      const at = this.laidOut.get(e.id);
      if (!at) continue;
      gone.delete(e.id);
      let g = this.tokens.get(e.id);
      if (!g) {
        g = el("g", { class: "tok", "data-id": e.id },
          el("rect", { class: "foot body", width: 0, height: 0, rx: 6 }),
          el("circle", { class: "turnring", r: U * 0.5 }),
          el("circle", { class: "selring", r: U * 0.47 }),
          el("circle", { class: "body", r: U * 0.4 }),
          el("image", { class: "pic", "clip-path": `url(#${this.id}-round)`, preserveAspectRatio: "xMidYMid slice" }),
          el("text", { class: "ini", "text-anchor": "middle", dy: "0.35em" }),
          el("text", { class: "badge", x: U * 0.42, y: -U * 0.3, "text-anchor": "middle" }),
          el("text", { class: "chance", y: -U * 0.5, "text-anchor": "middle" }),
          el("text", { class: "band", y: U * 0.58, "text-anchor": "middle" }),
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
      if (me === e.id && (this.selected === e.id || this.kind === "zones" || this.overlays.reach || this.overlays.sight || this.overlays.area)) classes.push("selected");
      g.setAttribute("class", classes.join(" "));
      g.setAttribute("transform", `translate(${at.x} ${at.y})`);
      g.setAttribute("aria-label", e.name || e.id);
      const foot = /** @type {SVGElement} */ (g.querySelector(".foot"));
      const big = at.foot && at.foot.length > 1;
      if (big) {
        /** @type {Square[]} */
        const cells = at.foot;
        const xs = cells.map((p) => p[0]);
        const ys = cells.map((p) => p[1]);
        const fx = cells.reduce((a, p) => a + p[0], 0) / cells.length;
        const fy = cells.reduce((a, p) => a + p[1], 0) / cells.length;
        foot.setAttribute("x", String((Math.min(...xs) - fx) * U - U / 2 + 3));
        foot.setAttribute("y", String((Math.min(...ys) - fy) * U - U / 2 + 3));
        foot.setAttribute("width", String((Math.max(...xs) - Math.min(...xs) + 1) * U - 6));
        foot.setAttribute("height", String((Math.max(...ys) - Math.min(...ys) + 1) * U - 6));
      } else if (foot.getAttribute("width") !== "0") {
        foot.setAttribute("width", "0");
        foot.setAttribute("height", "0");
      }
      const r = U * (sizes.includes(e.size) ? (e.size === "tiny" ? 0.28 : 0.34) : 0.4);
      /** @type {SVGElement} */ (g.querySelector("circle.body")).setAttribute("r", String(r));
      // its picture, round, inside the side's ring (initials until it loads, or without one)
      const url = this.pictureURL(st.tokens && st.tokens[e.id]);
      const pic = /** @type {SVGElement} */ (g.querySelector("image.pic"));
      if (url) {
        for (const [k, v] of /** @type {[string, unknown][]} */ ([["href", url], ["x", -r + 2], ["y", -r + 2], ["width", 2 * r - 4], ["height", 2 * r - 4]])) pic.setAttribute(k, String(v));
      } else pic.removeAttribute("href");
      g.classList.toggle("pictured", Boolean(url));
      const band = me && me !== e.id ? bands[e.id] : null;
      /** @type {SVGElement} */ (g.querySelector(".band")).textContent = band ? BANDS[band] || band : "";
      const chance = e.id in chances ? percent(chances[e.id]) : null;
      // one decimal on the token (the exact chance in its title and the info line)
      /** @type {SVGElement} */ (g.querySelector(".chance")).textContent = chance === null ? "" : `${Number(chance.toFixed(1))}%`;
      /** @type {SVGElement} */ (g.querySelector(".ini")).textContent = labels.get(e.id);
      const badge = [];
      if (typeof e.altitude === "number" && e.altitude > 0) badge.push(`↑${e.altitude}`);
      // cover and concealment on each token: a condition named or tagged cover, and one of
      // the ruleset's concealing conditions (the state's `concealing` names)
      const conds = Array.isArray(e.conditions) ? e.conditions : [];
      const cover = conds.find((/** @type {Json} */ c) => c && (c.name === "cover" || (Array.isArray(c.tags) && c.tags.includes("cover"))));
      const veil = conds.find((/** @type {Json} */ c) => c && (st.concealing || []).includes(c.name));
      if (cover) badge.push("▣");
      if (veil) badge.push("◌");
      /** @type {SVGElement} */ (g.querySelector(".badge")).textContent = badge.join(" ");
      g.classList.toggle("covered", Boolean(cover));
      g.classList.toggle("veiled", Boolean(veil));
      const where = at.square ? ` · (${at.square[0]}, ${at.square[1]})` : at.zone ? ` · ${at.zone}` : "";
      const coverText = cover ? `in cover${cover.data && cover.data.bonus ? ` (+${cover.data.bonus} armor)` : cover.name !== "cover" ? ` (${cover.name.replace(/_/g, " ")})` : ""}` : null;
      const facts = [e.side, e.size && e.size !== "medium" ? e.size : null, e.altitude ? `altitude ${e.altitude}` : null,
        coverText, veil ? `concealed (${veil.name})` : null,
        e.hidden ? "hidden from players" : null, current ? "its turn" : null,
        band ? `${band} range from ${creatureName(st, me)}` : null,
        chance === null ? null : `${chance}% chance (${this.area.key})`].filter(Boolean);
      /** @type {Element} */ (g.querySelector("title")).textContent = `${e.name || e.id}${where}${facts.length ? ` · ${facts.join(", ")}` : ""}`;
    }
    for (const id of gone) {
      this.tokens.get(id)?.remove();
      this.tokens.delete(id);
    }
  }

  /** @param {Json} st */
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
    const shown = Object.values(st.entities).filter((e) => this.laidOut.has(e.id) && Array.isArray(e.conditions));
    if (shown.some((e) => e.conditions.some((/** @type {Json} */ c) => c && (c.name === "cover" || (Array.isArray(c.tags) && c.tags.includes("cover")))))) {
      items.push(html("span", "lg", "▣ in cover"));
    }
    if (shown.some((e) => e.conditions.some((/** @type {Json} */ c) => c && (st.concealing || []).includes(c.name)))) {
      items.push(html("span", "lg", "◌ concealed"));
    }
    this.legend.replaceChildren(...items);
    if (!this.drag && !this.info.dataset.keep) this.idle();
  }

  // The info line when nothing is dragged: what a drag does here.
  idle() {
    const st = this.state;
    this.triggers.textContent = "";
    let text = "Drag a token: whose turn it is moves; anyone else is placed (Shift: place it too).";
    if (this.role !== "gm") {
      /** @type {string[]} */
      const mine = (st.characters || []).filter((/** @type {string} */ id) => st.entities[id]);
      text = mine.some((id) => this.canDrag(id)) ? "Your turn: drag your character to move it."
        : "On your character's turn, drag it to move it.";
    }
    if (this.overlays.ruler) text = "Ruler: press a token or a square and move the pointer (Escape or letting go ends it).";
    this.say(text, "mapinfo idle");
  }

  /**
   * @param {string} text
   * @param {string} [cls]
   */
  say(text, cls = "mapinfo") {
    this.info.textContent = text;
    this.info.title = text;
    this.info.className = cls;
  }

  // -- tools: overlays and the GM's editing ----------------------------------------------
  buildTools() {
    this.tools = html("div", "maptools");
    const toggle = (/** @type {string} */ name, /** @type {string} */ label, /** @type {string} */ title) => {
      const b = html("button", `tool-${name}`, label);
      b.type = "button";
      b.title = title;
      b.setAttribute("aria-pressed", "false");
      b.addEventListener("click", () => this.toggle(name));
      return b;
    };
    this.buttons = {
      reach: toggle("reach", "Reach", "reach and threatened squares, from the selected creature"),
      sight: toggle("sight", "Line of sight", "lines of sight from the selected creature"),
      area: toggle("area", "Area", "an area attack's chance for each creature (the odds engine)"),
      paint: toggle("paint", "Edit map", "paint terrain or describe zones (commands in the log)"),
      ruler: toggle("ruler", "Ruler", "measure from a token or a square to the pointer (Escape or letting go ends it; nothing is sent)"),
    };
    this.areaBox = html("span", "toolsub area-tools");
    this.weaponSelect = html("select", "area-weapon");
    this.weaponSelect.setAttribute("aria-label", "area weapon");
    this.weaponSelect.addEventListener("change", () => { this.area = null; this.draw(); this.say("Click a creature or a zone to place the area", "mapinfo idle"); });
    this.areaBox.append(this.weaponSelect);
    this.paintBox = html("span", "toolsub paint-tools");
    this.paintKind = html("select", "paint-kind");
    this.paintKind.setAttribute("aria-label", "terrain to paint");
    this.zoneForm = html("span", "toolsub zone-tools");
    const input = (/** @type {string} */ name, /** @type {string} */ placeholder) => {
      const i = document.createElement("input");
      i.type = "text";
      i.name = name;
      i.placeholder = placeholder;
      i.setAttribute("aria-label", placeholder);
      return i;
    };
    this.zoneId = input("zone-id", "zone name");
    this.zoneNext = input("zone-adjacent", "next to (a, b)");
    const indoor = document.createElement("label");
    indoor.className = "check"; // the box before its word, on one line
    this.zoneIndoor = document.createElement("input");
    this.zoneIndoor.type = "checkbox";
    indoor.append(this.zoneIndoor, " indoors");
    const set = html("button", "zone-set", "Set zone");
    set.type = "button";
    set.addEventListener("click", () => this.setZone());
    this.zoneForm.append(this.zoneId, this.zoneNext, indoor, set);
    // the fog's vision: how far the players' characters see through it (squares)
    this.visionBox = html("label", "check fog-vision", "vision ");
    this.visionInput = document.createElement("input");
    this.visionInput.type = "number";
    this.visionInput.min = "0";
    this.visionInput.max = "20";
    this.visionInput.name = "fog-vision";
    this.visionInput.title = "how far each player's characters see through the fog, in squares (walls and smoke stop it; 0: only what you reveal)";
    this.visionInput.setAttribute("aria-label", "vision through the fog, in squares");
    this.visionInput.addEventListener("change", () => this.setVision());
    this.visionBox.append(this.visionInput);
    this.paintKind.addEventListener("change", () => this.syncTools());
    this.paintBox.append(this.paintKind, this.visionBox, html("span", "muted", "drag over squares"));
    // the ruler's weapon: its range band at the distance measured (rulesets with bands)
    this.rulerBox = html("span", "toolsub ruler-tools");
    this.rulerWeapon = html("select", "ruler-weapon");
    this.rulerWeapon.setAttribute("aria-label", "weapon for the ruler's range band");
    this.rulerBox.append(this.rulerWeapon);
    this.tools.append(...Object.values(this.buttons), this.areaBox, this.paintBox, this.zoneForm, this.rulerBox);
    document.addEventListener("keydown", (e) => { if (e.key === "Escape" && this.measure) this.rulerEnd(); });
  }

  /** @param {string} name */
  toggle(name) {
    this.overlays[name] = !this.overlays[name];
    if (name === "area") {
      this.area = null;
      if (this.overlays.area) this.overlays.paint = false;
    }
    if (name === "paint" && this.overlays.paint) this.overlays.area = false;
    if (this.overlays[name] && ["area", "paint", "ruler"].includes(name)) {
      for (const other of ["area", "paint", "ruler"]) if (other !== name) this.overlays[other] = false;
      if (name === "ruler") this.area = null;
    }
    if (!this.overlays.ruler && this.measure) this.rulerEnd();
    delete this.info.dataset.keep;
    this.draw();
    if (name === "area" && this.overlays.area) this.say(`Area from ${creatureName(this.state, this.sel())}: click a creature${this.kind === "zones" ? " or a zone" : ""} to place it`, "mapinfo idle");
    if (name === "paint" && this.overlays.paint) this.say(this.kind === "grid" ? "Edit map: drag over squares to paint them" : "Edit map: name a zone, the zones next to it, then Set zone", "mapinfo idle");
  }

  // The GM's map tools, by the roles the catalogue declares (ROLE_ARGS in the catalogue
  // names their arguments): `paint` marks squares (with, at most, a choice of what or a
  // clear flag), `zone` describes a zone and the zones next to it, `region` draws a zone
  // on the scene's image.
  paintSpec() {
    const found = this.role === "gm" ? toolCommand(this.commands, "paint") : null;
    if (!found) return null;
    const [name, spec] = found;
    const other = args(spec).find(([n, a]) => n !== "squares" && ["choice", "flag"].includes(a.kind));
    return { name, arg: "squares", other: other ? { name: other[0], kind: other[1].kind, choices: other[1].choices || [] } : null };
  }

  zoneSpec() {
    const found = this.role === "gm" ? toolCommand(this.commands, "zone") : null;
    return found ? { name: found[0], indoor: Boolean((found[1].args || {}).indoor) } : null;
  }

  // The weapons of the selected creature that make an area (from its stat block, when the
  // reader sees it), and the commands that aim one: at a creature, or at a zone.
  areaWeapons() {
    return areaWeapons(this.state && this.state.entities[this.sel()], this.display);
  }

  /**
   * @param {{name: string, zone: boolean}} weapon
   * @param {{zone?: string, target?: string}} at
   */
  areaCommand(weapon, at) {
    return areaCommand(this.commands, weapon, at, this.sel());
  }

  syncTools() {
    const grid = this.kind === "grid";
    const ex = this.extra;
    const b = this.buttons;
    b.reach.hidden = !(grid && ex.reach);
    b.sight.hidden = !(grid && (ex.sight || ex.blocks_sight));
    const weapons = this.areaWeapons();
    b.area.hidden = !weapons.length && !this.overlays.area;
    const paint = grid ? this.paintSpec() : this.zoneSpec();
    b.paint.hidden = !paint;
    for (const [name, button] of Object.entries(b)) button.setAttribute("aria-pressed", String(this.overlays[name] && !button.hidden));
    this.areaBox.hidden = !(this.overlays.area && !b.area.hidden);
    if (!this.areaBox.hidden) {
      const want = weapons.map((w) => w.name).join("|");
      if (this.weaponSelect.dataset.list !== want) {
        const keep = this.weaponSelect.value;
        this.weaponSelect.replaceChildren(...weapons.map((w) => {
          const o = document.createElement("option");
          o.value = w.name;
          o.textContent = `${w.name}${w.zone ? " (zonewide)" : ""}`;
          return o;
        }));
        if (weapons.some((w) => w.name === keep)) this.weaponSelect.value = keep;
        this.weaponSelect.dataset.list = want;
      }
      if (!weapons.length) this.say(`${creatureName(this.state, this.sel())} has no area weapon: select another creature`, "mapinfo idle");
    }
    this.paintBox.hidden = !(this.overlays.paint && grid && paint);
    this.zoneForm.hidden = !(this.overlays.paint && !grid && paint);
    if (!this.paintBox.hidden) {
      const spec = /** @type {Json} */ (paint);
      const kinds = [...(!spec.other ? ["mark"] : spec.other.kind === "flag" ? ["mark", spec.other.name] : spec.other.choices),
        ...(this.commands.fog ? [FOG_REVEAL, FOG_HIDE] : [])];  // the kernel's fog of war
      if (this.paintKind.dataset.list !== kinds.join("|")) {
        this.paintKind.replaceChildren(...kinds.map((k) => { const o = document.createElement("option"); o.value = k; o.textContent = k; return o; }));
        this.paintKind.dataset.list = kinds.join("|");
      }
      const fogKind = this.paintKind.value === FOG_REVEAL || this.paintKind.value === FOG_HIDE;
      this.visionBox.hidden = !fogKind;
      if (fogKind && document.activeElement !== this.visionInput) {
        this.visionInput.value = String((this.state && this.state.fog && this.state.fog.vision) || 0);
      }
    }
    b.ruler.hidden = !this.kind;
    b.ruler.setAttribute("aria-pressed", String(this.overlays.ruler && !b.ruler.hidden));
    this.svg.classList.toggle("measuring", Boolean(this.overlays.ruler));
    const from = this.state && this.state.entities[this.sel()];
    const arms = this.extra.measure && Array.isArray(this.extra.measure.bands) ? rulerWeapons(from) : [];
    this.rulerBox.hidden = !(this.overlays.ruler && arms.length);
    if (!this.rulerBox.hidden && this.rulerWeapon.dataset.list !== `${this.sel()}|${arms.join("|")}`) {
      const keep = this.rulerWeapon.value;
      this.rulerWeapon.replaceChildren(...arms.map((w) => { const o = document.createElement("option"); o.value = w; o.textContent = w; return o; }));
      if (arms.includes(keep)) this.rulerWeapon.value = keep;
      this.rulerWeapon.dataset.list = `${this.sel()}|${arms.join("|")}`;
    }
    this.tools.hidden = Object.values(b).every((x) => x.hidden);
  }

  // -- overlays ---------------------------------------------------------------------------
  /** @param {Json} st */
  drawOverlays(st) {
    const out = [];
    const me = this.sel();
    const meE = me ? st.entities[me] : null;
    if (this.kind === "grid") {
      const { minX, minY } = this.grid;
      /** @type {(x: number, y: number, cls: string, title?: string) => SVGElement} */
      const rect = (x, y, cls, title) => el("rect", { x: (x - minX) * U, y: (y - minY) * U, width: U, height: U, class: cls }, title ? el("title", {}, title) : null);
      const centre = (/** @type {Square} */ sq) => [(sq[0] - minX) * U + U / 2, (sq[1] - minY) * U + U / 2];
      if (this.overlays.reach && this.extra.reach) {
        const { own, threat } = reachSquares(st.entities, this.extra.reach, me, this.grid, this.extra.footprints || {});
        for (const [k, who] of threat) {
          const [x, y] = k.split(",").map(Number);
          out.push(rect(x, y, "threat", `threatened by ${who.map((i) => creatureName(st, i)).join(", ")}`));
        }
        for (const [k] of own) {
          const [x, y] = k.split(",").map(Number);
          out.push(rect(x, y, "reach-own", `${creatureName(st, me)}'s reach`));
        }
      }
      if (this.overlays.sight && meE && isSquare(meE.position)) {
        const from = this.laidOut.get(me);
        const blocked = (this.extra.sight || {})[me] || {};
        for (const e of Object.values(st.entities)) {
          if (e.id === me || !isSquare(e.position)) continue;
          const to = this.laidOut.get(e.id);
          const hit = blocked[e.id];
          if (isSquare(hit)) {
            const [hx, hy] = centre(hit);
            out.push(el("line", { x1: from.x, y1: from.y, x2: hx, y2: hy, class: "sight blocked", "data-to": e.id },
              el("title", {}, `${creatureName(st, e.id)}: line of sight broken at (${hit[0]}, ${hit[1]})`)));
            const m = U * 0.22;
            out.push(el("path", { d: `M ${hx - m} ${hy - m} L ${hx + m} ${hy + m} M ${hx + m} ${hy - m} L ${hx - m} ${hy + m}`, class: "blockmark" }));
          } else {
            out.push(el("line", { x1: from.x, y1: from.y, x2: to.x, y2: to.y, class: "sight clear", "data-to": e.id },
              el("title", {}, `${creatureName(st, e.id)}: in sight`)));
          }
        }
      }
    }
    if (this.overlays.area && this.area && this.area.chances) {
      const hit = areaHits(this.area.chances);
      if (this.kind === "zones") {
        for (const box of this.zoneBoxes.values()) {
          if (this.area.at.zone && box.zone === this.area.at.zone) out.push(el("rect", { x: box.x - 3, y: box.y - 3, width: box.w + 6, height: box.h + 6, rx: 12, class: "template" }));
          for (const c of box.clusters) {
            if (c.ids.some((/** @type {string} */ id) => hit.includes(id))) out.push(el("rect", { x: c.x - 2, y: c.y - 2, width: c.w + 4, height: c.h + 4, rx: U / 2, class: "template" }));
          }
        }
      } else {
        for (const id of hit) {
          const at = this.laidOut.get(id);
          if (at) out.push(el("circle", { cx: at.x, cy: at.y, r: U * 0.62, class: "template" }));
        }
      }
    }
    if (this.painting) {
      const { minX, minY } = this.grid;
      for (const sq of this.painting.squares.values()) out.push(el("rect", { x: (sq[0] - minX) * U, y: (sq[1] - minY) * U, width: U, height: U, class: "paint" }));
    }
    this.layers.overlay.replaceChildren(...out);
    if (this.overlays.sight && this.kind === "grid" && !(this.extra.blocks_sight || []).length && !this.drag) {
      this.note.textContent = [this.note.textContent, "Nothing on this map blocks sight."].filter(Boolean).join(" ");
    }
  }

  /** @param {PointerEvent} e */
  click(e) {
    if (performance.now() - this.dragEnded < 400 || this.drag || this.painting || this.measure || this.overlays.ruler) return;
    const g = /** @type {SVGElement|null} */ (/** @type {Element} */ (e.target).closest(".tok"));
    if (this.overlays.area) {
      const z = /** @type {SVGElement|null} */ (/** @type {Element} */ (e.target).closest(".zone"));
      if (g) this.aim({ target: g.dataset.id });
      else if (z) this.aim({ zone: z.dataset.zone });
      return;
    }
    if (g) this.tap(g.dataset.id || "");
  }

  // A token clicked without moving it: select it (or let go of it).
  /** @param {string} id */
  tap(id) {
    this.selected = this.selected === id ? null : id;
    this.area = null;
    this.draw();
    if (this.onTap && this.selected) this.onTap(id);
  }

  // Ask the odds of an area placed at {target} or {zone}, and draw each creature's chance.
  /**
   * @param {{zone?: string, target?: string}} at
   * @param {boolean} [again]
   */
  async aim(at, again = false) {
    const weapon = this.areaWeapons().find((w) => w.name === this.weaponSelect.value);
    if (!weapon || !this.odds) return;
    const command = this.areaCommand(weapon, at);
    if (!command) {
      if (!again) this.say(weapon.zone ? `${weapon.name} is zonewide: click a zone` : `${weapon.name}: click a creature`, "mapinfo idle");
      return;
    }
    const where = at.zone ? `zone ${at.zone}` : creatureName(this.state, at.target);
    const seq = (this.areaSeq = (this.areaSeq || 0) + 1);
    try {
      const out = await this.odds(command);
      if (seq !== this.areaSeq || !this.overlays.area) return;
      const found = chancesOf(out.odds, this.state);
      const offense = percent(out.odds && out.odds.offense);
      const list = found ? Object.entries(found.chances).map(([id, c]) => `${creatureName(this.state, id)} ${percent(c)}%`).join(", ") : "nobody";
      this.area = { at, weapon: weapon.name, chances: found ? found.chances : {}, key: found ? found.key : "chance" };
      this.draw();
      this.say(`${weapon.name} at ${where}${offense === null ? "" : ` · offense ${offense}%`} · ${found ? found.key : "chance"}: ${list}`, "mapinfo ok");
      this.info.dataset.keep = "1";
    } catch (err) {
      if (seq !== this.areaSeq) return;
      this.area = null;
      this.draw();
      this.say(`${weapon.name} at ${where}: ${errorText(err)}`, "mapinfo bad");
      this.info.dataset.keep = "1";
    }
  }

  /** @param {PointerEvent} e */
  paintStart(e) {
    const spec = this.paintSpec();
    const t = this.targetAt(this.point(e));
    if (!spec || !t || !t.square) return;
    e.preventDefault();
    this.svg.setPointerCapture(e.pointerId);
    this.painting = { spec, pointer: e.pointerId, squares: new Map([[key(t.square), t.square]]) };
    this.drawOverlays(this.state);
  }

  /** @param {PointerEvent} e */
  paintMove(e) {
    const t = this.targetAt(this.point(e));
    if (!t || !t.square || this.painting.squares.has(key(t.square))) return;
    this.painting.squares.set(key(t.square), t.square);
    this.drawOverlays(this.state);
  }

  // The fog's vision from its field: a `fog` command (the fog turned on with it if off).
  async setVision() {
    const n = Number(this.visionInput.value);
    if (!Number.isInteger(n) || n < 0 || n > 20) {
      this.error.textContent = "vision: a whole number of squares from 0 to 20";
      return;
    }
    /** @type {Record<string, Json>} */
    const command = { do: "fog", vision: n };
    if (!(this.state.fog && this.state.fog.enabled)) command.enabled = true;
    try {
      await this.submit(command);
      this.say(n ? `Characters see ${n} squares through the fog` : "Characters see only what you reveal", "mapinfo ok");
      this.error.textContent = "";
    } catch (err) {
      this.error.textContent = errorText(err);
    }
  }

  /** @param {PointerEvent} e */
  async paintEnd(e) {
    const p = this.painting;
    this.painting = null;
    try { this.svg.releasePointerCapture(e.pointerId); } catch { /* already released */ }
    const squares = [...p.squares.values()].map((sq) => [sq[0], sq[1]]);
    const kind = this.paintKind.value;
    /** @type {Record<string, unknown>} */
    let command;
    if (kind === FOG_REVEAL || kind === FOG_HIDE) {  // fog: the squares dragged over, and on
      command = { do: "fog", squares, hide: kind === FOG_HIDE };
      if (!(this.state.fog && this.state.fog.enabled)) command.enabled = true;
    } else {
      command = { do: p.spec.name, [p.spec.arg]: squares };
      if (p.spec.other && p.spec.other.kind === "choice") command[p.spec.other.name] = kind;
      if (p.spec.other && p.spec.other.kind === "flag" && kind === p.spec.other.name) command[p.spec.other.name] = true;
    }
    const text = `${squares.length} square${squares.length === 1 ? "" : "s"}: ${kind}`;
    this.info.dataset.keep = "1";
    try {
      await this.submit(command);
      this.say(`Painted ${text}`, "mapinfo ok");
      this.info.dataset.keep = "1";
      this.error.textContent = "";
    } catch (err) {
      this.error.textContent = errorText(err);
      this.say(`Painting ${text}: refused (the reason is below the map)`, "mapinfo bad");
    }
    this.draw();
  }

  // -- zones as regions of the scene's image: the GM drags a rectangle over the image for the
  // zone named in the zone form (the ruleset's `region` command, in the image's pixels)
  regionSpec() {
    const scene = this.state && this.state.scene;
    return this.role === "gm" && toolCommand(this.commands, "region") && scene && scene.image && scene.square > 0 ? scene : null;
  }

  /** @param {PointerEvent} e */
  regionStart(e) {
    const zone = this.zoneId.value.trim();
    if (!zone) {
      this.error.textContent = "region: name the zone in the form first, then drag over the image";
      this.zoneId.focus();
      return;
    }
    e.preventDefault();
    this.svg.setPointerCapture(e.pointerId);
    const p = this.point(e);
    this.framing = { zone, from: p, to: p, rect: el("rect", { class: "paint regionframe" }) };
    this.layers.overlay.append(this.framing.rect);
  }

  /** @param {PointerEvent} e */
  regionMove(e) {
    const f = this.framing;
    f.to = this.point(e);
    const [x, y] = [Math.min(f.from.x, f.to.x), Math.min(f.from.y, f.to.y)];
    for (const [k, v] of [["x", x], ["y", y], ["width", Math.abs(f.to.x - f.from.x)], ["height", Math.abs(f.to.y - f.from.y)]]) f.rect.setAttribute(k, String(v));
  }

  /** @param {PointerEvent} e */
  async regionEnd(e) {
    const f = this.framing;
    this.framing = null;
    f.rect.remove();
    try { this.svg.releasePointerCapture(e.pointerId); } catch { /* already released */ }
    const scene = this.regionSpec();
    if (!scene) return;
    const px = scene.square / U;  // image pixels per SVG unit
    const clamp = (/** @type {number} */ v, /** @type {number} */ hi) => Math.max(0, Math.min(Math.round(v), hi));
    const x = clamp(Math.min(f.from.x, f.to.x) * px, scene.width);
    const y = clamp(Math.min(f.from.y, f.to.y) * px, scene.height);
    const width = clamp(Math.abs(f.to.x - f.from.x) * px, scene.width - x);
    const height = clamp(Math.abs(f.to.y - f.from.y) * px, scene.height - y);
    if (width < 8 || height < 8) { this.say("Drag a larger rectangle over the image", "mapinfo bad"); return; }
    try {
      const region = toolCommand(this.commands, "region");
      if (!region) return;
      await this.submit({ do: region[0], zone: f.zone, x, y, width, height });
      this.say(`Zone ${f.zone} drawn on the scene`, "mapinfo ok");
      this.info.dataset.keep = "1";
      this.error.textContent = "";
    } catch (err) {
      this.error.textContent = errorText(err);
    }
    this.draw();
  }

  async setZone() {
    const spec = this.zoneSpec();
    const id = this.zoneId.value.trim();
    if (!spec) return;
    if (!id) {
      this.error.textContent = "zone: give the zone a name";
      this.zoneId.focus();
      return;
    }
    const adjacent = this.zoneNext.value.split(",").map((z) => z.trim()).filter(Boolean);
    /** @type {Record<string, Json>} */
    const command = { do: spec.name, id, adjacent };
    if (spec.indoor) command.indoor = this.zoneIndoor.checked;
    this.info.dataset.keep = "1";
    try {
      await this.submit(command);
      this.say(`Zone ${id} set${adjacent.length ? `, next to ${adjacent.join(", ")}` : ""}`, "mapinfo ok");
      this.info.dataset.keep = "1";
      this.error.textContent = "";
      this.zoneId.value = "";
      this.zoneNext.value = "";
      this.zoneIndoor.checked = false;
    } catch (err) {
      this.error.textContent = errorText(err);
      this.say(`Zone ${id}: refused (the reason is below the map)`, "mapinfo bad");
    }
  }

  // -- what a drag means ----------------------------------------------------------------
  // The catalogue's declared roles (board.js roleCommand): the command a creature moves
  // itself with, and the game master's placing command.
  moveSpec() {
    return roleCommand(this.commands, "move", this.kind);
  }

  placeSpec() {
    return this.role === "gm" ? roleCommand(this.commands, "place", this.kind) : null;
  }

  /** @param {string} id */
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
  /**
   * @param {string} id
   * @param {Json} target
   * @param {boolean} shift
   * @returns {Json}
   */
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
        /** @type {Record<string, Json>} */
        const command = { do: move.name, actor: id };
        command[move.arg] = move.kind === "squares" ? this.drag.path.map((/** @type {Square} */ p) => [p[0], p[1]]) : [sq[0], sq[1]];
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
    const joined = changes.engagement !== undefined ? ` (engaging ${target.ids.map((/** @type {string} */ x) => creatureName(st, x)).join(", ")})` : "";
    if (own || this.role !== "gm") {
      const move = this.moveSpec();
      if (!move) return { none: "this ruleset declares no command to move between zones" };
      /** @type {Record<string, Json>} */
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

  /**
   * @param {string} id
   * @param {string} field
   * @param {Json} value
   */
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
  /**
   * @param {{clientX: number, clientY: number}} e
   * @returns {{x: number, y: number}}
   */
  point(e) {
    const m = this.svg.getScreenCTM();
    if (!m) return { x: 0, y: 0 };
    const p = new DOMPoint(e.clientX, e.clientY).matrixTransform(m.inverse());
    return { x: p.x, y: p.y };
  }

  /**
   * @param {{x: number, y: number}} p
   * @returns {Json}
   */
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
      const c = box.clusters.find((/** @type {Json} */ k) => p.x >= k.x && p.x <= k.x + k.w && p.y >= k.y && p.y <= k.y + k.h
        && !(k.ids.length === 1 && k.ids[0] === this.drag.id));
      return c ? { zone: box.zone, engagement: c.engagement, ids: c.ids.filter((/** @type {string} */ i) => i !== this.drag.id) } : { zone: box.zone };
    }
    return null;
  }

  /** @param {PointerEvent} e */
  down(e) {
    const g = /** @type {SVGElement|null} */ (/** @type {Element} */ (e.target).closest(".tok"));
    if (this.overlays.ruler) { if (e.button <= 0 && !this.drag && !this.measure) this.rulerStart(e, g); return; }
    if (this.overlays.paint && this.kind === "grid" && !this.drag && e.button <= 0) { this.paintStart(e); return; }
    if (this.overlays.paint && this.kind === "zones" && !g && !this.drag && e.button <= 0 && this.regionSpec()) { this.regionStart(e); return; }
    if (this.overlays.area) return; // a click picks where the area goes
    if (!g || e.button > 0 || this.drag) return;
    const id = g.dataset.id || "";
    if (!this.canDrag(id)) return;
    const ent = this.state.entities[id];
    e.preventDefault();
    this.svg.setPointerCapture(e.pointerId);
    const at = this.laidOut.get(id);
    const origin = this.kind === "grid" && isSquare(ent.position) ? [ent.position[0], ent.position[1]] : null;
    // A creature larger than a square is held by one of its squares: the target is where
    // its position square goes, so the footprint lands under the pointer as it was held.
    let grab = [0, 0];
    if (origin && at.foot && at.foot.length > 1) {
      const under = this.targetAt(this.point(e));
      if (under && under.square) grab = [under.square[0] - origin[0], under.square[1] - origin[1]];
    }
    this.drag = {
      id, g, pointer: e.pointerId, start: { x: e.clientX, y: e.clientY }, from: at, moved: false,
      origin, grab, path: [], target: null, seq: 0, timer: null,
    };
    g.classList.add("dragging");
    delete this.info.dataset.keep;
    this.error.textContent = "";
  }

  /** @param {PointerEvent} e */
  move(e) {
    if (this.measure) { if (e.pointerId === this.measure.pointer) this.rulerMove(e); return; }
    if (this.painting) { this.paintMove(e); return; }
    if (this.framing) { this.regionMove(e); return; }
    const d = this.drag;
    if (!d || e.pointerId !== d.pointer || d.dropping) return;
    if (!d.moved && Math.hypot(e.clientX - d.start.x, e.clientY - d.start.y) < 4) return;
    d.moved = true;
    const p = this.point(e);
    d.g.setAttribute("transform", `translate(${p.x} ${p.y})`);
    const target = this.targetAt(p);
    if (target && target.square && (d.grab[0] || d.grab[1])) target.square = [target.square[0] - d.grab[0], target.square[1] - d.grab[1]];
    if (JSON.stringify(target) === JSON.stringify(d.target)) return;
    d.target = target;
    if (target && target.square && d.origin) this.extendPath(target.square);
    this.showTarget(e.shiftKey);
  }

  /** @param {Square} sq */
  extendPath(sq) {
    const d = this.drag;
    const last = d.path.length ? d.path[d.path.length - 1] : d.origin;
    if (same(sq, last)) return;
    for (const p of stepsBetween(last, sq)) {
      if (same(p, d.origin)) { d.path = []; continue; }
      const i = d.path.findIndex((/** @type {Square} */ q) => same(q, p));
      if (i >= 0) d.path = d.path.slice(0, i + 1);
      else d.path.push(p);
    }
  }

  /** @param {boolean} shift */
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
    this.triggers.textContent = "";
    if (this.kind === "grid" && target.square) {
      const { minX, minY } = this.grid;
      const c = (/** @type {Square} */ p) => `${(p[0] - minX) * U + U / 2},${(p[1] - minY) * U + U / 2}`;
      if (plan.move && d.origin) {
        const route = this.moveSpec()?.kind === "squares" ? [d.origin, ...d.path] : [d.origin, target.square];
        top.append(el("polyline", { points: route.map(c).join(" "), class: "route" }));
      }
      const foot = this.footprint(this.state.entities[d.id]);
      for (const [dx, dy] of foot) {
        const sq = [target.square[0] + dx, target.square[1] + dy];
        top.append(el("rect", { x: (sq[0] - minX) * U + 1, y: (sq[1] - minY) * U + 1, width: U - 2, height: U - 2, rx: 3, class: "aim", "data-square": dx || dy ? null : key(target.square) }));
      }
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
      let facts = null;
      try {
        const out = await this.odds(plan.command);
        if (out.stale) {  // the encounter moved on under the drag: the next move asks again
          text = "checking…";
        } else if (out.odds === null) {  // the ruleset computes none: legal as far as it knows
          text = "no cost preview (the rules check it on the drop)";
        } else {
          facts = moveFacts(out.odds, this.state);
          text = facts ? [facts.cost.join(", "), facts.after.join(", ")].filter(Boolean).join(" → ")
            : oddsText(out.odds) || "the rules allow it";
          cls = "mapinfo ok";
        }
      } catch (err) {
        text = `refused: ${errorText(err)}`;
        cls = "mapinfo bad";
      }
      if (!this.drag || this.drag !== d || d.seq !== seq) return;
      this.say(`${plan.text} · ${text}`, cls);
      this.triggers.textContent = facts ? [...facts.warn.map((w) => `⚠ ${w}`), ...facts.note].join(" · ") : "";
      this.triggers.title = this.triggers.textContent;
      for (const aim of top.querySelectorAll(".aim")) aim.classList.add(cls.includes("bad") ? "bad" : cls.includes("ok") ? "ok" : "unknown");
      const label = facts ? facts.short : cls.includes("bad") ? "refused" : "";
      const anchor = this.kind === "grid" && target.square
        ? { x: (target.square[0] - this.grid.minX) * U + U / 2, y: (target.square[1] - this.grid.minY) * U - 3 }
        : target.zone && this.zoneBoxes.get(target.zone) ? { x: this.zoneBoxes.get(target.zone).x + U * 0.35, y: this.zoneBoxes.get(target.zone).y + this.zoneBoxes.get(target.zone).h - 6 } : null;
      if (label && anchor) top.append(el("text", { class: "costlabel", x: anchor.x, y: Math.max(anchor.y, 9), "text-anchor": this.kind === "grid" ? "middle" : "start" }, label));
    }, 90);
  }

  /** @param {string|null} zone */
  highlight(zone) {
    for (const g of /** @type {NodeListOf<SVGElement>} */ (this.layers.areas.querySelectorAll(".zone"))) g.classList.toggle("over", g.dataset.zone === zone);
  }

  /** @param {PointerEvent} e */
  async up(e) {
    if (this.measure) { if (e.pointerId === this.measure.pointer) this.rulerEnd(); return; }
    if (this.painting) { this.paintEnd(e); return; }
    if (this.framing) { this.regionEnd(e); return; }
    const d = this.drag;
    if (!d || e.pointerId !== d.pointer || d.dropping) return;
    this.dragEnded = performance.now(); // the click that follows is not a tap
    if (!d.moved) { this.cancel(); this.tap(d.id); return; }
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
      this.info.dataset.keep = "1"; // until the next change (the answer's state came first)
      this.error.textContent = "";
    } catch (err) {
      this.error.textContent = errorText(err);
      this.say(`${plan.text}: refused (the reason is below the map)`, "mapinfo bad");
    }
    this.end();
  }

  /** @param {string} [message] */
  cancel(message) {
    if (this.measure) this.rulerEnd();
    if (this.painting) {
      this.painting = null;
      this.draw();
    }
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
    if (!this.info.dataset.keep) this.triggers.textContent = "";
    this.highlight(null);
    this.draw();
  }

  // -- the ruler: a measure from a token or a square to the pointer (ruler.js) -------------
  /** What the pointer is over for the ruler: the creature whose token it is on, and the
   * square (grid) or the zone (zones) under it; null off the board. */
  /**
   * @param {{x: number, y: number}} p
   * @returns {Json}
   */
  rulerAt(p) {
    const st = this.state;
    let who = null;
    for (const [id, at] of this.laidOut || []) {
      if (Math.hypot(at.x - p.x, at.y - p.y) <= U * 0.45) { who = id; break; }
    }
    if (this.kind === "grid") {
      const { minX, minY, cols, rows } = this.grid;
      if (p.x < 0 || p.y < 0 || p.x >= cols * U || p.y >= rows * U) return null;
      return { who, square: [Math.floor(p.x / U) + minX, Math.floor(p.y / U) + minY], x: p.x, y: p.y };
    }
    const e = who ? st.entities[who] : null;
    if (e && typeof e.zone === "string") return { who, zone: e.zone, x: p.x, y: p.y };
    for (const box of (this.zoneBoxes || new Map()).values()) {
      if (p.x >= box.x && p.x <= box.x + box.w && p.y >= box.y && p.y <= box.y + box.h) return { who: null, zone: box.zone, x: p.x, y: p.y };
    }
    return null;
  }

  /**
   * @param {PointerEvent} e
   * @param {SVGElement|null} g
   */
  rulerStart(e, g) {
    const st = this.state;
    if (!st || !this.kind) return;
    const at = this.rulerAt(this.point(e));
    const who = (g && g.dataset.id) || (at && at.who) || null;
    const ent = who ? st.entities[who] : null;
    let from = null;
    if (this.kind === "grid") {
      if (ent && isSquare(ent.position)) from = { who, square: [ent.position[0], ent.position[1]] };
      else if (at && !who) from = { who: null, square: at.square };
    } else if (ent && typeof ent.zone === "string") {
      from = { who, zone: ent.zone };
    } else if (at && !who) {
      from = { who: null, zone: at.zone, x: at.x, y: at.y };
    }
    if (!from) return;
    e.preventDefault();
    try { this.svg.setPointerCapture(e.pointerId); } catch { /* a synthetic pointer */ }
    this.measure = { pointer: e.pointerId, from, to: null, key: "", answer: null, asked: null };
    this.error.textContent = "";
    if (who && this.selected !== who) {  // its weapons (the range band) are the ruler's
      this.selected = who;
      this.area = null;
      this.draw();
    }
    this.rulerAsker ||= latestAsker((command) => this.odds(command), (out) => this.rulerHeard(out), 120);
    this.rulerMove(e);
  }

  /** @param {PointerEvent} e */
  rulerMove(e) {
    const m = this.measure;
    const at = this.rulerAt(this.point(e));
    const key = at ? JSON.stringify([at.who, at.square || at.zone]) : "";
    if (key === m.key && at) {  // the same square or zone: only the line's end follows (zones)
      if (this.kind !== "grid") { m.to = at; this.rulerDraw(); }
      return;
    }
    m.key = key;
    m.to = at;
    m.answer = null;
    m.facts = at ? this.rulerFacts(m) : null;
    const command = at ? this.rulerCommand(m) : null;
    // in turn-by-turn play only the creature whose turn it is moves: the others are told so
    // here, not refused by the server (a measure asks nothing it knows the answer to)
    const st = this.state;
    const waiting = command && st.in_combat && st.current !== m.from.who;
    m.asked = command && !waiting ? JSON.stringify(command) : null;
    if (waiting) m.answer = { cls: "bad", short: "not its turn", text: `not its turn: it is ${creatureName(st, st.current)}'s` };
    if (m.asked) this.rulerAsker?.ask(m.asked, command);
    else this.rulerAsker?.cancel();
    this.rulerDraw();
  }

  /** The distance in the ruleset's units and, from a creature with a weapon, its band. */
  /**
   * @param {Json} m
   * @returns {Json}
   */
  rulerFacts(m) {
    const st = this.state;
    const ex = this.extra;
    const measure = ex.measure || null;
    /** @type {{text: string, band: string|null, weapon: string|null}} */
    const out = { text: "", band: null, weapon: null };
    if (this.kind === "grid") {
      out.text = gridText(gridDistance(m.from.square, m.to.square, measure));
      return out;
    }
    const a = m.from.who ? st.entities[m.from.who] : null;
    const b = m.to.who && m.to.who !== m.from.who ? st.entities[m.to.who] : null;
    const engaged = Boolean(a && b && a.zone === b.zone && a.engagement === b.engagement);
    const d = zoneDistance(st.extra && st.extra.zones, m.from.zone, m.to.zone, measure, engaged);
    const given = a && b ? ((ex.bands || {})[a.id] || {})[b.id] : null; // the server's band
    if (given) d.band = given;
    out.text = zoneText(d, engaged || Boolean(given && measure && given === measure.engaged));
    out.band = d.band;
    if (a && !this.rulerBox.hidden && this.rulerWeapon.value) {
      const name = this.rulerWeapon.value;
      out.weapon = weaponText(name, (a.weapons || {})[name], d.band, (measure && measure.engaged) || "engagement", (measure && measure.bands && measure.bands[0]) || "short");
    }
    return out;
  }

  /** The move the measure is, from a creature the reader may move (asked as odds only). */
  /**
   * @param {Json} m
   * @returns {Json}
   */
  rulerCommand(m) {
    const id = m.from.who;
    const st = this.state;
    if (!id || !this.odds || !m.to) return null;
    if (this.role !== "gm" && !(st.characters || []).includes(id)) return null;
    const move = this.moveSpec();
    if (!move) return null;
    /** @type {Record<string, Json>} */
    const command = { do: move.name, actor: id };
    if (this.kind === "grid") {
      const path = lineSteps(m.from.square, m.to.square);
      if (!path.length) return null;
      command[move.arg] = move.kind === "squares" ? path : [m.to.square[0], m.to.square[1]];
    } else {
      if (!m.to.zone || m.to.zone === st.entities[id].zone) return null;
      command[move.arg] = m.to.zone;
    }
    return command;
  }

  /** @param {Json} out */
  rulerHeard(out) {
    const m = this.measure;
    if (!m || out.key !== m.asked) return;
    if (!out.ok) {
      m.answer = { cls: "bad", short: "refused", text: `refused: ${out.error && out.error.message ? out.error.message : out.error}` };
    } else if (out.value && out.value.stale) {
      m.answer = { cls: "", short: "", text: "checking…" };
    } else if (!out.value || out.value.odds === null) {
      m.answer = { cls: "", short: "", text: "no cost preview (the rules check it on a move)" };
    } else {
      const facts = moveFacts(out.value.odds, this.state);
      const text = facts ? [facts.cost.join(", "), facts.after.join(", ")].filter(Boolean).join(" → ") : oddsText(out.value.odds) || "the rules allow it";
      const warn = facts ? facts.warn.map((w) => `⚠ ${w}`).join(" · ") : "";
      m.answer = { cls: "ok", short: facts ? facts.short : "legal", text: warn ? `${text} · ${warn}` : text };
    }
    this.rulerDraw();
  }

  rulerDraw() {
    const m = this.measure;
    const top = this.layers.path;
    if (!m) return;
    const st = this.state;
    if (!m.to || !m.facts) {
      top.replaceChildren();
      this.say("Ruler: move the pointer over the map", "mapinfo idle");
      this.info.dataset.keep = "1";
      return;
    }
    const centre = (/** @type {Json} */ end) => {
      if (end.who && this.laidOut.get(end.who)) return this.laidOut.get(end.who);
      if (this.kind === "grid") return { x: (end.square[0] - this.grid.minX) * U + U / 2, y: (end.square[1] - this.grid.minY) * U + U / 2 };
      return { x: end.x, y: end.y };
    };
    const a = centre(m.from);
    const b = this.kind === "grid" ? centre({ square: m.to.square }) : centre(m.to);
    const answer = m.answer;
    const lines = [[m.facts.text, ""]];
    if (answer && answer.short) lines.push([answer.short, answer.cls === "bad" ? "bad" : "cost"]);
    else if (m.asked && !answer) lines.push(["…", "cost"]);
    if (m.facts.weapon) lines.push([m.facts.weapon, m.facts.weapon.includes("out of") ? "bad" : "cost"]);
    // the label over the line's end, inside the board (about 6 units a character), below
    // the end when there is no room above it
    // (at least 11 screen pixels high: a phone's small squares keep it legible)
    const box = this.svg.viewBox.baseVal;
    const width = box && box.width ? box.width : 0;
    const scale = (this.svg.getScreenCTM() || { a: 1 }).a || 1;
    const fs = Math.max(10, 11 / scale);
    const wide = Math.max(...lines.map(([t]) => t.length)) * fs * 0.6;
    const lx = Math.max(Math.min(b.x - wide / 2, width - wide - 4), 4);
    const above = b.y - U * 0.3 - fs * 0.4 - (lines.length - 1) * fs * 1.2;
    const ly = above >= fs * 1.2 ? above : b.y + U * 0.5 + fs;
    const label = el("text", { class: "rulerlabel", x: lx, y: ly },
      lines.map(([t, cls], i) => el("tspan", { x: lx, dy: i ? fs * 1.2 : 0, class: cls || null }, t)));
    label.style.fontSize = `${fs}px`;
    const end = this.kind === "grid"
      ? el("rect", { class: `end${answer && answer.cls ? ` ${answer.cls}` : ""}`, x: (m.to.square[0] - this.grid.minX) * U + 1, y: (m.to.square[1] - this.grid.minY) * U + 1, width: U - 2, height: U - 2, rx: 3 })
      : null;
    top.replaceChildren(el("g", {
      class: "ruler", "data-distance": m.facts.text, "data-cost": answer ? answer.text : null, "data-weapon": m.facts.weapon,
    }, end,
      el("line", { class: "under", x1: a.x, y1: a.y, x2: b.x, y2: b.y }),
      el("line", { x1: a.x, y1: a.y, x2: b.x, y2: b.y }),
      el("circle", { cx: a.x, cy: a.y, r: 3.5 }), el("circle", { cx: b.x, cy: b.y, r: 3.5 }),
      label));
    const name = (/** @type {Json} */ end) => (end.who ? creatureName(st, end.who) : end.square ? `(${end.square[0]}, ${end.square[1]})` : end.zone);
    const parts = [`Ruler: ${name(m.from)} → ${name(m.to)}: ${m.facts.text}`];
    if (answer) parts.push(`move: ${answer.text}`);
    else if (m.asked) parts.push("move: checking…");
    if (m.facts.weapon) parts.push(m.facts.weapon);
    this.say(parts.join(" · "), answer && answer.cls === "bad" ? "mapinfo bad" : answer && answer.cls === "ok" ? "mapinfo ok" : "mapinfo");
    this.info.dataset.keep = "1";
  }

  /** The measure ends (Escape, letting go, the tool off): the line goes, its words stay. */
  rulerEnd() {
    const m = this.measure;
    if (!m) return;
    this.measure = null;
    if (this.rulerAsker) this.rulerAsker.cancel();
    try { this.svg.releasePointerCapture(m.pointer); } catch { /* already released */ }
    this.layers.path.replaceChildren();
    this.dragEnded = performance.now(); // the click that follows selects nothing
    if (this.info.textContent.startsWith("Ruler: ") && m.to) this.say(this.info.textContent.replace(/^Ruler: /, "Measured: "), "mapinfo");
  }
}
