// Maps anything thrown while serving a request to a catalogue error: our own AppErrors pass
// through; schema validation, body parsing and database constraint errors become the matching
// 4xx; everything else becomes an opaque 500 whose internals are logged, never sent.
import { AppError } from "./catalogue.js";

interface ValidationIssue {
  instancePath?: string;
  message?: string;
  params?: Record<string, unknown>;
  keyword?: string;
}

interface FastifyLikeError {
  code?: string;
  statusCode?: number;
  validation?: ValidationIssue[];
  validationContext?: string;
  message?: string;
}

const FASTIFY_CODES: Record<string, [ConstructorParameters<typeof AppError>[0], string?]> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: ["unsupported_media_type"],
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: ["validation_failed", "Content-Length does not match the body."],
  FST_ERR_CTP_EMPTY_JSON_BODY: ["validation_failed", "The JSON body is empty: send a JSON document, or leave out the Content-Type header."],
  FST_ERR_CTP_INVALID_JSON_BODY: [
    "validation_failed",
    "The body is not valid JSON (or carries a __proto__ / constructor.prototype key): check quotes, commas and brackets.",
  ],
  FST_ERR_BAD_URL: [
    "validation_failed",
    "The URL path is not valid percent-encoding: encode reserved and non-ASCII characters as UTF-8 %XX sequences.",
  ],
  FST_ERR_MAX_PARAM_LENGTH: ["uri_too_long"],
  FST_ERR_ASYNC_CONSTRAINT: ["validation_failed", "The request does not match the route's constraints."],
  FST_ERR_CTP_BODY_TOO_LARGE: ["payload_too_large"],
  FST_ERR_CTP_EMPTY_TYPE: ["unsupported_media_type", "A Content-Type header is required."],
  FST_ERR_CTP_INVALID_TYPE: ["unsupported_media_type"],
  FST_REQ_FILE_TOO_LARGE: ["image_too_large", "The uploaded file is larger than OUTBOUND_MAX_BYTES."],
  FST_FILES_LIMIT: ["payload_too_large", "Too many files in the upload."],
  FST_PARTS_LIMIT: ["payload_too_large", "Too many parts in the upload."],
  FST_INVALID_MULTIPART_CONTENT_TYPE: ["unsupported_media_type", "Expected a multipart/form-data body."],
  FST_FIELDS_LIMIT: ["payload_too_large", "Too many fields in the upload."],
  FST_PROTO_VIOLATION: ["validation_failed", "A multipart field may not be named __proto__ or constructor."],
  FST_INVALID_JSON_FIELD_ERROR: ["validation_failed", "A multipart field declared as JSON is not valid JSON."],
  FST_MP_PREMATURE_CLOSE: ["validation_failed", "The multipart body ended before its closing boundary."],
};

/** Errors of the multipart parser (busboy/dicer), which carry no code, only these messages. */
function isMultipartParserError(e: FastifyLikeError): boolean {
  return (
    e.code === undefined &&
    typeof e.message === "string" &&
    /^(Multipart: Boundary not found|Boundary required|Unexpected end of multipart data|Malformed part header|The needle (cannot|has to))|terminated early due to unexpected end of multipart data$/.test(
      e.message,
    )
  );
}

/** SQLite (better-sqlite3) and PostgreSQL unique / primary-key violations. */
export function isUniqueViolation(e: unknown): boolean {
  const code = (e as { code?: unknown } | null)?.code;
  return code === "SQLITE_CONSTRAINT_UNIQUE" || code === "SQLITE_CONSTRAINT_PRIMARYKEY" || code === "23505";
}

const shown = (v: unknown): string => (typeof v === "string" ? v : JSON.stringify(v));

function describe(issue: ValidationIssue, part: string): { field: string; message: string } {
  const base = (issue.instancePath ?? "").replace(/^\//, "").replace(/\//g, ".");
  const missing = issue.keyword === "required" ? shown(issue.params?.missingProperty ?? "") : "";
  const extra = issue.keyword === "additionalProperties" ? shown(issue.params?.additionalProperty ?? "") : "";
  const leaf = missing || extra;
  const field = [part === "body" ? "" : part, base, leaf].filter(Boolean).join(".") || part;
  const message = extra ? "is not an accepted field" : (issue.message ?? "is invalid");
  return { field, message };
}

const ALTERNATIVE = new Set(["const", "enum", "type"]);

/** What one const / enum / type issue allows, as text. */
function allowedBy(issue: ValidationIssue): string[] {
  if (issue.keyword === "const") return [shown(issue.params?.allowedValue)];
  if (issue.keyword === "enum") return ((issue.params?.allowedValues as unknown[] | undefined) ?? []).map(shown);
  const type = shown(issue.params?.type ?? "value");
  return [type === "null" ? "null" : `${/^[aeiou]/.test(type) ? "an" : "a"} ${type}`];
}

/**
 * A value that matches no branch of a union (`anyOf`, e.g. a Union of Literals) produces one
 * "must be equal to constant" per branch plus "must match a schema in anyOf". Those become one
 * issue per field listing the allowed values once; other issues are kept as they are. When the
 * value has the type of a branch and fails inside it (an object of a nullable object with a bad
 * field), the issues inside say what to fix and the other branches' "must be null" is left out.
 */
function collapseAlternatives(issues: readonly ValidationIssue[]): ValidationIssue[] {
  const unions = new Set(issues.filter((i) => i.keyword === "anyOf" || i.keyword === "oneOf").map((i) => i.instancePath ?? ""));
  const alternative = (i: ValidationIssue) => ALTERNATIVE.has(i.keyword ?? "") || i.keyword === "anyOf" || i.keyword === "oneOf";
  const failedInside = new Set(
    [...unions].filter((u) =>
      issues.some((i) => (i.instancePath ?? "").startsWith(`${u}/`) || ((i.instancePath ?? "") === u && !alternative(i))),
    ),
  );
  const out: ValidationIssue[] = [];
  const merged = new Map<string, ValidationIssue & { allowed: string[] }>();
  for (const issue of issues) {
    const path = issue.instancePath ?? "";
    const isEnum = issue.keyword === "enum";
    const inUnion = unions.has(path) && alternative(issue);
    if (inUnion && failedInside.has(path) && issue.keyword !== "const" && issue.keyword !== "enum") continue;
    if (!inUnion && !isEnum) {
      out.push(issue);
      continue;
    }
    let entry = merged.get(path);
    if (!entry) {
      entry = { instancePath: path, keyword: "enum", allowed: [] };
      merged.set(path, entry);
      out.push(entry);
    }
    if (issue.keyword !== "anyOf" && issue.keyword !== "oneOf") entry.allowed.push(...allowedBy(issue));
  }
  for (const entry of merged.values()) {
    const allowed = [...new Set(entry.allowed)];
    entry.message = allowed.length > 0 ? `must be one of: ${allowed.join(", ")}` : "does not match any accepted form";
  }
  return out;
}

/** The catalogue error for schema violations of one request part (`prefix` names a nested item). */
export function validationError(issues: readonly ValidationIssue[], part: string, prefix = ""): AppError {
  const errors = collapseAlternatives(issues)
    .map((issue) => describe(issue, part))
    .map((e) => (prefix ? { ...e, field: `${prefix}.${e.field}` } : e));
  const summary = errors.map((x) => `${x.field} ${x.message}`).join("; ");
  return new AppError("validation_failed", `Invalid request: ${summary}.`, { errors });
}

export function toAppError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  const e = (error ?? {}) as FastifyLikeError;
  if (Array.isArray(e.validation)) return validationError(e.validation, e.validationContext ?? "body");
  if (isMultipartParserError(e)) {
    return new AppError(
      "validation_failed",
      `The multipart body could not be read (${e.message}): send multipart/form-data with a boundary parameter of 1–70 characters and complete parts.`,
      { reason: "invalid_multipart" },
    );
  }
  if (e.code && FASTIFY_CODES[e.code]) {
    const [code, message] = FASTIFY_CODES[e.code]!;
    return new AppError(code, message);
  }
  if (isUniqueViolation(e)) return new AppError("conflict");
  if (typeof e.statusCode === "number" && e.statusCode >= 400 && e.statusCode < 500) {
    if (e.statusCode === 404) return new AppError("not_found");
    if (e.statusCode === 413) return new AppError("payload_too_large");
    if (e.statusCode === 415) return new AppError("unsupported_media_type");
    if (e.statusCode === 429) return new AppError("rate_limit_exceeded");
    return new AppError("validation_failed", e.message ? `Invalid request: ${e.message}` : undefined);
  }
  return new AppError("internal_error");
}
