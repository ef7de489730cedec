// @ts-check
// The server's HTTP API and WebSocket, and nothing else (docs/server.md).
// Tokens travel in the Authorization header and the WebSocket's first message, never in a URL.

/** @type {(text: string) => string} */
let reword = (text) => text;
// How a page words the server's refusals before it shows them: the console and the player
// page name the creatures of the encounter they show (`idsToNames` in ui.js).
/** @param {(text: string) => string} fn */
export function rewordErrors(fn) { reword = fn; }

/** A refusal: the HTTP status (0: no answer), the server's message and the field it names. */
export class ApiError extends Error {
  /**
   * @param {number} status
   * @param {string} message
   * @param {string|null} [field]
   */
  constructor(status, message, field) {
    super(message);
    this.status = status;
    this.field = field || null;
  }
}

// Work in flight (requests, a probe waiting to run): the page carries `data-busy` while there
// is any, so a test (or a script) can wait for the console to settle instead of guessing.
let pending = 0;
/** @param {number} delta */
export function busy(delta) {
  pending = Math.max(0, pending + delta);
  document.documentElement.toggleAttribute("data-busy", pending > 0);
}

/**
 * @typedef {{type: string, state?: any, record?: any, error?: string}} Message
 *   a WebSocket message: `hello` (the state), `update` (a record and the state), `error`
 */

export class Api {
  /** @param {string|null} token */
  constructor(token) {
    this.token = token;
  }

  /**
   * @param {string} method
   * @param {string} path
   * @param {unknown} [body]
   * @returns {Promise<any>} the answer's JSON
   */
  async request(method, path, body) {
    return this.exchange(method, path, body === undefined ? undefined : JSON.stringify(body),
      body === undefined ? null : "application/json", "json");
  }

  // One request with the token: `payload` sent as `type`; the answer read as JSON or, with
  // `as` "blob", as bytes (an image). A refusal is an ApiError with the server's message.
  /**
   * @param {string} method
   * @param {string} path
   * @param {BodyInit|undefined} payload
   * @param {string|null} type
   * @param {"json"|"blob"} as
   * @returns {Promise<any>}
   */
  async exchange(method, path, payload, type, as) {
    /** @type {Record<string, string>} */
    const headers = {};
    if (this.token) headers.Authorization = `Bearer ${this.token}`;
    if (type) headers["Content-Type"] = type;
    busy(1);
    let response;
    try {
      try {
        response = await fetch(path, { method, headers, body: payload });
      } catch (err) {
        throw new ApiError(0, `the server does not answer (${err instanceof Error ? err.message : String(err)})`, null);
      }
      if (response.ok && as === "blob") return await response.blob();
      let data = null;
      try {
        data = await response.json();
      } catch {
        data = null;
      }
      if (!response.ok) {
        const message = data && data.error ? data.error : `${method} ${path}: HTTP ${response.status}`;
        throw new ApiError(response.status, reword(message), data ? data.field : null);
      }
      return data;
    } finally {
      busy(-1);
    }
  }

  // A file sent as it is (an image: its own type), and bytes read back.
  /** @param {string} path @param {File|Blob} file */
  upload(path, file) { return this.exchange("PUT", path, file, file.type || "application/octet-stream", "json"); }
  /** @param {string} path @returns {Promise<Blob>} */
  bytes(path) { return this.exchange("GET", path, undefined, null, "blob"); }
  /** @param {string} path */
  delete(path) { return this.exchange("DELETE", path, undefined, null, "json"); }

  /** @param {string} path */
  get(path) { return this.request("GET", path); }
  /** @param {string} path @param {unknown} [body] */
  post(path, body) { return this.request("POST", path, body === undefined ? {} : body); }
  /** @param {string} path @param {unknown} body */
  put(path, body) { return this.request("PUT", path, body); }

  // Every log record of an encounter, page by page (500 at most per page).
  /**
   * @param {string} encounter
   * @returns {Promise<any[]>}
   */
  async log(encounter) {
    /** @type {any[]} */
    const out = [];
    let after = 0;
    for (;;) {
      const page = await this.get(`/api/encounters/${encounter}/log?after=${after}&limit=500`);
      out.push(...page.records);
      if (page.records.length < 500) return out;
      after = page.records[page.records.length - 1].seq;
    }
  }

  // A live subscription: onMessage gets {type: "hello"|"update", ...}; reconnects after a drop.
  /**
   * @param {string} encounter
   * @param {(message: Message) => void} onMessage
   * @param {(status: string) => void} onStatus
   * @returns {{close(): void}}
   */
  subscribe(encounter, onMessage, onStatus) {
    /** @type {WebSocket|null} */
    let socket = null;
    let closed = false;
    let delay = 500;
    /** @type {ReturnType<typeof setInterval>|undefined} */
    let ping;
    const open = () => {
      const scheme = location.protocol === "https:" ? "wss" : "ws";
      const ws = new WebSocket(`${scheme}://${location.host}/api/encounters/${encounter}/ws`);
      socket = ws;
      ws.onopen = () => {
        ws.send(JSON.stringify({ token: this.token }));
        delay = 500;
        ping = setInterval(() => ws.readyState === 1 && ws.send('{"type": "ping"}'), 20000);
      };
      ws.onmessage = (event) => {
        const message = JSON.parse(event.data);
        if (message.type === "hello") onStatus("live");
        if (message.type === "error") onStatus(`error: ${message.error}`);
        onMessage(message);
      };
      ws.onclose = () => {
        clearInterval(ping);
        if (closed) return;
        onStatus("reconnecting…");
        setTimeout(open, delay);
        delay = Math.min(delay * 2, 8000);
      };
    };
    open();
    return { close() { closed = true; if (socket) socket.close(); } };
  }
}

// "#campaign=c-1&token=abc" as {campaign: "c-1", token: "abc"}.
/** @returns {Record<string, string>} */
export function fragment() {
  /** @type {Record<string, string>} */
  const out = {};
  for (const part of location.hash.replace(/^#/, "").split("&")) {
    if (!part) continue;
    const [key, ...rest] = part.split("=");
    out[decodeURIComponent(key)] = decodeURIComponent(rest.join("="));
  }
  return out;
}
