// The player view: the order as the player's characters perceive it, their own sheets, the
// shared log filtered by the server, and their actions with odds on their turn.
import { Api, fragment } from "./api.js";
import {
  InputError, argInput, card, commandArgs, creatureLabel, creatureName, h, logEntry, logList,
  oddsView, readArg, replace, toast, tracker,
} from "./ui.js";
import { BattleMap } from "./map.js";

const $ = (sel) => document.querySelector(sel);
const S = { api: null, campaign: null, encounter: null, state: null, records: [], commands: {}, sub: null, probe: 0, timer: null };

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
  S.campaignId = given.campaign;
  const info = await S.api.get(`/api/campaigns/${given.campaign}`);
  S.campaign = info;
  $("#who").textContent = `${info.name || "player"} · ${info.campaign.name}`;
  const encounters = info.encounters;
  if (!encounters.length) {
    problem("No encounter yet: this page shows it as soon as the game master starts one (reload).");
    return;
  }
  const pick = given.encounter || encounters[encounters.length - 1].id;
  replace($("#encounter-select"), encounters.map((e) => h("option", { value: e.id, selected: e.id === pick }, e.name)));
  $("#encounter-select").addEventListener("change", (e) => open(e.target.value));
  await open(pick);
}

async function open(id) {
  if (S.sub) S.sub.close();
  S.encounter = id;
  const [state, records, commands] = await Promise.all([
    S.api.get(`/api/encounters/${id}`), S.api.log(id), S.api.get(`/api/encounters/${id}/commands`)]);
  S.state = state;
  S.records = records;
  S.commands = commands.commands;
  S.map.reset();
  S.map.setCommands(S.commands);
  // The server sends only the commands a player may issue (the catalogue's "player" ones).
  const names = Object.keys(S.commands).filter((n) => n !== "next");
  replace($("#do"), names.map((n) => h("option", { value: n, title: S.commands[n].summary }, n.replace(/_/g, " "))));
  if (names.includes("attack")) $("#do").value = "attack";
  fillOptions();
  $("#view").hidden = false;
  S.sub = S.api.subscribe(id, (message) => {
    if (message.type === "update") addRecord(message.record);
    if (message.state) setState(message.state);
  }, (status) => {
    $("#status").textContent = status;
    $("#status").className = `status ${status === "live" ? "live" : ""}`;
  });
  render();
  schedule();
}

function addRecord(record) {
  if (record && !S.records.some((r) => r.seq === record.seq)) S.records.push(record);
}

function setState(state) {
  if (S.state && state.version < S.state.version) return;
  S.state = state;
  render();
  schedule();
}

function myTurn() {
  return S.state.in_combat && S.state.characters.includes(S.state.current);
}

function label(id) { return creatureLabel(S.state, id); }
function nameOf(id) { return creatureName(S.state, id); }

function render() {
  const st = S.state;
  $("#turn-info").textContent = st.in_combat ? `Round ${st.round} · ${st.current ? nameOf(st.current) : "—"}${myTurn() ? " (your turn)" : ""}` : "";
  replace($("#tracker"), tracker(st));
  S.map.update(st);
  const mine = st.characters.filter((id) => st.entities[id]);
  const others = Object.keys(st.entities).filter((id) => !mine.includes(id));
  replace($("#mine"), mine.length ? mine.map((id) => card(st.entities[id], st, { economy: st.economy[id], current: id === st.current })) : h("p", { class: "muted" }, "No character of yours is in this encounter."));
  replace($("#others"), others.map((id) => card(st.entities[id], st, { current: id === st.current })));
  $("#action").hidden = !myTurn();
  const sel = $("#actor");
  const keep = sel.value;
  replace(sel, mine.map((id) => h("option", { value: id }, label(id))));
  if (myTurn()) sel.value = st.current;
  else if (mine.includes(keep)) sel.value = keep;
  replace($("#log"), logList(S.records));
}

function fillOptions() {
  const name = $("#do").value;
  const spec = S.commands[name];
  const args = commandArgs(spec).filter((a) => !["actor", "target"].includes(a.name));
  replace($("#opts"), args.map((a) => h("label", { title: a.help || "" }, `${a.name.replace(/_/g, " ")}${a.optional ? "" : " *"}`, argInput(a))));
  $("#target-row").hidden = !(spec && spec.args && "target" in spec.args);
  replace($("#do-help"), spec ? spec.summary : "");
}

function baseCommand() {
  const command = { do: $("#do").value, actor: $("#actor").value };
  for (const input of $("#opts").querySelectorAll("[data-arg]")) {
    const value = readArg(input);
    if (value !== undefined) command[input.dataset.arg] = value;
  }
  return command;
}

function schedule() {
  clearTimeout(S.timer);
  S.timer = setTimeout(probe, 120);
}

async function probe() {
  if (!S.state || !myTurn()) return;
  const seq = ++S.probe;
  let base;
  try {
    base = baseCommand();
  } catch (err) {
    replace($("#odds"), h("p", { class: "warn" }, err.message));
    return;
  }
  const ask = (command) => S.api.post(`/api/encounters/${S.encounter}/odds`, { command });
  if ($("#target-row").hidden) {
    const out = await ask(base).catch((err) => ({ error: err.message }));
    if (seq === S.probe) replace($("#odds"), out.odds ? oddsView(out.odds) : h("p", { class: out.error ? "warn" : "muted" }, out.error || out.reason || "no odds preview"));
    return;
  }
  const ids = Object.keys(S.state.entities).filter((id) => id !== base.actor);
  const results = await Promise.all(ids.map((id) => ask({ ...base, target: id })
    .then((out) => ({ id, ok: true, odds: out.odds }), (err) => ({ id, ok: false, reason: err.message }))));
  if (seq !== S.probe) return;
  const sel = $("#target");
  const keep = sel.value;
  const legal = results.filter((r) => r.ok);
  const illegal = results.filter((r) => !r.ok);
  replace(sel, legal.map((r) => h("option", { value: r.id }, label(r.id))),
    illegal.length ? h("optgroup", { label: "not possible" }, illegal.map((r) => h("option", { value: r.id, disabled: true }, `${label(r.id)}: ${r.reason}`))) : null);
  const friends = new Set(S.state.characters.map((id) => S.state.entities[id] && S.state.entities[id].side));
  if (legal.some((r) => r.id === keep)) sel.value = keep;
  else if (legal.length) sel.value = (legal.find((r) => !friends.has(S.state.entities[r.id].side)) || legal[0]).id;
  replace($("#why-not"), illegal.map((r) => h("div", {}, h("b", {}, nameOf(r.id)), `: ${r.reason}`)));
  const chosen = results.find((r) => r.id === sel.value);
  replace($("#odds"), chosen && chosen.odds ? [h("div", { class: "oddshead" }, `Odds against ${nameOf(chosen.id)}`), oddsView(chosen.odds)] : null);
}

async function act(command) {
  const form = $("#action");
  form.querySelector(".error").textContent = "";
  try {
    const out = await S.api.post(`/api/encounters/${S.encounter}/commands`, { command });
    addRecord(out.record);
    setState(out.state);
    replace($("#result"), h("ol", { class: "log" }, logEntry(out.record, false, true)));
  } catch (err) {
    form.querySelector(".error").textContent = err.message;
  }
}

// The map: the player drags their own character on its turn (its move command); the server
// sends only what the player may see, so the map draws only that.
S.map = new BattleMap($("#map-panel"), {
  role: "player",
  odds: (command) => S.api.post(`/api/encounters/${S.encounter}/odds`, { command }),
  submit: async (command) => {
    const out = await S.api.post(`/api/encounters/${S.encounter}/commands`, { command });
    addRecord(out.record);
    setState(out.state);
    return out;
  },
});

$("#action").addEventListener("submit", (e) => {
  e.preventDefault();
  try {
    const command = baseCommand();
    if (!$("#target-row").hidden && !("target" in command)) {
      if (!$("#target").value) throw new InputError("choose a target");
      command.target = $("#target").value;
    }
    act(command);
  } catch (err) {
    $("#action .error").textContent = err.message;
  }
});
$("#end-turn").addEventListener("click", () => act({ do: "next" }));
$("#do").addEventListener("change", () => { fillOptions(); schedule(); });
$("#actor").addEventListener("change", schedule);
$("#opts").addEventListener("change", schedule);
$("#target").addEventListener("change", schedule);

boot().catch((err) => {
  problem(err.message);
  toast(err.message, "error");
});
