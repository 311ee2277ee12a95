// The JSON body parser of both APIs: bounded nesting and keys per object, checked before any
// handler (or schema validator) sees the body. A body nested thousands of levels deep would
// otherwise overflow the stack of whatever walks it next, or be stored in a form the database's
// JSON functions refuse (SQLite stops at 1,000 levels), poisoning every later query of the store.
//
// The depth is measured on the raw text (one pass, no recursion) before JSON.parse; the keys per
// object after parsing (the walk is bounded by the depth already checked).
import type { FastifyBodyParser } from "fastify";
import { AppError } from "../errors/catalogue.js";

/** Deepest nesting of objects and arrays accepted in a JSON body. */
export const JSON_MAX_DEPTH = 32;
/** Most keys accepted in one JSON object of a body. */
export const JSON_MAX_KEYS = 1000;

/** The deepest nesting of `text` (objects and arrays; strings skipped), stopping once past `limit`. */
export function jsonDepth(text: string, limit = Number.MAX_SAFE_INTEGER): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
      continue;
    }
    if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      depth++;
      if (depth > deepest) {
        deepest = depth;
        if (deepest > limit) return deepest;
      }
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return deepest;
}

/** Text neither database can store: NUL (PostgreSQL text and jsonb refuse it) or unpaired UTF-16 surrogates. */
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const storable = (text: string): boolean => !UNSTORABLE.test(text);

/** The largest number of keys of any object in `value` (whose depth is already bounded), or -1 when a string is not storable. */
function mostKeys(value: unknown): number {
  if (typeof value === "string") return storable(value) ? 0 : -1;
  if (value === null || typeof value !== "object") return 0;
  let most = 0;
  const visit = (child: unknown): boolean => {
    const n = mostKeys(child);
    if (n > most) most = n;
    return n >= 0;
  };
  if (Array.isArray(value)) return value.every(visit) ? most : -1;
  // One pass over the entries: each key checked and each value walked once.
  const entries = Object.entries(value as Record<string, unknown>);
  most = entries.length;
  for (const [key, child] of entries) if (!storable(key) || !visit(child)) return -1;
  return most;
}

/** Throws the API's 400 naming the limit when the raw JSON `text` nests deeper than JSON_MAX_DEPTH. */
export function checkJsonDepth(text: string): void {
  if (jsonDepth(text, JSON_MAX_DEPTH) > JSON_MAX_DEPTH) {
    throw new AppError(
      "validation_failed",
      `The JSON body nests objects and arrays more than ${JSON_MAX_DEPTH} levels deep; flatten it to at most ${JSON_MAX_DEPTH} levels.`,
      { reason: "json_too_deep", limit: JSON_MAX_DEPTH },
    );
  }
}

/**
 * Throws the API's 400 naming the limit when an object of the parsed body has more than
 * JSON_MAX_KEYS keys, or when a string holds NUL or an unpaired surrogate (\ud800 alone).
 */
export function checkJsonKeys(value: unknown): void {
  const most = mostKeys(value);
  if (most < 0) {
    throw new AppError(
      "validation_failed",
      "A string in the JSON body contains a NUL character (\\u0000) or an unpaired UTF-16 surrogate; remove it or send valid UTF-8 text.",
      { reason: "json_unstorable_text" },
    );
  }
  if (most > JSON_MAX_KEYS) {
    throw new AppError(
      "validation_failed",
      `An object in the JSON body has more than ${JSON_MAX_KEYS} keys; send at most ${JSON_MAX_KEYS} keys per object.`,
      { reason: "json_too_many_keys", limit: JSON_MAX_KEYS },
    );
  }
}

/**
 * Wraps Fastify's own JSON parser (which refuses `__proto__` / `constructor.prototype` keys and
 * maps syntax errors to FST_ERR_CTP_INVALID_JSON_BODY) with the two bounds.
 */
export function boundedJsonParser(defaultParser: FastifyBodyParser<string>): FastifyBodyParser<string> {
  return (request, body, done) => {
    try {
      checkJsonDepth(body);
    } catch (e) {
      done(e as Error, undefined);
      return;
    }
    void defaultParser(request, body, (error, value) => {
      if (error) {
        done(error, undefined);
        return;
      }
      try {
        checkJsonKeys(value);
      } catch (e) {
        done(e as Error, undefined);
        return;
      }
      done(null, value);
    });
  };
}
