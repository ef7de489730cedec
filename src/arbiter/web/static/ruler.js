// @ts-check
// The map's ruler (docs/web.md, "The ruler"): what a measure from a token or a square to the
// pointer says, in the ruleset's units. Pure functions of the state's `map.measure` (what the
// ruleset declares: a grid's unit and the cost of a diagonal step, or the zones' range bands),
// the zones map and a creature's weapons; and one asker that sends at most one odds request at
// a time (map.js draws, asks and labels with these).

/**
 * @typedef {[number, number]} Square
 * @typedef {{unit?: string, diagonal?: number, bands?: string[], engaged?: string}} Measure
 *   what the ruleset declares (`state.map.measure`): on a grid the unit of movement
 *   ("space", "square") and what one diagonal step costs in it; in zones the band of the
 *   same zone, of the next one and of any farther (`bands`), and of one engagement (`engaged`)
 * @typedef {{squares: number, straight: number, diagonals: number, spaces: number|null, unit: string}} GridDistance
 * @typedef {{zones: number|null, band: string|null}} ZoneDistance
 */

/** @param {number} n */
const num = (n) => String(Number(n.toFixed(2)));

/**
 * `n word(s)`, with a plural unless `n` is 1.
 * @param {number} n
 * @param {string} word
 */
export function count(n, word) {
  return `${num(n)} ${word}${n === 1 ? "" : "s"}`;
}

/**
 * The squares from `a` (left out) to `b`, each one step (straight or diagonal) from the last:
 * the straight line a ruler follows (map.js's `stepsBetween`).
 * @param {Square} a
 * @param {Square} b
 * @returns {Square[]}
 */
export function lineSteps(a, b) {
  const dx = b[0] - a[0];
  const dy = b[1] - a[1];
  const n = Math.max(Math.abs(dx), Math.abs(dy));
  /** @type {Square[]} */
  const out = [];
  for (let i = 1; i <= n; i += 1) out.push([a[0] + Math.round((dx * i) / n) || 0, a[1] + Math.round((dy * i) / n) || 0]);
  return out;
}

/**
 * The diagonal steps of a path from `origin` (as the map counts a drag's: `diagonals()`).
 * @param {Square} origin
 * @param {Square[]} path
 */
export function diagonalSteps(origin, path) {
  let n = 0;
  let prev = origin;
  for (const p of path) {
    if (p[0] !== prev[0] && p[1] !== prev[1]) n += 1;
    prev = p;
  }
  return n;
}

/**
 * How far `b` is from `a` on a grid: `squares` (the larger difference: what a reach or a range
 * counts), the straight and diagonal steps of the straight line, and `spaces`, the movement
 * it takes by the ruleset's diagonal rule (each diagonal step costs `measure.diagonal`; null
 * when the ruleset declares no rule). A ruleset whose unit is the square and whose diagonal
 * costs 2 (Manhattan) counts `squares` that way too.
 * @param {Square} a
 * @param {Square} b
 * @param {Measure|null|undefined} measure
 * @returns {GridDistance}
 */
export function gridDistance(a, b, measure) {
  const path = lineSteps(a, b);
  const diagonals = diagonalSteps(a, path);
  const straight = path.length - diagonals;
  const m = measure || {};
  const cost = typeof m.diagonal === "number" && m.diagonal > 0 ? m.diagonal : null;
  const unit = m.unit === "square" || m.unit === "space" ? m.unit : "square";
  const spaces = cost === null ? null : straight + diagonals * cost;
  const squares = unit === "square" && spaces !== null ? spaces : path.length;
  return { squares, straight, diagonals, spaces, unit };
}

/**
 * Zones between zone `a` and zone `b` by the zones map (`extra.zones`: each zone's
 * `adjacent` ones, taken both ways): 0 for the same zone, null when no link joins them.
 * @param {Record<string, {adjacent?: string[]}>|null|undefined} zones
 * @param {string} a
 * @param {string} b
 * @returns {number|null}
 */
export function zonesApart(zones, a, b) {
  if (a === b) return 0;
  /** @type {Map<string, Set<string>>} */
  const next = new Map();
  const link = (/** @type {string} */ x, /** @type {string} */ y) => {
    if (!next.has(x)) next.set(x, new Set());
    next.get(x)?.add(y);
  };
  for (const [z, info] of Object.entries(zones || {})) {
    for (const n of (info && Array.isArray(info.adjacent) ? info.adjacent : [])) {
      if (typeof n !== "string" || n === z) continue;
      link(z, n);
      link(n, z);
    }
  }
  const seen = new Set([a]);
  let frontier = [a];
  for (let d = 1; frontier.length; d += 1) {
    /** @type {string[]} */
    const later = [];
    for (const z of frontier) {
      for (const n of next.get(z) || []) {
        if (n === b) return d;
        if (!seen.has(n)) { seen.add(n); later.push(n); }
      }
    }
    frontier = later;
  }
  return null;
}

/**
 * How far zone `b` is from zone `a`: the zones between them and the range band the ruleset
 * gives that (`measure.bands`: same zone, next, farther; unlinked zones: the farthest band).
 * `engaged`: the two ends are one engagement (then `measure.engaged`).
 * @param {Record<string, {adjacent?: string[]}>|null|undefined} zones
 * @param {string} a
 * @param {string} b
 * @param {Measure|null|undefined} measure
 * @param {boolean} [engaged]
 * @returns {ZoneDistance}
 */
export function zoneDistance(zones, a, b, measure, engaged = false) {
  const apart = zonesApart(zones, a, b);
  const bands = (measure && Array.isArray(measure.bands)) ? measure.bands : [];
  let band = null;
  if (engaged && measure && measure.engaged) band = measure.engaged;
  else if (bands.length) band = bands[Math.min(apart === null ? bands.length - 1 : apart, bands.length - 1)];
  return { zones: apart, band };
}

/**
 * The ruler's words for a grid distance: "3 squares · 3.5 spaces" (spaces only when the
 * ruleset moves in spaces), "4 squares (a diagonal counts 2)" for a Manhattan count.
 * @param {GridDistance} d
 */
export function gridText(d) {
  const parts = [count(d.squares, "square")];
  if (d.unit === "space" && d.spaces !== null) parts.push(count(d.spaces, "space"));
  const note = d.unit === "square" && d.spaces !== null && d.diagonals && d.squares !== d.straight + d.diagonals
    ? ` (a diagonal counts ${num((d.squares - d.straight) / d.diagonals)})` : "";
  return parts.join(" · ") + note;
}

/**
 * The ruler's words for a zones distance: "same zone · short range", "2 zones away · long
 * range", "not linked · long range", "engagement range".
 * @param {ZoneDistance} d
 * @param {boolean} [engaged]
 */
export function zoneText(d, engaged = false) {
  const where = engaged ? "same engagement" : d.zones === 0 ? "same zone" : d.zones === null ? "no path of zones" : `${count(d.zones, "zone")} away`;
  return d.band ? `${where} · ${d.band} range` : where;
}

/**
 * What a weapon does at a range band (zones' weapons: `kind` and an `offense` die per band;
 * "X": it cannot attack there): "rifle at long range: 1d20", "pistol: out of range (long)",
 * "knife: melee (engagement range only)". Null without a band or a weapon.
 * @param {string} name
 * @param {{kind?: string, offense?: Record<string, string>}|null|undefined} weapon
 * @param {string|null} band
 * @param {string} [engaged] the band of one engagement ("engagement")
 * @param {string} [nearest] the band used for it by a ranged weapon ("short")
 */
export function weaponText(name, weapon, band, engaged = "engagement", nearest = "short") {
  if (!weapon || !band) return null;
  if (weapon.kind === "melee") return band === engaged ? `${name}: in reach` : `${name}: out of reach (melee)`;
  const offense = weapon.offense && typeof weapon.offense === "object" ? weapon.offense : null;
  if (!offense) return `${name} at ${band} range`;
  const used = band in offense ? band : band === engaged ? nearest : band;
  const dice = offense[used];
  if (dice === undefined) return `${name}: no offense at ${band} range`;
  if (String(dice).toUpperCase() === "X") return `${name}: out of range (${band})`;
  return `${name} at ${band} range${used !== band ? ` (as ${used})` : ""}: ${dice}`;
}

/**
 * The weapons of a stat block the ruler offers (zones: `weapons` by name), those that can
 * attack beyond a melee first.
 * @param {{weapons?: unknown}|null|undefined} entity
 * @returns {string[]}
 */
export function rulerWeapons(entity) {
  const w = entity && entity.weapons;
  if (!w || typeof w !== "object" || Array.isArray(w)) return [];
  const all = Object.entries(/** @type {Record<string, any>} */ (w)).filter(([, v]) => v && typeof v === "object");
  const rank = (/** @type {any} */ v) => (v.offense ? 0 : v.kind === "melee" ? 2 : 1);
  return all.sort((a, b) => rank(a[1]) - rank(b[1])).map(([k]) => k);
}

/**
 * Asks one thing at a time, the latest only: `ask(key, payload)` waits `delay` ms (a newer ask
 * replaces it), sends when nothing is in flight, else keeps it to send when the answer comes;
 * `done(answer|error)` hears only the answer to the latest ask. `cancel()` forgets the wait.
 * @template T, R
 * @param {(payload: T) => Promise<R>} send
 * @param {(out: {key: string, ok: boolean, value?: R, error?: unknown}) => void} done
 * @param {number} [delay]
 * @param {(fn: () => void, ms: number) => any} [setTimer]
 * @param {(t: any) => void} [clearTimer]
 */
export function latestAsker(send, done, delay = 120, setTimer = setTimeout, clearTimer = clearTimeout) {
  /** @type {{key: string, payload: T}|null} */
  let waiting = null;
  /** @type {string|null} */
  let latest = null;
  let busy = false;
  /** @type {any} */
  let timer = null;
  const go = async () => {
    if (busy || !waiting) return;
    const { key, payload } = waiting;
    waiting = null;
    busy = true;
    /** @type {{key: string, ok: boolean, value?: R, error?: unknown}} */
    let out;
    try {
      out = { key, ok: true, value: await send(payload) };
    } catch (error) {
      out = { key, ok: false, error };
    }
    busy = false;
    if (key === latest && !waiting) done(out);
    go();
  };
  return {
    /** @param {string} key @param {T} payload */
    ask(key, payload) {
      if (key === latest) return;
      latest = key;
      clearTimer(timer);
      timer = setTimer(() => { waiting = { key, payload }; go(); }, delay);
    },
    cancel() {
      clearTimer(timer);
      waiting = null;
      latest = null;
    },
    get busy() { return busy; },
  };
}
