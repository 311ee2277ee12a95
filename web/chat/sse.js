/*
 * A Server-Sent Events parser for streams read with fetch() (EventSource cannot POST nor send an
 * Authorization header). Follows the WHATWG "event stream interpretation" rules: lines end with
 * CRLF, LF or CR (also when split across chunks); "event", "data" (joined with "\n"), "id" and
 * "retry" fields; lines starting with ":" are comments; an event is dispatched at a blank line
 * when it has data; the last event id persists across events. Pure: no DOM, no network.
 *
 *   const parser = createSseParser((event) => console.log(event.event, event.id, event.data));
 *   parser.push(decodedTextChunk); …; parser.end();
 */

/**
 * @typedef {{ event: string, data: string, id: string }} SseEvent
 * @param {(event: SseEvent) => void} onEvent
 */
export function createSseParser(onEvent) {
  let buffer = "";
  let pendingCR = false; // the previous chunk ended in "\r": a leading "\n" of the next one belongs to it
  let eventName = "";
  let data = [];
  let hasData = false;
  let lastId = "";
  let retry = null;

  function dispatch() {
    if (hasData) {
      onEvent({ event: eventName || "message", data: data.join("\n"), id: lastId });
    }
    eventName = "";
    data = [];
    hasData = false;
  }

  function line(text) {
    if (text === "") return dispatch();
    if (text.charCodeAt(0) === 58 /* ":" */) return;
    const colon = text.indexOf(":");
    let field = text;
    let value = "";
    if (colon !== -1) {
      field = text.slice(0, colon);
      value = text.slice(colon + 1);
      if (value.charCodeAt(0) === 32) value = value.slice(1);
    }
    if (field === "event") eventName = value;
    else if (field === "data") {
      data.push(value);
      hasData = true;
    } else if (field === "id") {
      if (!value.includes("\u0000")) lastId = value;
    } else if (field === "retry") {
      if (/^\d+$/.test(value)) retry = Number(value);
    }
  }

  return {
    /** Feeds decoded text; complete lines are interpreted at once. */
    push(chunk) {
      let text = chunk;
      if (pendingCR) {
        pendingCR = false;
        if (text.startsWith("\n")) text = text.slice(1);
      }
      buffer += text;
      let start = 0;
      for (let i = 0; i < buffer.length; i++) {
        const c = buffer.charCodeAt(i);
        if (c === 10 || c === 13) {
          line(buffer.slice(start, i));
          if (c === 13) {
            if (i + 1 < buffer.length) {
              if (buffer.charCodeAt(i + 1) === 10) i++;
            } else {
              pendingCR = true;
            }
          }
          start = i + 1;
        }
      }
      buffer = buffer.slice(start);
    },
    /** End of stream: an incomplete last event (no blank line) is discarded, as the standard says. */
    end() {
      buffer = "";
      eventName = "";
      data = [];
      hasData = false;
    },
    /** The last event id seen (for Last-Event-ID on reconnect). */
    get lastEventId() {
      return lastId;
    },
    /** The reconnection delay the server asked for, in ms (null when none). */
    get retry() {
      return retry;
    },
  };
}
