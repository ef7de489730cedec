// @ts-check
// Balance while you build (docs/web.md, "Win odds"): the encounter builder's win odds,
// updated as the GM adds or takes out creatures, and the open encounter's "Simulate" button.
// Both ask the server's simulate routes (docs/server.md) in growing batches: a quick answer
// of FIRST runs at once, then a steadier one of SECOND runs; a newer question drops an
// older one's answers.
import { busy } from "./api.js";
import { h, replace } from "./ui.js";

const FIRST = 200;
const SECOND = 1000;
const DEBOUNCE_MS = 400;

/** @typedef {{side: string, win: number, ci95: number[]}} SideOdds */
/** @typedef {{id: string, side: string, down: number, dead: number}} CreatureOdds */
/** @typedef {{runs: number, asked: number, cut_short: boolean, sides: SideOdds[], draw: number,
 *   unfinished: number, rounds: number, creatures: CreatureOdds[]}} Answer */
/** @typedef {{post: (path: string, body: any) => Promise<any>}} Poster */

/** @param {number} p */
const pct = (p) => `${Math.round(p * 100)}%`;

/** A GM's line: "Win odds: heroes 73% (68–78%) · beasts 27% (22–32%), ~4.2 rounds".
 * @param {Answer} a */
export function oddsLine(a) {
  const sides = [...a.sides].sort((x, y) => y.win - x.win)
    .map((s) => `${s.side} ${pct(s.win)} (${pct(s.ci95[0])}–${pct(s.ci95[1])})`);
  const extra = [];
  if (a.draw > 0) extra.push(`draws ${pct(a.draw)}`);
  if (a.unfinished > 0) extra.push(`no end ${pct(a.unfinished)}`);
  return `Win odds: ${sides.join(" · ")}${extra.length ? ` · ${extra.join(" · ")}` : ""}, ~${a.rounds.toFixed(1)} rounds`;
}

/** @param {Answer} a */
function basis(a) {
  return a.cut_short
    ? `from ${a.runs.toLocaleString()} simulated fights (stopped at the time limit)`
    : `from ${a.runs.toLocaleString()} simulated fights`;
}

/**
 * Ask `path` in growing batches, calling `show` with each answer while `current()` is
 * still this question; `fail` with a refusal's message.
 * @param {Poster} api @param {string} path @param {object} body
 * @param {() => boolean} current @param {(a: Answer) => void} show @param {(m: string) => void} fail
 */
async function ask(api, path, body, current, show, fail) {
  busy(1);
  try {
    for (const runs of [FIRST, SECOND]) {
      const answer = await api.post(path, { ...body, runs });
      if (!current()) return;
      show(answer);
      if (answer.cut_short) return;
    }
  } catch (err) {
    if (current()) fail(err instanceof Error ? err.message : String(err));
  } finally {
    busy(-1);
  }
}

/**
 * The builder's odds line, under its creatures: `form` fires "builder-change" with
 * {characters, creatures} (the body of the new encounter) whenever they change.
 * @param {HTMLFormElement} form @param {() => Poster} api @param {() => string | null} campaign
 */
export function watchBuilder(form, api, campaign) {
  const line = h("p", { class: "balance muted", "aria-live": "polite", dataset: { role: "builder-odds" } });
  const list = form.querySelector(".rcreatures");
  (list || form).after(line);
  let timer = 0;
  let asked = 0;
  form.addEventListener("builder-change", (e) => {
    const detail = /** @type {CustomEvent} */ (e).detail || {};
    const characters = detail.characters || [];
    const creatures = detail.creatures || [];
    window.clearTimeout(timer);
    const mine = ++asked;
    if (!characters.length && !creatures.length) {
      replace(line);
      return;
    }
    line.textContent = "Win odds: working them out…";
    timer = window.setTimeout(() => {
      const cid = campaign();
      if (!cid) return;
      ask(api(), `/api/campaigns/${cid}/simulate`, { characters, creatures }, () => mine === asked,
        (a) => replace(line, h("span", { class: "odds-line" }, oddsLine(a)), " ", h("small", {}, basis(a))),
        (m) => { line.textContent = `Win odds: ${m}`; });
    }, DEBOUNCE_MS);
  });
}

/**
 * A "Simulate" button in `box` for the open encounter: the same line from its current
 * state, and each creature's chance to go down and to die.
 * @param {HTMLElement} box @param {() => Poster} api @param {() => string | null} encounter
 * @param {(id: string) => string} nameOf
 */
export function simulateButton(box, api, encounter, nameOf) {
  const out = h("div", { class: "balance-out", "aria-live": "polite" });
  let asked = 0;
  const button = h("button", { type: "button", class: "simulate", title: "play this fight to its end many times from where it stands now (nothing changes)" }, "Simulate");
  button.addEventListener("click", () => {
    const eid = encounter();
    if (!eid) return;
    const mine = ++asked;
    out.textContent = "Simulating…";
    ask(api(), `/api/encounters/${eid}/simulate`, {}, () => mine === asked && encounter() === eid,
      (a) => replace(out, h("p", { class: "odds-line" }, oddsLine(a)),
        h("p", { class: "muted" }, basis(a)),
        h("ul", { class: "plain balance-creatures" }, a.creatures.map((c) => h("li", { dataset: { id: c.id } },
          h("b", {}, nameOf(c.id)), ` (${c.side}): goes down ${pct(c.down)}`, c.dead > 0 ? `, dies ${pct(c.dead)}` : "")))),
      (m) => { out.textContent = m; });
  });
  replace(box, button, out);
  return { clear: () => { asked++; replace(out); } };
}
