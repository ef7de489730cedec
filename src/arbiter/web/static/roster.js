// @ts-check
// A campaign that lasts, in the game master console (docs/web.md, "Roster, bestiary and
// campaign time"): the roster of characters with their lasting state in words, the GM's
// bestiary, a new encounter from both, write-back after a fight, campaign time passing, and
// the dice notation of the campaign's dice box. It talks only to the HTTP API (docs/server.md)
// and reaches the rest of the console through the hooks app.js gives it.
import { ApiError } from "./api.js";
import { InputError, arith, errorText, h, label, moreArgs, replace, toast } from "./ui.js";

/** @typedef {import("./ui.js").Json} Json */

// Below this width the left column sits above the cards (style.css): the panels start folded.
const NARROW = "(max-width: 1180px)";
const UNITS = ["minutes", "hours", "days"];
/** @type {[string, string][]} */
const DIALECTS = [["arbiter", "Arbiter"], ["roll20", "Roll20"], ["foundry", "Foundry VTT"], ["d20", "d20 (Avrae)"]];
// Keys of a character and of a bestiary entry that have fields of their own in the forms (the
// rest is the stat block, written "key=value; key=value").
const CHARACTER_FIELDS = new Set(["id", "name", "template", "side", "owner", "notes", "lasting"]);
const BEAST_FIELDS = new Set(["id", "name", "template", "notes"]);
// Keys of an encounter's `add` that a bestiary entry does not keep.
const NOT_KEPT = new Set(["do", "id", "initiative", "hidden", "owner"]);
const ID_RE = /^[A-Za-z0-9_-]{1,64}$/;

/** @type {(n: number, one: string, many?: string) => string} */
const plural = (n, one, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** @param {unknown} text */
function slug(text) {
  return String(text).trim().toLowerCase().replace(/[^a-z0-9_-]+/g, "-").replace(/^-+|-+$/g, "").slice(0, 64);
}

// -- a character's lasting state, in words -------------------------------------------------
/** @param {Json} w */
function woundWords(w) {
  const about = [];
  if (w.area) about.push(label(w.area));
  if (Number(w.bleeding) > 0) about.push(`bleeding ${w.bleeding}`);
  if (Number(w.level) > 1) about.push(`level ${w.level}`);
  if (w.known === false) about.push("not yet known");
  return `${label(w.name || "wound")}${about.length ? ` (${about.join(", ")})` : ""}`;
}

/** @param {Json} c */
function conditionWords(c) {
  let text = label(c.name);
  if (c.level && c.level !== 1) text += ` ${c.level}`;
  const d = c.duration;
  if (d && d.kind === "timed" && typeof d.round === "number") text += ` (${plural(d.round, "round")} left)`;
  return text;
}

/** What a creature carries, as short phrases, the worst first: "down", "Health 12/20",
 * "Energy 3/5", "hurt: left arm 1/4", "2 wounds: cut (left arm, bleeding 1), fracture
 * (chest)", "fatigue 1", "SP 9/12", its conditions, "ammo: rifle 20"... from the creature as
 * it would join an encounter (any ruleset: the same fields the cards read). */
/**
 * @param {Json} e
 * @returns {string[]}
 */
export function carried(e) {
  if (!e) return [];
  /** @type {string[]} */
  const out = [];
  if (e.dead === true) out.push("dead");
  else if (e.down === true) out.push("down");
  const meter = (/** @type {string} */ key, /** @type {string} */ name) => {
    const now = e[key];
    const most = e[`${key}_max`];
    if (typeof now !== "number" || typeof most !== "number" || (most <= 0 && now === 0)) return;
    out.push(`${name} ${now}/${most}${now > most ? " (overheal)" : ""}`);
  };
  meter("health", "Health");
  meter("energy", "Energy");
  if (e.areas && typeof e.areas === "object") {
    const hurt = Object.entries(/** @type {Record<string, Json>} */ (e.areas)).filter(([, a]) => a && typeof a.vitality === "number" && a.vitality < a.vitality_max)
      .map(([name, a]) => `${label(name)} ${a.vitality}/${a.vitality_max}`);
    if (hurt.length) out.push(`hurt: ${hurt.join(", ")}`);
  }
  const wounds = Array.isArray(e.wounds) ? e.wounds : [];
  if (wounds.length) out.push(`${plural(wounds.length, "wound")}: ${wounds.map(woundWords).join(", ")}`);
  const fatigue = wounds.reduce((/** @type {number} */ n, /** @type {Json} */ w) => n + (Number(w.fatigue) || 0), 0);
  if (fatigue) out.push(`fatigue ${fatigue}`);
  if (typeof e.stress === "number" && e.stress) out.push(`stress ${e.stress}`);
  const afflictions = Array.isArray(e.afflictions) ? e.afflictions : [];
  if (afflictions.length) out.push(`${plural(afflictions.length, "affliction")}: ${afflictions.map((/** @type {Json} */ a) => label(a.name || a.id || "?")).join(", ")}`);
  meter("sp", "SP");
  meter("fp", "FP");
  meter("mp", "MP");
  const conditions = (e.conditions || []).map(conditionWords);
  if (conditions.length) out.push(conditions.join(", "));
  if (e.ammo && typeof e.ammo === "object" && !Array.isArray(e.ammo)) {
    const ammo = Object.entries(e.ammo).map(([weapon, n]) => `${label(weapon).replace(/-/g, " ")} ${n}`);
    if (ammo.length) out.push(`ammo: ${ammo.join(", ")}`);
  }
  return out;
}

// Campaign time (seconds) in words: "2 days 12 hours".
/** @param {number} seconds */
export function timeWords(seconds) {
  if (!seconds) return "no time has passed yet";
  const days = Math.floor(seconds / 86400);
  const hours = Math.floor((seconds % 86400) / 3600);
  const minutes = Math.floor((seconds % 3600) / 60);
  const parts = [];
  if (days) parts.push(plural(days, "day"));
  if (hours) parts.push(plural(hours, "hour"));
  if (minutes) parts.push(plural(minutes, "minute"));
  return `${parts.join(" ") || "under a minute"} passed`;
}

// A bestiary entry's own keys, in words: "health 40 · weapons pistol, knife".
/** @param {Json} record */
function blockWords(record) {
  return Object.entries(record).filter(([k]) => !BEAST_FIELDS.has(k) && k !== "side").map(([k, v]) => `${label(k)} ${valueWords(v)}`);
}

/**
 * @param {Json} v
 * @returns {string}
 */
function valueWords(v) {
  if (Array.isArray(v)) return v.map(valueWords).join(", ");
  if (v && typeof v === "object") return Object.entries(v).map(([k, x]) => `${label(k)} ${valueWords(x)}`).join(", ");
  return typeof v === "string" ? label(v) : String(v);
}

// A stat block as the form's "key=value; key=value" text (lists and mappings as JSON).
/**
 * @param {Json} record
 * @param {Set<string>} own
 */
function blockText(record, own) {
  return Object.entries(record).filter(([k]) => !own.has(k))
    .map(([k, v]) => `${k}=${typeof v === "string" ? v : JSON.stringify(v)}`).join("; ");
}

// -- forms -------------------------------------------------------------------------------
/**
 * A field of a form by its name (an input, a select or a textarea: what they share).
 * @param {Element} form
 * @param {string} name
 * @returns {HTMLInputElement}
 */
function field(form, name) {
  return /** @type {HTMLInputElement} */ (form.querySelector(`[name="${name}"]`));
}

/**
 * A part of the panels that build() made (or the page's HTML holds).
 * @param {Element} root
 * @param {string} selector
 * @returns {HTMLElement}
 */
function part(root, selector) {
  return /** @type {HTMLElement} */ (root.querySelector(selector));
}

/** @param {Element} form */
function clearError(form) {
  const box = form.querySelector(".error");
  if (box) box.textContent = "";
  form.querySelectorAll("[aria-invalid]").forEach((el) => el.removeAttribute("aria-invalid"));
}

// Run `fn` for a form: its error (the server's or the form's own) goes under it, and the field
// it names is marked (`fields` maps an error's field to the form's box for it; "*": any other).
/**
 * @param {Element} form
 * @param {() => Promise<void>} fn
 * @param {Record<string, string>} [fields]
 */
async function guard(form, fn, fields = {}) {
  clearError(form);
  const buttons = [.../** @type {NodeListOf<HTMLButtonElement>} */ (form.querySelectorAll("button[type=submit]"))];
  buttons.forEach((b) => { b.disabled = true; });
  try {
    return await fn();
  } catch (thrown) {
    const err = /** @type {Json} */ (thrown);
    const box = form.querySelector(".error");
    const named = err.field ? String(err.field).replace(/^command\./, "") : null;
    const own = named ? fields[named] || fields[named.split(".")[0]] || named : null;
    // a field the form has no box for (a stat-block key) is the stat block's ("*")
    const name = own && !form.querySelector(`[name="${CSS.escape(own)}"]`) && fields["*"] ? fields["*"] : own;
    const input = name ? /** @type {HTMLElement|null} */ (form.querySelector(`[name="${CSS.escape(name)}"]`)) : null;
    const say = named && !(input && name === own) && !errorText(err).includes(named) ? `${named}: ` : "";
    if (box) box.textContent = `${say}${errorText(err)}`;
    if (input) {
      input.setAttribute("aria-invalid", "true");
      input.focus();
    }
    if (!(err instanceof ApiError) && !(err instanceof InputError)) console.error(err);
    return undefined;
  } finally {
    buttons.forEach((b) => { b.disabled = false; });
  }
}

function errorLine() {
  return h("p", { class: "error", role: "alert" });
}

/**
 * The Roster and Bestiary panels (and the Campaign panel's dice notation). `hooks` are the
 * console's: api(), state(), encounter() (the open one's {id, name}), records() (its log),
 * applied(out) (an answer with record and state), opened(encounter) (a new encounter to
 * open), templates(bestiaryIds) (the bestiary changed), toast(text) (a refusal to show).
 */
export class RosterPanels {
  /** @param {Json} hooks */
  constructor(hooks) {
    this.hooks = hooks;
    /** @type {Json} */
    this.campaign = null;
    /** @type {Json} */
    this.ruleset = null;
    /** @type {Json[]} */
    this.characters = [];
    /** @type {Record<string, Json>} */
    this.now = {};
    /** @type {Json[]} */
    this.bestiary = [];
    /** @type {Record<string, string>} */
    this.pictures = {}; // a character's token picture: id -> image hash
    /** @type {Record<string, string>} */
    this.beastPictures = {}; // a bestiary creature's
    /** @type {Map<string, string|null>} */
    this.urls = new Map(); // image hash -> object URL ("" while it loads, null if it failed)
    /** @type {Record<string, Json>} */
    this.filled = {};
    /** @type {Record<string, Json>} */
    this.templates = {};
    /** @type {Set<string>} */
    this.picked = new Set();
    /** @type {{template: string, count: number, side: string}[]} */
    this.creatures = [];
    /** @type {Record<string, Json>} */
    this.settings = { dice_dialect: "arbiter" };
    this.time = 0;
    /** @type {Json} */
    this.last = null;
    // made by build(), once
    const made = /** @type {any} */ (null);
    /** @type {HTMLParagraphElement} */ this.clock = made;
    /** @type {HTMLDivElement} */ this.afterFight = made;
    /** @type {HTMLButtonElement} */ this.writeBackButton = made;
    /** @type {HTMLParagraphElement} */ this.writeBackError = made;
    /** @type {HTMLDivElement} */ this.carriedBox = made;
    /** @type {HTMLUListElement} */ this.list = made;
    /** @type {HTMLFormElement} */ this.encounterForm = made;
    /** @type {HTMLFormElement} */ this.timeForm = made;
    /** @type {HTMLFormElement} */ this.characterForm = made;
    /** @type {HTMLDetailsElement} */ this.characterDetails = made;
    /** @type {HTMLParagraphElement} */ this.lastLine = made;
    /** @type {HTMLUListElement} */ this.beastList = made;
    /** @type {HTMLFormElement} */ this.beastForm = made;
    /** @type {HTMLDetailsElement} */ this.beastDetails = made;
    /** @type {HTMLDivElement} */ this.fromEncounter = made;
    this.rosterBox = /** @type {HTMLDetailsElement} */ (document.getElementById("roster-panel"));
    this.bestiaryBox = /** @type {HTMLDetailsElement} */ (document.getElementById("bestiary-panel"));
    this.dialectSelect = /** @type {HTMLSelectElement} */ (document.getElementById("dice-dialect"));
    this.build();
    this.rosterBox.open = !window.matchMedia(NARROW).matches;
    this.bestiaryBox.open = false;
  }

  /** The dice notation the campaign's dice box reads (docs/dice.md, "Dialects"). */
  dialect() {
    return this.settings.dice_dialect || "arbiter";
  }

  get api() {
    return this.hooks.api();
  }

  get cid() {
    return this.campaign.id;
  }

  // -- markup --------------------------------------------------------------------------
  build() {
    replace(this.dialectSelect, DIALECTS.map(([value, text]) => h("option", { value }, text)));
    this.dialectSelect.addEventListener("change", () => this.setDialect());

    this.clock = h("p", { class: "clock muted" });
    this.afterFight = h("div", { class: "afterfight" });
    this.writeBackButton = h("button", { type: "button", class: "writeback", onclick: () => this.writeBack() }, "Write back");
    this.writeBackError = errorLine();
    this.carriedBox = h("div", { class: "carried", "aria-live": "polite" });
    replace(this.afterFight, h("h3", {}, "After the fight"),
      h("p", { class: "muted hint" }, "What each roster character in the open encounter carries away: wounds, Health, spent ammunition…"),
      this.writeBackButton, this.writeBackError, this.carriedBox);
    this.list = h("ul", { class: "rlist" });

    this.encounterForm = h("form", { class: "rnew", novalidate: true },
      h("h3", {}, "New encounter from the roster"),
      h("label", {}, "Name", h("input", { name: "name", placeholder: "Ambush at the ford", maxlength: 200 })),
      h("p", { class: "picked muted" }),
      h("label", {}, "Creatures", h("select", { name: "creature" })),
      h("div", { class: "row end" },
        h("label", { class: "narrow" }, "Count", h("input", { name: "count", value: "1", inputmode: "numeric", size: 3 })),
        h("label", {}, "Side", h("input", { name: "cside", placeholder: "the template's", size: 8, title: "the side they fight on (empty: the template's own)" })),
        h("button", { type: "button", class: "addcreature", onclick: () => this.addCreature() }, "+ add")),
      h("ul", { class: "plain rcreatures" }),
      h("button", { type: "submit" }, "Create and open"),
      errorLine());
    this.encounterForm.addEventListener("submit", (e) => { e.preventDefault(); this.createEncounter(); });

    this.timeForm = h("form", { class: "rtime", novalidate: true },
      h("h3", {}, "Time passes"),
      h("div", { class: "row end" },
        h("label", { class: "narrow" }, "Amount", h("input", { name: "amount", value: "8", inputmode: "numeric", size: 4 })),
        h("label", {}, "Unit", h("select", { name: "unit" }, UNITS.map((u) => h("option", { value: u, selected: u === "hours" }, u)))),
        h("label", {}, "Doing", h("select", { name: "activity" }))),
      h("button", { type: "submit" }, "Let time pass"),
      errorLine(),
      h("div", { class: "happened", "aria-live": "polite" }));
    this.timeForm.addEventListener("submit", (e) => { e.preventDefault(); this.passTime(); });

    this.characterForm = h("form", { class: "rchar-form", novalidate: true },
      h("label", {}, "Template", h("select", { name: "template" })),
      h("div", { class: "row" },
        h("label", {}, "Id", h("input", { name: "id", placeholder: "nia", maxlength: 64 })),
        h("label", {}, "Name", h("input", { name: "name", placeholder: "Nia", maxlength: 200 }))),
      h("div", { class: "row" },
        h("label", {}, "Side", h("input", { name: "side", value: "heroes", maxlength: 64 })),
        h("label", {}, "Player", h("input", { name: "owner", placeholder: "Ann", list: "roster-owners" }))),
      h("label", {}, "Stat block changes", h("textarea", { name: "more", rows: 2, placeholder: "health=30; ammo={\"rifle\": 20} (the ruleset's keys, over the template)" })),
      h("label", {}, "Notes", h("textarea", { name: "notes", rows: 1, placeholder: "for the game master only" })),
      h("label", { class: "check forget", hidden: true }, h("input", { type: "checkbox", name: "forget" }), " start fresh: forget what it carries (wounds, Health, ammunition)"),
      h("div", { class: "row" }, h("button", { type: "submit" }, "Add to the roster"), h("button", { type: "button", class: "link cancel", hidden: true, onclick: () => this.resetCharacterForm() }, "cancel")),
      errorLine(),
      h("datalist", { id: "roster-owners" }));
    this.characterForm.addEventListener("submit", (e) => { e.preventDefault(); this.saveCharacter(); });
    field(this.characterForm, "name").addEventListener("input", () => this.suggestId(this.characterForm));
    this.characterDetails = h("details", { class: "sub" }, h("summary", {}, "+ new character"), this.characterForm);

    this.lastLine = h("p", { class: "lastchange muted" });
    const body = part(this.rosterBox, ".rbody");
    replace(body, this.clock, this.afterFight, this.list, this.characterDetails, this.encounterForm, this.timeForm, this.lastLine);

    // the bestiary
    this.beastList = h("ul", { class: "rlist" });
    this.beastForm = h("form", { class: "rbeast-form", novalidate: true },
      h("label", {}, "Built on", h("select", { name: "template" })),
      h("div", { class: "row" },
        h("label", {}, "Id", h("input", { name: "id", placeholder: "salt-raider", maxlength: 64 })),
        h("label", {}, "Name", h("input", { name: "name", placeholder: "Salt raider", maxlength: 200 }))),
      h("label", {}, "Stat block changes", h("textarea", { name: "more", rows: 2, placeholder: "health=40; side=gang (the ruleset's keys, over the template)" })),
      h("label", {}, "Notes", h("textarea", { name: "notes", rows: 1, placeholder: "where it lairs, its tactics" })),
      h("div", { class: "row" }, h("button", { type: "submit" }, "Save to the bestiary"), h("button", { type: "button", class: "link cancel", hidden: true, onclick: () => this.resetBeastForm() }, "cancel")),
      errorLine());
    this.beastForm.addEventListener("submit", (e) => { e.preventDefault(); this.saveBeast(); });
    field(this.beastForm, "name").addEventListener("input", () => this.suggestId(this.beastForm));
    this.beastDetails = h("details", { class: "sub" }, h("summary", {}, "+ new creature"), this.beastForm);
    this.fromEncounter = h("div", { class: "fromenc" },
      h("label", {}, "From the open encounter", h("select", { name: "from", "aria-label": "creature of the open encounter" })),
      h("button", { type: "button", onclick: () => this.copyFromEncounter() }, "Copy to the form"));
    replace(part(this.bestiaryBox, ".rbody"),
      h("p", { class: "muted hint" }, "Your own creatures: usable as a template in new encounters and in Add combatant. The ruleset's own templates stay as they are."),
      this.beastList, this.beastDetails, this.fromEncounter);
  }

  // -- loading -----------------------------------------------------------------------------
  /** A campaign was opened: `info` is GET /api/campaigns/{cid}, `ruleset` its /api/rulesets entry. */
  /**
   * @param {Json} info
   * @param {Json} ruleset
   */
  async open(info, ruleset) {
    this.campaign = info.campaign;
    this.ruleset = ruleset;
    this.settings = { dice_dialect: "arbiter", ...(info.campaign.settings || {}) };
    this.time = info.campaign.time || 0;
    this.dialectSelect.value = this.dialect();
    this.picked.clear();
    this.creatures = [];
    this.last = null;
    replace(this.carriedBox);
    replace(part(this.timeForm, ".happened"));
    replace(part(this.characterForm, "datalist"), (info.players || []).map((/** @type {Json} */ p) => h("option", { value: p.name })));
    /** @type {string[]} */
    const activities = (ruleset && ruleset.activities) || ["rest", "none"];
    replace(field(this.timeForm, "activity"), activities.map((a) => h("option", { value: a }, a === "none" ? "no rest" : a)));
    this.resetCharacterForm();
    this.resetBeastForm();
    await this.reload();
  }

  async reload() {
    if (!this.campaign) return;
    const cid = this.cid;
    const [roster, templates] = await Promise.all([
      this.api.get(`/api/campaigns/${cid}/characters`),
      this.api.get(`/api/campaigns/${cid}/templates`),
    ]);
    if (!this.campaign || cid !== this.cid) return;  // another campaign was opened meanwhile
    this.characters = roster.characters;
    this.now = roster.now || {};
    this.pictures = roster.pictures || {};
    this.templates = templates.templates || {};
    this.filled = templates.bestiary || {};
    const { bestiary, pictures } = await this.api.get(`/api/campaigns/${cid}/bestiary`);
    this.bestiary = bestiary;
    this.beastPictures = pictures || {};
    for (const id of [...this.picked]) if (!this.characters.some((c) => c.id === id)) this.picked.delete(id);
    this.fillTemplateSelects();
    this.hooks.templates(this.bestiary.map((b) => b.id));
    this.render();
  }

  fillTemplateSelects() {
    const shipped = Object.keys(this.templates);
    const mine = this.bestiary.map((b) => b.id);
    const title = this.ruleset ? this.ruleset.title : "the ruleset";
    const groups = (/** @type {boolean} */ withNone) => [
      withNone ? h("option", { value: "" }, "(none: the stat block below)") : null,
      mine.length ? h("optgroup", { label: "Bestiary" }, this.bestiary.map((b) => h("option", { value: b.id }, b.name ? `${b.name} (${b.id})` : b.id))) : null,
      h("optgroup", { label: `${title} templates` }, shipped.map((t) => h("option", { value: t }, this.templates[t].name ? `${this.templates[t].name} (${t})` : t))),
    ];
    /** @type {[HTMLInputElement, boolean][]} */
    const selects = [[field(this.characterForm, "template"), true], [field(this.encounterForm, "creature"), false]];
    for (const [input, withNone] of selects) {
      const select = /** @type {HTMLSelectElement} */ (/** @type {unknown} */ (input));
      const keep = select.value;
      replace(select, groups(withNone));
      if (keep && [...select.options].some((o) => o.value === keep)) select.value = keep;
    }
    const beast = field(this.beastForm, "template");
    const keep = beast.value;
    replace(beast, h("option", { value: "" }, "(none: the stat block below)"),
      shipped.map((t) => h("option", { value: t }, this.templates[t].name ? `${this.templates[t].name} (${t})` : t)));
    if (keep) beast.value = keep;
  }

  // -- drawing -----------------------------------------------------------------------------
  /** The open encounter's state changed (or another was opened). */
  update() {
    if (this.campaign) this.renderEncounterParts();
  }

  render() {
    this.clock.textContent = `Campaign time: ${timeWords(this.time)}`;
    replace(this.list, this.characters.length ? this.characters.map((c) => this.characterItem(c))
      : h("li", { class: "muted empty" }, "No characters yet: add one below. They carry their wounds from one encounter to the next."));
    replace(this.beastList, this.bestiary.length ? this.bestiary.map((b) => this.beastItem(b))
      : h("li", { class: "muted empty" }, "No creatures of your own yet."));
    this.renderPicked();
    this.renderEncounterParts();
    this.lastLine.hidden = !this.last;
    if (this.last) {
      replace(this.lastLine, "Last change: ", this.last.text || `#${this.last.seq}`, " ",
        h("button", { type: "button", class: "link", onclick: () => this.undo() }, "undo"));
    }
  }

  /** @param {Json} c */
  characterItem(c) {
    const words = carried(this.now[c.id]);
    const base = c.template ? (this.templates[c.template] || this.filled[c.template] || {}).name || c.template : null;
    const about = [c.owner ? `played by ${c.owner}` : "no player", base ? `a ${label(base).toLowerCase()}` : null].filter(Boolean);
    return h("li", { class: "rchar", dataset: { id: c.id } },
      h("div", { class: "rhead" },
        this.avatar(this.pictures[c.id]),
        h("input", { type: "checkbox", class: "pick", checked: this.picked.has(c.id), title: `take ${c.name || c.id} into the new encounter`, "aria-label": `pick ${c.id}`,
          onchange: (/** @type {Event} */ e) => { if (/** @type {HTMLInputElement} */ (e.target).checked) this.picked.add(c.id); else this.picked.delete(c.id); this.renderPicked(); } }),
        h("b", {}, c.name || c.id), c.name && c.name !== c.id ? h("code", {}, c.id) : null,
        c.side ? h("span", { class: "chip side" }, c.side) : null,
        c.hidden ? h("span", { class: "chip" }, "hidden") : null),
      h("div", { class: "about muted" }, about.join(" · ")),
      h("div", { class: "words" }, this.now[c.id] ? (words.length ? words.join(" · ") : "unhurt") : "its sheet no longer builds: edit it"),
      c.notes ? h("div", { class: "notes muted" }, c.notes) : null,
      h("div", { class: "ops" },
        h("button", { type: "button", class: "join", dataset: { join: c.id }, onclick: () => this.join(c.id) }, "Join the encounter"),
        h("button", { type: "button", class: "link", onclick: () => this.editCharacter(c) }, "edit"),
        this.pictureControls("characters", c, this.pictures[c.id]),
        h("button", { type: "button", class: "link", onclick: () => this.removeCharacter(c) }, "remove")));
  }

  /** A round token picture before a name, once its bytes have come (nothing without one). */
  /** @param {string|undefined} hash */
  avatar(hash) {
    if (!hash) return null;
    if (!this.urls.has(hash)) {
      this.urls.set(hash, "");
      this.api.bytes(`/api/campaigns/${this.cid}/images/${hash}`).then((/** @type {Blob} */ blob) => {
        this.urls.set(hash, URL.createObjectURL(blob));
        this.render();
      }, () => this.urls.set(hash, null));
    }
    const url = this.urls.get(hash);
    return url ? h("img", { class: "ravatar", src: url, alt: "" }) : h("span", { class: "ravatar" });
  }

  /** "+ picture" (a file sent as it is: the server checks it and scales it to a token) and
   * "no picture": the token every encounter shows for this character or bestiary creature. */
  /**
   * @param {string} kind
   * @param {Json} entry
   * @param {string|undefined} hash
   */
  pictureControls(kind, entry, hash) {
    const who = entry.name || entry.id;
    const path = `/api/campaigns/${this.cid}/${kind}/${encodeURIComponent(entry.id)}/image`;
    const input = h("input", { type: "file", accept: "image/png,image/jpeg,image/webp", class: "visually-hidden", "aria-label": `token picture of ${who}` });
    input.addEventListener("change", async () => {
      const file = input.files && input.files[0];
      if (!file) return;
      try {
        const out = await this.api.upload(path, file);
        this.last = out.record;
        await this.reload();
      } catch (err) {
        this.hooks.toast(`${who}'s picture: ${errorText(err)}`);
      }
    });
    const pick = h("label", { class: "link picture", title: "a picture for its token on the map, in every encounter it joins" }, hash ? "change picture" : "+ picture", input);
    if (!hash) return pick;
    const clear = h("button", { type: "button", class: "link", title: "its token shows its initials again", onclick: async () => {
      try {
        const out = await this.api.delete(path);
        this.last = out.record;
        await this.reload();
      } catch (err) {
        this.hooks.toast(errorText(err));
      }
    } }, "no picture");
    return h("span", { class: "pictureops" }, pick, clear);
  }

  /** @param {Json} b */
  beastItem(b) {
    const base = b.template ? (this.templates[b.template] || {}).name || b.template : null;
    const own = blockWords(b);
    return h("li", { class: "rbeast", dataset: { id: b.id } },
      h("div", { class: "rhead" }, this.avatar(this.beastPictures[b.id]), h("b", {}, b.name || b.id), b.name && b.name !== b.id ? h("code", {}, b.id) : null,
        b.side ? h("span", { class: "chip side" }, b.side) : null),
      h("div", { class: "about muted" }, base ? `built on ${label(base).toLowerCase()}` : "its own stat block"),
      own.length ? h("div", { class: "words" }, own.join(" · ")) : null,
      b.notes ? h("div", { class: "notes muted" }, b.notes) : null,
      h("div", { class: "ops" },
        h("button", { type: "button", class: "link", onclick: () => this.editBeast(b, false) }, "edit"),
        h("button", { type: "button", class: "link", onclick: () => this.editBeast(b, true) }, "duplicate"),
        this.pictureControls("bestiary", b, this.beastPictures[b.id]),
        h("button", { type: "button", class: "link", onclick: () => this.removeBeast(b) }, "remove")));
  }

  renderPicked() {
    const names = this.characters.filter((c) => this.picked.has(c.id)).map((c) => c.name || c.id);
    part(this.encounterForm, ".picked").textContent = names.length
      ? `Characters: ${names.join(", ")}` : "Characters: tick them in the roster above.";
    replace(part(this.encounterForm, ".rcreatures"), this.creatures.map((c, i) => h("li", {},
      `${c.count} × ${this.templateName(c.template)}${c.side ? ` (side ${c.side})` : ""} `,
      h("button", { type: "button", class: "link", "aria-label": `take out ${c.template}`, onclick: () => { this.creatures.splice(i, 1); this.renderPicked(); } }, "×"))));
    // the builder's win odds (balance.js) follow what the new encounter would hold
    this.encounterForm.dispatchEvent(new CustomEvent("builder-change", { detail: this.newEncounterBody() }));
  }

  /** The characters and creatures the new encounter would start with (its body's). */
  newEncounterBody() {
    const characters = this.characters.filter((c) => this.picked.has(c.id)).map((c) => c.id);
    const creatures = this.creatures.flatMap((c) => Array.from({ length: c.count }, () => (c.side ? { template: c.template, side: c.side } : { template: c.template })));
    return { characters, creatures };
  }

  /** @param {string} id */
  templateName(id) {
    const t = this.bestiary.find((b) => b.id === id) || this.templates[id];
    return t && t.name ? t.name : id;
  }

  // What depends on the open encounter: join buttons, write-back, copying a creature.
  renderEncounterParts() {
    const st = this.hooks.state();
    const enc = this.hooks.encounter();
    const here = st ? st.entities : {};
    for (const button of /** @type {NodeListOf<HTMLButtonElement>} */ (this.list.querySelectorAll("button[data-join]"))) {
      const id = button.dataset.join || "";
      button.disabled = !st || Boolean(here[id]);
      button.textContent = here[id] ? "in the encounter" : "Join the encounter";
      button.title = st ? (here[id] ? "already in the open encounter" : "add it to the open encounter, with what it carries") : "open an encounter first";
    }
    const ours = st ? this.characters.filter((c) => here[c.id]).map((c) => c.name || c.id) : [];
    this.afterFight.hidden = this.characters.length === 0;
    this.writeBackButton.disabled = ours.length === 0;
    this.writeBackButton.textContent = enc ? `Write back “${enc.name}”` : "Write back";
    this.writeBackButton.title = ours.length ? `keep what ${ours.join(", ")} carry away from this encounter` : "no roster character is in the open encounter";
    const from = field(this.fromEncounter, "from");
    const keep = from.value;
    const ids = st ? Object.keys(here) : [];
    replace(from, ids.length ? ids.map((id) => h("option", { value: id }, here[id].name && here[id].name !== id ? `${here[id].name} (${id})` : id))
      : h("option", { value: "" }, "(no encounter open)"));
    if (keep && ids.includes(keep)) from.value = keep;
    /** @type {HTMLButtonElement} */ (part(this.fromEncounter, "button")).disabled = ids.length === 0;
  }

  // -- the roster --------------------------------------------------------------------------
  /** @param {HTMLFormElement} form */
  suggestId(form) {
    const id = field(form, "id");
    if (id.disabled || (id.value && id.dataset.auto !== "1")) return;
    id.value = slug(field(form, "name").value);
    id.dataset.auto = "1";
  }

  // The side most of the roster's characters are on (the party's), "heroes" for a new roster.
  partySide() {
    const counts = new Map();
    for (const c of this.characters) if (c.side) counts.set(c.side, (counts.get(c.side) || 0) + 1);
    let best = "heroes";
    let most = 0;
    for (const [side, n] of counts) if (n > most) [best, most] = [side, n];
    return best;
  }

  resetCharacterForm() {
    const form = this.characterForm;
    form.reset();
    field(form, "side").value = this.partySide();  // reset() empties a value set as a property
    clearError(form);
    form.dataset.editing = "";
    field(form, "id").disabled = false;
    field(form, "id").dataset.auto = "1";
    /** @type {HTMLElement} */ (form.querySelector(".forget")).hidden = true;
    /** @type {HTMLElement} */ (form.querySelector(".cancel")).hidden = true;
    part(form, "button[type=submit]").textContent = "Add to the roster";
    part(this.characterDetails, "summary").textContent = "+ new character";
  }

  /** @param {Json} c */
  editCharacter(c) {
    const form = this.characterForm;
    this.resetCharacterForm();
    form.dataset.editing = c.id;
    field(form, "template").value = c.template || "";
    field(form, "id").value = c.id;
    field(form, "id").disabled = true;
    field(form, "name").value = c.name || "";
    field(form, "side").value = c.side || "";
    field(form, "owner").value = c.owner || "";
    field(form, "more").value = blockText(c, CHARACTER_FIELDS);
    field(form, "notes").value = c.notes || "";
    /** @type {HTMLElement} */ (form.querySelector(".forget")).hidden = false;
    /** @type {HTMLElement} */ (form.querySelector(".cancel")).hidden = false;
    part(form, "button[type=submit]").textContent = "Save";
    part(this.characterDetails, "summary").textContent = `Edit ${c.name || c.id}`;
    this.characterDetails.open = true;
    field(form, "name").focus();
  }

  async saveCharacter() {
    const form = this.characterForm;
    await guard(form, async () => {
      const editing = form.dataset.editing;
      const id = editing || field(form, "id").value.trim();
      if (!ID_RE.test(id)) throw new InputError(`id: '${id}' must be 1 to 64 letters, digits, '-' and '_' (e.g. nia)`, "id");
      const body = this.sheet(form, CHARACTER_FIELDS);
      for (const key of ["side", "owner"]) if (field(form, key).value.trim()) body[key] = field(form, key).value.trim();
      let out;
      if (editing) {
        if (field(form, "forget").checked) body.lasting = {};
        out = await this.api.put(`/api/campaigns/${this.cid}/characters/${encodeURIComponent(id)}`, body);
      } else {
        out = await this.api.post(`/api/campaigns/${this.cid}/characters`, { id, ...body });
      }
      this.last = out.record;
      this.resetCharacterForm();
      this.characterDetails.open = false;
      await this.reload();
      toast(out.record.text);
    }, { more: "more", "*": "more" });
  }

  // The fields a character and a bestiary entry share: template, name, stat block, notes.
  /**
   * @param {HTMLFormElement} form
   * @param {Set<string>} own
   */
  sheet(form, own) {
    let block;
    try {
      block = moreArgs(field(form, "more").value);
    } catch (err) {
      throw new InputError(errorText(err), "more");
    }
    const clash = Object.keys(block).find((k) => own.has(k));
    if (clash) throw new InputError(`stat block changes: '${clash}' has a field of its own above`, "more");
    /** @type {Record<string, unknown>} */
    const body = { ...block };
    if (field(form, "template").value) body.template = field(form, "template").value;
    if (field(form, "name").value.trim()) body.name = field(form, "name").value.trim();
    if (field(form, "notes").value.trim()) body.notes = field(form, "notes").value.trim();
    return body;
  }

  /** @param {Json} c */
  async removeCharacter(c) {
    try {
      const out = await this.api.request("DELETE", `/api/campaigns/${this.cid}/characters/${encodeURIComponent(c.id)}`);
      this.last = out.record;
      this.picked.delete(c.id);
      await this.reload();
      toast(`${out.record.text} (undo below)`);
    } catch (err) {
      toast(errorText(err), "error");
    }
  }

  /** @param {string} id */
  async join(id) {
    const enc = this.hooks.encounter();
    if (!enc) return;
    try {
      const out = await this.api.post(`/api/encounters/${enc.id}/actors`, { character: id });
      this.hooks.applied(out);
      toast(out.record.text || `${id} joins`);
    } catch (err) {
      toast(errorText(err), "error");
    }
  }

  async undo() {
    try {
      const out = await this.api.post(`/api/campaigns/${this.cid}/undo`, {});
      this.last = null;
      await this.reload();
      const info = await this.api.get(`/api/campaigns/${this.cid}`);
      this.time = info.campaign.time || 0;
      this.settings = { dice_dialect: "arbiter", ...(info.campaign.settings || {}) };
      this.dialectSelect.value = this.dialect();
      this.render();
      toast(out.record.text);
    } catch (err) {
      toast(errorText(err), "error");
    }
  }

  // -- after the fight: write back --------------------------------------------------------
  async writeBack() {
    const enc = this.hooks.encounter();
    if (!enc) return;
    this.writeBackError.textContent = "";
    this.writeBackButton.disabled = true;
    try {
      const out = await this.api.post(`/api/encounters/${enc.id}/write-back`, {});
      this.last = out.record;
      await this.reload();
      replace(this.carriedBox, h("p", { class: "said" }, `From “${enc.name}”:`),
        h("ul", { class: "plain" }, out.characters.map((/** @type {Json} */ c) => {
          const words = carried(this.now[c.id]);
          return h("li", { dataset: { id: c.id } }, h("b", {}, c.name || c.id), " carries away ", words.length ? words.join(" · ") : "nothing: unhurt");
        })));
      toast(out.record.text);
    } catch (err) {
      this.writeBackError.textContent = errorText(err);
    } finally {
      this.renderEncounterParts();
    }
  }

  // -- a new encounter from the roster -----------------------------------------------------
  addCreature() {
    const form = this.encounterForm;
    clearError(form);
    const template = field(form, "creature").value;
    let count;
    try {
      count = arith(field(form, "count").value, undefined, "how many");
      if (count < 1 || count > 40) throw new InputError(`how many: ${count} is not 1 to 40`);
    } catch (err) {
      part(form, ".error").textContent = errorText(err);
      field(form, "count").setAttribute("aria-invalid", "true");
      return;
    }
    const side = field(form, "cside").value.trim();
    const same = this.creatures.find((c) => c.template === template && c.side === side);
    if (same) same.count += count;
    else this.creatures.push({ template, count, side });
    field(form, "count").value = "1";
    this.renderPicked();
  }

  async createEncounter() {
    const form = this.encounterForm;
    await guard(form, async () => {
      const name = field(form, "name").value.trim();
      if (!name) throw new InputError("name: give the encounter a name", "name");
      const { characters, creatures } = this.newEncounterBody();
      if (!characters.length && !creatures.length) throw new InputError("tick characters in the roster or add creatures (or use the Campaign panel's New encounter for an empty one)");
      const out = await this.api.post(`/api/campaigns/${this.cid}/encounters`, { name, characters, creatures });
      field(form, "name").value = "";
      this.picked.clear();
      this.creatures = [];
      this.render();
      await this.hooks.opened(out.encounter);
      toast(`${name}: ${plural(characters.length, "character")} and ${plural(creatures.length, "creature")}`);
    }, { characters: "name", creatures: "creature" });
  }

  // -- time passes -------------------------------------------------------------------------
  async passTime() {
    const form = this.timeForm;
    await guard(form, async () => {
      let amount;
      try {
        amount = arith(field(form, "amount").value, undefined, "amount");
      } catch (err) {
        throw new InputError(errorText(err), "amount");
      }
      if (amount < 1) throw new InputError("amount: at least 1", "amount");
      if (!this.characters.length) throw new InputError("the roster is empty: time passes for its characters");
      const body = { amount, unit: field(form, "unit").value, activity: field(form, "activity").value };
      const out = await this.api.post(`/api/campaigns/${this.cid}/time`, body);
      this.last = out.record;
      this.time = out.time;
      const data = (out.record.events || []).find((/** @type {Json} */ e) => e.type === "time_advanced")?.data || {};
      const names = Object.fromEntries(this.characters.map((c) => [c.id, c.name || c.id]));
      await this.reload();
      replace(part(form, ".happened"), h("p", { class: "said" }, out.record.text),
        h("ul", { class: "plain" }, (data.who || []).map((/** @type {string} */ id) => {
          const said = (data.happened || {})[id] || [];
          const words = carried(this.now[id]);
          return h("li", { dataset: { id } }, h("b", {}, names[id] || id), ": ",
            said.length ? said.join(" ") : "nothing changes.",
            words.length ? h("div", { class: "muted" }, `now ${words.join(" · ")}`) : null);
        })));
    }, { amount: "amount", unit: "unit", activity: "activity" });
  }

  // -- the dice notation -------------------------------------------------------------------
  async setDialect() {
    const value = this.dialectSelect.value;
    const before = this.dialect();
    // the dice box reads the chosen notation at once, not when the server has stored it (a
    // roll made just after the change was read in the old notation)
    this.settings = { ...this.settings, dice_dialect: value };
    try {
      const out = await this.api.put(`/api/campaigns/${this.cid}/settings`, { dice_dialect: value });
      this.settings = out.settings;
      this.last = out.record;
      this.render();
      toast(`the dice box reads ${(DIALECTS.find(([v]) => v === value) || [value, value])[1]} notation`);
    } catch (err) {
      this.settings = { ...this.settings, dice_dialect: before };
      this.dialectSelect.value = before;
      toast(errorText(err), "error");
    }
  }

  // -- the bestiary ------------------------------------------------------------------------
  resetBeastForm() {
    const form = this.beastForm;
    form.reset();
    clearError(form);
    form.dataset.editing = "";
    field(form, "id").disabled = false;
    field(form, "id").dataset.auto = "1";
    /** @type {HTMLElement} */ (form.querySelector(".cancel")).hidden = true;
    part(this.beastDetails, "summary").textContent = "+ new creature";
  }

  /**
   * @param {Json} b
   * @param {boolean} copy
   */
  editBeast(b, copy) {
    const form = this.beastForm;
    this.resetBeastForm();
    let id = b.id;
    if (copy) {
      let n = 2;
      const base = b.id.replace(/-\d+$/, "");
      while (this.bestiary.some((x) => x.id === `${base}-${n}`)) n += 1;
      id = `${base}-${n}`;
    } else {
      form.dataset.editing = b.id;
      field(form, "id").disabled = true;
    }
    field(form, "template").value = b.template || "";
    field(form, "id").value = id;
    field(form, "id").dataset.auto = "";
    field(form, "name").value = b.name || "";
    field(form, "more").value = blockText(b, BEAST_FIELDS);
    field(form, "notes").value = b.notes || "";
    /** @type {HTMLElement} */ (form.querySelector(".cancel")).hidden = false;
    part(this.beastDetails, "summary").textContent = copy ? `Copy of ${b.name || b.id}` : `Edit ${b.name || b.id}`;
    this.beastDetails.open = true;
    field(form, copy ? "id" : "name").focus();
  }

  async saveBeast() {
    const form = this.beastForm;
    await guard(form, async () => {
      const editing = form.dataset.editing;
      const id = editing || field(form, "id").value.trim();
      if (!ID_RE.test(id)) throw new InputError(`id: '${id}' must be 1 to 64 letters, digits, '-' and '_' (e.g. salt-raider)`, "id");
      const body = this.sheet(form, BEAST_FIELDS);
      const out = editing
        ? await this.api.put(`/api/campaigns/${this.cid}/bestiary/${encodeURIComponent(id)}`, body)
        : await this.api.post(`/api/campaigns/${this.cid}/bestiary`, { id, ...body });
      this.last = out.record;
      this.resetBeastForm();
      this.beastDetails.open = false;
      await this.reload();
      toast(out.record.text);
    }, { more: "more", "*": "more" });
  }

  /** @param {Json} b */
  async removeBeast(b) {
    try {
      const out = await this.api.request("DELETE", `/api/campaigns/${this.cid}/bestiary/${encodeURIComponent(b.id)}`);
      this.last = out.record;
      this.creatures = this.creatures.filter((c) => c.template !== b.id);
      await this.reload();
      toast(`${out.record.text} (undo in the Roster panel)`);
    } catch (err) {
      toast(errorText(err), "error");
    }
  }

  // A creature of the open encounter into the bestiary form: the stat block it was added with
  // (its `add` in the encounter's log), not what the fight did to it.
  copyFromEncounter() {
    const id = field(this.fromEncounter, "from").value;
    const st = this.hooks.state();
    if (!id || !st || !st.entities[id]) return;
    /** @type {Json} */
    let added = null;
    /** @type {(command: Json) => void} */
    const visit = (command) => {
      if (!command || typeof command !== "object") return;
      if (command.do === "add" && command.id === id) added = command;
      if (Array.isArray(command.commands)) command.commands.forEach(visit);
    };
    for (const record of this.hooks.records()) visit(record.command);
    const e = st.entities[id];
    const block = added ? Object.fromEntries(Object.entries(added).filter(([k]) => !NOT_KEPT.has(k))) : { name: e.name, side: e.side };
    const character = this.characters.find((c) => c.id === id);
    if (character) for (const key of Object.keys(character.lasting || {})) delete block[key];  // what it carries is the roster's
    const shipped = block.template && this.templates[block.template] ? block.template : "";
    if (!shipped) delete block.template;
    let base = slug(block.name || id) || "creature";
    if (this.templates[base]) base = `${base}-own`;
    let newId = base;
    for (let n = 2; this.bestiary.some((b) => b.id === newId); n += 1) newId = `${base}-${n}`;
    this.editBeast({ ...block, id: newId, template: shipped }, true);
    field(this.beastForm, "id").value = newId;
    part(this.beastDetails, "summary").textContent = `Save ${e.name || id} to the bestiary`;
    if (!added) toast(`no add of ${id} in this encounter's log: only its name and side are copied`, "error");
  }
}
