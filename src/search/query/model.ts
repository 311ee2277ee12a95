// The active embedding model as search sees it (issue 15): GET /v1/search/model, the
// X-Shopsight-Model header of every search response and /health/ready.
//   model_id, is_test_model, dimensions — src/embeddings/identity.ts;
//   status          — ready | disabled (MODEL_DISABLED) | failed (no usable model) | loading (the
//                     service loads the model before it listens, so a running service never
//                     reports it today; kept for portals that poll while starting);
//   duplicate_detection — whether product.duplicate_detected compares embeddings (near-duplicates);
//                     with the test model only identical images are reported (DUPLICATE_DETECTION);
//   default_semantic_weight / default_fusion_method — text ranking defaults (see fusion.ts): with
//                     a real model the values the relevance evaluation chose (npm run eval:search),
//                     with the test model lexical evidence leads, without a model text search is lexical.
import type { AppContext } from "../../context/context.js";
import { modelIdentity } from "../../embeddings/identity.js";
import { duplicateDetectionOn } from "../products/duplicates.js";
import type { FusionMethod } from "./fusion.js";

/** Chosen on the dev shopper queries of eval:search-shopper (docs/api-search.md: Text ranking, Defaults). */
export const DEFAULT_SEMANTIC_WEIGHT = 0.8;
export const DEFAULT_FUSION_METHOD: FusionMethod = "coverage";
/**
 * Relevance bar of a real model (visual_min_score): calibrated on the dev shopper queries with
 * fashion-clip-small (eval:search-shopper --calibrate); other models: set SEARCH_VISUAL_MIN_SCORE
 * from the same run on the store's own material.
 */
export const DEFAULT_VISUAL_MIN_SCORE = 0.64;
/**
 * With the built-in test model, whose text–image similarity only knows colours: words lead, and a
 * calibrated blend keeps the colour evidence's size (RRF at such a weight reduces it to tie-breaks,
 * so "a red dress" would rank a green dress above a red shirt). Not measured: no real data fits it.
 */
export const TEST_MODEL_SEMANTIC_WEIGHT = 0.2;
export const TEST_MODEL_FUSION_METHOD: FusionMethod = "coverage";

export interface ModelStatus {
  model_id: string;
  dimensions: number;
  is_test_model: boolean;
  status: "ready" | "loading" | "disabled" | "failed";
  duplicate_detection: boolean;
  default_semantic_weight: number;
  default_fusion_method: FusionMethod;
  visual_min_score: number;
}

export function modelStatus(ctx: AppContext): ModelStatus {
  const model = ctx.model;
  const identity = modelIdentity(model, ctx.config.model.id);
  const isTest = identity.is_test_model;
  const status: ModelStatus["status"] = ctx.config.model.disabled ? "disabled" : model && model.usable !== false ? "ready" : "failed";
  return {
    model_id: identity.id,
    dimensions: identity.dimensions,
    is_test_model: isTest,
    status,
    duplicate_detection: duplicateDetectionOn(ctx),
    default_semantic_weight: model === null ? 0 : isTest ? TEST_MODEL_SEMANTIC_WEIGHT : DEFAULT_SEMANTIC_WEIGHT,
    default_fusion_method: isTest ? TEST_MODEL_FUSION_METHOD : DEFAULT_FUSION_METHOD,
    // The test model's similarities only know colours: no bar (its words lead anyway).
    visual_min_score: ctx.config.searchVisualMinScore ?? (isTest || model === null ? 0 : DEFAULT_VISUAL_MIN_SCORE),
  };
}
