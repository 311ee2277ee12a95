// The error catalogue: every error a client can see, with its HTTP status, stable code and
// default message. This file holds the generic codes (request shape, credentials, limits,
// outbound fetches, dependencies); each layer above registers its own with `registerErrors` and
// names them in `ErrorCodes` (declaration merging), so `new AppError("code")` is checked at
// compile time and every code has one owner. Services throw `AppError`; each API's error
// handler presents it in that API's shape (Search: {error, message, details}; Assistant:
// problem details with an upper-case `code`). `reportable` marks errors worth logging at error
// level.

export interface CatalogueEntry {
  status: number;
  message: string;
  reportable?: boolean;
  /** The Assistant API's code where it differs from the upper-cased Search code. */
  assistantCode?: string;
}

const genericErrors = {
  // --- request shape
  validation_failed: { status: 400, message: "The request is invalid." },
  unsupported_media_type: { status: 415, message: "This content type is not accepted here; send application/json." },
  payload_too_large: { status: 413, message: "The request body is too large." },
  uri_too_long: { status: 414, message: "A path segment is longer than 100 characters; ids and slugs are shorter." },
  request_timeout: {
    status: 408,
    message:
      "The request did not arrive in time: the server waits HTTP_REQUEST_TIMEOUT_MS for a whole request (headers and body). Send the body at once; for large imports send smaller batches.",
  },
  headers_too_large: { status: 431, message: "The request headers are too large; send fewer or shorter headers." },
  not_found: { status: 404, message: "No such resource." },
  route_not_found: { status: 404, message: "No such route.", assistantCode: "NOT_FOUND" },
  method_not_allowed: { status: 405, message: "Method not allowed." },
  conflict: { status: 409, message: "The resource already exists." },
  gone: { status: 410, message: "This endpoint has been replaced." },
  unprocessable: { status: 422, message: "The request cannot be processed as given." },
  // --- authentication (spec: Errors)
  unauthorized: { status: 401, message: "Invalid credentials.", assistantCode: "UNAUTHENTICATED" },
  token_expired: { status: 401, message: "The access token has expired." },
  forbidden: { status: 403, message: "You may not do that." },
  // --- limits
  rate_limit_exceeded: { status: 429, message: "Rate limit exceeded.", assistantCode: "RATE_LIMITED" },
  too_many_requests: { status: 429, message: "Too many attempts; try again later." },
  // --- images and outbound fetches (src/platform/outbound, src/embeddings)
  invalid_url: { status: 400, message: "The URL is not a valid http(s) URL." },
  address_not_allowed: { status: 400, message: "The URL resolves to an address that may not be fetched." },
  image_unreachable: { status: 422, message: "The image could not be downloaded." },
  image_timeout: { status: 422, message: "Downloading the image took too long." },
  image_too_large: { status: 413, message: "The image is too large." },
  unsupported_image: { status: 415, message: "The file is not a supported image (JPEG, PNG, WebP, GIF, AVIF or TIFF)." },
  // --- dependencies
  service_unavailable: { status: 503, message: "A dependency is unavailable; try again shortly.", reportable: true },
  internal_error: { status: 500, message: "Something went wrong on our side.", reportable: true },
} as const satisfies Record<string, CatalogueEntry>;

/**
 * Every registered code. A layer that adds codes declares them here by module augmentation:
 *   declare module ".../platform/errors/catalogue.js" {
 *     interface ErrorCodes extends Record<keyof typeof myErrors, CatalogueEntry> {}
 *   }
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- extended by the layers above (see above)
export interface ErrorCodes extends Record<keyof typeof genericErrors, CatalogueEntry> {}

export type ErrorCode = keyof ErrorCodes;

const catalogue = new Map<string, CatalogueEntry>();

/**
 * Adds a layer's codes to the catalogue (at the import of the module that defines them). A code
 * has one owner: registering a code twice with another entry is a programming error.
 */
export function registerErrors<T extends Record<string, CatalogueEntry>>(entries: T): T {
  for (const [code, entry] of Object.entries(entries)) {
    const known = catalogue.get(code);
    if (known && known !== entry) throw new Error(`Error code ${code} is registered twice.`);
    catalogue.set(code, entry);
  }
  return entries;
}

registerErrors(genericErrors);

/** The entry of a code; a code nobody registered is a programming error (its module was not imported). */
function entryOf(code: string): CatalogueEntry {
  const entry = catalogue.get(code);
  if (!entry) throw new Error(`Error code ${code} is not registered: import the module that registers it.`);
  return entry;
}

/** Whether a code is registered (for the catalogue's own test). */
export const isRegisteredError = (code: string): boolean => catalogue.has(code);

export class AppError extends Error {
  override name = "AppError";
  readonly code: ErrorCode;
  readonly status: number;
  readonly details: Record<string, unknown>;
  /** Extra response headers, e.g. Retry-After. */
  readonly headers: Record<string, string>;

  /** `options.cause`: what went wrong inside, for the log only (never in the response). */
  constructor(
    code: ErrorCode,
    message?: string,
    details: Record<string, unknown> = {},
    headers: Record<string, string> = {},
    options?: { cause?: unknown },
  ) {
    const entry = entryOf(code);
    super(message ?? entry.message, options);
    this.code = code;
    this.status = entry.status;
    this.details = details;
    this.headers = headers;
  }

  get reportable(): boolean {
    return entryOf(this.code).reportable === true;
  }

  get assistantCode(): string {
    return entryOf(this.code).assistantCode ?? this.code.toUpperCase();
  }
}

export const isAppError = (e: unknown): e is AppError => e instanceof AppError;

/** The message of a thrown value, whatever was thrown. */
export const messageOf = (e: unknown): string => (e instanceof Error ? e.message : String(e));
