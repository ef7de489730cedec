// @ts-check
// The player view: the order as the player's characters perceive it, their own sheets, the
// shared log filtered by the server, and their actions with odds on their turn.
import { Api, fragment, rewordErrors } from "./api.js";
import {
  InputError, LegalOptions, errorText, argInput, card, commandArgs, complete as isComplete, creatureLabel, creatureName, h, idsToNames, nameIdsWith, showFields, logEntry, logList, openedIn, ordinals,
  oddsView, planLine, readArg, refusalText, replace, targetChoices, toast, tracker, typedDice, withAvatars,
} from "./ui.js";
import { BattleMap } from "./map.js";
import { receive, takes } from "./state.js";

/**
 * @typedef {import("./ui.js").Json} Json
 * @typedef {{api: Api, campaign: Json, encounter: string, state: Json, records: Json[],
 *   commands: Record<string, Json>, sub: {close(): void}|null, probe: number,
 *   timer: ReturnType<typeof setTimeout>|undefined, legal: LegalOptions, last: string, touched: boolean,
 *   plan: Json, playersRoll: boolean, map: BattleMap}} Page
 *   what the page holds: its API client (with the player's token), the campaign, the
 *   encounter shown, its state and log, the commands the player may send, the live
 *   subscription, the pending odds probe, the map
 */

/**
 * An element of the page (play/index.html): its forms, fields and panels.
 * @param {string} sel
 * @returns {any}
 */
const $ = (sel) => document.querySelector(sel);
/** @type {Page} */
const S = {
  api: new Api(null), campaign: null, encounter: "", state: null, records: [], commands: {}, sub: null, probe: 0,
  timer: undefined, legal: new LegalOptions(), last: "", touched: false, plan: null, playersRoll: false,
  map: /** @type {any} */ (null),  // made below, once the functions it calls exist
};
// The rules' sentences (refusals, reasons) name creatures by id: this page shows names.
rewordErrors((text) => idsToNames(text, S.state));
nameIdsWith((text) => idsToNames(text, S.state));

/** @param {string} text */
function problem(text) {
  $("#problem").hidden = false;
  $("#problem").textContent = text;
}

async function boot() {
  const given = fragment();
  if (!given.campaign || !given.token) {
    problem("This link is incomplete: ask the game master for your player link (it ends in #campaign=…&token=…).");
    return;
  }
  S.api = new Api(given.token);
  const info = await S.api.get(`/api/campaigns/${given.campaign}`);
  S.campaign = info;
  $("#who").textContent = `${info.name || "player"} · ${info.campaign.name}`;
  // the campaign lets players type the dice they threw (its setting players_roll)
  S.playersRoll = Boolean(info.campaign.settings && info.campaign.settings.players_roll);
  $("#dice-row").hidden = !S.playersRoll;
  $("#dice-plan").hidden = !S.playersRoll;
  const encounters = info.encounters;
  if (!encounters.length) {
    problem("No encounter yet: this page shows it as soon as the game master starts one (reload).");
    return;
  }
  const pick = given.encounter || encounters[encounters.length - 1].id;
  replace($("#encounter-select"), encounters.map((/** @type {Json} */ e) => h("option", { value: e.id, selected: e.id === pick }, e.name)));
  $("#encounter-select").addEventListener("change", (/** @type {Event} */ e) => open(/** @type {HTMLSelectElement} */ (e.target).value));
  await open(pick);
}

/** @param {string} id */
async function open(id) {
  if (S.sub) S.sub.close();
  S.sub = null;
  S.encounter = id;
  const [state, records, commands] = await Promise.all([
    S.api.get(`/api/encounters/${id}`), S.api.log(id), S.api.get(`/api/encounters/${id}/commands`)]);
  if (S.encounter !== id) return;  // another encounter was picked while this one loaded
  S.state = state;
  S.records = records;
  S.commands = commands.commands;
  S.map.reset();
  S.map.setCommands(S.commands, commands.display);
  showFields(commands.display);
  // The server sends only the commands a player may issue (the catalogue's "player" ones).
  const names = Object.keys(S.commands).filter((n) => n !== "next");
  replace($("#do"), names.map((n) => h("option", { value: n, title: S.commands[n].summary }, n.replace(/_/g, " "))));
  if (names.includes("attack")) $("#do").value = "attack";
  fillOptions();
  $("#view").hidden = false;
  S.sub = S.api.subscribe(id, (message) => {
    const out = receive({ state: S.state, records: S.records }, message);
    if (out.record) S.records.push(out.record);
    if (out.state) setState(out.state);
  }, (/** @type {string} */ status) => {
    $("#status").textContent = status;
    $("#status").className = `status ${status === "live" ? "live" : ""}`;
  });
  render();
  schedule();
}

/** @param {Json} record */
function addRecord(record) {
  const out = receive({ state: null, records: S.records }, { type: "update", record });
  if (out.record) S.records.push(out.record);
}

/** @param {Json} state */
function setState(state) {
  if (!takes(S.state, state)) return;
  S.state = state;
  render();
  schedule();
}

function myTurn() {
  return S.state.in_combat && S.state.characters.includes(S.state.current);
}

/** @param {string} id */
function label(id) { return creatureLabel(S.state, id); }
/** @param {string} id */
function nameOf(id) { return creatureName(S.state, id); }

function render() {
  const st = S.state;
  $("#turn-info").textContent = st.in_combat ? `Round ${st.round} · ${st.current ? nameOf(st.current) : "—"}${myTurn() ? " (your turn)" : ""}` : "";
  replace($("#tracker"), withAvatars(tracker(st), st, (hash) => S.map.pictureURL(hash)));
  S.map.update(st);
  /** @type {string[]} */
  const mine = st.characters.filter((/** @type {string} */ id) => st.entities[id]);
  const others = Object.keys(st.entities).filter((id) => !mine.includes(id));
  replace($("#mine"), mine.length ? mine.map((id) => card(st.entities[id], st, { economy: st.economy[id], current: id === st.current })) : h("p", { class: "muted" }, "No character of yours is in this encounter."));
  replace($("#others"), others.map((id) => card(st.entities[id], st, { current: id === st.current })));
  $("#action").hidden = !myTurn();
  const sel = $("#actor");
  const keep = sel.value;
  replace(sel, mine.map((id) => h("option", { value: id }, label(id))));
  if (myTurn()) sel.value = st.current;
  else if (mine.includes(keep)) sel.value = keep;
  replace($("#log"), logList(S.records, 200, ordinals(S.records), openedIn($("#log"))));  // numbered as the player sees it
}

function fillOptions() {
  const name = $("#do").value;
  const spec = S.commands[name];
  // the arguments the rules leave to the game master are not the player's to set
  const args = commandArgs(spec).filter((a) => !["actor", "target"].includes(a.name) && a.who !== "gm");
  // the required ones in view, the optional ones one click away (as on the GM's console)
  const field = (/** @type {Json} */ a) => h("label", { title: a.help || "" }, `${a.name.replace(/_/g, " ")}${a.optional ? "" : " *"}`, argInput(a));
  const optional = args.filter((a) => a.optional);
  replace($("#opts"), args.filter((a) => !a.optional).map(field),
    optional.length ? h("details", { class: "more-opts" }, h("summary", {}, `Options (${optional.length})`),
      h("div", { class: "opts" }, optional.map(field))) : null);
  $("#target-row").hidden = !(spec && spec.args && "target" in spec.args);
  replace($("#do-help"), spec ? spec.summary : "");
}

/** @returns {Record<string, Json>} */
function baseCommand() {
  /** @type {Record<string, Json>} */
  const command = { do: $("#do").value, actor: $("#actor").value };
  for (const input of /** @type {NodeListOf<HTMLElement>} */ ($("#opts").querySelectorAll("[data-arg]"))) {
    const value = readArg(input);
    if (value !== undefined) command[input.dataset.arg || ""] = value;
  }
  return command;
}

function schedule() {
  clearTimeout(S.timer);
  S.probe++;  // a probe still waiting for an answer is for a state that is gone
  S.timer = setTimeout(probe, 120);
}

// The legal options of a creature's turn now, once per state version (ui.js LegalOptions).
/** @param {string} actor */
function optionsOf(actor) {
  return S.legal.of(S.api, S.encounter, actor, S.state.version);
}

/** @param {Record<string, Json>} command */
function complete(command) {
  return isComplete(S.commands[command.do], command);
}

async function probe() {
  if (!S.state || !myTurn()) return;
  const seq = ++S.probe;
  let base;
  try {
    base = baseCommand();
  } catch (err) {
    replace($("#odds"), h("p", { class: "warn" }, errorText(err)));
    return;
  }
  const ask = (/** @type {Json} */ command) => S.api.post(`/api/encounters/${S.encounter}/odds`, { command });
  /** @type {(command: Json, head?: string) => Promise<void>} */
  const show = async (command, head) => {
    /** @type {Json} */
    const out = await ask(command).catch((err) => ({ error: errorText(err) }));
    if (seq !== S.probe) return;
    S.plan = out.dice_plan || null;
    showPlan();
    replace($("#odds"), out.odds ? [head ? h("div", { class: "oddshead" }, head) : null, oddsView(out.odds)]
      : h("p", { class: out.error ? "warn" : "muted" }, out.error || out.reason || "no odds preview"));
  };
  let data;
  try {
    data = await optionsOf(base.actor);
  } catch (err) {
    if (seq === S.probe) replace($("#why-not"), h("span", { class: "warn" }, errorText(err)));
    return;
  }
  if (seq !== S.probe) return;
  if (data.version < S.state.version) {  // answered for a state already gone: ask again
    schedule();
    return;
  }
  const option = data.options.find((/** @type {Json} */ o) => o.command === base.do) || null;
  if ($("#target-row").hidden) {
    replace($("#why-not"), option && !option.legal ? h("span", { class: "warn" }, refusalText(option)) : null);
    if (option && option.legal && complete(base)) await show(base);
    else replace($("#odds"));
    return;
  }
  const sel = $("#target");
  const { legal, illegal, pick, why } = targetChoices(option, { keep: sel.value, touched: S.touched, last: S.last });
  const tag = (/** @type {Json} */ t) => (t.relation === "ally" ? " (ally)" : t.relation === "self" ? " (yourself)" : t.down ? " (down)" : "");
  replace(sel, pick ? null : h("option", { value: "" }, "(choose a target)"),
    legal.map((t) => h("option", { value: t.id }, `${label(t.id)}${tag(t)}`)),
    illegal.length ? h("optgroup", { label: "not possible" }, illegal.map((t) => h("option", { value: t.id, disabled: true }, `${label(t.id)}: ${refusalText(t)}`))) : null);
  sel.value = pick;
  replace($("#why-not"), why ? h("div", { class: "warn" }, `No default target: ${why}`) : null,
    illegal.filter((t) => t.relation !== "self").map((t) => h("div", {}, h("b", {}, nameOf(t.id)), `: ${refusalText(t)}`)));
  if (sel.value && complete({ ...base, target: sel.value })) await show({ ...base, target: sel.value }, `Odds against ${nameOf(sel.value)}`);
  else replace($("#odds"));
}

// The dice plan of the odds last shown, beside the Table dice field (ui.js planLine).
function showPlan() {
  replace($("#dice-plan"), ...planLine($("#dice").value, S.plan));
}

/**
 * @param {Record<string, Json>} command
 * @param {number[]|null} [dice]
 */
async function act(command, dice = null) {
  const form = $("#action");
  form.querySelector(".error").textContent = "";
  try {
    /** @type {Record<string, Json>} */
    const body = { command };
    if (dice) {  // what the player threw first; the server rolls the rest
      body.dice = dice;
      body.dice_rest = "server";
    }
    const out = await S.api.post(`/api/encounters/${S.encounter}/commands`, body);
    $("#dice").value = "";
    showPlan();
    if (command.target) S.last = command.target;
    S.touched = false;
    addRecord(out.record);
    setState(out.state);
    replace($("#result"), h("ol", { class: "log" }, logEntry(out.record, false, true, ordinals(S.records))));
  } catch (err) {
    form.querySelector(".error").textContent = errorText(err);
  }
}

// The map: the player drags their own character on its turn (its move command); the server
// sends only what the player may see, so the map draws only that.
S.map = new BattleMap($("#map-panel"), {
  role: "player",
  image: (/** @type {string} */ key) => S.api.bytes(`/api/encounters/${S.encounter}/scene/image?v=${encodeURIComponent(key)}`),
  picture: (/** @type {string} */ hash) => S.api.bytes(`/api/encounters/${S.encounter}/images/${hash}`),
  onPicture: () => { if (S.state) replace($("#tracker"), withAvatars(tracker(S.state), S.state, (hash) => S.map.pictureURL(hash))); },
  odds: (/** @type {Json} */ command) => S.api.post(`/api/encounters/${S.encounter}/odds`, { command }),
  submit: async (/** @type {Json} */ command) => {
    const out = await S.api.post(`/api/encounters/${S.encounter}/commands`, { command });
    addRecord(out.record);
    setState(out.state);
    return out;
  },
});

$("#action").addEventListener("submit", (/** @type {Event} */ e) => {
  e.preventDefault();
  try {
    const command = baseCommand();
    if (!$("#target-row").hidden && !("target" in command)) {
      if (!$("#target").value) throw new InputError("choose a target");
      command.target = $("#target").value;
    }
    act(command, S.playersRoll ? typedDice($("#dice").value, S.plan) : null);
  } catch (err) {
    $("#action .error").textContent = errorText(err);
  }
});
$("#end-turn").addEventListener("click", () => act({ do: "next" }));
$("#dice").addEventListener("input", showPlan);
$("#do").addEventListener("change", () => { fillOptions(); schedule(); });
$("#actor").addEventListener("change", schedule);
$("#opts").addEventListener("change", schedule);
$("#target").addEventListener("change", () => { S.touched = true; schedule(); });

boot().catch((err) => {
  problem(err.message);
  toast(err.message, "error");
});
