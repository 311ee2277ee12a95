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
  FST_ERR_CTP_EMPTY_JSON_BODY: ["validation_failed", "The JSON body is empty."],
  FST_ERR_CTP_INVALID_JSON_BODY: ["validation_failed", "The body is not valid JSON."],
  FST_ERR_CTP_BODY_TOO_LARGE: ["payload_too_large"],
  FST_ERR_CTP_EMPTY_TYPE: ["unsupported_media_type", "A Content-Type header is required."],
  FST_ERR_CTP_INVALID_TYPE: ["unsupported_media_type"],
  FST_REQ_FILE_TOO_LARGE: ["image_too_large", "The uploaded file is larger than OUTBOUND_MAX_BYTES."],
  FST_FILES_LIMIT: ["payload_too_large", "Too many files in the upload."],
  FST_PARTS_LIMIT: ["payload_too_large", "Too many parts in the upload."],
  FST_INVALID_MULTIPART_CONTENT_TYPE: ["unsupported_media_type", "Expected a multipart/form-data body."],
};

/** SQLite (better-sqlite3) and PostgreSQL unique / primary-key violations. */
export function isUniqueViolation(e: unknown): boolean {
  const code = (e as { code?: unknown } | null)?.code;
  return code === "SQLITE_CONSTRAINT_UNIQUE" || code === "SQLITE_CONSTRAINT_PRIMARYKEY" || code === "23505";
}

function describe(issue: ValidationIssue, part: string): { field: string; message: string } {
  const base = (issue.instancePath ?? "").replace(/^\//, "").replace(/\//g, ".");
  const missing = issue.keyword === "required" ? String(issue.params?.missingProperty ?? "") : "";
  const extra = issue.keyword === "additionalProperties" ? String(issue.params?.additionalProperty ?? "") : "";
  const leaf = missing || extra;
  const field = [part === "body" ? "" : part, base, leaf].filter(Boolean).join(".") || part;
  const message = extra ? "is not an accepted field" : (issue.message ?? "is invalid");
  return { field, message };
}

/** The catalogue error for schema violations of one request part (`prefix` names a nested item). */
export function validationError(issues: readonly ValidationIssue[], part: string, prefix = ""): AppError {
  const errors = issues.map((issue) => describe(issue, part)).map((e) => (prefix ? { ...e, field: `${prefix}.${e.field}` } : e));
  const summary = errors.map((x) => `${x.field} ${x.message}`).join("; ");
  return new AppError("validation_failed", `Invalid request: ${summary}.`, { errors });
}

export function toAppError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  const e = (error ?? {}) as FastifyLikeError;
  if (Array.isArray(e.validation)) return validationError(e.validation, e.validationContext ?? "body");
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
