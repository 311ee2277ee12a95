/*
 * <commerce-ai-chat> — the Shopsight shopping assistant as a drop-in web component. Plain custom
 * element, no framework, no build step; served by the Assistant API at {chat_base_url}/widget/index.js.
 *
 *   <script type="module" src="https://chat.example/widget/index.js"></script>
 *   <commerce-ai-chat store-public-key="store_pub_…" api-base-url="https://chat.example" locale="de-DE"></commerce-ai-chat>
 *
 * Attributes
 *   store-public-key  (required) the store's public key, store_pub_… (not a secret)
 *   api-base-url      the Assistant API address; default: the origin this script was loaded from
 *   locale            BCP 47 tag sent with the session and thread; picks the UI language
 *                     (en, de; others fall back to en)
 *
 * What it does: mints an anonymous session (POST /v1/sessions/anonymous), opens a thread
 * (POST /v1/chat/sessions) on the first message, sends messages through
 * POST /v1/chat/messages/stream (fetch + a streaming SSE parser, since EventSource cannot POST),
 * and renders each outcome as the spec's outcome table says. When the stream drops before
 * `message.completed`, it replays the missed events with GET /v1/chat/sessions/{thread_id}/events
 * and `Last-Event-ID`. The session token, thread id and last event id are kept in sessionStorage
 * (this tab only; gone when the tab closes), so a reload keeps the thread and reloads its
 * transcript (GET /v1/chat/sessions/{thread_id}). It holds no secret: the public key is public,
 * the session token is a short-lived anonymous bearer for this tab, and no cookies are used.
 *
 * Theming (CSS custom properties, set them on the element or any ancestor):
 *   --cac-font-family      font stack                        (inherit)
 *   --cac-font-size        base font size                    (15px)
 *   --cac-text             text colour                       (#1f2328)
 *   --cac-muted            secondary text colour             (#59636e)
 *   --cac-background       panel background                  (#ffffff)
 *   --cac-border           borders                           (#d0d7de)
 *   --cac-radius           corner radius                     (10px)
 *   --cac-accent           buttons, links, focus ring        (#0b57d0)
 *   --cac-accent-text      text on accent buttons            (#ffffff)
 *   --cac-user-background  the shopper's bubbles             (#e8f0fe)
 *   --cac-bot-background   the assistant's bubbles           (#f6f8fa)
 *   --cac-notice-background  retry / error notices           (#fff8e1)
 *   --cac-height           height of the panel               (560px)
 * Parts for deeper styling: ::part(panel), ::part(log), ::part(form), ::part(input), ::part(send).
 *
 * DOM events (bubbling, composed): "commerce-ai-chat:action" with detail
 * {intent_id, name, arguments, result} after a confirmed action (e.g. add_to_cart) ran, so the
 * page can refresh its cart.
 *
 * Stream events used: `answer.delta` ({text}, shown as a draft outside the live region),
 * `message.completed` ({outcome, …answer}, rendered and announced), `turn.failed` (retry notice);
 * every event's id is remembered as the Last-Event-ID for a replay.
 */
import { escapeHtml, renderMarkdown } from "./markdown.js";
import { createSseParser } from "./sse.js";
import { stringsFor } from "./strings.js";

const TAG = "commerce-ai-chat";
const STORAGE_PREFIX = "commerce-ai-chat:v1:";
const REPLAY_DELAYS_MS = [250, 750, 1500, 3000];
const MAX_TEXT = 2000;
const LOCALE = /^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*$/;
const SCRIPT_ORIGIN = (() => {
  try {
    return new URL(import.meta.url).origin;
  } catch {
    return "";
  }
})();

const STYLE = `
:host { display: block; font-family: var(--cac-font-family, inherit); font-size: var(--cac-font-size, 15px); color: var(--cac-text, #1f2328); }
:host([hidden]) { display: none; }
* { box-sizing: border-box; }
.panel { display: flex; flex-direction: column; height: var(--cac-height, 560px); background: var(--cac-background, #fff); border: 1px solid var(--cac-border, #d0d7de); border-radius: var(--cac-radius, 10px); overflow: hidden; }
header { padding: .6em .9em; border-bottom: 1px solid var(--cac-border, #d0d7de); }
h2 { margin: 0; font-size: 1.05em; }
.log { flex: 1; overflow-y: auto; padding: .8em; display: flex; flex-direction: column; gap: .6em; }
.log:focus-visible, button:focus-visible, input:focus-visible, a:focus-visible, .preview:focus-visible { outline: 3px solid var(--cac-accent, #0b57d0); outline-offset: 2px; }
.msg { max-width: 92%; padding: .55em .8em; border-radius: var(--cac-radius, 10px); line-height: 1.45; overflow-wrap: anywhere; }
.msg.user { align-self: flex-end; background: var(--cac-user-background, #e8f0fe); white-space: pre-wrap; }
.msg.assistant { align-self: flex-start; background: var(--cac-bot-background, #f6f8fa); }
.msg.notice { align-self: stretch; max-width: none; background: var(--cac-notice-background, #fff8e1); border: 1px solid var(--cac-border, #d0d7de); }
.who { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
.msg p { margin: 0 0 .5em; } .msg p:last-child { margin-bottom: 0; }
.msg ul, .msg ol { margin: .3em 0 .5em; padding-left: 1.3em; }
.msg h3, .msg h4, .msg h5, .msg h6 { margin: .3em 0; font-size: 1em; }
.msg pre { overflow-x: auto; background: rgba(0,0,0,.05); padding: .5em; }
.msg blockquote { margin: .3em 0; padding-left: .7em; border-left: 3px solid var(--cac-border, #d0d7de); color: var(--cac-muted, #59636e); }
a { color: var(--cac-accent, #0b57d0); }
.sources { margin-top: .6em; font-size: .9em; color: var(--cac-muted, #59636e); }
.sources h3, .preview h3, .contact h3 { margin: 0 0 .2em; font-size: .95em; color: var(--cac-text, #1f2328); }
.sources ol { margin: 0; padding-left: 1.3em; }
.msg.assistant.has-cards { width: 92%; }
.cards { list-style: none; margin: .6em 0 0; padding: 0; display: grid; grid-template-columns: repeat(auto-fill, minmax(150px, 1fr)); gap: .5em; }
.card { border: 1px solid var(--cac-border, #d0d7de); border-radius: var(--cac-radius, 10px); padding: .5em; background: var(--cac-background, #fff); }
.card img { display: block; width: 100%; aspect-ratio: 1; object-fit: cover; border-radius: calc(var(--cac-radius, 10px) / 2); margin-bottom: .4em; }
.card .title { font-weight: 600; display: block; }
.card .price { margin: .2em 0 0; font-weight: 600; }
.card .price.unavailable { font-weight: normal; color: var(--cac-muted, #59636e); font-style: italic; }
.card .stock { margin: .1em 0 0; font-size: .9em; color: var(--cac-muted, #59636e); }
.preview { margin-top: .6em; border: 2px solid var(--cac-accent, #0b57d0); border-radius: var(--cac-radius, 10px); padding: .6em; background: var(--cac-background, #fff); }
.preview dl { display: grid; grid-template-columns: auto 1fr; gap: .2em .8em; margin: .3em 0 .6em; }
.preview dt { color: var(--cac-muted, #59636e); } .preview dd { margin: 0; }
.buttons { display: flex; gap: .5em; flex-wrap: wrap; }
.contact { margin-top: .6em; border-top: 1px solid var(--cac-border, #d0d7de); padding-top: .5em; }
.contact ul { margin: 0; padding-left: 1.1em; }
button { font: inherit; cursor: pointer; border-radius: calc(var(--cac-radius, 10px) / 1.5); padding: .45em .9em; border: 1px solid var(--cac-accent, #0b57d0); background: var(--cac-background, #fff); color: var(--cac-accent, #0b57d0); }
button.primary { background: var(--cac-accent, #0b57d0); color: var(--cac-accent-text, #fff); }
button[disabled], button[aria-disabled="true"] { opacity: .55; cursor: not-allowed; }
.draft { margin: 0 .8em .4em; color: var(--cac-muted, #59636e); white-space: pre-wrap; }
.status { min-height: 1.4em; padding: 0 .9em; font-size: .9em; color: var(--cac-muted, #59636e); }
form { display: flex; gap: .5em; padding: .6em; border-top: 1px solid var(--cac-border, #d0d7de); }
input { flex: 1; font: inherit; padding: .5em .7em; border: 1px solid var(--cac-border, #d0d7de); border-radius: calc(var(--cac-radius, 10px) / 1.5); color: inherit; background: var(--cac-background, #fff); }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
@media (prefers-reduced-motion: no-preference) {
  .log { scroll-behavior: smooth; }
  .status.busy::after { content: ""; display: inline-block; width: .5em; height: .5em; margin-left: .4em; border-radius: 50%; background: currentColor; animation: cac-pulse 1s ease-in-out infinite; }
  @keyframes cac-pulse { 0%, 100% { opacity: .2; } 50% { opacity: 1; } }
}
@media (prefers-reduced-motion: reduce) {
  *, *::before, *::after { animation: none !important; transition: none !important; scroll-behavior: auto !important; }
}
`;

/** An HTTP failure with the problem details the API sent. */
class ApiError extends Error {
  constructor(status, problem, retryAfter) {
    super((problem && (problem.detail || problem.title)) || `HTTP ${status}`);
    this.status = status;
    this.code = (problem && problem.code) || "";
    this.problem = problem || {};
    this.retryAfter = retryAfter;
  }
}

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (name === "text") node.textContent = String(value);
    else if (name === "html")
      node.innerHTML = value; // only ever output of renderMarkdown/escapeHtml
    else node.setAttribute(name, value === true ? "" : String(value));
  }
  for (const child of children) if (child) node.append(child);
  return node;
}

const isHttpUrl = (value) => typeof value === "string" && /^https?:\/\//i.test(value);

function retryAfterSeconds(response, problem) {
  const header = response.headers.get("retry-after");
  if (header && /^\d+$/.test(header.trim())) return Number(header.trim());
  if (header) {
    const when = Date.parse(header);
    if (!Number.isNaN(when)) return Math.max(1, Math.ceil((when - Date.now()) / 1000));
  }
  const fromBody = problem && problem.details && (problem.details.retry_after ?? problem.details.retry_after_seconds);
  return Number.isFinite(fromBody) ? Number(fromBody) : null;
}

async function readProblem(response) {
  try {
    return await response.json();
  } catch {
    return null;
  }
}

/** The message response (or its answer object) normalised to {outcome, answer, raw}. */
export function normaliseTurn(payload) {
  const raw = payload && typeof payload === "object" ? payload : {};
  const answer = raw.answer && typeof raw.answer === "object" ? raw.answer : raw;
  let outcome = raw.outcome || answer.outcome;
  if (!outcome) {
    if (answer.handoff) outcome = "handoff";
    else if (answer.clarification_question) outcome = "clarification";
    else if (findConfirmation(raw, answer)) outcome = "confirmation_required";
    else outcome = "answer";
  }
  return { outcome, answer, raw };
}

/** The pending confirmation (intent) of a confirmation_required turn, wherever the API put it. */
function findConfirmation(raw, answer) {
  const candidates = [raw.confirmation, answer.confirmation, raw.intent, answer.intent, raw.pending_action, answer.pending_action];
  for (const list of [answer.next_actions, raw.next_actions]) {
    if (Array.isArray(list)) candidates.push(...list);
  }
  for (const c of candidates) {
    if (c && typeof c === "object" && typeof c.intent_id === "string") return c;
  }
  return null;
}

function supportContactOf(raw, answer) {
  const handoff = answer.handoff && typeof answer.handoff === "object" ? answer.handoff : {};
  for (const c of [handoff.support_contact, handoff.contact, raw.support_contact, answer.support_contact, handoff]) {
    if (c && typeof c === "object" && (c.email || c.url || c.phone)) return c;
  }
  return null;
}

export class CommerceAiChat extends HTMLElement {
  static get observedAttributes() {
    return ["locale"];
  }

  constructor() {
    super();
    this._root = this.attachShadow({ mode: "open" });
    this._busy = false;
    this._state = null;
    this._built = false;
  }

  // --- attributes ------------------------------------------------------------------------------
  get publicKey() {
    return (this.getAttribute("store-public-key") || "").trim();
  }
  get apiBase() {
    return (this.getAttribute("api-base-url") || SCRIPT_ORIGIN).replace(/\/+$/, "");
  }
  get locale() {
    const value = (this.getAttribute("locale") || "").trim();
    return LOCALE.test(value) ? value : "en";
  }
  get t() {
    return stringsFor(this.locale);
  }

  connectedCallback() {
    if (!this._built) {
      this._build();
      this._built = true;
      this._restore();
    }
  }

  attributeChangedCallback(name, oldValue, newValue) {
    if (name === "locale" && this._built && oldValue !== newValue) this._applyStrings();
  }

  // --- DOM -------------------------------------------------------------------------------------
  _build() {
    const style = el("style", { text: STYLE });
    this._title = el("h2", { id: "cac-title" });
    this._log = el("div", {
      class: "log",
      part: "log",
      role: "log",
      "aria-live": "polite",
      "aria-relevant": "additions",
      "aria-labelledby": "cac-title",
      tabindex: "0",
    });
    this._welcome = el("div", { class: "msg assistant welcome" });
    this._log.append(this._welcome);
    this._draft = el("div", { class: "draft", "aria-hidden": "true", hidden: true });
    this._status = el("div", { class: "status", role: "status", "aria-live": "polite" });
    this._label = el("label", { for: "cac-input", class: "visually-hidden" });
    this._input = el("input", {
      id: "cac-input",
      part: "input",
      type: "text",
      autocomplete: "off",
      maxlength: String(MAX_TEXT),
      enterkeyhint: "send",
    });
    this._send = el("button", { type: "submit", class: "primary", part: "send" });
    this._form = el("form", { part: "form" }, this._label, this._input, this._send);
    this._form.addEventListener("submit", (event) => {
      event.preventDefault();
      const text = this._input.value.trim();
      if (!text || this._busy) return;
      this._input.value = "";
      this._input.focus();
      void this.send(text);
    });
    this._panel = el(
      "section",
      { class: "panel", part: "panel", "aria-labelledby": "cac-title" },
      el("header", {}, this._title),
      this._log,
      this._draft,
      this._status,
      this._form,
    );
    this._root.append(style, this._panel);
    this._applyStrings();
  }

  _applyStrings() {
    const t = this.t;
    this._panel.setAttribute("lang", this.locale);
    this._title.textContent = t.title;
    this._welcome.textContent = t.welcome;
    this._label.textContent = t.inputLabel;
    this._input.placeholder = t.placeholder;
    this._send.textContent = t.send;
  }

  _setBusy(busy) {
    this._busy = busy;
    this._send.setAttribute("aria-disabled", busy ? "true" : "false");
    this._status.classList.toggle("busy", busy);
    this._status.textContent = busy ? this.t.typing : "";
    if (!busy) this._hideDraft();
  }

  _append(node) {
    this._log.append(node);
    this._log.scrollTop = this._log.scrollHeight;
    return node;
  }

  _bubble(kind, label) {
    return el("div", { class: `msg ${kind}` }, el("span", { class: "who", text: `${label}: ` }));
  }

  _userMessage(text) {
    const node = this._bubble("user", this.t.you);
    node.append(document.createTextNode(text));
    return this._append(node);
  }

  _notice(text, retryText) {
    const node = el("div", { class: "msg notice", "data-kind": "notice" }, el("p", { text }));
    if (retryText) {
      const retry = el("button", { type: "button", text: this.t.retry });
      retry.addEventListener("click", () => {
        if (this._busy) return;
        retry.disabled = true;
        this._input.focus();
        void this.send(retryText, { echo: false });
      });
      node.append(el("div", { class: "buttons" }, retry));
    }
    return this._append(node);
  }

  _showDraft(text) {
    this._draft.hidden = false;
    this._draft.textContent = text;
  }
  _hideDraft() {
    this._draft.hidden = true;
    this._draft.textContent = "";
  }

  // --- storage ---------------------------------------------------------------------------------
  get _storageKey() {
    return `${STORAGE_PREFIX}${this.apiBase}|${this.publicKey}`;
  }
  _load() {
    try {
      const value = JSON.parse(window.sessionStorage.getItem(this._storageKey) || "null");
      return value && typeof value === "object" ? value : {};
    } catch {
      return {};
    }
  }
  _save() {
    try {
      window.sessionStorage.setItem(this._storageKey, JSON.stringify(this._state));
    } catch {
      /* storage blocked: the thread lives as long as the page */
    }
  }

  // --- HTTP ------------------------------------------------------------------------------------
  async _fetch(method, path, { body, headers, auth = true, signal } = {}) {
    const all = { accept: "application/json", ...(headers || {}) };
    if (body !== undefined) all["content-type"] = "application/json";
    if (auth) all.authorization = `Bearer ${this._state.token}`;
    return fetch(`${this.apiBase}${path}`, {
      method,
      headers: all,
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: "omit",
      cache: "no-store",
      signal,
    });
  }

  async _json(method, path, options) {
    const response = await this._fetch(method, path, options);
    if (response.status === 204) return null;
    if (!response.ok) {
      const problem = await readProblem(response);
      throw new ApiError(response.status, problem, retryAfterSeconds(response, problem));
    }
    return response.json();
  }

  _sessionValid() {
    return Boolean(this._state.token) && Number(this._state.expiresAt || 0) - 30_000 > Date.now();
  }

  async _ensureSession() {
    if (this._sessionValid()) return;
    const minted = await this._json("POST", "/v1/sessions/anonymous", {
      auth: false,
      body: { store_public_key: this.publicKey, locale: this.locale },
    });
    this._state = { token: minted.session_token, expiresAt: Date.now() + Number(minted.expires_in || 0) * 1000 };
    this._save();
  }

  async _ensureThread() {
    if (this._state.threadId) return;
    const created = await this._json("POST", "/v1/chat/sessions", { body: { locale: this.locale } });
    this._state.threadId = created.thread_id;
    this._state.lastEventId = "";
    this._save();
  }

  _forgetSession() {
    this._state = {};
    this._save();
  }

  // --- restore after reload --------------------------------------------------------------------
  async _restore() {
    this._state = this._load();
    if (!this._state.threadId || !this._sessionValid()) {
      if (this._state.token && !this._sessionValid()) this._forgetSession();
      return;
    }
    try {
      const transcript = await this._json("GET", `/v1/chat/sessions/${encodeURIComponent(this._state.threadId)}`);
      const messages = Array.isArray(transcript && transcript.messages) ? transcript.messages : [];
      let userText = "";
      messages.forEach((message, i) => {
        if (message && message.role === "user") userText = String(message.text ?? "");
        this._renderTranscriptMessage(message, { text: userText, last: i === messages.length - 1 });
      });
      const last = messages[messages.length - 1];
      if (this._state.pending && (!last || last.role === "user")) {
        // The page was reloaded while a reply was streaming: fetch the rest of the turn.
        this._setBusy(true);
        try {
          const done = await this._replay();
          if (!done) this._notice(this.t.connectionLost, this._state.pending.text);
        } finally {
          this._setBusy(false);
        }
      }
      this._state.pending = null;
      this._save();
    } catch (error) {
      if (error instanceof ApiError && (error.status === 401 || error.status === 404)) this._forgetSession();
    }
  }

  _renderTranscriptMessage(message, { text, last }) {
    if (!message || typeof message !== "object") return;
    if (message.role === "user") {
      this._userMessage(String(message.text ?? ""));
      return;
    }
    if (message.outcome || message.answer) {
      const turn = normaliseTurn(message.answer ? message : { ...message, answer: message });
      // A preview still waiting at the end of the thread keeps its buttons (the server decides
      // whether it is still valid); earlier ones are history.
      this._renderTurn(turn, { text, historic: !(last && turn.outcome === "confirmation_required"), focus: false });
      return;
    }
    const node = this._bubble("assistant", this.t.assistant);
    node.append(el("div", { class: "md", html: renderMarkdown(String(message.text ?? "")) }));
    this._append(node);
  }

  // --- sending ---------------------------------------------------------------------------------
  /** Sends a message as the shopper (also usable from the page: element.send("…")). */
  async send(text, { echo = true } = {}) {
    const clean = String(text || "")
      .trim()
      .slice(0, MAX_TEXT);
    if (!clean || this._busy) return;
    if (!this._state) this._state = this._load();
    if (echo) this._userMessage(clean);
    this._setBusy(true);
    try {
      await this._turn(clean, true);
    } catch (error) {
      this._showError(error, clean);
    } finally {
      this._setBusy(false);
      if (this._state) {
        this._state.pending = null;
        this._save();
      }
    }
  }

  _showError(error, text) {
    if (error instanceof ApiError && error.status === 429) {
      this._notice(error.retryAfter ? this.t.rateLimited(error.retryAfter) : this.t.rateLimitedNoTime, text);
    } else if (error instanceof ApiError && (error.status === 401 || error.status === 403) && !this._state.token) {
      this._notice(this.t.unavailable);
    } else {
      this._notice(this.t.error, text);
    }
  }

  async _turn(text, mayRenewSession) {
    await this._ensureSession();
    await this._ensureThread();
    this._state.pending = { text };
    this._save();
    let response;
    try {
      response = await this._fetch("POST", "/v1/chat/messages/stream", {
        body: { thread_id: this._state.threadId, text },
        headers: { accept: "text/event-stream" },
      });
    } catch {
      // The request itself failed (network): the server may or may not have the turn.
      if (await this._replay()) return;
      this._notice(this.t.connectionLost, text);
      return;
    }
    if (response.status === 401 && mayRenewSession) {
      // Expired or revoked session: a new one (and with it a new thread), then once more.
      this._forgetSession();
      return this._turn(text, false);
    }
    if (!response.ok) {
      const problem = await readProblem(response);
      throw new ApiError(response.status, problem, retryAfterSeconds(response, problem));
    }
    const type = response.headers.get("content-type") || "";
    if (!type.includes("text/event-stream")) {
      // A plain JSON message response (a proxy that does not stream, or an older server).
      this._renderTurn(normaliseTurn(await response.json()), { text });
      return;
    }
    if (await this._consume(response.body, text)) return;
    if (await this._replay(text)) return;
    this._notice(this.t.connectionLost, text);
  }

  /** Reads an SSE body until message.completed (true) or until it ends or breaks (false). */
  async _consume(body, text) {
    if (!body) return false;
    const reader = body.getReader();
    const decoder = new TextDecoder();
    let completed = false;
    let draft = "";
    const parser = createSseParser((event) => {
      if (completed) return;
      if (event.id) this._state.lastEventId = event.id;
      let data = null;
      try {
        data = JSON.parse(event.data);
      } catch {
        data = null;
      }
      if (event.event === "message.completed") {
        completed = true;
        this._save();
        this._renderTurn(normaliseTurn(data), { text });
        return;
      }
      if (event.event === "turn.failed" || event.event === "error") {
        completed = true;
        this._save();
        const problem = data && data.problem ? data.problem : data;
        if (problem && (problem.status === 429 || problem.code === "RATE_LIMITED")) {
          const seconds = problem.details && problem.details.retry_after;
          this._notice(seconds ? this.t.rateLimited(seconds) : this.t.rateLimitedNoTime, text);
        } else this._notice(this.t.temporaryFailure, text);
        return;
      }
      if (event.event === "answer.delta" && data && typeof data.text === "string") {
        // Shown as it arrives (hidden from screen readers); the log gets the finished message.
        draft += data.text;
        this._showDraft(draft);
      }
    });
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        parser.push(decoder.decode(value, { stream: true }));
        if (completed) break;
      }
      parser.push(decoder.decode());
    } catch {
      /* the stream broke: the caller replays */
    } finally {
      this._save();
      if (completed) reader.cancel().catch(() => {});
    }
    return completed;
  }

  /** Replays the events after Last-Event-ID until message.completed arrives (true) or gives up. */
  async _replay(text) {
    if (!this._state.threadId) return false;
    for (const delay of REPLAY_DELAYS_MS) {
      this._status.textContent = this.t.reconnecting;
      await new Promise((resolve) => setTimeout(resolve, delay));
      let response;
      try {
        const headers = { accept: "text/event-stream, application/json" };
        if (this._state.lastEventId) headers["last-event-id"] = this._state.lastEventId;
        response = await this._fetch("GET", `/v1/chat/sessions/${encodeURIComponent(this._state.threadId)}/events`, { headers });
      } catch {
        continue;
      }
      if (response.status === 429) continue;
      if (!response.ok) return false;
      const type = response.headers.get("content-type") || "";
      if (type.includes("text/event-stream")) {
        if (await this._consume(response.body, text)) return true;
        continue;
      }
      const body = await response.json().catch(() => null);
      const events = Array.isArray(body) ? body : body && Array.isArray(body.events) ? body.events : [];
      for (const event of events) {
        const name = event.event || event.name || event.type;
        if (event.id !== undefined && event.id !== null) this._state.lastEventId = String(event.id);
        if (name === "message.completed") {
          this._save();
          const data = typeof event.data === "string" ? JSON.parse(event.data) : (event.data ?? event.payload);
          this._renderTurn(normaliseTurn(data), { text });
          return true;
        }
      }
      this._save();
    }
    return false;
  }

  // --- outcomes --------------------------------------------------------------------------------
  _renderTurn(turn, { text, historic = false, focus = true } = {}) {
    const { outcome, answer, raw } = turn;
    const t = this.t;
    const node = this._bubble(outcome === "temporary_failure" ? "notice" : "assistant", t.assistant);
    node.dataset.outcome = outcome;
    const markdown = typeof answer.response_markdown === "string" ? answer.response_markdown : typeof raw.text === "string" ? raw.text : "";
    switch (outcome) {
      case "clarification": {
        const question = answer.clarification_question || markdown;
        node.append(el("div", { class: "md", html: renderMarkdown(question) }));
        break;
      }
      case "confirmation_required": {
        if (markdown) node.append(el("div", { class: "md", html: renderMarkdown(markdown) }));
        this._appendProducts(node, answer.products);
        const intent = findConfirmation(raw, answer);
        if (intent && !historic) node.append(this._preview(intent, answer, text));
        break;
      }
      case "handoff": {
        if (markdown) node.append(el("div", { class: "md", html: renderMarkdown(markdown) }));
        this._appendCitations(node, answer.citations);
        node.append(this._contact(supportContactOf(raw, answer)));
        break;
      }
      case "denied": {
        node.append(el("div", { class: "md", html: renderMarkdown(markdown) }));
        break;
      }
      case "temporary_failure": {
        node.append(el("p", { text: t.temporaryFailure }));
        if (text && !historic) {
          const retry = el("button", { type: "button", text: t.retry });
          retry.addEventListener("click", () => {
            if (this._busy) return;
            retry.disabled = true;
            this._input.focus();
            void this.send(text, { echo: false });
          });
          node.append(el("div", { class: "buttons" }, retry));
        }
        break;
      }
      default: {
        node.append(el("div", { class: "md", html: renderMarkdown(markdown) }));
        this._appendCitations(node, answer.citations);
        this._appendProducts(node, answer.products);
      }
    }
    this._append(node);
    const preview = node.querySelector(".preview");
    if (preview && focus) preview.focus();
    return node;
  }

  _appendCitations(node, citations) {
    if (!Array.isArray(citations) || citations.length === 0) return;
    const list = el("ol");
    const seen = new Set();
    for (const c of citations) {
      if (!c || typeof c !== "object") continue;
      const key = `${c.concept_id}@${c.concept_version}`;
      if (seen.has(key)) continue;
      seen.add(key);
      list.append(
        el("li", {
          text: c.title || c.handle || c.concept_id,
          "data-concept-id": c.concept_id,
          "data-handle": c.handle,
          "data-version": c.concept_version,
        }),
      );
    }
    const id = `cac-src-${Math.random().toString(36).slice(2, 9)}`;
    node.append(el("div", { class: "sources", role: "group", "aria-labelledby": id }, el("h3", { id, text: this.t.sources }), list));
  }

  _formatPrice(price) {
    try {
      const currency = String(price.currency).toUpperCase();
      const digits = new Intl.NumberFormat("en", { style: "currency", currency }).resolvedOptions().maximumFractionDigits;
      return new Intl.NumberFormat(this.locale, { style: "currency", currency }).format(Number(price.amount_minor) / 10 ** digits);
    } catch {
      return null;
    }
  }

  _appendProducts(node, products) {
    if (!Array.isArray(products) || products.length === 0) return;
    const t = this.t;
    const list = el("ul", { class: "cards", "aria-label": t.products });
    for (const p of products) {
      if (!p || typeof p !== "object") continue;
      const item = el("li", { class: "card", "data-product-id": p.product_id });
      if (isHttpUrl(p.image_url)) item.append(el("img", { src: p.image_url, alt: "", loading: "lazy", referrerpolicy: "no-referrer" }));
      const title = String(p.title || p.product_id || "");
      item.append(
        isHttpUrl(p.url)
          ? el("a", { class: "title", href: p.url, target: "_blank", rel: "noopener noreferrer", text: title })
          : el("span", { class: "title", text: title }),
      );
      // The number is shown only when it was read live during this turn (spec: price_state).
      const formatted = p.price_state === "live" && p.price && typeof p.price === "object" ? this._formatPrice(p.price) : null;
      item.append(
        formatted
          ? el("p", { class: "price", "data-price-state": "live", text: formatted })
          : el("p", { class: "price unavailable", "data-price-state": String(p.price_state || "unavailable"), text: t.priceUnavailable }),
      );
      const state = p.availability_state === "live" && p.availability && p.availability.state;
      if (state) item.append(el("p", { class: "stock", text: t.stock[state] || t.stock.unknown }));
      list.append(item);
    }
    node.classList.add("has-cards");
    node.append(list);
  }

  _contact(contact) {
    const t = this.t;
    const id = `cac-contact-${Math.random().toString(36).slice(2, 9)}`;
    const box = el("div", { class: "contact", role: "group", "aria-labelledby": id });
    if (!contact) {
      box.append(el("p", { id, text: t.handoffNoContact }));
      return box;
    }
    const list = el("ul");
    if (typeof contact.email === "string" && contact.email) {
      list.append(el("li", {}, document.createTextNode(`${t.email}: `), el("a", { href: `mailto:${contact.email}`, text: contact.email })));
    }
    if (typeof contact.phone === "string" && contact.phone) {
      // One number of digits is a tel: link; a vanity number or two numbers ("… / 1-888-30-ROOTS") is shown as written.
      const dialable = /^[\d+() .-]+$/.test(contact.phone);
      const shown = dialable
        ? el("a", { href: `tel:${contact.phone.replace(/[^\d+]/g, "")}`, text: contact.phone })
        : document.createTextNode(contact.phone);
      list.append(el("li", {}, document.createTextNode(`${t.phone}: `), shown));
    }
    if (isHttpUrl(contact.url)) {
      list.append(el("li", {}, el("a", { href: contact.url, target: "_blank", rel: "noopener noreferrer", text: t.supportPage })));
    }
    if (typeof contact.hours === "string" && contact.hours) list.append(el("li", { text: `${t.hours}: ${contact.hours}` }));
    box.append(el("h3", { id, text: t.handoffContact }), list);
    return box;
  }

  /** The confirmation preview: the exact arguments the action will run with, Confirm and Cancel. */
  _preview(intent, answer, text) {
    const t = this.t;
    const id = `cac-preview-${intent.intent_id}`;
    const name = intent.action || intent.name || intent.kind || "";
    const box = el("div", { class: "preview", role: "group", tabindex: "-1", "aria-labelledby": id, "data-intent-id": intent.intent_id });
    box.append(el("h3", { id, text: `${t.confirmTitle}: ${t.actions[name] || name}` }));
    const args = intent.arguments || intent.preview || intent.args || {};
    const dl = el("dl");
    const products = Array.isArray(answer.products) ? answer.products : [];
    for (const [key, value] of Object.entries(args)) {
      if (value === null || typeof value === "object") continue;
      let shown = String(value);
      if (key === "product_id") {
        const card = products.find((p) => p && p.product_id === value);
        if (card && card.title) shown = `${card.title} (${value})`;
      }
      dl.append(el("dt", { text: t.args[key] || key }), el("dd", { text: shown }));
    }
    if (dl.childElementCount > 0) box.append(dl);
    const confirm = el("button", { type: "button", class: "primary", text: t.confirm });
    const cancel = el("button", { type: "button", text: t.cancel });
    const settle = () => {
      confirm.disabled = true;
      cancel.disabled = true;
    };
    confirm.addEventListener("click", () => void this._decide("confirm", intent, box, settle, text));
    cancel.addEventListener("click", () => void this._decide("cancel", intent, box, settle, text));
    box.append(el("div", { class: "buttons" }, confirm, cancel));
    return box;
  }

  async _decide(kind, intent, box, settle, text) {
    if (this._busy) return;
    settle();
    this._setBusy(true);
    const t = this.t;
    try {
      const result = await this._json("POST", `/v1/chat/actions/${kind}`, {
        body: { thread_id: this._state.threadId, intent_id: intent.intent_id },
      });
      box.dataset.state = kind === "confirm" ? "confirmed" : "cancelled";
      const node = this._bubble("assistant", t.assistant);
      node.dataset.outcome = kind === "confirm" ? "action_completed" : "action_cancelled";
      const message =
        result && typeof result.response_markdown === "string" ? result.response_markdown : kind === "confirm" ? t.confirmed : t.cancelled;
      node.append(el("div", { class: "md", html: renderMarkdown(message) }));
      this._append(node);
      if (kind === "confirm") {
        const action = (result && result.action) || {};
        this.dispatchEvent(
          new CustomEvent(`${TAG}:action`, {
            bubbles: true,
            composed: true,
            detail: { intent_id: intent.intent_id, name: action.name, arguments: action.arguments, result: result && result.result },
          }),
        );
      }
      this._setBusy(false);
      this._input.focus();
    } catch (error) {
      this._setBusy(false);
      if (error instanceof ApiError && error.code === "CONFIRMATION_INVALID" && kind === "confirm" && text) {
        // Stale, expired or reused: ask again for a fresh preview of the same request.
        this._notice(t.confirmationExpired);
        await this.send(text, { echo: false });
        return;
      }
      this._showError(error, null);
      this._input.focus();
    }
  }
}

if (!customElements.get(TAG)) customElements.define(TAG, CommerceAiChat);

export { escapeHtml };
