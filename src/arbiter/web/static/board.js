// @ts-check
// The map's pure functions (docs/web.md, "The map"): squares and terrain, a creature's
// footprint, the board's extent, reach and threatened squares, an area template's hits, and
// which command of the catalogue a drag or an area means (each command's declared `role`:
// `move`, `place`, `area`; the ruleset's `display.area_weapons`). No DOM: map.js draws with
// these, tests/js/board.test.mjs checks them. Distances and lines are the ruler's (ruler.js).

/**
 * @typedef {[number, number]} Square
 * @typedef {{x: number, y: number, kind: string}} Terrain
 * @typedef {{kind: string, required?: boolean, refers?: string, choices?: string[], help?: string, default?: unknown, who?: string, lo?: number, hi?: number}} ArgSpec
 * @typedef {{name?: string, summary?: string, who: string, when?: string, actor: string, cost?: string, role?: string, rules?: string[], args: Record<string, ArgSpec>}} CommandSpec
 * @typedef {Record<string, CommandSpec>} Catalogue
 * @typedef {{card?: string[], quiet?: string[], area_weapons?: Record<string, string>}} Display
 *   what a ruleset declares for the browser besides its commands (GET /api/rulesets)
 * @typedef {{id: string, side?: string|null, position?: unknown, footprint?: unknown, zone?: unknown, weapons?: unknown}} Placed
 * @typedef {{minX: number, minY: number, cols: number, rows: number}} Bounds
 * @typedef {{square: number, offset_x: number, offset_y: number, width: number, height: number}} SceneGrid
 * @typedef {{name: string, spec: CommandSpec, arg: string, kind: string, optional: boolean, who: string}} RoleCommand
 *   a command of a role, its location argument (`arg`, of `kind` square, squares or text for
 *   a zone) and, for `place`, the argument naming the creature placed (`who`)
 */

export const MIN_COLS = 12;
export const MIN_ROWS = 8;
export const MARGIN = 2;

/**
 * Whether `p` is a square: two whole numbers.
 * @param {unknown} p
 * @returns {p is Square}
 */
export function isSquare(p) {
  return Array.isArray(p) && p.length === 2 && Number.isInteger(p[0]) && Number.isInteger(p[1]);
}

/**
 * @param {readonly number[]|null|undefined} a
 * @param {readonly number[]|null|undefined} b
 */
export function sameSquare(a, b) {
  return Boolean(a && b && a[0] === b[0] && a[1] === b[1]);
}

/** @param {readonly number[]} p */
export function squareKey(p) {
  return `${p[0]},${p[1]}`;
}

/**
 * Squares the state's `extra` marks: a list of squares under a key ("difficult"), or a
 * mapping of "x,y" to a kind ("wall", "window"...). Anything else in `extra` is not terrain.
 * @param {{extra?: Record<string, unknown>}|null|undefined} state
 * @returns {Terrain[]}
 */
export function terrainOf(state) {
  /** @type {Terrain[]} */
  const out = [];
  for (const [name, value] of Object.entries((state && state.extra) || {})) {
    if (Array.isArray(value) && value.length && value.every(isSquare)) {
      for (const sq of value) out.push({ x: sq[0], y: sq[1], kind: name });
    } else if (value && typeof value === "object" && !Array.isArray(value)) {
      const entries = Object.entries(value);
      if (entries.length && entries.every(([k, v]) => /^-?\d+,-?\d+$/.test(k) && typeof v === "string")) {
        for (const [k, v] of entries) {
          const [x, y] = k.split(",").map(Number);
          out.push({ x, y, kind: String(v) });
        }
      }
    }
  }
  return out;
}

/**
 * The squares a creature covers, as offsets from its position: the state's `map.footprints`
 * for it, else its own `footprint`, else its one square.
 * @param {Placed} e
 * @param {Record<string, unknown>} [footprints]
 * @returns {Square[]}
 */
export function footprintOf(e, footprints = {}) {
  const given = footprints[e.id] || e.footprint;
  return Array.isArray(given) && given.length && given.every(isSquare) ? given : [[0, 0]];
}

/**
 * The squares a creature covers on the grid (its footprint laid at its position); none off it.
 * @param {Placed} e
 * @param {Record<string, unknown>} [footprints]
 * @returns {Square[]}
 */
export function cellsOf(e, footprints = {}) {
  const at = e.position;
  if (!isSquare(at)) return [];
  return footprintOf(e, footprints).map(([dx, dy]) => /** @type {Square} */ ([at[0] + dx, at[1] + dy]));
}

/**
 * The board's squares: with a scene's image, the image (and a square past it where a
 * creature or terrain lies); without one, what is occupied with a margin of MARGIN, at least
 * MIN_COLS × MIN_ROWS, keeping the origin in view when it is near.
 * @param {Square[]} occupied
 * @param {SceneGrid|null} [scene]
 * @returns {Bounds}
 */
export function boardBounds(occupied, scene = null) {
  const xs = occupied.map((p) => p[0]);
  const ys = occupied.map((p) => p[1]);
  let minX = 0, minY = 0, maxX = MIN_COLS - 1, maxY = MIN_ROWS - 1;
  if (scene) {
    minX = Math.floor(-scene.offset_x / scene.square) || 0;  // never -0
    maxX = Math.ceil((scene.width - scene.offset_x) / scene.square) - 1;
    minY = Math.floor(-scene.offset_y / scene.square) || 0;
    maxY = Math.ceil((scene.height - scene.offset_y) / scene.square) - 1;
    if (xs.length) {
      minX = Math.min(minX, Math.min(...xs) - 1); maxX = Math.max(maxX, Math.max(...xs) + 1);
      minY = Math.min(minY, Math.min(...ys) - 1); maxY = Math.max(maxY, Math.max(...ys) + 1);
    }
  } else if (xs.length) {
    minX = Math.min(...xs) - MARGIN; maxX = Math.max(...xs) + MARGIN;
    minY = Math.min(...ys) - MARGIN; maxY = Math.max(...ys) + MARGIN;
    // Squares from 0 up stay from 0 up; the origin stays in view when it is near.
    if (minX + MARGIN >= 0 && minX <= MARGIN) minX = 0;
    if (minY + MARGIN >= 0 && minY <= MARGIN) minY = 0;
    if (maxX - minX + 1 < MIN_COLS) maxX = minX + MIN_COLS - 1;
    if (maxY - minY + 1 < MIN_ROWS) maxY = minY + MIN_ROWS - 1;
  }
  return { minX, minY, cols: maxX - minX + 1, rows: maxY - minY + 1 };
}

/**
 * Reach on the grid: the squares within `reach[id]` steps (Chebyshev) of each square a
 * creature covers, outside its own body and inside the board. `own`: the selected creature's
 * (`me`); `threat`: every creature's that is not on its side (all of them when none is
 * selected). Each maps "x,y" to the ids that reach it, in the order met.
 * @param {Record<string, Placed>} entities
 * @param {Record<string, unknown>} reach
 * @param {string|null} me
 * @param {Bounds} bounds
 * @param {Record<string, unknown>} [footprints]
 * @returns {{own: Map<string, string[]>, threat: Map<string, string[]>}}
 */
export function reachSquares(entities, reach, me, bounds, footprints = {}) {
  const { minX, minY, cols, rows } = bounds;
  const inside = (/** @type {number} */ x, /** @type {number} */ y) => x >= minX && y >= minY && x < minX + cols && y < minY + rows;
  const meE = me ? entities[me] : null;
  /** @type {Map<string, string[]>} */
  const own = new Map();
  /** @type {Map<string, string[]>} */
  const threat = new Map();
  for (const [id, r] of Object.entries(reach)) {
    const e = entities[id];
    if (!e || !isSquare(e.position) || typeof r !== "number") continue;
    const body = cellsOf(e, footprints);
    const mine = id === me;
    const hostile = !meE || (e.side !== meE.side || !e.side);
    if (!mine && !hostile) continue;
    const into = mine ? own : threat;
    for (const [cx, cy] of body) {
      for (let dx = -r; dx <= r; dx += 1) {
        for (let dy = -r; dy <= r; dy += 1) {
          /** @type {Square} */
          const sq = [cx + dx, cy + dy];
          if (!inside(sq[0], sq[1]) || body.some((b) => sameSquare(b, sq))) continue;
          const k = squareKey(sq);
          const who = into.get(k) || [];
          if (!who.includes(id)) who.push(id);
          into.set(k, who);
        }
      }
    }
  }
  return { own, threat };
}

/**
 * A chance as a percentage: `{percent}` as the server writes odds, or a fraction 0..1.
 * @param {unknown} c
 * @returns {number|null}
 */
export function percent(c) {
  if (c && typeof c === "object" && "percent" in c) return Number(/** @type {{percent: unknown}} */ (c).percent);
  return typeof c === "number" ? Math.round(c * 10000) / 100 : null;
}

/**
 * The creatures an area template touches: those with a chance above zero, in the odds' order.
 * @param {Record<string, unknown>} chances
 * @returns {string[]}
 */
export function areaHits(chances) {
  return Object.entries(chances).filter(([, c]) => (percent(c) || 0) > 0).map(([id]) => id);
}

/**
 * The location argument of a command on a map of `mapKind`: on a grid, its square or path
 * of squares; in zones, its `zone` (the creatures' own field).
 * @param {CommandSpec} spec
 * @param {string|null} mapKind "grid" or "zones"
 * @returns {[string, ArgSpec]|null}
 */
function whereArg(spec, mapKind) {
  const list = Object.entries(spec.args || {});
  const found = mapKind === "grid"
    ? list.find(([, a]) => a.kind === "squares") || list.find(([, a]) => a.kind === "square")
    : list.find(([n]) => n === "zone");
  return found || null;
}

/**
 * The command the catalogue declares for `role` ("move": a creature moves itself; "place":
 * the game master puts a creature somewhere) and its location argument on a map of
 * `mapKind`; null when the ruleset declares none, or its command has no location there.
 * @param {Catalogue|null|undefined} commands
 * @param {"move"|"place"} role
 * @param {string|null} mapKind "grid" or "zones" (null: no map)
 * @returns {RoleCommand|null}
 */
export function roleCommand(commands, role, mapKind) {
  for (const [name, spec] of Object.entries(commands || {})) {
    if (spec.role !== role) continue;
    const where = whereArg(spec, mapKind);
    if (!where) return null;
    const who = Object.entries(spec.args || {}).find(([, a]) => a.kind === "creature" && a.required);
    return { name, spec, arg: where[0], kind: where[1].kind, optional: !where[1].required, who: who ? who[0] : "" };
  }
  return null;
}

/**
 * The game master's map tool the catalogue declares for `role` ("paint", "zone" or
 * "region"; the catalogue's ROLE_ARGS names the arguments each takes): its name and spec,
 * or null when the ruleset declares none or the reader may not send it.
 * @param {Catalogue|null|undefined} commands
 * @param {"paint"|"zone"|"region"} role
 * @returns {[string, CommandSpec]|null}
 */
export function toolCommand(commands, role) {
  return Object.entries(commands || {}).find(([, spec]) => spec.role === role && spec.who === "gm") || null;
}

/**
 * The weapons of a creature that make an area, by the ruleset's `display.area_weapons` (a
 * weapon key, and what the area is aimed at): `zone` true when it is aimed at a zone.
 * @param {Placed|null|undefined} e
 * @param {Display|null|undefined} display
 * @returns {{name: string, zone: boolean}[]}
 */
export function areaWeapons(e, display) {
  const keys = Object.entries((display && display.area_weapons) || {});
  const weapons = e && e.weapons && typeof e.weapons === "object" && !Array.isArray(e.weapons) ? e.weapons : {};
  /** @type {{name: string, zone: boolean}[]} */
  const out = [];
  for (const [name, w] of Object.entries(weapons)) {
    if (!w || typeof w !== "object") continue;
    const made = keys.filter(([k]) => /** @type {Record<string, unknown>} */ (w)[k]);
    if (made.length) out.push({ name, zone: made.some(([, aim]) => aim === "zone") });
  }
  return out;
}

/**
 * The command that aims an area weapon (the catalogue's `role: "area"`): at a zone, the one
 * taking a `zone`; at a creature, the one taking a `target`. Null when none is declared.
 * @param {Catalogue|null|undefined} commands
 * @param {{name: string, zone: boolean}} weapon
 * @param {{zone?: string, target?: string}} at
 * @param {string} actor
 * @returns {Record<string, unknown>|null}
 */
export function areaCommand(commands, weapon, at, actor) {
  for (const [name, spec] of Object.entries(commands || {})) {
    if (spec.role !== "area") continue;
    const a = spec.args || {};
    if (weapon.zone && at.zone && a.zone) return { do: name, actor, weapon: weapon.name, zone: at.zone };
    if (!weapon.zone && at.target && a.target) return { do: name, actor, weapon: weapon.name, target: at.target };
  }
  return null;
}
