// What both pages hold (src/arbiter/web/static/state.js): the state and log record a message
// from the server brings, and the order targets are offered in; and the default target
// (ui.js targetChoices). Run by `node --test tests/js/` (make test, the `js` target).
import assert from "node:assert/strict";
import { test } from "node:test";

import { rankTargets, receive, takes, targetTag } from "../../src/arbiter/web/static/state.js";
import { targetChoices } from "../../src/arbiter/web/static/ui.js";

const v = (version, encounter = "e-1") => ({ encounter, version });
const entry = (seq, command) => ({ seq, kind: "entry", command });

test("a page takes a newer state of its encounter, and any state of another", () => {
  assert.equal(takes(null, v(1)), true);
  assert.equal(takes(v(3), v(4)), true);
  assert.equal(takes(v(3), v(3)), true);  // the same version again (an answer, then the socket)
  assert.equal(takes(v(3), v(2)), false);  // crossed: the answer came before an older message
  assert.equal(takes(v(9), v(1, "e-2")), true);
  assert.equal(takes(v(3), null), false);
});

test("hello: the state, no record", () => {
  const out = receive({ state: null, records: [] }, { type: "hello", state: v(5) });
  assert.deepEqual(out, { state: v(5), record: null, changed: true, turn: null });
  const again = receive({ state: v(5), records: [] }, { type: "hello", state: v(5) });
  assert.deepEqual(again, { state: v(5), record: null, changed: false, turn: null });
});

test("update: the record once, the state when newer, the turn when the command was next", () => {
  const held = { state: v(5), records: [entry(4, { do: "attack" })] };
  const hit = entry(5, { do: "attack" });
  assert.deepEqual(receive(held, { type: "update", record: hit, state: v(6) }),
    { state: v(6), record: hit, changed: true, turn: null });
  // a record the page holds already, and a state older than the one it holds
  assert.deepEqual(receive(held, { type: "update", record: entry(4, { do: "attack" }), state: v(4) }),
    { state: null, record: null, changed: false, turn: null });
  const next = entry(6, { do: "next" });
  assert.deepEqual(receive(held, { type: "update", record: next, state: v(7) }),
    { state: v(7), record: next, changed: true, turn: next });
  // an undo is a record of another kind: never a turn change
  const undo = { seq: 7, kind: "undo", command: { do: "next" } };
  assert.equal(receive(held, { type: "update", record: undo, state: v(8) }).turn, null);
});

test("other messages bring nothing", () => {
  const held = { state: v(5), records: [] };
  for (const message of [{ type: "pong" }, { type: "error", state: v(9) }]) {
    assert.deepEqual(receive(held, message), { state: null, record: null, changed: false, turn: null });
  }
});

const T = (id, relation, down = false) => ({ id, legal: true, relation, down });

test("targets: the enemies first, the standing before the downed, then the rest in order", () => {
  const legal = [T("ally", "ally"), T("imp", "enemy", true), T("ogre", "enemy"), T("me", "self"), T("crate", "other"), T("wolf", "enemy")];
  const { foes, rest } = rankTargets(legal);
  assert.deepEqual(foes.map((t) => t.id), ["ogre", "wolf", "imp"]);
  assert.deepEqual(rest.map((t) => t.id), ["ally", "me", "crate"]);
  assert.deepEqual(legal.map((t) => targetTag(t)), [" (ally)", " (enemy, down)", " (enemy)", " (itself)", "", " (enemy)"]);
  assert.equal(targetTag(T("me", "self"), "yourself"), " (yourself)");
  assert.equal(targetTag(T("crate", "other", true)), " (down)");
});

test("the default target: the last one attacked, the choice made, the server's nearest", () => {
  const option = { command: "attack", legal: true, suggested: "ogre",
    targets: [T("ogre", "enemy"), T("imp", "enemy", true), T("ally", "ally"), { id: "far", legal: false, relation: "enemy", reason: "out of range" }] };
  assert.equal(targetChoices(option).pick, "ogre");
  assert.equal(targetChoices(option, { last: "imp" }).pick, "ogre");  // down: not again
  assert.equal(targetChoices(option, { keep: "ally" }).pick, "ogre");  // an ally only when chosen
  assert.equal(targetChoices(option, { keep: "ally", touched: true }).pick, "ally");
  assert.equal(targetChoices(option, { keep: "far", touched: true }).pick, "ogre");  // refused
  const { legal, illegal } = targetChoices(option);
  assert.deepEqual([legal.map((t) => t.id), illegal.map((t) => t.id)], [["ogre", "imp", "ally"], ["far"]]);
  const none = targetChoices({ command: "attack", targets: [T("ally", "ally")], no_default: "no enemy in reach" });
  assert.deepEqual([none.pick, none.why], ["", "no enemy in reach"]);
});
