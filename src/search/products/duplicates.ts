// Whether new products are checked for near-duplicates (DUPLICATE_DETECTION: on, off, or auto =
// on unless the built-in test model is active, whose similarities carry no meaning beyond colour).
import type { AppContext } from "../../context/context.js";
import { modelIdentity } from "../../embeddings/identity.js";

export function duplicateDetectionOn(ctx: AppContext): boolean {
  const mode = ctx.config.duplicateDetection;
  return ctx.model !== null && (mode === "on" || (mode === "auto" && !modelIdentity(ctx.model, ctx.config.model.id).is_test_model));
}
