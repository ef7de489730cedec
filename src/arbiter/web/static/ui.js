// @ts-check
// What the GM console and the player view share: DOM building, number fields with
// arithmetic, and the generic rendering of cards, the turn tracker, odds and the log.
// Checked by tsc under all of strict (jsconfig.strict.json): what the server sends is `Json`
// (read field by field, as the server documents it: docs/server.md).

/**
 * @typedef {any} Json a value of the server's JSON (a state, a record, a catalogue entry)
 * @typedef {{economy?: Json, current?: boolean, selected?: boolean, gm?: boolean, quick?: Json,
 *   onSelect?: (entity: Json, on: boolean) => void, onEdit?: (field: string, value: number) => void,
 *   onRemoveCondition?: (entity: Json, cond: Json) => void, onToggleHidden?: (entity: Json) => void}} CardOptions
 */

/**
 * What an exception says, whatever was thrown.
 * @param {unknown} err
 * @returns {string}
 */
export function errorText(err) {
  return err instanceof Error ? err.message : String(err);
}

/**
 * An element with attributes (`on...` listeners, `class`, `dataset`, `style`, `value`,
 * `checked`; null, undefined and false left out) and children (nested lists flattened).
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {Record<string, any>|null} [attrs]
 * @param {...any} children
 * @returns {HTMLElementTagNameMap[K]}
 */
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key.startsWith("on")) el.addEventListener(key.slice(2), value);
    else if (key === "class") el.className = value;
    else if (key === "dataset") Object.assign(el.dataset, value);
    else if (key === "style") el.style.cssText = value; // CSSOM: allowed by the CSP
    else if (key === "value") /** @type {HTMLInputElement} */ (el).value = value;
    else if (key === "checked") /** @type {HTMLInputElement} */ (el).checked = Boolean(value);
    else el.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : String(child));
  }
  return el;
}

/**
 * @param {Element} el
 * @param {...any} children
 */
export function replace(el, ...children) {
  el.replaceChildren(...children.flat(Infinity).filter((c) => c !== null && c !== undefined && c !== false));
}

/** A person's input the page refuses before sending it: the message and the field it names. */
export class InputError extends Error {
  /**
   * @param {string} message
   * @param {string|null} [field]
   */
  constructor(message, field) {
    super(message);
    this.field = field || null;
  }
}

// A number field's text as a whole number. Sums and products are worked out ("3+4",
// "2*6"; "/" rounds down); with a base value, a leading sign is relative to it
// ("-7" on 20 gives 13, "+3" gives 23).
/**
 * @param {unknown} text
 * @param {number|null} [base]
 * @param {string} [label]
 * @returns {number}
 */
export function arith(text, base, label = "value") {
  const s = String(text ?? "").replace(/\s+/g, "");
  if (!s) throw new InputError(`${label}: give a number (e.g. 12, -7, +3 or 3+4)`);
  if (!/^[-+]?\d+([-+*/]\d+)*$/.test(s) || s.length > 60) {
    throw new InputError(`${label}: '${text}' is not a whole number or a sum (e.g. 12, -7, +3, 2*6)`);
  }
  const tokens = s.match(/\d+|[-+*/]/g) || [];
  let sign = 1;
  let i = 0;
  if (tokens[0] === "-" || tokens[0] === "+") {
    sign = tokens[0] === "-" ? -1 : 1;
    i = 1;
  }
  /** @type {number[]} */
  const terms = [];
  let term = sign * Number(tokens[i]);
  let add = 1;
  for (i += 1; i < tokens.length; i += 2) {
    const op = tokens[i];
    const n = Number(tokens[i + 1]);
    if (op === "*") term *= n;
    else if (op === "/") {
      if (n === 0) throw new InputError(`${label}: '${text}' divides by zero`);
      term = Math.floor(term / n);
    } else {
      terms.push(add * term);
      add = op === "-" ? -1 : 1;
      term = n;
    }
  }
  terms.push(add * term);
  const value = terms.reduce((a, b) => a + b, 0);
  const relative = base !== undefined && base !== null && /^[-+]/.test(s);
  return relative ? Number(base) + value : value;
}

// A free-text argument as JSON: whole numbers (with arithmetic), true/false, lists and
// mappings in JSON, anything else as text.
/**
 * @param {unknown} text
 * @param {string} label
 * @returns {Json}
 */
export function argValue(text, label) {
  const s = String(text).trim();
  if (/^[-+]?\d[\d\s+\-*/]*$/.test(s)) return arith(s, undefined, label);
  if (s === "true") return true;
  if (s === "false") return false;
  if (/^[[{]/.test(s)) {
    try {
      return JSON.parse(s);
    } catch {
      throw new InputError(`${label}: '${s}' is not valid JSON (lists look like ["a", "b"] or [1, 2])`);
    }
  }
  return s;
}

// "key=value; key=value" as a mapping of argument values.
/**
 * @param {unknown} text
 * @returns {Record<string, Json>}
 */
export function moreArgs(text) {
  /** @type {Record<string, Json>} */
  const out = {};
  const s = String(text || "").trim();
  if (!s) return out;
  for (const part of s.split(/;|\n/)) {
    if (!part.trim()) continue;
    const m = part.match(/^\s*([A-Za-z_][A-Za-z0-9_]*)\s*[=:]\s*(.*)$/);
    if (!m) throw new InputError(`more arguments: '${part.trim()}' is not key=value (e.g. weapon=bow; range=short)`);
    out[m[1]] = argValue(m[2], m[1]);
  }
  return out;
}

/** @param {Json} odd @returns {string} */
export function pct(odd) {
  if (odd && typeof odd === "object" && "percent" in odd) return `${fmt(odd.percent)}%`;
  if (odd && typeof odd === "object" && "float" in odd) return fmt(odd.float);
  return String(odd);
}

/** @param {number} n */
function fmt(n) {
  return Number.isInteger(n) ? String(n) : n.toFixed(2).replace(/0$/, "");
}

/** @param {unknown} key */
export function label(key) {
  return String(key).replace(/_/g, " ");
}

// -- conditions -------------------------------------------------------------------------
// A creature's name, with its id when another creature has the same name.
/**
 * @param {Json} state
 * @param {string} id
 * @returns {string}
 */
export function creatureLabel(state, id) {
  const e = state && state.entities[id];
  if (!e || !e.name || e.name === id) return id;
  const twins = Object.values(state.entities).filter((/** @type {Json} */ o) => o.name === e.name).length > 1;
  return twins ? `${e.name} (${id})` : e.name;
}

// The rules speak of creatures by id ("nia is 8 spaces from imp"); a person reads names
// ("Nia is 8 spaces from Imp"). Each id of `state` whose creature has another name is
// replaced where it stands as a whole word (an id is letters, digits, '-' and '_'), the
// longest ids first so that "imp-2" is not read as "imp".
/**
 * @param {string} text
 * @param {{entities?: Record<string, {name?: string}>} | null | undefined} state
 * @returns {string}
 */
export function idsToNames(text, state) {
  if (!text || !state || !state.entities) return text;
  const named = Object.entries(state.entities)
    .filter(([id, e]) => e && e.name && e.name !== id)
    .sort(([a], [b]) => b.length - a.length);
  if (!named.length) return text;
  const names = new Map(named.map(([id, e]) => [id, /** @type {string} */ (e.name)]));
  const pattern = new RegExp(`(?<![\\w-])(${named.map(([id]) => id).join("|")})(?![\\w-])`, "g");
  return text.replace(pattern, (id) => names.get(id) || id);
}

/** @type {(text: string) => string} */
let naming = (text) => text;
// The page's own wording of the rules' sentences (`idsToNames` on the state it shows).
/** @param {(text: string) => string} fn */
export function nameIdsWith(fn) { naming = fn; }

// A creature's name (its id when it has none; a dash for no creature).
/**
 * @param {Json} state
 * @param {string|null|undefined} id
 * @returns {string}
 */
export function creatureName(state, id) {
  const e = state && id ? state.entities[id] : null;
  return e ? e.name || id : id || "—";
}

/**
 * The rounds a condition has left (null when it lasts until removed).
 * @param {Json} cond
 * @param {Json} state
 * @returns {number|null}
 */
export function remaining(cond, state) {
  const d = cond.duration;
  if (!d || d.kind !== "timed" || d.round === undefined || d.round === null) return null;
  return Math.max(d.round - state.round + (d.at === "end" ? 1 : 0), 0);
}

/**
 * @param {Json} cond
 * @param {Json} state
 * @param {(() => void)|null} onRemove
 */
export function conditionChip(cond, state, onRemove) {
  const left = remaining(cond, state);
  const parts = [cond.name];
  if (cond.level && cond.level !== 1) parts.push(String(cond.level));
  const title = [`${cond.name}, level ${cond.level ?? 1}`];
  if (left !== null) title.push(`${left} round(s) left`);
  else if (cond.duration && cond.duration.kind && cond.duration.kind !== "until_removed") title.push(cond.duration.kind);
  if (cond.source) title.push(`from ${cond.source}`);
  const data = cond.data || {};
  if (data.score !== undefined) title.push(`score ${data.score}`);
  const found = Array.isArray(data.detected_by) ? data.detected_by : [];
  if (found.length) title.push(`found by ${found.join(", ")}`);
  return h("span", { class: "chip cond", title: title.join(" · "), dataset: { condition: cond.name } },
    parts.join(" "),
    found.length ? h("small", { class: "found" }, ` · found by ${found.length}`) : null,
    left !== null ? h("small", {}, ` · ${left} rnd`) : null,
    onRemove ? h("button", { class: "x", title: `remove ${cond.name}`, "aria-label": `remove ${cond.name}`, onclick: onRemove }, "×") : null);
}

// -- cards ------------------------------------------------------------------------------
const SKIP = new Set(["id", "name", "kind", "side", "owner", "conditions", "hidden", "tags", "status"]);
// Fields worth a first look, in this order, and those of them shown only when not zero: what
// the ruleset declares (`display.card`, `display.quiet`: GET /api/rulesets, an encounter's
// GET /commands), set by the page when it learns the ruleset.
/** @type {string[]} */
let FIRST = [];
/** @type {Set<string>} */
let QUIET_ZERO = new Set();

/**
 * The ruleset's declarations the cards read (`display` of GET /api/rulesets).
 * @param {{card?: string[], quiet?: string[]}|null|undefined} display
 */
export function showFields(display) {
  FIRST = [...((display && display.card) || [])];
  QUIET_ZERO = new Set((display && display.quiet) || []);
}
// Health in words that never clash with a ruleset's own condition names (a ruleset may have
// a Terminal or a Dying condition: those show as condition chips, not as this label).
/** @type {Record<string, string>} */
const PLAYER_LABELS = { unhurt: "unhurt", wounded: "wounded", bloodied: "badly hurt", down: "down" };
/** @type {Record<string, string>} */
const LABEL_CLASS = { unhurt: "ok", wounded: "low", "badly hurt": "bad", down: "out", dead: "out" };

/**
 * @param {Json} entity
 * @returns {string|null}
 */
export function healthLabel(entity) {
  // what became of it, by the ruleset's own rules (the state's `fate`: down, dying, dead)
  if (entity.fate === "dead") return "dead";
  if (entity.fate === "down" || entity.fate === "dying") return "down";
  if (entity.status) return PLAYER_LABELS[entity.status] || entity.status;
  const conditions = new Set((entity.conditions || []).map((/** @type {Json} */ c) => c.name));
  if (entity.dead === true || conditions.has("dead")) return "dead";
  if (entity.down === true || entity.unsummoned === true || conditions.has("unconscious") || conditions.has("down")) return "down";
  const { health, health_max: most } = entity;
  if (typeof health !== "number" || typeof most !== "number" || most <= 0) return null;
  if (health <= 0) return "down";
  if (health >= most) return "unhurt";
  return health * 2 > most ? "wounded" : "badly hurt";
}

/** @param {string|null} text */
export function healthClass(text) {
  return (text && LABEL_CLASS[text]) || "";
}

/**
 * @param {string} name
 * @param {number} value
 * @param {number} most
 * @param {((field: string, value: number) => void)|undefined} onEdit
 */
function meter(name, value, most, onEdit) {
  const ratio = most > 0 ? Math.max(0, Math.min(1, value / most)) : 0;
  const level = ratio > 0.5 ? "ok" : ratio > 0.25 ? "low" : "bad";
  return h("div", { class: "meter", dataset: { field: name } },
    h("span", { class: "mname" }, label(name)),
    h("span", { class: `bar ${level}` }, h("i", { style: `width:${(ratio * 100).toFixed(1)}%` })),
    onEdit ? h("button", { class: "num link", title: `change ${name} (override)`, onclick: () => onEdit(name, value) }, `${value}/${most}`)
      : h("span", { class: "num" }, `${value}/${most}`));
}

/**
 * @param {Json} value
 * @returns {string}
 */
function short(value) {
  if (value === null || value === undefined) return "–";
  if (typeof value === "string") return label(value);  // ids in words: ballistic_vest, left_arm
  if (typeof value !== "object") return String(value);
  if (Array.isArray(value)) return value.map((/** @type {Json} */ v) => (typeof v === "object" && v ? label(v.name || v.id || compact(v)) : label(v))).join(", ");
  // A named thing reads as its name, then what else it says: "leather (dr 2)".
  const name = typeof value.name === "string" ? label(value.name) : null;
  const rest = Object.entries(value).filter(([k, v]) => k !== "name" && !boring(v))
    .map(([k, v]) => `${label(k)} ${typeof v === "object" && v ? short(v) : v}`).join(", ");
  return name ? (rest ? `${name} (${rest})` : name) : rest || "–";
}

// A small mapping as its values: {dice: "1d8", bonus: 0, type: "slashing"} as "1d8 slashing".
/**
 * @param {object} value
 * @returns {string}
 */
function compact(value) {
  return Object.values(value).filter((v) => !boring(v) && v !== 0)
    .map((v) => (typeof v === "object" ? short(v) : String(v))).join(" ");
}

/**
 * @param {unknown} value
 * @returns {boolean}
 */
function boring(value) {
  return value === null || value === undefined || value === false || value === ""
    || (Array.isArray(value) && value.length === 0)
    || (typeof value === "object" && !Array.isArray(value) && Object.keys(value).length === 0);
}

// The GM's hands on a card: damage and heal with sums (-7, 4+5), a body area where the
// ruleset's damage takes one, and a condition from the ruleset's own list with its level and
// duration. Each is one command of the catalogue; the log records it (no reason needed).
/**
 * @param {Json} entity
 * @param {Json} quick
 */
function quickControls(entity, quick) {
  const { damage, heal, condition, conditions, onCommand } = quick;
  const amount = h("input", { class: "qamount", inputmode: "numeric", placeholder: "amount", "aria-label": `amount for ${entity.name || entity.id}`, size: 6 });
  const areaNames = entity.areas && typeof entity.areas === "object" ? Object.keys(entity.areas) : [];
  const area = damage && damage.args.area && areaNames.length
    ? h("select", { class: "qarea", "aria-label": "body area" }, h("option", { value: "" }, "area…"), areaNames.map((/** @type {string} */ a) => h("option", { value: a }, label(a))))
    : null;
  const value = () => {
    const n = arith(amount.value, undefined, "amount");
    if (n < 0) return -n;
    return n;
  };
  const fire = (/** @type {Record<string, unknown>} */ base) => {
    try {
      /** @type {Record<string, unknown>} */
      const command = { ...base, target: entity.id, amount: value() };
      if (area && area.value) command.area = area.value;
      onCommand(command);
      amount.value = "";
    } catch (err) {
      toast(errorText(err), "error");
    }
  };
  const row = [];
  if (damage && damage.args.amount) row.push(h("button", { type: "button", class: "qdamage", title: "damage (through armor, as the ruleset applies it)", onclick: () => fire({ do: "damage" }) }, "Damage"));
  if (heal && heal.args.amount) row.push(h("button", { type: "button", class: "qheal", onclick: () => fire({ do: "heal" }) }, "Heal"));
  const controls = row.length ? h("div", { class: "quick" }, amount, area, row) : null;
  let picker = null;
  if (condition && conditions && conditions.length) {
    const name = h("select", { class: "qcond", "aria-label": "condition" }, conditions.map((/** @type {Json} */ c) => h("option", { value: c.name, title: c.text }, c.name)));
    const level = h("input", { class: "qlevel", inputmode: "numeric", placeholder: "level", size: 4, "aria-label": "level" });
    const rounds = h("input", { class: "qrounds", inputmode: "numeric", placeholder: "rounds", size: 4, "aria-label": "rounds" });
    picker = h("details", { class: "qcondition" }, h("summary", {}, "+ condition"),
      h("div", { class: "quick" }, name, level, rounds,
        h("button", { type: "button", onclick: () => {
          try {
            /** @type {Record<string, unknown>} */
            const command = { do: "condition", target: entity.id, name: name.value };
            if (level.value.trim()) command.level = arith(level.value, undefined, "level");
            if (rounds.value.trim()) command.rounds = arith(rounds.value, undefined, "rounds");
            onCommand(command);
          } catch (err) {
            toast(errorText(err), "error");
          }
        } }, "Give")));
  }
  return controls || picker ? h("div", { class: "gmhands" }, controls, picker) : null;
}

// A card for any ruleset's creature: meters for every "x"/"x_max" pair, body areas with
// their vitality, the first-look fields, conditions, and every other field on demand.
/**
 * @param {Json} entity
 * @param {Json} state
 * @param {CardOptions} [opts]
 */
export function card(entity, state, opts = {}) {
  const { economy, current, selected, onSelect, onEdit, onRemoveCondition, onToggleHidden, gm, quick } = opts;
  const meters = [];
  const used = new Set(SKIP);
  for (const [key, value] of Object.entries(entity)) {
    if (typeof value === "number" && typeof entity[`${key}_max`] === "number") {
      if (entity[`${key}_max`] > 0 || value !== 0) meters.push(meter(key, value, entity[`${key}_max`], onEdit));
      used.add(key);
      used.add(`${key}_max`);
    }
  }
  if (meters.length === 0 && typeof entity.health === "number") {
    meters.push(h("div", { class: "meter" }, h("span", { class: "mname" }, "health"), h("span", { class: "num" }, String(entity.health))));
    used.add("health");
  }
  const health = healthLabel(entity);
  let areas = null;
  if (entity.areas && typeof entity.areas === "object") {
    used.add("areas");
    areas = h("div", { class: "areas" }, Object.entries(entity.areas).map(([name, a]) => {
      const ratio = a.vitality_max > 0 ? a.vitality / a.vitality_max : 0;
      const cls = a.vitality <= 0 ? "bad" : ratio <= 0.5 ? "low" : "ok";
      return h("span", { class: `area ${cls}${a.vital ? " vital" : ""}`, title: `${label(name)}: vitality ${a.vitality}/${a.vitality_max}${a.vital ? " (vital)" : ""}`, dataset: { area: name } },
        label(name), " ", h("b", {}, `${a.vitality}/${a.vitality_max}`));
    }));
  }
  const facts = [];
  for (const key of FIRST) {
    if (key in entity && !used.has(key) && !boring(entity[key])
      && !(typeof entity[key] === "object" && short(entity[key]).length > 60)
      && !(entity[key] === 0 && QUIET_ZERO.has(key))) {
      facts.push(h("span", { class: "fact", dataset: { field: key } }, h("small", {}, label(key)), " ", short(entity[key])));
      used.add(key);
    }
  }
  if (entity.stats && typeof entity.stats === "object") {
    for (const [k, v] of Object.entries(entity.stats)) {
      if (!FIRST.includes(k)) continue;
      facts.push(h("span", { class: "fact" }, h("small", {}, k), " ", String(v)));
    }
  }
  const econ = economy ? h("div", { class: "economy", title: "left this turn" },
    Object.entries(economy).filter(([, v]) => typeof v !== "boolean" || v).map(([k, v]) => h("span", { class: "chip econ" }, `${label(k)} ${v === true ? "✓" : v}`))) : null;
  const rest = Object.entries(entity).filter(([k, v]) => !used.has(k) && !FIRST.includes(k) && !boring(v));
  const conditions = (entity.conditions || []).map((/** @type {Json} */ c) => conditionChip(c, state, onRemoveCondition ? () => onRemoveCondition(entity, c) : null));
  const classes = ["card"];
  if (current) classes.push("current");
  if (entity.hidden) classes.push("hidden");
  if (selected) classes.push("selected");
  if (health === "down" || health === "dead") classes.push("down");
  return h("article", { class: classes.join(" "), dataset: { id: entity.id }, "aria-label": entity.name || entity.id },
    h("header", {},
      onSelect ? h("input", { type: "checkbox", class: "pick", title: "select for apply to many", "aria-label": `select ${entity.id}`, checked: selected, onchange: (/** @type {Event} */ e) => onSelect(entity, /** @type {HTMLInputElement} */ (e.target).checked) }) : null,
      h("h3", {}, entity.name || entity.id),
      entity.name && entity.name !== entity.id ? h("code", {}, entity.id) : null,
      entity.side ? h("span", { class: "chip side" }, entity.side) : null,
      current ? h("span", { class: "chip turn" }, "turn") : null,
      gm && onToggleHidden ? hiddenChip(entity, state, onToggleHidden) : null),
    health ? h("div", { class: `health ${healthClass(health)}` }, health) : null,
    meters,
    areas,
    facts.length ? h("div", { class: "facts" }, facts) : null,
    econ,
    h("div", { class: "conditions" }, conditions.length ? conditions : h("small", { class: "muted" }, "no conditions")),
    quick ? quickControls(entity, quick) : null,
    rest.length ? h("details", { class: "more" }, h("summary", {}, "all fields"),
      h("dl", {}, rest.map(([k, v]) => [h("dt", {}, label(k)), h("dd", {}, short(v))]))) : null);
}

/** The GM's chip that says who may see a creature, and hides or reveals it on a click:
 * hidden by the GM from every player; concealed by a condition (the state's `concealing`
 * names) from its enemies' players until one of their characters detects it; or visible. */
/**
 * @param {Json} entity
 * @param {Json} state
 * @param {(entity: Json) => void} onToggle
 */
function hiddenChip(entity, state, onToggle) {
  const names = (state && state.concealing) || [];
  const by = (entity.conditions || []).find((/** @type {Json} */ c) => names.includes(c.name));
  let cls = "chip hid", text = "visible", title = "visible to players: click to hide";
  if (entity.hidden) {
    cls = "chip hid on"; text = "hidden"; title = "hidden from players: click to reveal";
  } else if (by) {
    cls = "chip hid part"; text = "concealed";
    title = `${by.name}: hidden from its enemies' players until one of their characters detects it; click to hide from every player`;
  }
  return h("button", { class: cls, title, onclick: () => onToggle(entity) }, text);
}

// -- turn tracker -----------------------------------------------------------------------
/**
 * @param {Json} state
 * @param {{onPick?: (id: string) => void}} [opts]
 */
export function tracker(state, opts = {}) {
  const { onPick } = opts;
  const names = (/** @type {string} */ id) => creatureName(state, id);
  const list = state.order.length ? state.order : Object.keys(state.entities);
  return h("div", { class: "tracker" },
    h("div", { class: "round" }, state.in_combat ? [h("b", {}, `Round ${state.round}`), " · ", state.current ? `${names(state.current)}'s turn` : "—"] : "Not in turn-by-turn play"),
    h("ol", {}, list.map((/** @type {string} */ id) => {
      const e = state.entities[id];
      const econ = state.economy && state.economy[id];
      return h("li", { class: id === state.current ? "current" : "", dataset: { id } },
        h("span", { class: "init" }, state.initiative[id] ?? ""),
        h("span", { class: "who" }, names(id), e && e.hidden ? h("small", { class: "muted" }, " (hidden)") : null,
          // the health word on its own line under the name: beside it, a long word ran over
          // the name in a narrow column
          e && healthLabel(e) ? h("span", { class: `hl ${healthClass(healthLabel(e))}` }, healthLabel(e)) : null,
          econ && id === state.current ? h("span", { class: "econ" }, Object.entries(econ).filter(([, v]) => typeof v === "number").map(([k, v]) => `${label(k)} ${v}`).join(" · ")) : null),
        onPick ? h("button", { class: "link", title: "act as this creature", onclick: () => onPick(id) }, "act") : null);
    })));
}

// -- odds -------------------------------------------------------------------------------
// Odds keys that are expectations (a mean of damage, Health...), not probabilities: shown as
// numbers with their unit, never as percentages.
const EXPECTATION = /(^|_| )(mean|expected|average)( |_|$)/;

/** @param {string} name */
function unitOf(name) {
  if (/damage/.test(name)) return " damage";
  if (/health|hp/.test(name)) return " Health";
  if (/vitality/.test(name)) return " vitality";
  return "";
}

/** @param {Json} odds */
export function oddsView(odds) {
  /** @type {[string, Json][]} */
  const rows = [];
  /** @type {(prefix: string, value: Json) => void} */
  const walk = (prefix, value) => {
    if (value && typeof value === "object" && ("exact" in value || "float" in value)) {
      rows.push([prefix, value]);
    } else if (value && typeof value === "object") {
      for (const [k, v] of Object.entries(value)) walk(prefix ? `${prefix} ${k}` : k, v);
    } else if (value !== null && value !== undefined && typeof value !== "object") {
      rows.push([prefix, { text: String(value) }]);
    }
  };
  walk("", odds);
  for (const row of rows) {
    const [name, v] = row;
    if (EXPECTATION.test(name) && v && typeof v === "object" && "float" in v) {
      row[1] = { text: `${fmt(v.float)}${unitOf(name)}`, exact: v.exact };
    }
  }
  return h("table", { class: "odds" }, h("tbody", {}, rows.map(([name, v]) => h("tr", { dataset: { outcome: name } },
    h("th", {}, label(name)),
    h("td", { class: "p" }, v.text ?? pct(v)),
    h("td", { class: "barcell" }, v.percent !== undefined ? h("span", { class: "obar", title: v.exact }, h("i", { style: `width:${v.percent}%` })) : h("small", { class: "muted" }, v.exact || ""))))));
}

// An exact distribution as a bar chart: outcomes [[value, percent]...].
/** @param {[number, number][]} outcomes */
export function chart(outcomes) {
  const most = Math.max(...outcomes.map(([, p]) => p), 0.0001);
  const step = outcomes.length > 60 ? Math.ceil(outcomes.length / 60) : 1;
  const bars = [];
  for (let i = 0; i < outcomes.length; i += step) {
    const slice = outcomes.slice(i, i + step);
    const p = slice.reduce((a, [, q]) => a + q, 0);
    const lo = slice[0][0];
    const hi = slice[slice.length - 1][0];
    bars.push(h("span", { class: "col", title: `${lo === hi ? lo : `${lo}–${hi}`}: ${p.toFixed(2)}%` },
      h("i", { style: `height:${Math.max((p / (most * step)) * 100, 0.5).toFixed(1)}%` }),
      h("small", {}, lo)));
  }
  return h("div", { class: "chart", role: "img", "aria-label": "distribution" }, bars);
}

// -- the log ----------------------------------------------------------------------------
/**
 * @typedef {{dice: [string, string][], steps: [string, string][]}} RollTexts
 * @param {Json} value
 * @param {string} path
 * @param {RollTexts} out
 * @returns {RollTexts}
 */
function rollTexts(value, path, out) {
  if (!value || typeof value !== "object") return out;
  if (Array.isArray(value)) {
    value.forEach((/** @type {Json} */ v, /** @type {number} */ i) => rollTexts(v, `${path}${path ? " " : ""}${i + 1}`, out));
    return out;
  }
  if (typeof value.text === "string" && (value.dice || value.expression || value.rolled)) {
    out.dice.push([path, value.text]);
  } else if (typeof value.text === "string" && (value.steps || value.components || value.instances || "final" in value)) {
    out.steps.push([path, value.text]);
  }
  if (Array.isArray(value.steps)) {
    for (const step of value.steps) {
      if (step && step.label) out.steps.push([`${path} step`, `${step.label}: ${step.before} → ${step.after}`]);
    }
  }
  for (const [k, v] of Object.entries(value)) {
    if (k === "steps") continue;
    if (v && typeof v === "object") rollTexts(v, path ? `${path} ${k}` : k, out);
  }
  return out;
}

const KEYS = ["actor", "target", "name", "level", "d20", "total", "against", "score", "hit", "critical",
  "critical_level", "taken", "health", "amount", "why", "round", "winner", "path", "value", "reason", "text", "id"];

/** @param {Json} event */
export function eventLine(event) {
  const d = event.data || {};
  const bits = [];
  for (const k of KEYS) {
    if (!(k in d) || d[k] === null || typeof d[k] === "object" || (d[k] === false && k !== "hit")) continue;
    if (k === "text" && String(d[k]).length > 120) continue;
    bits.push(`${label(k)} ${typeof d[k] === "string" ? label(d[k]) : d[k]}`);
  }
  if (d.condition && d.condition.name) bits.push(`${d.condition.name}${d.condition.level > 1 ? ` ${d.condition.level}` : ""}`);
  return `${label(event.type)}${bits.length ? ": " : ""}${bits.join(", ")}`;
}

/** @param {Json} command */
export function commandLine(command) {
  if (!command) return "";
  const rest = Object.entries(command).filter(([k]) => k !== "do" && k !== "actor")
    .map(([k, v]) => `${k}=${typeof v === "object" ? JSON.stringify(v) : v}`);
  return `${command.actor ? `${command.actor} ` : ""}${command.do}${rest.length ? ` ${rest.join(" ")}` : ""}`;
}

// Which entries are in effect: undo withdraws its target, redo puts it back.
/**
 * @param {Json[]} records
 * @returns {Set<number>}
 */
export function undone(records) {
  /** @type {Set<number>} */
  const out = new Set();
  for (const r of [...records].sort((a, b) => a.seq - b.seq)) {
    if (r.kind === "undo") out.add(r.target);
    if (r.kind === "redo") out.delete(r.target);
  }
  return out;
}

// A roll's text as the roller marks it: struck dice (~~1~~: dropped or rerolled) struck,
// successes (**8**) in bold, failures (__1__) underlined.
/**
 * @param {unknown} text
 * @returns {(string|HTMLElement)[]}
 */
export function rollText(text) {
  const parts = String(text).split(/~~([^~]*)~~|\*\*([^*]*)\*\*|__([^_]*)__/);
  /** @type {(string|HTMLElement)[]} */
  const out = [];
  for (let i = 0; i < parts.length; i += 4) {
    if (parts[i]) out.push(label(parts[i]));  // an area's id in words: hind_left
    if (parts[i + 1] !== undefined) out.push(h("s", { title: "dropped or rerolled" }, parts[i + 1]));
    if (parts[i + 2] !== undefined) out.push(h("b", { title: "a success" }, parts[i + 2]));
    if (parts[i + 3] !== undefined) out.push(h("u", { title: "a failure" }, parts[i + 3]));
  }
  return out;
}

// ``number`` gives the number a record is shown with (its place in the reader's own log on
// the player's page, where the log's sequence numbers would count what the player cannot see).
/**
 * @param {Json} record
 * @param {boolean} off
 * @param {boolean} [open]
 * @param {(seq: number) => number|string} [number]
 */
export function logEntry(record, off, open = false, number = (seq) => seq) {
  if (record.kind === "undo" || record.kind === "redo") {
    return h("li", { class: `rec ${record.kind}`, dataset: { seq: record.seq } },
      h("span", { class: "seq" }, `#${number(record.seq)}`), ` ${record.kind === "undo" ? "↶ undo" : "↷ redo"} #${number(record.target)}`);
  }
  if (record.redacted) {
    return h("li", { class: "rec redacted", dataset: { seq: record.seq } }, h("span", { class: "seq" }, `#${number(record.seq)}`), " something happened out of sight");
  }
  const events = record.events || [];
  /** @type {RollTexts} */
  const details = { dice: [], steps: [] };
  events.forEach((/** @type {Json} */ e) => rollTexts(e.data, label(e.type), details));
  return h("li", { class: `rec${off ? " off" : ""}`, dataset: { seq: record.seq } },
    h("details", { open },
      h("summary", {}, h("span", { class: "seq" }, `#${number(record.seq)}`), " ",
        record.text ? h("span", { class: "said" }, record.text) : h("b", {}, commandLine(record.command)),
        off ? h("small", { class: "muted" }, " (undone)") : null),
      // the command and the events as the engine recorded them: under the sentence, folded
      // (a game master reads the sentence, the dice and the steps; the rest is for checking)
      record.text ? h("details", { class: "engine" }, h("summary", {}, "as recorded"),
        h("div", { class: "cmd" }, h("small", { class: "muted" }, commandLine(record.command))),
        eventList(events)) : eventList(events),
      details.dice.length ? h("div", { class: "dice" }, h("b", {}, "Dice"), h("ul", {}, details.dice.map(([p, t]) => h("li", {}, h("small", {}, label(p)), " ", h("code", {}, rollText(t)))))) : null,
      details.steps.length ? h("div", { class: "steps" }, h("b", {}, "Steps"), h("ul", {}, details.steps.map(([p, t]) => h("li", {}, h("small", {}, label(p)), " ", h("code", {}, label(t)))))) : null,
      record.dice && record.dice.length ? h("div", { class: "raw" }, h("small", {}, diceLine(record))) : null));
}

/** @param {Json[]} events */
function eventList(events) {
  return h("ul", { class: "events" }, events.slice(0, 8).map((e) => h("li", {}, eventLine(e))),
    events.length > 8 ? h("li", { class: "muted" }, `… ${events.length - 8} more`) : null);
}

// The dice of a record: those typed at the table apart from those the server rolled.
/** @param {Json} record */
export function diceLine(record) {
  const text = (/** @type {[number, number][]} */ dice) => dice.map(([f, v]) => `d${f}=${v}`).join(", ");
  const typed = record.typed || 0;
  if (!typed) return `dice rolled: ${text(record.dice)}`;
  const rest = record.dice.slice(typed);
  return `typed at the table: ${text(record.dice.slice(0, typed))}${rest.length ? `; rolled by the server: ${text(rest)}` : ""}`;
}

// ``opened`` holds the records the reader has unfolded (their sequence numbers): a live
// update redraws the log and must not fold the entry being read (see openedIn).
/**
 * @param {Json[]} records
 * @param {number} [limit]
 * @param {(seq: number) => number|string} [number]
 * @param {Set<number>} [opened]
 */
export function logList(records, limit = 200, number = (seq) => seq, opened = new Set()) {
  const off = undone(records);
  const sorted = [...records].sort((a, b) => b.seq - a.seq).slice(0, limit);
  return h("ol", { class: "log", reversed: true }, sorted.map((r) => logEntry(r, off.has(r.seq), opened.has(r.seq), number)));
}

// The records unfolded in a drawn log (an element holding ``ol.log``), by sequence number.
/**
 * @param {Element|null} box
 * @returns {Set<number>}
 */
export function openedIn(box) {
  const out = new Set();
  if (!box) return out;
  for (const li of box.querySelectorAll("ol.log > li.rec")) {
    const fold = li.querySelector(":scope > details");
    const seq = Number((/** @type {HTMLElement} */ (li)).dataset.seq);
    if (fold instanceof HTMLDetailsElement && fold.open && Number.isFinite(seq)) out.add(seq);
  }
  return out;
}

// Records numbered by their place in ``records`` (1 for the oldest): a reader's own log.
/**
 * @param {Json[]} records
 * @returns {(seq: number) => number|string}
 */
export function ordinals(records) {
  const place = new Map([...records].sort((a, b) => a.seq - b.seq).map((r, i) => [r.seq, i + 1]));
  return (seq) => place.get(seq) ?? "?";
}

// The console's form fields come from the command catalogue (GET .../commands): each
// argument declares its kind, bounds, choices and whether it is required.
/**
 * @param {Json} spec
 * @returns {Json[]}
 */
export function commandArgs(spec) {
  if (!spec || !spec.args) return [];
  return Object.entries(spec.args).map(([name, /** @type {Json} */ arg]) => ({ name, optional: !arg.required, ...arg }));
}

// A refusal of the legal options (GET /options) as a person reads it: the rule's reason and,
// when the rules say, what would make it legal.
/**
 * @param {Json} item
 * @returns {string}
 */
export function refusalText(item) {
  if (!item || !item.reason) return "";
  return naming(item.remedy ? `${item.reason} (${item.remedy.text})` : item.reason);
}

// The targets of one command of the legal options, for a target select: the legal ones, the
// refused ones, and the default. The default is never an ally or the actor itself: the one it
// attacked last while that is still a legal enemy in the fight (not down), else the choice
// already made while it is one, else the nearest legal enemy the server suggests, else none
// (``why`` says why).
/**
 * @param {Json} option
 * @param {{keep?: string, touched?: boolean, last?: string}} [choice]
 * @returns {{legal: Json[], illegal: Json[], pick: string, why: string}}
 */
export function targetChoices(option, { keep = "", touched = false, last = "" } = {}) {
  /** @type {Json[]} */
  const targets = option && option.targets ? option.targets : [];
  const legal = targets.filter((t) => t.legal);
  const illegal = targets.filter((t) => !t.legal);
  const isLegal = (/** @type {string} */ id) => Boolean(id) && legal.some((t) => t.id === id);
  const isEnemy = (/** @type {string} */ id) => Boolean(id) && legal.some((t) => t.id === id && t.relation === "enemy" && !t.down);
  const pick = (touched && isLegal(keep) && keep) || (isEnemy(last) && last) || (isEnemy(keep) && keep)
    || (option && option.suggested) || "";
  const why = pick ? "" : (option && (naming(option.no_default || "") || refusalText(option))) || "";
  return { legal, illegal, pick, why };
}

// The legal options of a creature's turn (GET /options), asked once per state version.
export class LegalOptions {
  constructor() {
    this.key = "";
    /** @type {Json} */
    this.data = null;
  }

  /**
   * @param {{get(path: string): Promise<Json>}} api
   * @param {string} encounter
   * @param {string} actor
   * @param {number} version
   * @returns {Promise<Json>}
   */
  async of(api, encounter, actor, version) {
    const key = `${encounter}/${actor}@${version}`;
    if (this.key === key) return this.data;
    const data = await api.get(`/api/encounters/${encounter}/options?actor=${encodeURIComponent(actor)}`);
    this.key = key;
    this.data = data;
    return data;
  }
}

// Whether a command has every argument it cannot go without (its target aside): only then
// are its odds asked.
/**
 * @param {Json} spec
 * @param {Record<string, unknown>} command
 */
export function complete(spec, command) {
  return commandArgs(spec).every((a) => a.optional || a.name === "target" || a.name in command);
}

/** @param {Json} spec */
export function takesActor(spec) {
  return Boolean(spec) && spec.actor !== "none";
}

// One form field for a declared argument: a select for a closed choice, a checkbox for a flag,
// a number box with the declared bounds for a whole number, else a text box.
/**
 * @param {Json} arg
 * @param {string} [prefix]
 */
export function argInput(arg, prefix = "opt-") {
  /** @type {Record<string, any>} */
  const attrs = { name: `${prefix}${arg.name}`, dataset: { arg: arg.name, kind: arg.kind }, title: arg.help || "" };
  if (arg.kind === "choice") {
    return h("select", attrs, arg.required ? null : h("option", { value: "" }, "(default)"),
      arg.choices.map((/** @type {string} */ c) => h("option", { value: c, selected: arg.default === c && arg.required }, c.replace(/_/g, " "))));
  }
  if (arg.kind === "flag") {
    return h("input", { ...attrs, type: "checkbox", checked: Boolean(arg.default), dataset: { ...attrs.dataset, default: String(Boolean(arg.default)) } });
  }
  if (arg.kind === "integer") {
    return h("input", { ...attrs, type: "number", step: 1, min: arg.min, max: arg.max, inputmode: "numeric",
      placeholder: arg.default !== undefined ? `default ${arg.default}` : arg.required ? "required" : "optional" });
  }
  const hint = arg.kind === "square" ? "x, y" : arg.kind === "squares" ? "[[x, y], …]" : arg.kind === "dice" ? "e.g. 2d6+3" : "";
  return h("input", { ...attrs, placeholder: hint || (arg.default !== undefined ? `default ${arg.default}` : arg.required ? "required" : "optional") });
}

// The value of a field built by argInput, or undefined when it is left empty.
/**
 * @param {Element} field
 * @returns {Json}
 */
export function readArg(field) {
  const input = /** @type {HTMLInputElement} */ (field);
  const kind = input.dataset.kind;
  const name = input.dataset.arg;
  // A flag is sent only when it differs from its default, so the log shows what was chosen.
  if (kind === "flag") return input.checked !== (input.dataset.default === "true") ? input.checked : undefined;
  const text = String(input.value).trim();
  if (text === "") return undefined;
  if (kind === "choice" || kind === "text" || kind === "dice" || kind === "creature") return text;
  if (kind === "square" && /^-?\d+\s*[, ]\s*-?\d+$/.test(text)) return text.split(/[\s,]+/).map(Number);
  return argValue(text, name || "value");
}

// A creature argument's hint for pickers: whom the rules expect it to name.
/**
 * @param {Json} spec
 * @param {string} [name]
 * @returns {string|null}
 */
export function refersTo(spec, name = "target") {
  const arg = spec && spec.args ? spec.args[name] : null;
  return arg ? arg.refers || "any" : null;
}

/**
 * @param {string} text
 * @param {string} [kind]
 */
export function toast(text, kind = "info") {
  let box = document.getElementById("toasts");
  if (!box) {
    box = h("div", { id: "toasts", "aria-live": "polite" });
    document.body.append(box);
  }
  const el = h("div", { class: `toast ${kind}` }, text);
  box.append(el);
  // a few at a time: a quick run of rolls must not bury the page under old notices
  // (one on a phone, where the roll bar sits at the bottom of the screen)
  const phone = window.matchMedia("(max-width: 600px)").matches;
  // on a phone the notice sits just under the header (its height follows how it wraps),
  // never over the encounter's name and the turn buttons
  const header = document.getElementById("top");
  box.style.top = phone && header ? `${Math.round(header.getBoundingClientRect().bottom) + 6}px` : "";
  const most = phone ? 1 : 3;
  while (box.children.length > most) box.firstElementChild?.remove();
  setTimeout(() => el.remove(), kind === "error" ? 6000 : 3500);
}

// -- dice the table throws -----------------------------------------------------------------
// The dice plan of a command's odds (core/dice_plan.py): each die in order, flat, with what
// it is for and when it is rolled.
/**
 * @param {Json} plan
 * @returns {{faces: number, for: string, when: string}[]}
 */
export function planDice(plan) {
  /** @type {{faces: number, for: string, when: string}[]} */
  const out = [];
  for (const step of (plan && plan.dice) || []) {
    for (let i = 0; i < step.count; i++) out.push({ faces: step.faces, for: step.for, when: step.when });
  }
  return out;
}

// Dice typed at the table, as numbers in the order rolled (null when none), checked against
// the plan die by die as they are typed.
/**
 * @param {unknown} text
 * @param {Json} plan
 * @returns {number[]|null}
 */
export function typedDice(text, plan) {
  const s = String(text || "").trim();
  if (!s) return null;
  const parts = s.split(/[\s,;]+/).filter(Boolean);
  const bad = parts.find((p) => !/^\d+$/.test(p) || Number(p) < 1);
  if (bad !== undefined) throw new InputError(`'${bad}' is not a die result: give whole numbers from 1 up, in the order rolled (e.g. 14, 6)`, "dice");
  const values = parts.map(Number);
  const dice = planDice(plan);
  if (plan && !plan.cut) {
    values.forEach((v, i) => {
      const die = dice[i];
      if (!die) throw new InputError(`this action rolls at most ${dice.length} dice: ${values.length} typed`, "dice");
      if (v > die.faces) {
        const what = die.for === `d${die.faces}` ? "" : ` (${die.for})`;
        throw new InputError(`die ${i + 1} is a d${die.faces}${what}: ${v} cannot come up on it`, "dice");
      }
    });
  }
  return values;
}

// The plan beside the Table dice field: "2d6 attack · 2d6 defense · d12 location on a hit".
/**
 * @param {Json} plan
 * @param {number} [typed]
 */
export function planView(plan, typed = 0) {
  if (!plan || !plan.dice || !plan.dice.length) return h("small", { class: "muted" }, plan ? "no dice to throw" : "");
  let at = 0;
  const steps = plan.dice.map((/** @type {Json} */ step) => {
    const first = at;
    at += step.count;
    const done = typed >= at ? " typed" : typed > first ? " partly" : "";
    const name = step.for === `d${step.faces}` ? "" : ` ${step.for}`;
    return h("span", { class: `die${done}`, title: step.when === "always" ? "always rolled" : `rolled ${step.when}` },
      `${step.count > 1 ? step.count : ""}d${step.faces}${name}`, step.when === "always" ? null : h("small", {}, ` ${step.when}`));
  });
  const rest = typed > 0 && typed < plan.most ? h("small", { class: "muted" }, " · the server rolls the rest") : null;
  return h("span", { class: "plan" }, steps.flatMap((/** @type {HTMLElement} */ s, /** @type {number} */ i) => (i ? [" · ", s] : [s])), rest);
}

// Token pictures in the turn order: a small round picture before each name that has one
// (``urlOf(hash)``: its object URL once fetched, else null; initials stay on the map).
/**
 * @template {Element} N
 * @param {N} node
 * @param {Json} state
 * @param {(hash: string) => string|null} urlOf
 * @returns {N}
 */
export function withAvatars(node, state, urlOf) {
  const tokens = state.tokens || {};
  for (const li of /** @type {NodeListOf<HTMLElement>} */ (node.querySelectorAll("li[data-id]"))) {
    const id = li.dataset.id || "";
    const url = tokens[id] ? urlOf(tokens[id]) : null;
    if (url) li.querySelector(".who")?.prepend(h("img", { class: "avatar", src: url, alt: "" }));
  }
  return node;
}

// The line beside a Table dice field: the plan, the dice typed so far struck through on it,
// and what is wrong with them, checked as they are typed.
/**
 * @param {unknown} text
 * @param {Json} plan
 */
export function planLine(text, plan) {
  let typed = 0;
  let trouble = null;
  try {
    const dice = typedDice(text, plan);
    typed = dice ? dice.length : 0;
  } catch (err) {
    trouble = errorText(err);
  }
  return [plan ? planView(plan, typed) : null, trouble ? h("span", { class: "warn" }, ` ${trouble}`) : null];
}
