// The map's pure functions (src/arbiter/web/static/board.js): squares and terrain, footprints,
// the board's extent, reach and threatened squares, an area template's hits, and the
// commands of the catalogue's declared roles. Distances and lines: ruler.test.mjs.
// Run by `node --test tests/js/` (make test, the `js` target).
import assert from "node:assert/strict";
import { test } from "node:test";

import {
  MARGIN, MIN_COLS, MIN_ROWS, areaCommand, areaHits, areaWeapons, boardBounds, cellsOf, footprintOf, isSquare,
  percent, reachSquares, roleCommand, sameSquare, squareKey, terrainOf, toolCommand,
} from "../../src/arbiter/web/static/board.js";
import { mapKind, stepsBetween } from "../../src/arbiter/web/static/map.js";

test("a square is two whole numbers", () => {
  assert.equal(isSquare([0, -3]), true);
  assert.equal(isSquare([1.5, 2]), false);
  assert.equal(isSquare([1, 2, 3]), false);
  assert.equal(isSquare("1,2"), false);
  assert.equal(isSquare(null), false);
  assert.equal(sameSquare([1, 2], [1, 2]), true);
  assert.equal(sameSquare([1, 2], [2, 1]), false);
  assert.equal(sameSquare(null, [2, 1]), false);
  assert.equal(squareKey([-4, 7]), "-4,7");
});

test("terrain: lists of squares and 'x,y' mappings, nothing else", () => {
  const state = { extra: {
    difficult: [[1, 2], [3, 4]],
    walls: { "0,0": "wall", "-1,5": "window" },
    zones: { a: { adjacent: ["b"] } },
    round_effects: [],
    note: "x",
    mixed: [[1, 2], "3,4"],
  } };
  assert.deepEqual(terrainOf(state), [
    { x: 1, y: 2, kind: "difficult" }, { x: 3, y: 4, kind: "difficult" },
    { x: 0, y: 0, kind: "wall" }, { x: -1, y: 5, kind: "window" },
  ]);
  assert.deepEqual(terrainOf(null), []);
  assert.deepEqual(terrainOf({}), []);
});

test("a footprint: the map's, else the creature's, else one square; laid at its position", () => {
  const ogre = { id: "ogre", position: [4, 1], footprint: [[0, 0], [1, 0], [0, 1], [1, 1]] };
  assert.deepEqual(cellsOf(ogre), [[4, 1], [5, 1], [4, 2], [5, 2]]);
  assert.deepEqual(cellsOf(ogre, { ogre: [[0, 0], [0, 1]] }), [[4, 1], [4, 2]]);
  assert.deepEqual(footprintOf({ id: "imp", footprint: "large" }), [[0, 0]]);
  assert.deepEqual(cellsOf({ id: "imp", position: [2, 3] }), [[2, 3]]);
  assert.deepEqual(cellsOf({ id: "imp", position: null }), []);
});

test("the board: at least 12 × 8, a margin of 2 around what is there, the origin kept when near", () => {
  assert.deepEqual([MIN_COLS, MIN_ROWS, MARGIN], [12, 8, 2]);
  assert.deepEqual(boardBounds([]), { minX: 0, minY: 0, cols: 12, rows: 8 });
  assert.deepEqual(boardBounds([[3, 4]]), { minX: 0, minY: 0, cols: 12, rows: 8 });
  assert.deepEqual(boardBounds([[4, 4]]), { minX: 0, minY: 0, cols: 12, rows: 8 });  // 2 from 0: from 0
  assert.deepEqual(boardBounds([[5, 5]]), { minX: 3, minY: 3, cols: 12, rows: 8 });  // 3 from 0: not
  assert.deepEqual(boardBounds([[-2, -1]]), { minX: -4, minY: -3, cols: 12, rows: 8 });
  assert.deepEqual(boardBounds([[-5, 2], [20, 3]]), { minX: -7, minY: 0, cols: 30, rows: 8 });
  assert.deepEqual(boardBounds([[30, 40], [31, 41]]), { minX: 28, minY: 38, cols: 12, rows: 8 });
  assert.deepEqual(boardBounds([[3, 2], [3, 12]]), { minX: 0, minY: 0, cols: 12, rows: 15 });
});

test("the board over a scene's image: the image, and a square past it where a creature lies", () => {
  const scene = { square: 50, offset_x: 25, offset_y: 0, width: 500, height: 300 };
  assert.deepEqual(boardBounds([], scene), { minX: -1, minY: 0, cols: 11, rows: 6 });
  assert.deepEqual(boardBounds([[1, 1]], scene), { minX: -1, minY: 0, cols: 11, rows: 6 });
  assert.deepEqual(boardBounds([[12, 1]], scene), { minX: -1, minY: 0, cols: 15, rows: 6 });
  assert.deepEqual(boardBounds([[0, -2]], scene), { minX: -1, minY: -3, cols: 11, rows: 9 });
});

test("reach: the selected creature's own squares, and what its enemies threaten", () => {
  const entities = {
    nia: { id: "nia", side: "pcs", position: [2, 2] },
    ogre: { id: "ogre", side: "foes", position: [5, 2], footprint: [[0, 0], [1, 0]] },
    bo: { id: "bo", side: "pcs", position: [0, 0] },
    gone: { id: "gone", side: "foes", position: null },
  };
  const board = { minX: 0, minY: 0, cols: 12, rows: 8 };
  const { own, threat } = reachSquares(entities, { nia: 1, ogre: 1, bo: 1, gone: 3 }, "nia", board);
  assert.deepEqual([...own.keys()], ["1,1", "1,2", "1,3", "2,1", "2,3", "3,1", "3,2", "3,3"]);
  assert.deepEqual([...threat.keys()], ["4,1", "4,2", "4,3", "5,1", "5,3", "6,1", "6,3", "7,1", "7,2", "7,3"]);
  assert.ok([...threat.values()].every((who) => who.length === 1 && who[0] === "ogre"));
  // the board's edge cuts reach; with nobody selected, everyone threatens
  const all = reachSquares(entities, { bo: 1, nia: 1 }, null, board).threat;
  assert.deepEqual(all.get("1,1"), ["bo", "nia"]);
  assert.deepEqual([...all.keys()].filter((k) => k.startsWith("-")), []);
  assert.equal(all.has("0,0"), false);  // bo's own square, out of nia's reach
  assert.deepEqual(all.get("1,0"), ["bo"]);
  assert.equal(all.size, 10);  // bo's 3 squares on the board and nia's 8, one shared
});

test("an area template hits the creatures with a chance above zero", () => {
  assert.equal(percent({ percent: 37.5 }), 37.5);
  assert.equal(percent(0.12345), 12.35);
  assert.equal(percent("high"), null);
  assert.deepEqual(areaHits({ a: { percent: 0 }, b: { percent: 12.5 }, c: 0.5, d: null, e: 0 }), ["b", "c"]);
});

// A catalogue as GET /api/rulesets sends it: each command's declared role, never its name.
const GRID = {
  walk: { who: "player", actor: "required", cost: "move", role: "move", args: { path: { kind: "squares" }, spaces: { kind: "integer" } } },
  step: { who: "player", actor: "required", cost: "move", args: { to: { kind: "square", required: true } } },
  put: { who: "gm", actor: "none", role: "place", args: { target: { kind: "creature", required: true }, at: { kind: "square" } } },
};
const ZONES = {
  go: { who: "player", actor: "required", role: "move", args: { zone: { kind: "text" }, group: { kind: "text" } } },
  set: { who: "gm", actor: "none", role: "place", args: { target: { kind: "creature", required: true }, zone: { kind: "text", required: true } } },
  shoot: { who: "player", actor: "required", role: "area", args: { target: { kind: "creature" }, weapon: { kind: "value" } } },
  blast: { who: "player", actor: "required", role: "area", args: { weapon: { kind: "text", required: true }, zone: { kind: "text", required: true } } },
};

test("the game master's map tools are the catalogue's declared roles, never a shape", () => {
  const tools = {
    mark: { who: "gm", actor: "none", role: "paint", args: { squares: { kind: "squares", required: true }, clear: { kind: "flag" } } },
    // the same shape with no role is not a tool
    scatter: { who: "gm", actor: "none", args: { squares: { kind: "squares", required: true } } },
    // a player's command is never the game master's tool
    dig: { who: "player", actor: "required", role: "zone", args: { id: { kind: "text" }, adjacent: { kind: "list" } } },
    area: { who: "gm", actor: "none", role: "zone", args: { id: { kind: "text", required: true }, adjacent: { kind: "list" } } },
  };
  assert.deepEqual(toolCommand(tools, "paint")?.[0], "mark");
  assert.deepEqual(toolCommand(tools, "zone")?.[0], "area");
  assert.equal(toolCommand(tools, "region"), null);
  assert.equal(toolCommand({ scatter: tools.scatter }, "paint"), null);
  assert.equal(toolCommand(null, "paint"), null);
});

test("the map's commands are the catalogue's declared roles", () => {
  const move = roleCommand(GRID, "move", "grid");
  assert.deepEqual({ ...move, spec: undefined }, { name: "walk", spec: undefined, arg: "path", kind: "squares", optional: true, who: "" });
  const place = roleCommand(GRID, "place", "grid");
  assert.deepEqual({ ...place, spec: undefined }, { name: "put", spec: undefined, arg: "at", kind: "square", optional: true, who: "target" });
  assert.equal(roleCommand(GRID, "move", "zones"), null);  // no zone to go to
  assert.equal(roleCommand({ step: GRID.step }, "move", "grid"), null);  // a shape is not a role
  assert.equal(roleCommand(null, "move", "grid"), null);
  const zoned = roleCommand(ZONES, "place", "zones");
  assert.deepEqual([zoned.name, zoned.arg, zoned.who, zoned.optional], ["set", "zone", "target", false]);
  assert.deepEqual([roleCommand(ZONES, "move", "zones").name, roleCommand(ZONES, "move", "zones").arg], ["go", "zone"]);
});

test("area weapons and the command that aims each: by the ruleset's declarations", () => {
  const display = { area_weapons: { aoe: "creature", zaoe: "zone" } };
  const grenadier = { id: "g", weapons: { rifle: { kind: "ranged" }, launcher: { aoe: "burst" }, mortar: { zaoe: { size: "lesser" } }, knife: null } };
  assert.deepEqual(areaWeapons(grenadier, display), [{ name: "launcher", zone: false }, { name: "mortar", zone: true }]);
  assert.deepEqual(areaWeapons(grenadier, {}), []);  // a ruleset that declares none
  assert.deepEqual(areaWeapons({ id: "x", weapons: ["a"] }, display), []);
  assert.deepEqual(areaCommand(ZONES, { name: "launcher", zone: false }, { target: "imp" }, "g"),
    { do: "shoot", actor: "g", weapon: "launcher", target: "imp" });
  assert.deepEqual(areaCommand(ZONES, { name: "mortar", zone: true }, { zone: "yard" }, "g"),
    { do: "blast", actor: "g", weapon: "mortar", zone: "yard" });
  assert.equal(areaCommand(ZONES, { name: "mortar", zone: true }, { target: "imp" }, "g"), null);
  assert.equal(areaCommand(GRID, { name: "launcher", zone: false }, { target: "imp" }, "g"), null);
});

test("which map: a grid when creatures carry a position, zones when they carry a zone", () => {
  assert.equal(mapKind({ entities: { a: { position: null } } }), "grid");
  assert.equal(mapKind({ entities: { a: { zone: "yard" } } }), "zones");
  assert.equal(mapKind({ entities: { a: { health: 3 } } }), null);
  assert.equal(mapKind(null), null);
  assert.deepEqual(stepsBetween([0, 0], [3, 1]), [[1, 0], [2, 1], [3, 1]]);
});
