// @ts-check
// What both pages hold, as pure functions (docs/web.md): which state and log record a
// message from the server brings (the WebSocket's `hello` and `update`, an answer's state),
// and the order a command's targets are offered in. No DOM: tests/js/state.test.mjs.

/**
 * @typedef {{encounter?: string, version: number}} Versioned
 *   a state as the server sends it (GET /api/encounters/{id}, the WebSocket): only what
 *   these functions read
 * @typedef {{seq: number, kind?: string, command?: {do?: string}|null}} LogRecord
 * @typedef {{type: string, state?: Versioned|null, record?: LogRecord|null}} Message
 * @typedef {{id: string, legal?: boolean, relation?: string, down?: boolean}} Target
 *   one target of a command in the legal options (GET /options): its relation to the actor
 *   ("enemy", "ally", "self", "other") and whether it is down
 */

/**
 * Whether a page holding `current` takes `next`: any state of another encounter, and of the
 * same one a version no older than the one held (an answer and the WebSocket may cross).
 * @param {Versioned|null|undefined} current
 * @param {Versioned|null|undefined} next
 * @returns {next is Versioned}
 */
export function takes(current, next) {
  if (!next) return false;
  return !current || next.encounter !== current.encounter || next.version >= current.version;
}

/**
 * What a message brings to a page holding `state` and `records`: the record to append
 * (`record`, null when it has none or the page holds its `seq` already), the state to take
 * (`state`, null when it has none or it is older), whether that state is a new version
 * (`changed`: the page draws again), and the record of a turn change (`turn`: the command
 * `next`, which the console's turn feed shows).
 * @template {Versioned} S
 * @template {LogRecord} R
 * @param {{state: S|null, records: R[]}} held
 * @param {{type: string, state?: S|null, record?: R|null}} message
 * @returns {{state: S|null, record: R|null, changed: boolean, turn: R|null}}
 */
export function receive(held, message) {
  const given = message.type === "update" ? message.record || null : null;
  const record = given && !held.records.some((r) => r.seq === given.seq) ? given : null;
  const next = message.type === "hello" || message.type === "update" ? message.state || null : null;
  const state = takes(held.state, next) ? next : null;
  const changed = Boolean(state && (!held.state || held.state.encounter !== state.encounter || held.state.version !== state.version));
  const turn = given && given.kind === "entry" && given.command && given.command.do === "next" ? given : null;
  return { state, record, changed, turn };
}

/**
 * The order a command's legal targets are offered in: the enemies first, those still
 * standing before the downed (otherwise in the server's order, nearest first), then the
 * allies, the actor itself and objects apart, in the server's order.
 * @template {Target} T
 * @param {T[]} legal
 * @returns {{foes: T[], rest: T[]}}
 */
export function rankTargets(legal) {
  const foes = legal.filter((t) => t.relation === "enemy");
  foes.sort((a, b) => Number(Boolean(a.down)) - Number(Boolean(b.down)));
  return { foes, rest: legal.filter((t) => t.relation !== "enemy") };
}

/**
 * The words after a target's name in a picker: " (enemy)", " (enemy, down)", " (ally)",
 * the actor's own (`self`: " (itself)" for the GM, " (yourself)" for a player), " (down)".
 * @param {Target} t
 * @param {string} [self]
 */
export function targetTag(t, self = "itself") {
  if (t.relation === "enemy") return t.down ? " (enemy, down)" : " (enemy)";
  if (t.relation === "ally") return " (ally)";
  if (t.relation === "self") return ` (${self})`;
  return t.down ? " (down)" : "";
}
