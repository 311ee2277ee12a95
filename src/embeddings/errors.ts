// The error codes of the image pipeline and the model runtime, registered in the catalogue
// (src/platform/errors/catalogue.ts).
import { registerErrors, type CatalogueEntry } from "../platform/errors/catalogue.js";

export const embeddingErrors = registerErrors({
  invalid_region: { status: 400, message: "The crop region does not fit the image." },
  model_unavailable: { status: 503, message: "The embedding model is not loaded.", reportable: true },
} as const satisfies Record<string, CatalogueEntry>);

declare module "../platform/errors/catalogue.js" {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- names this layer's codes (see catalogue.ts)
  interface ErrorCodes extends Record<keyof typeof embeddingErrors, CatalogueEntry> {}
}
