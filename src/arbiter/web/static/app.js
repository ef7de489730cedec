// @ts-check
// The game master console: talks only to the HTTP API and the WebSocket (docs/web.md).
import { Api, ApiError, busy, fragment, rewordErrors } from "./api.js";
import {
  InputError, LegalOptions, errorText, argInput, arith, argValue, card, chart, commandArgs, complete as isComplete,
  creatureLabel, creatureName, h, idsToNames, nameIdsWith, showFields, logEntry, logList, openedIn, moreArgs, oddsView, readArg, refusalText, replace, rollText, takesActor, targetChoices, toast, tracker, typedDice, planLine, withAvatars,
} from "./ui.js";
import { BattleMap } from "./map.js";
import { RosterPanels } from "./roster.js";
import { simulateButton, watchBuilder } from "./balance.js";
import { rankTargets, receive, takes, targetTag } from "./state.js";

/**
 * @typedef {import("./ui.js").Json} Json
 * @typedef {Event & {target: any}} PageEvent an event of one of the page's own elements
 * @typedef {{api: Api, balance: Json, campaign: Json, encounters: Json[], encounter: string|null, state: Json,
 *   records: Json[], rulesets: Json[], commands: Record<string, Json>, conditions: Json[], templates: Record<string, Json>,
 *   selected: Set<string>, sub: {close(): void}|null, legal: LegalOptions, actorTouched: boolean, pickAction: boolean,
 *   probe: number, opening: number, oddsTimer: ReturnType<typeof setTimeout>|undefined, probeWaiting: boolean, plan: Json,
 *   lastTarget: Record<string, string>, targetTouched: boolean, map: BattleMap, roster: RosterPanels,
 *   rulesetsReady: Promise<void>, bestiaryIds: string[], draggedRow: string|null, shownCurrent: Json}} Console
 *   what the console holds: its API client (with the GM's token), the campaign and its
 *   encounters, the open one's state and log, the ruleset's catalogue, the selection for
 *   apply to many, the live subscription, the pending odds probe, the map and the panels
 */

/**
 * An element of the console's page (index.html): its forms, fields and panels.
 * @param {string} sel
 * @returns {any}
 */
const $ = (sel) => document.querySelector(sel);
/**
 * A field of a form by its name.
 * @param {Element} form
 * @param {string} name
 * @returns {any}
 */
const F = (form, name) => form.querySelector(`[name="${name}"]`);
const STORE = "arbiter.campaigns";
// Commands with their own controls (header buttons, forms), not offered as actions.
const OWN_CONTROLS = new Set(["create", "add", "start", "next", "end", "ruling", "override", "odds", "batch", "reveal_on_turn"]);

const made = /** @type {any} */ (null);  // set once the page is wired (wire(), boot())
/** @type {Console} */
const S = {
  api: new Api(null), balance: null, campaign: null, encounters: [], encounter: null, state: null, records: [],
  rulesets: [], commands: {}, conditions: [], templates: {}, selected: new Set(), sub: null,
  legal: new LegalOptions(), actorTouched: false, pickAction: false, probe: 0, opening: 0, oddsTimer: undefined, probeWaiting: false, plan: null, lastTarget: {}, targetTouched: false,
  map: made, roster: made, rulesetsReady: Promise.resolve(), bestiaryIds: [], draggedRow: null, shownCurrent: null,
};
// The rules' sentences (refusals, reasons) name creatures by id: this page shows names.
rewordErrors((text) => idsToNames(text, S.state));
nameIdsWith((text) => idsToNames(text, S.state));

// -- saved campaigns (this tab only) -------------------------------------------------------
// A campaign's token gives the game master's power: it is kept per tab (sessionStorage,
// gone when the tab closes), never in localStorage, where every page of this origin and
// every later visit could read it. The GM's link (its fragment) opens the campaign again.
function saved() {
  try {
    return JSON.parse(sessionStorage.getItem(STORE) || "[]");
  } catch {
    return [];
  }
}

/** @param {Json} entry */
function remember(entry) {
  const list = saved().filter((/** @type {Json} */ c) => c.id !== entry.id);
  list.unshift(entry);
  sessionStorage.setItem(STORE, JSON.stringify(list.slice(0, 30)));
}

// Tokens an earlier version kept in localStorage: moved into this tab once, then deleted.
function forgetStoredTokens() {
  let old = null;
  try {
    old = localStorage.getItem(STORE);
    localStorage.removeItem(STORE);
  } catch {
    return;
  }
  if (!old) return;
  try {
    const list = JSON.parse(old);
    if (Array.isArray(list)) list.reverse().forEach((c) => c && c.id && c.token && remember(c));
  } catch {
    // an unreadable list: nothing to move
  }
}

// -- errors in forms ----------------------------------------------------------------------
/** @param {Element} form */
function clearError(form) {
  const box = form.querySelector(".error");
  if (box) box.textContent = "";
  form.querySelectorAll("[aria-invalid]").forEach((el) => el.removeAttribute("aria-invalid"));
}

/**
 * @param {Element} form
 * @param {unknown} err
 * @param {Record<string, string>} [fieldMap]
 */
function showError(form, err, fieldMap = {}) {
  const box = form.querySelector(".error");
  const named = /** @type {{field?: unknown}} */ (err instanceof Error ? err : {}).field;
  const field = named ? String(named).replace(/^command\./, "") : null;
  const name = field ? fieldMap[field] || field : null;
  const input = name ? /** @type {HTMLElement|null} */ (form.querySelector(`[name="${name}"], #${CSS.escape(name)}`)) : null;
  const where = field && !input ? `${field}: ` : "";
  if (box) box.textContent = `${where}${errorText(err)}`;
  if (input) {
    input.setAttribute("aria-invalid", "true");
    input.focus();
  }
  if (!(err instanceof ApiError) && !(err instanceof InputError)) console.error(err);
}

/**
 * @param {Element} form
 * @param {() => Promise<void>} fn
 * @param {Record<string, string>} [fieldMap]
 */
async function guard(form, fn, fieldMap) {
  clearError(form);
  const button = /** @type {HTMLButtonElement|null} */ (form.querySelector("button[type=submit]"));
  if (button) button.disabled = true;
  try {
    return await fn();
  } catch (err) {
    showError(form, err, fieldMap);
    return undefined;
  } finally {
    if (button) button.disabled = false;
  }
}

// -- start ---------------------------------------------------------------------------------
async function boot() {
  forgetStoredTokens();
  const given = fragment();
  if (given.admin) {
    // The admin link of a server on an open network: creating campaigns needs its token.
    sessionStorage.setItem("arbiter-admin", given.admin);
    if (!given.campaign && !given.campaigns) history.replaceState(null, "", location.pathname);
  }
  S.rulesetsReady = new Api(null).get("/api/rulesets").then((out) => {
    S.rulesets = out.rulesets;
    replace($("#new-campaign [name=ruleset]"), S.rulesets.map((r) => h("option", { value: r.name }, `${r.title} (${r.name})`)));
  });
  if (given.campaigns) {
    // Several campaigns at once (the demo link): remember them all, open the first.
    const pairs = given.campaigns.split(",").map((p) => p.split(":")).filter((p) => p.length === 2);
    history.replaceState(null, "", location.pathname);
    await Promise.all(pairs.slice(1).reverse().map(async ([id, token]) => {
      const info = await new Api(token).get(`/api/campaigns/${id}`).catch(() => null);
      if (info && info.role === "gm") remember({ id, token, name: info.campaign.name, ruleset: info.campaign.ruleset });
    }));
    if (pairs.length) {
      await openCampaign(pairs[0][0], pairs[0][1]);
      return;
    }
  }
  if (given.campaign && given.token) {
    history.replaceState(null, "", location.pathname);
    await openCampaign(given.campaign, given.token, given.encounter);
    return;
  }
  const last = saved()[0];
  if (last) {
    try {
      await openCampaign(last.id, last.token);
      return;
    } catch (err) {
      toast(`could not open ${last.id}: ${errorText(err)}`, "error");
    }
  }
  await S.rulesetsReady;
  showSetup();
}

function showSetup() {
  $("#setup").hidden = false;
  $("#console").hidden = true;
  fillCampaignSelect();
}

function fillCampaignSelect() {
  const list = saved();
  replace($("#campaign-select"),
    list.map((/** @type {Json} */ c) => h("option", { value: c.id, selected: S.campaign && c.id === S.campaign.id }, `${c.name} · ${c.ruleset}`)),
    h("option", { value: "" }, "+ new campaign…"));
}

/**
 * @param {string} id
 * @param {string} token
 * @param {string} [encounterId]
 */
async function openCampaign(id, token, encounterId) {
  // A campaign or encounter opened later wins: an answer that arrives after it (a slow
  // server, the page's first campaign still loading as the GM picks another) is dropped.
  const turn = ++S.opening;
  const api = new Api(token);
  const info = await api.get(`/api/campaigns/${id}`);
  await S.rulesetsReady;
  if (turn !== S.opening) return;
  if (info.role !== "gm") {
    location.replace(`/play/#campaign=${encodeURIComponent(id)}&token=${encodeURIComponent(token)}`);
    return;
  }
  S.api = api;
  S.campaign = info.campaign;
  S.encounters = info.encounters;
  remember({ id, token, name: info.campaign.name, ruleset: info.campaign.ruleset });
  fillCampaignSelect();
  $("#ruleset-name").textContent = info.campaign.ruleset;
  renderPlayers(info.players || []);
  renderCampaignRulings().catch((err) => toast(errorText(err), "error"));
  const templates = api.get(`/api/campaigns/${id}/templates`).then((out) => {
    if (S.api !== api) return;  // another campaign was opened meanwhile
    S.templates = out.templates;
    fillAddTemplates();
  });
  const ruleset = S.rulesets.find((r) => r.name === info.campaign.ruleset);
  S.commands = ruleset ? ruleset.commands : {};
  S.map.setCommands(S.commands, ruleset ? ruleset.display : null);
  showFields(ruleset ? ruleset.display : null);
  S.conditions = ruleset ? ruleset.conditions || [] : [];
  fillActions();
  S.bestiaryIds = [];
  S.roster.open(info, ruleset).catch((err) => toast(errorText(err), "error"));
  $("#setup").hidden = true;
  $("#console").hidden = false;
  const pick = encounterId || (S.encounters.length ? S.encounters[S.encounters.length - 1].id : null);
  fillEncounterSelect(pick);
  if (pick) await openEncounter(pick);
  else {
    $("#campaign-panel").open = true;
    $("#new-encounter [name=name]").focus();
    render();
  }
  await templates;
}

/** @param {string|null} current */
function fillEncounterSelect(current) {
  replace($("#encounter-select"), S.encounters.map((e) => h("option", { value: e.id, selected: e.id === current }, e.name)),
    S.encounters.length ? null : h("option", { value: "" }, "(none yet)"));
}

/** @param {string} id */
async function openEncounter(id) {
  const turn = ++S.opening;
  if (S.sub) S.sub.close();
  S.sub = null;
  cancelProbe();  // a probe of the last encounter's creatures must not ask this one
  S.state = null;
  S.encounter = id;
  S.map.reset();
  S.selected.clear();
  S.actorTouched = false;
  S.probe++; // a target probe of the encounter left behind must not land in this one
  replace($("#why-not"));
  replace($("#odds"));
  if (S.balance) S.balance.clear();
  const [state, records] = await Promise.all([S.api.get(`/api/encounters/${id}`), S.api.log(id)]);
  if (turn !== S.opening) return;  // superseded (see openCampaign)
  S.state = state;
  S.records = records;
  S.sub = S.api.subscribe(id, onMessage, (status) => {
    $("#status").textContent = status;
    $("#status").className = `status ${status === "live" ? "live" : ""}`;
  });
  renderRulings().catch((err) => toast(errorText(err), "error"));
  render();
  scheduleProbe();
}

// A message from the server (state.js `receive`: which record and state it brings).
/** @param {Json} message */
function onMessage(message) {
  const out = receive({ state: S.state, records: S.records }, message);
  if (out.record) S.records.push(out.record);
  if (out.state) take(out.state, out.changed);
  if (out.turn) turnFeed(out.turn);
}

/** @param {Json} record */
function addRecord(record) {
  const out = receive({ state: null, records: S.records }, { type: "update", record });
  if (out.record) S.records.push(out.record);
}

/** @param {Json} state */
function setState(state) {
  if (takes(S.state, state)) take(state, !S.state || S.state.version !== state.version || S.state.encounter !== state.encounter);
}

/**
 * @param {Json} state
 * @param {boolean} changed
 */
function take(state, changed) {
  S.state = state;
  if (changed) {
    render();
    scheduleProbe();
  }
}

// -- render -------------------------------------------------------------------------------
function render() {
  const st = S.state;
  const enc = S.encounters.find((e) => e.id === S.encounter);
  document.title = `Arbiter · ${enc ? enc.name : S.campaign ? S.campaign.name : "game master"}`;
  const has = Boolean(st);
  for (const id of ["#start", "#next", "#undo", "#redo", "#end", "#auto-reveal"]) $(id).disabled = !has;
  // The encounter's own setting: the server reveals a hidden creature as its turn starts.
  $("#auto-reveal").checked = Boolean(st && st.reveal_on_turn);
  S.map.update(st);
  S.roster.update();
  if (!st) {
    replace($("#cards"), h("p", { class: "muted empty" }, "Create an encounter (Campaign, on the left) to begin."));
    return;
  }
  $("#start").hidden = st.in_combat;
  $("#end").hidden = !st.in_combat;
  renderScene(st);
  document.documentElement.dataset.shown = st.encounter;  // which encounter the page shows
  $("#next").disabled = !st.in_combat;
  $("#turn-info").textContent = st.in_combat ? `Round ${st.round} · ${nameOf(st.current)}` : "";
  if (st.current !== S.shownCurrent) {  // a new turn: actor and target default again
    S.shownCurrent = st.current;
    S.actorTouched = false;
    S.targetTouched = false;
    S.pickAction = true;  // the new creature's own attack, once its options are known
  }
  replace($("#tracker"), gmTracker(st));
  const ids = Object.keys(st.entities);
  for (const id of [...S.selected]) if (!ids.includes(id)) S.selected.delete(id);
  replace($("#cards"), ids.length ? ids.map((id) => card(st.entities[id], st, {
    gm: true,
    economy: st.economy[id],
    current: id === st.current,
    selected: S.selected.has(id),
    onSelect: (e, on) => { if (on) S.selected.add(e.id); else S.selected.delete(e.id); renderMany(); render(); },
    onEdit: (field, value) => prefillOverride(`${id}.${field}`, value),
    onRemoveCondition: (e, c) => send({ do: "uncondition", target: e.id, name: c.name }),
    onToggleHidden: (e) => send({ do: "override", path: `${e.id}.hidden`, value: !e.hidden, reason: e.hidden ? "revealed by the game master" : "hidden by the game master" }),
    quick: { damage: S.commands.damage, heal: S.commands.heal, condition: S.commands.condition, conditions: S.conditions, onCommand: (/** @type {Json} */ command) => send(command).catch(() => {}) },
  })) : h("p", { class: "muted empty" }, "No combatants yet: add them on the left."));
  if (S.commands.token) for (const article of $("#cards").querySelectorAll("article.card[data-id]")) article.append(tokenPicker(article.dataset.id, st));
  replace($("#sides"), [...new Set(Object.values(st.entities).map((e) => e.side).filter(Boolean))].map((s) => h("option", { value: s })));
  // A new creature joins the foes by default: the side of the last one added that is not the
  // first one's side (the party is added first), until the GM types a side of their own.
  const sideInput = F($("#add"), "side");
  if (!sideInput.dataset.touched) {
    const all = Object.values(st.entities).filter((e) => e.side);
    const foe = [...all].reverse().find((e) => all.length && e.side !== all[0].side);
    sideInput.value = foe ? foe.side : "monsters";
  }
  replace($("#paths"), ids.flatMap((id) => Object.keys(st.entities[id]).filter((k) => typeof st.entities[id][k] !== "object").map((k) => h("option", { value: `${id}.${k}` }))));
  renderMany();
  fillActors();
  replace($("#log"), logList(S.records, 200, undefined, openedIn($("#log"))));
}

/** @param {string} id */
function label(id) { return creatureLabel(S.state, id); }
/** @param {string} id */
function nameOf(id) { return creatureName(S.state, id); }

/** @param {Json} record */
function turnFeed(record) {
  /** @type {string[]} */
  const lines = (record.events || []).filter((/** @type {Json} */ e) => e.type !== "turn_ended")
    .map((/** @type {Json} */ e) => {
      const d = e.data || {};
      if (e.type === "turn_started") return `${nameOf(d.actor)}'s turn (round ${d.round})`;
      if (e.type === "condition_removed") return `${nameOf(d.target)}: ${d.name} ends${d.why ? ` (${d.why})` : ""}`;
      if (e.type === "revealed") return `${nameOf(d.target)} is revealed`;
      return `${e.type.replace(/_/g, " ")}${d.target ? `: ${nameOf(d.target)}` : ""}${d.taken !== undefined ? `, ${d.taken} taken` : ""}`;
    });
  replace($("#turn-feed"), lines.map((l) => h("div", {}, l)));
}

/** @param {Json[]} players */
function renderPlayers(players) {
  replace($("#players"), players.length ? h("ul", { class: "plain" }, players.map((p) => h("li", {}, `${p.name}: ${p.characters.join(", ") || "(no character)"}`))) : null);
}

// One select per ruling; `change(ruling, value)` saves a choice.
/**
 * @param {Json[]} rulings
 * @param {string} scope
 * @param {(ruling: Json, value: string) => void} change
 */
function rulingSelects(rulings, scope, change) {
  return h("div", { class: "rulings" }, rulings.map((r) => h("label", { title: `${r.question || ""} (${r.citation || ""})` },
    h("span", {}, h("b", {}, r.id), " ", r.title),
    h("select", {
      "aria-label": `${scope} ${r.id}`,
      onchange: async (/** @type {PageEvent} */ e) => {
        try {
          await change(r, e.target.value);
        } catch (err) {
          toast(errorText(err), "error");
        }
      },
    }, Object.entries(r.choices || {}).map(([k, v]) => h("option", { value: k, selected: k === r.value, title: v }, k))))));
}

async function renderRulings() {
  if (!S.encounter) return;
  const { rulings } = await S.api.get(`/api/encounters/${S.encounter}/rulings`);
  replace($("#rulings"), rulingSelects(rulings, "encounter", async (r, value) => {
    const out = await S.api.put(`/api/encounters/${S.encounter}/rulings/${encodeURIComponent(r.id)}`, { value });
    addRecord(out.record);
    setState(out.state);
    toast(`${r.id}: ${value}`);
  }));
}

// The campaign's rulings: what each new encounter starts with (the encounter's own can differ).
async function renderCampaignRulings() {
  const path = `/api/campaigns/${S.campaign.id}/rulings`;
  const { rulings } = await S.api.get(path);
  const chosen = Object.fromEntries(rulings.map((/** @type {Json} */ r) => [r.id, r.value]));
  replace($("#campaign-rulings"), rulingSelects(rulings, "campaign", async (r, value) => {
    await S.api.put(path, { rulings: { ...chosen, [r.id]: value } });
    chosen[r.id] = value;
    toast(`new encounters start with ${r.id}: ${value}`);
  }));
}

// -- commands -----------------------------------------------------------------------------
/**
 * @param {Json} command
 * @param {number[]|null} [dice]
 */
async function send(command, dice) {
  /** @type {Record<string, Json>} */
  const body = { command };
  if (dice && dice.length) body.dice = dice;
  try {
    const out = await S.api.post(`/api/encounters/${S.encounter}/commands`, body);
    addRecord(out.record);
    setState(out.state);
    return out;
  } catch (err) {
    toast(errorText(err), "error");
    throw err;
  }
}

// The turn-changing buttons (start, next, end, undo, redo) send the version of the state the
// GM is looking at: when another console changed it first, the server answers 409 and
// nothing more happens (two presses of Next at once end one turn, not two). The console
// then loads the state again and says so.
/** @param {Json} command */
async function turnChange(command) {
  const body = { command, expected_version: S.state ? S.state.version : undefined };
  try {
    const out = await S.api.post(`/api/encounters/${S.encounter}/commands`, body);
    addRecord(out.record);
    setState(out.state);
    return out;
  } catch (err) {
    if (err instanceof ApiError && err.status === 409 && err.field === "expected_version") await changedMeanwhile();
    else toast(errorText(err), "error");
    throw err;
  }
}

async function changedMeanwhile() {
  toast("the turn had already changed (another console was first): the state is shown again, nothing more was done", "error");
  const id = S.encounter;
  if (!id) return;
  try {
    const [state, records] = await Promise.all([S.api.get(`/api/encounters/${id}`), S.api.log(id)]);
    if (id !== S.encounter) return;
    for (const record of records) addRecord(record);
    setState(state);
  } catch (err) {
    toast(errorText(err), "error");
  }
}

/** @param {string} kind */
async function step(kind) {
  if (!S.encounter) return;
  try {
    const body = S.state ? { expected_version: S.state.version } : {};
    const out = await S.api.post(`/api/encounters/${S.encounter}/${kind}`, body);
    addRecord(out.record);
    setState(out.state);
    toast(`${kind} #${out.record.target}`);
  } catch (err) {
    if (err instanceof ApiError && err.status === 409 && err.field === "expected_version") await changedMeanwhile();
    else toast(errorText(err), "error");
  }
}

async function nextTurn() {
  if (!S.state || !S.state.in_combat) return;
  try {
    const out = await turnChange({ do: "next" });
    turnFeed(out.record);
  } catch {
    // shown by turnChange
  }
}

// -- the action panel ---------------------------------------------------------------------
// The action list, grouped the way a GM looks for an action: what a creature does (attacks,
// movement, skills, reactions, the rest), then the GM's own bookkeeping. Groups come from
// the catalogue alone: who may issue a command, when, whom it targets, its declared role,
// and its topic (the module of the one shape that declares it, the same in every ruleset).
/** @type {Record<string, string>} */
const TOPIC_GROUPS = {
  attacks: "Attacks", movement: "Movement", mounts: "Movement", cover: "Movement",
  checks: "Skills and checks", stealth: "Skills and checks", social: "Skills and checks",
  injuries: "Skills and checks",
};
/** @param {any} c @param {string} title */
const ofTopic = (c, title) => TOPIC_GROUPS[c.topic] === title;
/** @type {[string, (name: string, spec: any) => boolean][]} */
const GROUPS = [
  ["Attacks", (_, c) => c.who === "player" && (c.role === "area" || ofTopic(c, "Attacks") || (c.args.target && c.args.target.refers === "enemy"))],
  ["Movement", (_, c) => c.who === "player" && (c.role === "move" || ofTopic(c, "Movement"))],
  ["Skills and checks", (_, c) => c.who === "player" && ofTopic(c, "Skills and checks")],
  ["Reactions and free actions", (_, c) => c.who === "player" && c.when === "any"],
  ["Other actions", (_, c) => c.who === "player"],
  ["Game master", () => true],
];

/** @returns {[string, string[]][]} */
function actionGroups(filter = "") {
  const wanted = filter.trim().toLowerCase().replace(/\s+/g, "_");
  const names = Object.keys(S.commands).filter((n) => !OWN_CONTROLS.has(n) && (!wanted || n.includes(wanted)
    || S.commands[n].summary.toLowerCase().includes(filter.trim().toLowerCase())));
  const seen = new Set();
  /** @type {[string, string[]][]} */
  const out = [];
  for (const [title, test] of GROUPS) {
    const members = names.filter((n) => !seen.has(n) && test(n, S.commands[n]));
    members.forEach((n) => seen.add(n));
    if (members.length) out.push([title, members]);
  }
  return out;
}

function fillActions() {
  const keep = $("#do").value;
  const groups = actionGroups($("#do-search").value);
  replace($("#do"), groups.map(([title, names]) => h("optgroup", { label: title },
    names.map((n) => h("option", { value: n, title: S.commands[n].summary }, n.replace(/_/g, " "))))));
  const all = groups.flatMap(([, names]) => names);
  if (all.includes(keep)) $("#do").value = keep;
  else if (all.includes("attack")) $("#do").value = "attack";
  fillOptions();
}

/** @param {string} name */
function argsOf(name) {
  return commandArgs(S.commands[name]);
}

/** @param {string} name */
function needsActor(name) {
  return takesActor(S.commands[name]);
}

function fillOptions() {
  const name = $("#do").value;
  // Required arguments in view; the optional ones one click away, so a 20-option attack
  // does not bury the Roll button.
  const args = argsOf(name).filter((a) => !["actor", "target"].includes(a.name));
  const field = (/** @type {Json} */ a) => h("label", { title: a.help || "" }, `${a.name.replace(/_/g, " ")}${a.optional ? "" : " *"}`, argInput(a));
  const required = args.filter((a) => !a.optional);
  const optional = args.filter((a) => a.optional);
  replace($("#opts"), required.map(field),
    optional.length ? h("details", { class: "more-opts" }, h("summary", {}, `Options (${optional.length})`),
      h("div", { class: "opts" }, optional.map(field))) : null);
  const spec = S.commands[name];
  $("#do").title = spec ? spec.summary : "";
  replace($("#do-help"), spec ? spec.summary : "");
  const takesTarget = argsOf(name).some((a) => a.name === "target");
  $("#target-row").hidden = !takesTarget;
  $("#actor").disabled = !needsActor(name);
}

function fillActors() {
  const st = S.state;
  const sel = $("#actor");
  const keep = sel.value;
  replace(sel, Object.values(st.entities).map((e) => h("option", { value: e.id }, label(e.id))));
  if (!S.actorTouched && st.current) sel.value = st.current;
  else if (keep && st.entities[keep]) sel.value = keep;
}

/** @returns {Record<string, Json>} */
function baseCommand() {
  const name = $("#do").value;
  /** @type {Record<string, Json>} */
  const command = { do: name };
  if (needsActor(name) && $("#actor").value) command.actor = $("#actor").value;
  for (const input of /** @type {NodeListOf<HTMLElement>} */ ($("#opts").querySelectorAll("[data-arg]"))) {
    const value = readArg(input);
    if (value !== undefined) command[input.dataset.arg || ""] = value;
  }
  Object.assign(command, moreArgs($("#more").value));
  return command;
}

function buildCommand() {
  const command = baseCommand();
  if (!$("#target-row").hidden && !("target" in command)) {
    const target = $("#target").value;
    if (!target) throw new InputError("choose a target", "target");
    command.target = target;
  }
  return command;
}

// A probe waits 120 ms (typing settles) and then asks; the page is busy from the wait on.
function cancelProbe() {
  clearTimeout(S.oddsTimer);
  if (S.probeWaiting) busy(-1);
  S.probeWaiting = false;
}

function scheduleProbe() {
  cancelProbe();
  S.probeWaiting = true;
  busy(1);
  S.probe++;  // a probe still waiting for an answer is for a state that is gone
  // another creature's turn: the last one's targets and reasons are not this one's
  // (its target too: R before the new probe answers must not send the last one's target,
  // which may be this creature itself or its own side)
  if ($("#target").dataset.probedFor !== $("#actor").value) {
    S.plan = null;  // the last creature's dice are not this one's
    showPlan();
    replace($("#target"));
    delete $("#target").dataset.probedFor;
    replace($("#why-not"), h("span", { class: "muted" }, "checking targets…"));
    replace($("#odds"));
  }
  S.oddsTimer = setTimeout(() => {
    S.probeWaiting = false;
    probeTargets().catch((err) => toast(errorText(err), "error")).finally(() => busy(-1));
  }, 120);
}

// The legal options of a creature's turn now, once per state version (ui.js LegalOptions).
/** @param {string} actor */
function optionsOf(actor) {
  return S.legal.of(S.api, S.encounter || "", actor, S.state.version);
}

/** @param {Record<string, Json>} command */
function complete(command) {
  return isComplete(S.commands[command.do], command);
}

// Which targets are legal: the legal options say, with the reason for each refused one; the
// odds are asked for the chosen target only.
async function probeTargets() {
  if (!S.state || !S.encounter || S.state.encounter !== S.encounter) return;
  const seq = ++S.probe;
  const sel = $("#target");
  let base;
  try {
    base = baseCommand();
  } catch (err) {
    replace($("#odds"), h("p", { class: "warn" }, errorText(err)));
    return;
  }
  if ($("#target-row").hidden) {
    replace($("#why-not"));
    if (complete(base)) await showOdds(seq, base);
    else replace($("#odds"));
    return;
  }
  const keep = sel.value;
  let option = null;
  if (base.actor && S.state.entities[base.actor]) {
    let data;
    try {
      data = await optionsOf(base.actor);
    } catch (err) {
      if (seq === S.probe) replace($("#why-not"), h("span", { class: "warn" }, errorText(err)));
      return;
    }
    if (seq !== S.probe) return;
    if (data.version < S.state.version) {  // answered for a state already gone: ask again
      scheduleProbe();
      return;
    }
    option = data.options.find((/** @type {Json} */ o) => o.command === base.do) || null;
    // A new turn opens on the creature's own attack, whatever the last creature used
    // (openingAction): a melee creature's melee, not the ranged attack it lacks.
    if (S.pickAction) {
      S.pickAction = false;
      const own = openingAction(base.actor, data.options);
      if (own && own !== base.do) {
        $("#do").value = own;
        fillOptions();
        scheduleProbe();
        return;
      }
    }
  }
  if (seq !== S.probe) return;
  sel.dataset.probedFor = base.actor || "";  // the targets now shown are this actor's
  if (!option || !option.targets) {
    // the GM's own bookkeeping (no acting creature): any creature, none chosen for them
    const ids = Object.keys(S.state.entities);
    replace(sel, h("option", { value: "" }, "(choose)"), ids.map((id) => h("option", { value: id }, label(id))));
    sel.value = ids.includes(keep) ? keep : "";
    replace($("#why-not"));
    if (sel.value && complete({ ...base, target: sel.value })) await showOdds(seq, { ...base, target: sel.value });
    else replace($("#odds"));
    return;
  }
  const { legal, illegal, pick, why } = targetChoices(option, { keep, touched: S.targetTouched, last: S.lastTarget[base.actor] });
  // Enemies first, marked as enemies (the ones still standing before the downed), then the
  // allies, the creature itself and objects apart (the relation is the server's, /options).
  const { foes, rest } = rankTargets(legal);
  const opt = (/** @type {Json} */ t) => h("option", { value: t.id, dataset: { relation: t.relation } }, `${label(t.id)}${targetTag(t)}`);
  replace(sel, pick ? null : h("option", { value: "" }, "(choose a target)"),
    foes.length ? h("optgroup", { label: "enemies" }, foes.map(opt)) : null,
    rest.length ? h("optgroup", { label: foes.length ? "allies and others" : "not enemies" }, rest.map(opt)) : null,
    illegal.length ? h("optgroup", { label: "not possible" }, illegal.map((t) => h("option", { value: t.id, disabled: true, title: refusalText(t) }, `${label(t.id)}: ${refusalText(t)}`))) : null);
  sel.value = pick;
  const others = illegal.filter((t) => t.relation !== "self");
  replace($("#why-not"), why ? h("span", { class: "warn" }, `No default target: ${why}`)
    : others.length === 0 ? null
      : h("details", {}, h("summary", {}, `${others.length} target(s) not possible`),
        h("ul", {}, others.map((t) => h("li", {}, h("b", {}, nameOf(t.id)), `: ${refusalText(t)}`)))));
  const chosen = sel.value;
  if (chosen && complete({ ...base, target: chosen })) {
    const seqNow = seq;
    await showOdds(seqNow, { ...base, target: chosen }, `Odds against ${nameOf(chosen)}`);
  } else replace($("#odds"));
}

// The action a creature's turn opens on: among the attacks it has now (the catalogue's
// Attacks group, in the legal options), the first with a default target; else the attack
// named after the kind all its weapons share (zones' `melee` for a wolf's bite and claws);
// else `attack`.
/**
 * @param {string} actor
 * @param {Json[]} options
 * @returns {string|null}
 */
function openingAction(actor, options) {
  const offered = new Set([...$("#do").options].map((x) => x.value));
  const attacks = options.filter((o) => S.commands[o.command] && offered.has(o.command)
    && GROUPS[0][1](o.command, S.commands[o.command]));
  const e = S.state.entities[actor];
  const weapons = e && e.weapons && typeof e.weapons === "object" && !Array.isArray(e.weapons) ? e.weapons : {};
  const kinds = [...new Set(Object.entries(weapons).filter(([n]) => n !== "unarmed")
    .map(([, w]) => (w && typeof w === "object" ? w.kind : null)).filter(Boolean))];
  // the weapons' own attack first when they are all of one kind, then the plain attack, then
  // the attack of each kind it carries (never a special attack such as a critical)
  const wanted = [...new Set([...(kinds.length === 1 ? kinds : []), "attack", ...kinds])]
    .filter((name) => attacks.some((o) => o.command === name));
  const aimed = wanted.find((name) => attacks.find((o) => o.command === name).suggested);
  return aimed || wanted[0] || null;
}

// A creature clicked on the map or in the turn order: the target of the chosen action when
// the rules take it, else a message saying why not.
/**
 * @param {string} id
 * @param {string} [where]
 */
function pickTarget(id, where) {
  const sel = $("#target");
  const action = $("#do").value.replace(/_/g, " ");
  if ($("#target-row").hidden) {
    if (where === "order") return;  // a click on the name only; nothing to aim
    toast(`${action} takes no target`, "info");
    return;
  }
  const opt = [...sel.options].find((o) => o.value === id);
  if (!opt) {
    toast(`${nameOf(id)} is not a target of ${action} (yet: the targets are being checked)`, "error");
    return;
  }
  if (opt.disabled) {
    toast(`${nameOf(id)}: ${opt.title || "not possible"}`, "error");
    return;
  }
  sel.value = id;
  S.targetTouched = true;
  sel.classList.remove("flash");
  void sel.offsetWidth;  // restart the highlight
  sel.classList.add("flash");
  refreshOdds();
}

// -- the scene: a background image under the map, and the grid's place on it --------------
// The image goes up as it is (the server checks it and keeps only its pixels); the grid's
// calibration is the `scene` command (logged, undone with U).
/** @param {HTMLFormElement} form */
async function setScene(form) {
  await guard(form, async () => {
    const file = F(form, "image").files[0];
    if (file) {
      const out = await S.api.upload(`/api/encounters/${S.encounter}/scene/image`, file);
      if (out.record) addRecord(out.record);
      if (out.state) setState(out.state);
      F(form, "image").value = "";
    }
    const scene = (S.state && S.state.scene) || {};
    /** @type {Record<string, Json>} */
    const command = { do: "scene" };
    for (const name of ["square", "offset_x", "offset_y"]) {
      const text = F(form, name).value.trim();
      if (text === "") continue;
      const value = arith(text, scene[name], name);
      if (value !== scene[name]) command[name] = value;
    }
    if (Object.keys(command).length > 1) await send(command);
    else if (!file) throw new InputError("choose an image or change the square or the grid's start", "image");
  }, { image: "image", square: "square", offset_x: "offset_x", offset_y: "offset_y" });
}

// A creature's token picture: a file chosen here goes up as it is (the server checks it and
// scales it down); "×" goes back to initials. Both are `token` commands, undone with U.
/**
 * @param {string} id
 * @param {Json} st
 */
function tokenPicker(id, st) {
  const has = Boolean(st.tokens && st.tokens[id]);
  const input = h("input", { type: "file", accept: "image/png,image/jpeg,image/webp", class: "visually-hidden", "aria-label": `token picture of ${nameOf(id)}` });
  input.addEventListener("change", async () => {
    const file = input.files && input.files[0];
    if (!file) return;
    try {
      const out = await S.api.upload(`/api/encounters/${S.encounter}/creatures/${encodeURIComponent(id)}/image`, file);
      addRecord(out.record);
      setState(out.state);
    } catch (err) {
      toast(`${nameOf(id)}'s picture: ${errorText(err)}`, "error");
    }
  });
  const clear = has ? h("button", { type: "button", class: "linkish", title: "initials again" }, "×") : null;
  if (clear) clear.addEventListener("click", () => S.api.delete(`/api/encounters/${S.encounter}/creatures/${encodeURIComponent(id)}/image`)
    .then((out) => { addRecord(out.record); setState(out.state); }, (err) => toast(errorText(err), "error")));
  return h("div", { class: "tokpick" }, h("label", { title: "a picture for its token on the map" }, has ? "token picture ✓" : "+ token picture", input), clear);
}

/**
 * @param {Json[]} scenes
 * @param {string} [pick]
 */
function fillScenes(scenes, pick = "") {
  const select = F($("#scene-library"), "saved");
  replace(select, scenes.length ? scenes.map((sc) => h("option", { value: sc.name, selected: sc.name === pick },
    `${sc.name}${sc.image ? " · image" : ""}${sc.fog ? " · fog" : ""}`)) : h("option", { value: "" }, "(none yet)"));
}

/** @param {Json} st */
function renderScene(st) {
  const form = $("#scene-form");
  const scene = st.scene || {};
  for (const name of ["square", "offset_x", "offset_y"]) {
    const input = F(form, name);
    if (document.activeElement !== input) input.value = scene.image ? String(scene[name] ?? "") : "";
  }
  $("#scene-remove").disabled = !scene.image;
}

// -- the turn order, edited in place --------------------------------------------------------
// Each row: its initiative in a field (the kernel's `initiative` command), a field taking
// -7 / +3 (the ruleset's `damage` / `heal` commands, as the cards' buttons), a click on the
// name to target it, and a drag to reorder (one `initiative` command per move: logged, undone
// with U).
/** @param {Json} st */
function gmTracker(st) {
  const out = withAvatars(tracker(st, { onPick: (id) => { $("#actor").value = id; S.actorTouched = true; scheduleProbe(); } }), st, (hash) => S.map.pictureURL(hash));
  // staged creatures: ready on the map, out of the order until the GM brings them in
  /** @type {string[]} */
  const staged = ((st.extra && st.extra.staged) || []).filter((/** @type {string} */ id) => st.entities[id]);
  if (staged.length && S.commands.stage) {
    out.append(h("div", { class: "staged" }, h("small", { class: "muted" }, "Staged (not in the order): "),
      staged.map((id) => {
        const b = h("button", { type: "button", class: "linkish", dataset: { id }, title: "it rolls initiative and joins the order" }, `${nameOf(id)} ↪ bring in`);
        b.addEventListener("click", () => send({ do: "stage", target: id, ready: false }).catch(() => {}));
        return b;
      })));
  }
  const init = S.commands.initiative;
  const canInit = Boolean(init && st.in_combat);
  for (const li of /** @type {NodeListOf<HTMLLIElement>} */ (out.querySelectorAll("li[data-id]"))) {
    const id = li.dataset.id || "";
    const name = nameOf(id);
    if (canInit) {
      const field = h("input", { class: "initin", inputmode: "numeric", value: st.initiative[id] ?? "", "aria-label": `initiative of ${name}`, title: "initiative: type a number, Enter" });
      field.addEventListener("change", () => setInitiative(id, field));
      field.addEventListener("keydown", (e) => { if (e.key === "Enter") { e.preventDefault(); field.blur(); } });
      /** @type {Element} */ (li.querySelector(".init")).replaceChildren(field);
      li.draggable = true;
      li.title = "drag to reorder the turn order";
      li.addEventListener("dragstart", (e) => { S.draggedRow = id; li.classList.add("lifted"); if (e.dataTransfer) { e.dataTransfer.effectAllowed = "move"; e.dataTransfer.setData("text/plain", id); } });
      li.addEventListener("dragend", () => { li.classList.remove("lifted"); S.draggedRow = null; });
      li.addEventListener("dragover", (e) => { if (S.draggedRow && S.draggedRow !== id) { e.preventDefault(); li.classList.add("dropto"); } });
      li.addEventListener("dragleave", () => li.classList.remove("dropto"));
      li.addEventListener("drop", (e) => {
        e.preventDefault();
        li.classList.remove("dropto");
        const moved = S.draggedRow || (e.dataTransfer && e.dataTransfer.getData("text/plain"));
        const box = li.getBoundingClientRect();
        if (moved && moved !== id) reorder(moved, id, e.clientY > box.top + box.height / 2);
      });
      li.prepend(dragHandle(li, id, name));
    }
    const who = /** @type {HTMLElement} */ (li.querySelector(".who"));
    who.classList.add("aimable");
    who.title = "click: the target of the chosen action";
    who.addEventListener("click", () => pickTarget(id, "order"));
    const hp = h("input", { class: "hpin", inputmode: "text", placeholder: "±hp", size: 4, "aria-label": `damage or heal ${name}`, title: "-7 damages, +3 heals (Enter)" });
    hp.addEventListener("keydown", (e) => { if (e.key === "Enter") { e.preventDefault(); healthChange(id, hp); } });
    who.after(hp);
    // a field of a draggable row takes the pointer for its text, not for a drag of the row
    for (const input of li.querySelectorAll("input")) {
      input.addEventListener("pointerdown", () => { li.draggable = false; });
      input.addEventListener("blur", () => { li.draggable = canInit; });
    }
  }
  return out;
}

// A grip that drags its row by pointer events: a finger on a phone or tablet (where rows do
// not take HTML drag and drop) as well as a mouse. The row under the pointer when it lifts is
// where the creature goes, above or below its middle.
/**
 * @param {HTMLLIElement} li
 * @param {string} id
 * @param {string} name
 */
function dragHandle(li, id, name) {
  const grip = h("span", { class: "grip", role: "button", tabindex: "-1", "aria-label": `drag ${name} in the turn order`, title: "drag to reorder" }, "⋮⋮");
  const rowAt = (/** @type {PointerEvent} */ e) => {
    const under = document.elementFromPoint(e.clientX, e.clientY);
    const row = /** @type {HTMLElement|null} */ (under && under.closest("#tracker li[data-id]"));
    return row && row.dataset.id !== id ? row : null;
  };
  /** @type {HTMLElement|null} */
  let over = null;
  grip.addEventListener("pointerdown", (e) => {
    e.preventDefault();
    grip.setPointerCapture(e.pointerId);
    li.classList.add("lifted");
  });
  grip.addEventListener("pointermove", (e) => {
    if (!li.classList.contains("lifted")) return;
    const row = rowAt(e);
    if (row !== over) {
      if (over) over.classList.remove("dropto");
      over = row;
      if (over) over.classList.add("dropto");
    }
  });
  const done = (/** @type {PointerEvent} */ e, /** @type {boolean} */ drop) => {
    if (!li.classList.contains("lifted")) return;
    li.classList.remove("lifted");
    if (over) over.classList.remove("dropto");
    const row = drop ? rowAt(e) : null;
    over = null;
    if (!row) return;
    const box = row.getBoundingClientRect();
    reorder(id, row.dataset.id || "", e.clientY > box.top + box.height / 2);
  };
  grip.addEventListener("pointerup", (e) => done(e, true));
  grip.addEventListener("pointercancel", (e) => done(e, false));
  return grip;
}

/**
 * @param {string} id
 * @param {HTMLInputElement} field
 */
async function setInitiative(id, field) {
  const text = field.value.trim();
  if (text === String(S.state.initiative[id] ?? "")) return;
  let value;
  try {
    value = arith(text, S.state.initiative[id], "initiative");
  } catch (err) {
    field.setAttribute("aria-invalid", "true");
    toast(`${nameOf(id)}: ${errorText(err)}`, "error");
    return;
  }
  await send({ do: "initiative", target: id, value }).catch(() => { field.value = S.state.initiative[id] ?? ""; });
}

// "-7" damages through the ruleset's damage command, "+3" heals through its heal command.
/**
 * @param {string} id
 * @param {HTMLInputElement} field
 */
async function healthChange(id, field) {
  const text = field.value.trim();
  const m = /^([+-])\s*(.+)$/.exec(text);
  if (!m) {
    field.setAttribute("aria-invalid", "true");
    toast(`${nameOf(id)}: type -7 to damage or +3 to heal`, "error");
    return;
  }
  const what = m[1] === "-" ? "damage" : "heal";
  const spec = S.commands[what];
  if (!spec || !spec.args || !spec.args.amount) {
    toast(`${S.campaign.ruleset}'s ${what} takes no amount${spec ? ` (${spec.summary})` : ""}: use the card or the action panel`, "error");
    return;
  }
  let amount;
  try {
    amount = arith(m[2], undefined, "amount");
  } catch (err) {
    field.setAttribute("aria-invalid", "true");
    toast(`${nameOf(id)}: ${errorText(err)}`, "error");
    return;
  }
  try {
    const out = await send({ do: what, target: id, amount });
    toast(out.record.text || `${what} ${amount}`);
  } catch {
    // shown by send
  }
}

// A row dropped on another: an initiative between its new neighbours' (equal to one of
// them when no whole number lies between: the ruleset's tie-break then decides).
/**
 * @param {string} moved
 * @param {string} onto
 * @param {boolean} below
 */
function reorder(moved, onto, below) {
  const st = S.state;
  /** @type {string[]} */
  const order = st.order.filter((/** @type {string} */ x) => x !== moved);
  const at = order.indexOf(onto) + (below ? 1 : 0);
  const value = initiativeBetween(order.map((x) => st.initiative[x]), at);
  if (value === null) return;
  send({ do: "initiative", target: moved, value }).then(() => {
    toast(`${nameOf(moved)}: initiative ${value}`);
  }, () => {});
}

/** The initiative that puts a creature at index `at` of `values` (the others' initiatives
 * in turn order, highest first or lowest first as the ruleset orders them). */
/**
 * @param {number[]} values
 * @param {number} at
 * @returns {number|null}
 */
function initiativeBetween(values, at) {
  const nums = values.filter((v) => typeof v === "number");
  if (!nums.length) return 0;
  const descending = nums[0] >= nums[nums.length - 1];
  const step = descending ? 1 : -1;
  const above = at > 0 ? values[at - 1] : undefined;
  const below = at < values.length ? values[at] : undefined;
  if (typeof above !== "number" && typeof below !== "number") return 0;
  if (typeof above !== "number") return Number(below) + step;
  if (typeof below !== "number") return above - step;
  if (Math.abs(above - below) >= 2) return below + step;
  return above;
}

/**
 * @param {number} seq
 * @param {Json} command
 * @param {string} [head]
 */
async function showOdds(seq, command, head = "Odds") {
  try {
    const out = await S.api.post(`/api/encounters/${S.encounter}/odds`, { command, version: S.state.version });
    if (seq !== S.probe) return;
    if (out.stale) {  // asked about a state already gone: read the new one (which asks again)
      setState(await S.api.get(`/api/encounters/${S.encounter}`));
      return;
    }
    S.plan = out.dice_plan || null;
    showPlan();
    if (out.odds === null) replace($("#odds"), h("p", { class: "muted" }, `No odds preview for ${command.do}.`));
    else replace($("#odds"), h("div", { class: "oddshead" }, head), oddsView(out.odds));
  } catch (err) {
    if (seq === S.probe) replace($("#odds"), h("p", { class: "warn" }, errorText(err)));
  }
}

async function refreshOdds() {
  if ($("#target-row").hidden || !$("#target").value) {
    scheduleProbe();
    return;
  }
  const seq = ++S.probe;
  try {
    const command = buildCommand();
    if (complete(command)) await showOdds(seq, command, `Odds against ${nameOf(command.target)}`);
    else replace($("#odds"));
  } catch (err) {
    replace($("#odds"), h("p", { class: "warn" }, errorText(err)));
  }
}

// The dice plan of the odds last shown, beside the Table dice field (ui.js planLine).
function showPlan() {
  replace($("#dice-plan"), ...planLine($("#dice").value, S.plan));
}

async function roll() {
  const form = $("#action");
  await guard(form, async () => {
    const dice = typedDice($("#dice").value, S.plan);
    const command = buildCommand();
    /** @type {Record<string, Json>} */
    const body = { command };
    if (dice) {  // what was typed first; the server rolls the rest
      body.dice = dice;
      body.dice_rest = "server";
    }
    const out = await S.api.post(`/api/encounters/${S.encounter}/commands`, body);
    if (command.actor && command.target) S.lastTarget[command.actor] = command.target;
    S.targetTouched = false;
    addRecord(out.record);
    setState(out.state);
    $("#dice").value = "";
    showPlan();
    replace($("#result"), h("ol", { class: "log" }, logEntry(out.record, false, true)));
    toast(`${command.actor ? `${nameOf(command.actor)}: ` : ""}${command.do.replace(/_/g, " ")} logged (#${out.record.seq})`);
  }, { target: "target", actor: "actor", dice: "dice", do: "do" });
}

// -- apply to many ------------------------------------------------------------------------
function renderMany() {
  const form = $("#many");
  form.hidden = S.selected.size === 0;
  $("#many-count").textContent = `${S.selected.size} selected:`;
  const what = F(form, "what").value;
  F(form, "amount").hidden = what === "condition";
  F(form, "type").hidden = what !== "damage";
  for (const n of ["cond", "level", "rounds"]) F(form, n).hidden = what !== "condition";
  renderManyOptions(what);
}

// The options the ruleset's own command declares for applying to many: its flags (armor on or
// off, irreducible, overheal…), its choices, and a body area where the ruleset has areas.
const MANY_SHOWN = new Set(["target", "amount", "type", "name", "level", "rounds"]);
/** @param {string} what */
function manyOptions(what) {
  const spec = S.commands[what];
  if (!spec) return [];
  return commandArgs(spec).filter((a) => !MANY_SHOWN.has(a.name)
    && (a.kind === "flag" || a.kind === "choice" || a.name === "area"));
}

/** @param {string} what */
function renderManyOptions(what) {
  const box = $("#many-opts");
  const key = `${what}:${[...S.selected].sort().join(",")}`;
  if (box.dataset.key === key) return;  // keep what the GM ticked while the selection stands
  box.dataset.key = key;
  const areas = new Set();
  for (const id of S.selected) {
    const e = S.state && S.state.entities[id];
    if (e && e.areas && typeof e.areas === "object") Object.keys(e.areas).forEach((a) => areas.add(a));
  }
  replace(box, manyOptions(what).map((a) => {
    const label = a.name.replace(/_/g, " ");
    if (a.name === "area") {
      return h("label", { title: a.help || "" }, label, h("select", { name: "many-area", dataset: { arg: "area", kind: "text" } },
        h("option", { value: "" }, "random"), [...areas].sort().map((n) => h("option", { value: n }, n.replace(/_/g, " ")))));
    }
    return h("label", { class: a.kind === "flag" ? "check" : "", title: a.help || "" }, argInput(a, "many-"), ` ${label}`);
  }));
}

async function applyMany() {
  const form = $("#many");
  await guard(form, async () => {
    const what = F(form, "what").value;
    /** @type {Record<string, Json>} */
    const extra = {};
    if (what === "condition") {
      if (!F(form, "cond").value.trim()) throw new InputError("condition: give its name (e.g. prone)", "cond");
      extra.name = F(form, "cond").value.trim();
      if (F(form, "level").value.trim()) extra.level = arith(F(form, "level").value, undefined, "level");
      if (F(form, "rounds").value.trim()) extra.rounds = arith(F(form, "rounds").value, undefined, "rounds");
    } else {
      try {
        extra.amount = arith(F(form, "amount").value, undefined, "amount");
      } catch (err) {
        throw new InputError(errorText(err), "amount");
      }
      if (what === "damage" && F(form, "type").value.trim()) extra.type = F(form, "type").value.trim();
    }
    for (const input of /** @type {NodeListOf<HTMLElement>} */ ($("#many-opts").querySelectorAll("[data-arg]"))) {
      const value = readArg(input);
      if (value !== undefined) extra[input.dataset.arg || ""] = value;
    }
    // One batch: one log entry, one undo; refused whole when any one is refused.
    const commands = [...S.selected].map((id) => ({ do: what, target: id, ...extra }));
    const out = await S.api.post(`/api/encounters/${S.encounter}/commands`, { command: { do: "batch", commands } });
    addRecord(out.record);
    setState(out.state);
    render();
    toast(out.record.text || `${what} applied to ${commands.length}`);
  }, { cond: "cond", name: "cond", amount: "amount", type: "type", level: "level", rounds: "rounds" });
}

// -- override -----------------------------------------------------------------------------
/** @param {string} path */
function currentValue(path) {
  const parts = path.split(".");
  let obj = S.state.entities[parts[0]] ?? S.state[parts[0]];
  for (const key of parts.slice(1)) {
    if (obj === null || obj === undefined) return undefined;
    if (Array.isArray(obj)) obj = /^-?\d+$/.test(key) ? obj.at(Number(key)) : obj.find((x) => x && (x.name === key || x.id === key));
    else obj = obj[key];
  }
  return obj;
}

/**
 * @param {string} path
 * @param {Json} value
 */
function prefillOverride(path, value) {
  const form = $("#override");
  F(form, "path").value = path;
  F(form, "value").value = String(value);
  F(form, "reason").focus();
  form.scrollIntoView({ block: "nearest" });
}

async function override() {
  const form = $("#override");
  await guard(form, async () => {
    const path = F(form, "path").value.trim();
    if (!/^[A-Za-z0-9_-]+(\.[A-Za-z0-9_ ()-]+)+$/.test(path)) throw new InputError("field: name a creature and a field, e.g. nia.health", "path");
    const now = currentValue(path);
    const text = F(form, "value").value.trim();
    let value;
    if (typeof now === "number") value = arith(text, now, "value");
    else if (typeof now === "boolean") {
      if (!/^(true|false)$/.test(text)) throw new InputError(`value: ${path} is true or false`, "value");
      value = text === "true";
    } else value = argValue(text, "value");
    if (!F(form, "reason").value.trim()) throw new InputError("reason: say why, so the log stays true", "reason");
    const out = await S.api.post(`/api/encounters/${S.encounter}/commands`, { command: { do: "override", path, value, reason: F(form, "reason").value.trim() } });
    addRecord(out.record);
    setState(out.state);
    toast(`${path}: ${JSON.stringify(now)} → ${JSON.stringify(value)}`);
    F(form, "reason").value = "";
  }, { path: "path", value: "value", reason: "reason" });
}

// -- dice roller --------------------------------------------------------------------------
async function diceRoller() {
  const form = $("#roller");
  await guard(form, async () => {
    const expression = F(form, "expr").value.trim();
    if (!expression) throw new InputError("expression: give dice, e.g. 2d6+3", "expr");
    let out;
    try {
      out = await S.api.post("/api/dice", { expression, roll: true, dialect: S.roster.dialect() });
    } catch (err) {
      if (err instanceof ApiError && (err.status === 404 || err.status === 405)) throw new InputError("this server has no dice endpoint (POST /api/dice)");
      throw err;
    }
    replace($("#roll-out"),
      h("p", { class: "rolled" }, h("code", {}, rollText(out.roll.text))),
      readAs(expression, out),
      h("p", { class: "muted" }, `${out.expression}: ${out.min}–${out.max}, mean ${out.mean.toFixed(2)}`),
      chart(out.outcomes));
  }, { expression: "expr" });
}

// -- forms and keys ----------------------------------------------------------------------
function wire() {
  // The battle map: a drag is the creature's own move on its turn, else the GM's placing
  // command; its refusals show under the map and as a toast, like every other refusal.
  S.roster = new RosterPanels(rosterHooks());
  watchBuilder(S.roster.encounterForm, () => S.api, () => (S.campaign ? S.campaign.id : null));
  S.balance = simulateButton($("#balance"), () => S.api, () => S.encounter, (id) => {
    const e = S.state && S.state.entities[id];
    return e && e.name ? e.name : id;
  });
  S.map = new BattleMap($("#map-panel"), {
    role: "gm",
    odds: (command) => S.api.post(`/api/encounters/${S.encounter}/odds`, { command, version: S.state.version }),
    submit: (command) => send(command),
    onTap: (id) => pickTarget(id, "map"),
    image: (key) => S.api.bytes(`/api/encounters/${S.encounter}/scene/image?v=${encodeURIComponent(key)}`),
    picture: (hash) => S.api.bytes(`/api/encounters/${S.encounter}/images/${hash}`),
    onPicture: () => { if (S.state) replace($("#tracker"), gmTracker(S.state)); },
  });
  $("#scene-form").addEventListener("submit", (/** @type {PageEvent} */ e) => {
    e.preventDefault();
    setScene(e.target);
  });
  $("#scene-library").addEventListener("submit", (/** @type {PageEvent} */ e) => {
    e.preventDefault();
    const form = e.target;
    guard(form, async () => {
      const name = F(form, "name").value.trim();
      if (!name) throw new InputError("give the scene a name", "name");
      const out = await S.api.post(`/api/encounters/${S.encounter}/scene/save`, { name });
      fillScenes(out.scenes, name);
      toast(`scene “${name}” saved`);
    }, { name: "name" });
  });
  $("#scene-load").addEventListener("click", () => {
    const form = $("#scene-library");
    guard(form, async () => {
      const name = F(form, "saved").value;
      if (!name) throw new InputError("choose a saved scene", "saved");
      const out = await S.api.post(`/api/encounters/${S.encounter}/scene/load`, { name });
      addRecord(out.record);
      setState(out.state);
      const away = out.not_here || 0;
      toast(`scene “${name}” drawn${away ? `; ${away === 1 ? "one creature" : `${away} creatures`} of it ${away === 1 ? "is" : "are"} not in this encounter` : ""}`);
    }, { name: "saved" });
  });
  $("#scene-tools").addEventListener("toggle", () => {
    if ($("#scene-tools").open && S.campaign) S.api.get(`/api/campaigns/${S.campaign.id}/scenes`).then((out) => fillScenes(out.scenes), () => {});
  });
  $("#scene-remove").addEventListener("click", () => {
    guard($("#scene-form"), async () => {
      const out = await S.api.delete(`/api/encounters/${S.encounter}/scene/image`);
      addRecord(out.record);
      setState(out.state);
    });
  });
  // A form's error goes as soon as the game master changes what it was about.
  for (const form of document.querySelectorAll("form")) {
    form.addEventListener("input", () => clearError(form));
    form.addEventListener("change", () => clearError(form));
  }
  $("#new-campaign").addEventListener("submit", (/** @type {PageEvent} */ e) => {
    e.preventDefault();
    const form = e.target;
    guard(form, async () => {
      if (!F(form, "name").value.trim()) throw new InputError("name: give the campaign a name", "name");
      const out = await new Api(sessionStorage.getItem("arbiter-admin")).post("/api/campaigns", { name: F(form, "name").value.trim(), ruleset: F(form, "ruleset").value });
      await openCampaign(out.campaign.id, out.gm_token);
      toast("campaign created: the console keeps its token in this browser");
    }, { name: "name", ruleset: "ruleset" });
  });
  $("#open-campaign").addEventListener("submit", (/** @type {PageEvent} */ e) => {
    e.preventDefault();
    const form = e.target;
    guard(form, () => openCampaign(F(form, "campaign").value.trim(), F(form, "token").value.trim()), { authorization: "token" });
  });
  $("#campaign-select").addEventListener("change", async (/** @type {PageEvent} */ e) => {
    const id = e.target.value;
    if (!id) {
      showSetup();
      return;
    }
    const entry = saved().find((/** @type {Json} */ c) => c.id === id);
    if (entry) await openCampaign(entry.id, entry.token).catch((err) => toast(errorText(err), "error"));
  });
  $("#encounter-select").addEventListener("change", (/** @type {PageEvent} */ e) => e.target.value && openEncounter(e.target.value));
  $("#auto-reveal").addEventListener("change", (/** @type {PageEvent} */ e) => {
    if (!S.encounter) return;
    const enabled = e.target.checked;
    // A logged command of the encounter; refused (another console changed it first), the
    // box shows the encounter's setting again.
    send({ do: "reveal_on_turn", enabled }).catch(() => { e.target.checked = Boolean(S.state && S.state.reveal_on_turn); });
  });
  $("#new-encounter").addEventListener("submit", (/** @type {PageEvent} */ e) => {
    e.preventDefault();
    const form = e.target;
    guard(form, async () => {
      if (!F(form, "name").value.trim()) throw new InputError("name: give the encounter a name", "name");
      const out = await S.api.post(`/api/campaigns/${S.campaign.id}/encounters`, { name: F(form, "name").value.trim() });
      S.encounters.push(out.encounter);
      fillEncounterSelect(out.encounter.id);
      F(form, "name").value = "";
      await openEncounter(out.encounter.id);
    });
  });
  $("#new-player").addEventListener("submit", (/** @type {PageEvent} */ e) => {
    e.preventDefault();
    const form = e.target;
    guard(form, async () => {
      const characters = F(form, "characters").value.split(/[\s,]+/).filter(Boolean);
      const out = await S.api.post(`/api/campaigns/${S.campaign.id}/players`, { name: F(form, "name").value.trim(), characters });
      const url = `${location.origin}/play/#campaign=${S.campaign.id}&token=${out.token}`;
      replace(form.querySelector(".link-out"), "Give this link to ", out.name, " (shown once): ", h("a", { href: url, target: "_blank", class: "player-link" }, url));
      const info = await S.api.get(`/api/campaigns/${S.campaign.id}`);
      renderPlayers(info.players || []);
    }, { "characters.0": "characters" });
  });
  $("#add").addEventListener("submit", (/** @type {PageEvent} */ e) => {
    e.preventDefault();
    const form = e.target;
    guard(form, async () => {
      const id = F(form, "id").value.trim();
      if (!/^[A-Za-z0-9_-]{1,64}$/.test(id)) throw new InputError(`id: '${id}' must be letters, digits, '-' and '_' (e.g. wolf2)`, "id");
      /** @type {Record<string, unknown>} */
      const body = { id, ...moreArgs(F(form, "more").value) };
      if (F(form, "template").value) body.template = F(form, "template").value;
      if (F(form, "name").value.trim()) body.name = F(form, "name").value.trim();
      if (F(form, "side").value.trim()) body.side = F(form, "side").value.trim();
      if (F(form, "hidden").checked) body.hidden = true;
      const out = await S.api.post(`/api/encounters/${S.encounter}/actors`, body);
      addRecord(out.record);
      setState(out.state);
      const staged = F(form, "staged").checked && S.commands.stage;
      if (staged) await send({ do: "stage", target: id });  // out of the order until brought in
      F(form, "id").value = "";
      F(form, "name").value = "";
      F(form, "hidden").checked = false;  // the next creature is not hidden unless asked again
      toast(`${id} added${body.hidden ? " (hidden from players)" : ""}${staged ? " (staged)" : ""}`);
    }, { id: "id", command: "more", template: "template" });
  });
  $("#add [name=template]").addEventListener("change", (/** @type {PageEvent} */ e) => {
    const form = $("#add");
    if (!F(form, "id").value && e.target.value && S.state) {
      let n = 1;
      while (S.state.entities[`${e.target.value}${n}`]) n += 1;
      F(form, "id").value = `${e.target.value}${n}`;
    }
  });
  $("#action").addEventListener("submit", (/** @type {PageEvent} */ e) => { e.preventDefault(); roll(); });
  $("#do").addEventListener("change", () => { S.pickAction = false; fillOptions(); scheduleProbe(); });
  $("#do-search").addEventListener("input", () => { fillActions(); scheduleProbe(); });
  $("#actor").addEventListener("change", () => { S.actorTouched = true; scheduleProbe(); });
  $("#target").addEventListener("change", () => { S.targetTouched = true; refreshOdds(); });
  $("#opts").addEventListener("change", scheduleProbe);
  $("#more").addEventListener("change", scheduleProbe);
  F($("#add"), "side").addEventListener("input", (/** @type {PageEvent} */ e) => { e.target.dataset.touched = "1"; });
  $("#many").addEventListener("submit", (/** @type {PageEvent} */ e) => { e.preventDefault(); applyMany(); });
  $("#many [name=what]").addEventListener("change", renderMany);
  $("#many-clear").addEventListener("click", () => { S.selected.clear(); render(); });
  $("#override").addEventListener("submit", (/** @type {PageEvent} */ e) => { e.preventDefault(); override(); });
  $("#roller").addEventListener("submit", (/** @type {PageEvent} */ e) => { e.preventDefault(); diceRoller(); });
  $("#dice").addEventListener("input", showPlan);
  $("#start").addEventListener("click", () => turnChange({ do: "start" }).then((out) => turnFeed(out.record), () => {}));
  $("#end").addEventListener("click", () => turnChange({ do: "end" }).catch(() => {}));
  $("#next").addEventListener("click", nextTurn);
  $("#undo").addEventListener("click", () => step("undo"));
  $("#redo").addEventListener("click", () => step("redo"));
  document.addEventListener("keydown", (e) => {
    if (e.ctrlKey && e.key === "Enter" && e.target instanceof Element && e.target.closest("#action")) {
      e.preventDefault();
      roll();
      return;
    }
    // Shortcuts work whatever has focus but a text field: right after choosing a target from
    // a dropdown, R rolls (a dropdown's own letter search gives way to them).
    const t = e.target;
    const typing = (t instanceof HTMLInputElement && !["checkbox", "radio", "button", "submit"].includes(t.type))
      || t instanceof HTMLTextAreaElement || (t instanceof HTMLElement && t.isContentEditable);
    if (typing || e.ctrlKey || e.metaKey || e.altKey || $("#console").hidden) return;
    const key = e.key;
    if (key === "n") nextTurn();
    else if (key === "u") step("undo");
    else if (key === "U") step("redo");
    else if (key === "r") roll();
    else if (key === "a") $("#do").focus();
    else if (key === "d") $("#roller [name=expr]").focus();
    else if (key === "?") $("#help").showModal();
    else return;
    e.preventDefault();
  });
}

// -- the roster, the bestiary and campaign time (roster.js) ----------------------------------
function rosterHooks() {
  return {
    api: () => S.api,
    state: () => S.state,
    encounter: () => S.encounters.find((e) => e.id === S.encounter) || null,
    records: () => S.records,
    applied: (/** @type {Json} */ out) => { addRecord(out.record); setState(out.state); },
    opened: async (/** @type {Json} */ encounter) => {
      S.encounters.push(encounter);
      fillEncounterSelect(encounter.id);
      await openEncounter(encounter.id);
    },
    templates: (/** @type {string[]} */ ids) => { S.bestiaryIds = ids; fillAddTemplates(); },
    toast: (/** @type {string} */ text) => toast(text, "error"),
  };
}

// Add combatant's templates: the ruleset's, then the campaign's bestiary. The list is filled
// again when the bestiary arrives (after the ruleset's, at any moment): the template the GM
// has picked meanwhile stays picked, or an add would go without it.
function fillAddTemplates() {
  const mine = S.bestiaryIds || [];
  const select = /** @type {HTMLSelectElement} */ ($("#add [name=template]"));
  const picked = select.value;
  replace(select, h("option", { value: "" }, "(stat block below)"),
    Object.keys(S.templates).map((t) => h("option", { value: t }, t)),
    mine.length ? h("optgroup", { label: "bestiary" }, mine.map((t) => h("option", { value: t }, t))) : null);
  if (picked && Array.from(select.options).some((o) => o.value === picked)) select.value = picked;
}

// How the dice box read what was typed, in the campaign's notation (docs/dice.md, "Dialects").
/**
 * @param {string} typed
 * @param {Json} out
 */
function readAs(typed, out) {
  const dialect = out.dialect || "arbiter";
  if (dialect === "arbiter" && out.read_as === typed.replace(/\s+/g, "")) return null;
  return h("p", { class: "readas" }, "read as ", h("code", {}, out.read_as), dialect === "arbiter" ? null : h("small", { class: "muted" }, ` (${dialect} notation)`));
}

wire();
boot().catch((err) => {
  toast(errorText(err), "error");
  showSetup();
});
