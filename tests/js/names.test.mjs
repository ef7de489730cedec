// The rules' refusals read with the creatures' names on the page (ui.js idsToNames).
import { test } from "node:test";
import assert from "node:assert/strict";
import { idsToNames } from "../../src/arbiter/web/static/ui.js";

const state = {
  entities: {
    nia: { name: "Nia" },
    imp: { name: "Imp" },
    "imp-2": { name: "Imp 2" },
    ogre: { name: "ogre" },
    crate: {},
  },
};

test("ids read as names, whole words only, longest first", () => {
  assert.equal(idsToNames("nia is 8 spaces from imp", state), "Nia is 8 spaces from Imp");
  assert.equal(idsToNames("imp-2 flanks nia", state), "Imp 2 flanks Nia");
  assert.equal(idsToNames("it is imp's turn, not nia's", state), "it is Imp's turn, not Nia's");
  assert.equal(idsToNames("the impish niall", state), "the impish niall");
  assert.equal(idsToNames("nia_x and x-nia stay", state), "nia_x and x-nia stay");
});

test("nothing to name leaves the text as it is", () => {
  assert.equal(idsToNames("ogre hits the crate", state), "ogre hits the crate");
  assert.equal(idsToNames("", state), "");
  assert.equal(idsToNames("nia waits", null), "nia waits");
  assert.equal(idsToNames("nia waits", { entities: {} }), "nia waits");
});
