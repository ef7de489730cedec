// The ruler's pure functions (src/arbiter/web/static/ruler.js): distances by each diagonal
// rule, zones apart and their range band, the label's words, and the asker that keeps one
// odds request in flight. Run by `node --test tests/js/` (tests/web/test_js_units.py).
import assert from "node:assert/strict";
import { test } from "node:test";

import {
  count, diagonalSteps, gridDistance, gridText, latestAsker, lineSteps, rulerWeapons,
  weaponText, zoneDistance, zoneText, zonesApart,
} from "../../src/arbiter/web/static/ruler.js";

const REALMS = { unit: "space", diagonal: 1.5 };
const CHEBYSHEV = { unit: "square", diagonal: 1 };
const MANHATTAN = { unit: "square", diagonal: 2 };
const ZONES = { unit: "zone", engaged: "engagement", bands: ["short", "medium", "long"] };

test("a straight line's steps and its diagonal ones", () => {
  assert.deepEqual(lineSteps([1, 4], [4, 5]), [[2, 4], [3, 5], [4, 5]]);
  assert.deepEqual(lineSteps([2, 2], [2, 2]), []);
  assert.equal(diagonalSteps([1, 4], lineSteps([1, 4], [4, 5])), 1);
  assert.equal(diagonalSteps([0, 0], lineSteps([0, 0], [-3, -3])), 3);
  assert.equal(diagonalSteps([0, 0], [[1, 0], [2, 0]]), 0);
});

test("realms: squares, and spaces with a diagonal step 1.5", () => {
  const d = gridDistance([1, 4], [4, 6], REALMS);
  assert.deepEqual(d, { squares: 3, straight: 1, diagonals: 2, spaces: 4, unit: "space" });
  assert.equal(gridText(d), "3 squares · 4 spaces");
  assert.equal(gridText(gridDistance([1, 4], [4, 5], REALMS)), "3 squares · 3.5 spaces");
  assert.equal(gridText(gridDistance([0, 0], [1, 1], REALMS)), "1 square · 1.5 spaces");
  assert.equal(gridText(gridDistance([0, 0], [0, 1], REALMS)), "1 square · 1 space");
  assert.equal(gridText(gridDistance([5, 5], [5, 5], REALMS)), "0 squares · 0 spaces");
});

test("polemos: a diagonal counts one square, or two by the Manhattan ruling", () => {
  assert.equal(gridText(gridDistance([1, 2], [6, 5], CHEBYSHEV)), "5 squares");
  const m = gridDistance([1, 2], [6, 5], MANHATTAN);
  assert.equal(m.squares, 8);
  assert.equal(gridText(m), "8 squares (a diagonal counts 2)");
  assert.equal(gridText(gridDistance([0, 0], [0, 4], MANHATTAN)), "4 squares");
});

test("a grid without a declared rule counts squares only", () => {
  const d = gridDistance([0, 0], [2, 3], undefined);
  assert.equal(d.squares, 3);
  assert.equal(d.spaces, null);
  assert.equal(gridText(d), "3 squares");
});

const MAP = {
  here: { adjacent: ["ford"] },
  ford: { adjacent: ["here", "ridge"] },
  ruins: { adjacent: ["ridge"] },
  island: { adjacent: [] },
};

test("zones apart by the zones map, links taken both ways", () => {
  assert.equal(zonesApart(MAP, "here", "here"), 0);
  assert.equal(zonesApart(MAP, "here", "ford"), 1);
  assert.equal(zonesApart(MAP, "ridge", "ford"), 1); // ridge names nobody: ford's link counts
  assert.equal(zonesApart(MAP, "here", "ruins"), 3);
  assert.equal(zonesApart(MAP, "here", "island"), null);
  assert.equal(zonesApart({}, "a", "b"), null);
});

test("zones: the range band of each distance, and its words", () => {
  assert.equal(zoneText(zoneDistance(MAP, "here", "here", ZONES)), "same zone · short range");
  assert.equal(zoneText(zoneDistance(MAP, "here", "ford", ZONES)), "1 zone away · medium range");
  assert.equal(zoneText(zoneDistance(MAP, "ford", "ruins", ZONES)), "2 zones away · long range");
  assert.equal(zoneText(zoneDistance(MAP, "here", "island", ZONES)), "no path of zones · long range");
  assert.equal(zoneText(zoneDistance(MAP, "ford", "ford", ZONES, true), true), "same engagement · engagement range");
  assert.equal(zoneText(zoneDistance(MAP, "here", "ford", {})), "1 zone away");
});

test("a weapon at a range band", () => {
  const rifle = { kind: "ranged", offense: { short: "1d12", medium: "1d20", long: "2d20" } };
  const pistol = { kind: "ranged", offense: { short: "1d10", medium: "1d20", long: "X" } };
  assert.equal(weaponText("rifle", rifle, "long"), "rifle at long range: 2d20");
  assert.equal(weaponText("rifle", rifle, "engagement"), "rifle at engagement range (as short): 1d12");
  assert.equal(weaponText("pistol", pistol, "long"), "pistol: out of range (long)");
  assert.equal(weaponText("knife", { kind: "melee" }, "engagement"), "knife: in reach");
  assert.equal(weaponText("knife", { kind: "melee" }, "short"), "knife: out of reach (melee)");
  assert.equal(weaponText("grenade", { kind: "thrown" }, "medium"), "grenade at medium range");
  assert.equal(weaponText("rifle", rifle, null), null);
  assert.deepEqual(rulerWeapons({ weapons: { knife: { kind: "melee" }, grenade: { kind: "thrown" }, rifle } }),
    ["rifle", "grenade", "knife"]);
  assert.deepEqual(rulerWeapons({ weapon: "sword" }), []);
});

test("count says one or many", () => {
  assert.equal(count(1, "zone"), "1 zone");
  assert.equal(count(2.5, "space"), "2.5 spaces");
  assert.equal(count(1 / 3, "space"), "0.33 spaces");
});

test("the asker keeps one request in flight and answers the latest ask only", async (t) => {
  t.mock.timers.enable({ apis: ["setTimeout"] });
  const sent = [];
  const heard = [];
  const answers = [];
  const asker = latestAsker(
    (payload) => new Promise((resolve, reject) => { sent.push(payload); answers.push({ resolve, reject }); }),
    (out) => heard.push(out), 100);
  asker.ask("a", 1);
  asker.ask("b", 2); // within the delay: replaces a
  t.mock.timers.tick(100);
  assert.deepEqual(sent, [2]);
  asker.ask("c", 3);
  asker.ask("d", 4);
  t.mock.timers.tick(100);
  assert.deepEqual(sent, [2], "nothing else is sent while b is in flight");
  answers[0].resolve("B");
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(sent, [2, 4], "then the latest, d (c was replaced)");
  assert.deepEqual(heard, [], "b's answer is not the latest's");
  answers[1].reject(new Error("refused"));
  await new Promise((r) => setImmediate(r));
  assert.equal(heard.length, 1);
  assert.equal(heard[0].key, "d");
  assert.equal(heard[0].ok, false);
  asker.ask("d", 4); // the same ask again: nothing new
  t.mock.timers.tick(100);
  assert.equal(sent.length, 2);
  asker.ask("e", 5);
  asker.cancel();
  t.mock.timers.tick(100);
  assert.equal(sent.length, 2, "a cancelled ask is not sent");
});
