// Request and response schemas of bulk jobs: imports (POST /v1/products/bulk), a job's status
// (GET /v1/jobs/{job_id}) and bulk actions on products (POST /v1/products/bulk-delete and
// /v1/products/bulk-update): a selection (ids, or a filter shaped like search's pre-filters) and,
// for updates, the changes.
import { Type, type Static } from "typebox";
import { AvailabilityInput, AvailabilityState, ProductId, ProductInput } from "../products/schemas.js";
import { filterFields } from "../query/schemas.js";
import { BULK_MAX_ITEMS } from "./service.js";

export const BulkImportBody = Type.Object(
  {
    products: Type.Array(ProductInput, { minItems: 1, maxItems: BULK_MAX_ITEMS }),
    callback_url: Type.Optional(Type.String({ maxLength: 2048 })),
    callback_secret: Type.Optional(Type.String({ minLength: 16, maxLength: 200 })),
  },
  { additionalProperties: false },
);
export const BulkImportAccepted = Type.Object({
  job_id: Type.String(),
  status: Type.Literal("processing"),
  total: Type.Integer(),
  callback_secret: Type.Optional(Type.String()),
});

export const JobParams = Type.Object({ job_id: Type.String({ maxLength: 100 }) });
export const JobStatus = Type.Object({
  job_id: Type.String(),
  status: Type.Union([Type.Literal("processing"), Type.Literal("completed"), Type.Literal("failed")]),
  action: Type.Optional(
    Type.Union([Type.Literal("import"), Type.Literal("delete"), Type.Literal("update")], {
      description: "What a bulk job does: import (POST /v1/products/bulk), delete or update (bulk actions)",
    }),
  ),
  total: Type.Integer(),
  processed: Type.Integer(),
  succeeded: Type.Integer(),
  failed: Type.Integer(),
  errors: Type.Array(Type.Object({ product_id: Type.String(), error: Type.String(), message: Type.String() })),
  summary: Type.String({
    description:
      "One sentence on where the job stands; when items failed on the plan's product limit it names the limit and what to do (remove products or upgrade, then resubmit those items).",
  }),
  created_at: Type.String({ format: "date-time" }),
  finished_at: Type.Union([Type.String({ format: "date-time" }), Type.Null()]),
});

/** Product ids one request may name. */
export const BULK_ACTION_MAX_IDS = 1000;
/** Products a filter may select for one job. */
export const BULK_ACTION_MAX_MATCHED = 10_000;

const Name = Type.String({ minLength: 1, maxLength: 100 });
const Tag = Type.String({ minLength: 1, maxLength: 100 });

export const SelectionFilter = Type.Object(
  {
    ...filterFields,
    brand: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: "metadata.brand equal to this, ignoring case" })),
    tags: Type.Optional(
      Type.Array(Tag, { minItems: 1, maxItems: 20, description: "Products whose metadata.tags hold every one of these (ignoring case)" }),
    ),
    availability: Type.Optional(AvailabilityState),
  },
  {
    additionalProperties: false,
    description:
      "The search pre-filters (category, price_min, price_max, color, metadata_filters, as POST /v1/search/*) plus brand, tags and availability; every condition must hold. At least one condition.",
  },
);
export type SelectionFilter = Static<typeof SelectionFilter>;

const selection = {
  ids: Type.Optional(
    Type.Array(ProductId, {
      minItems: 1,
      maxItems: BULK_ACTION_MAX_IDS,
      description: `Up to ${BULK_ACTION_MAX_IDS} product ids (repeats count once). Ids the store does not have are reported as not_found in the job.`,
    }),
  ),
  filter: Type.Optional(SelectionFilter),
  callback_url: Type.Optional(Type.String({ maxLength: 2048 })),
  callback_secret: Type.Optional(Type.String({ minLength: 16, maxLength: 200 })),
};

export const BulkDeleteBody = Type.Object(selection, { additionalProperties: false });

export const BulkChanges = Type.Object(
  {
    category: Type.Optional(Type.Union([Name, Type.Null()], { description: "New metadata.category; null removes it" })),
    brand: Type.Optional(Type.Union([Name, Type.Null()], { description: "New metadata.brand; null removes it" })),
    tags: Type.Optional(
      Type.Union([Type.Array(Tag, { maxItems: 50 }), Type.Null()], { description: "Replaces metadata.tags; null removes them" }),
    ),
    availability: Type.Optional(AvailabilityInput),
  },
  { additionalProperties: false },
);
export type BulkChanges = Static<typeof BulkChanges>;

export const BulkUpdateBody = Type.Object(
  {
    ...selection,
    set: Type.Optional(BulkChanges),
    add_tags: Type.Optional(
      Type.Array(Tag, { minItems: 1, maxItems: 50, description: "Added to metadata.tags (kept once, ignoring case)" }),
    ),
    remove_tags: Type.Optional(Type.Array(Tag, { minItems: 1, maxItems: 50, description: "Taken out of metadata.tags (ignoring case)" })),
  },
  { additionalProperties: false },
);
export type BulkUpdateBody = Static<typeof BulkUpdateBody>;

export const BulkActionAccepted = Type.Object({
  job_id: Type.String(),
  status: Type.Literal("processing"),
  action: Type.Union([Type.Literal("delete"), Type.Literal("update")]),
  total: Type.Integer({ description: "Products selected (ids once each, or the filter's matches when the job was created)" }),
  callback_secret: Type.Optional(Type.String()),
});
