// Row types of every table, as Kysely sees them. Timestamps are epoch milliseconds.
import type { Generated } from "kysely";
import type { Tables } from "../platform/db/types.js";

/** Every table, the product's and the ground layer's (what `Db` is typed with). */
export type Schema = Tables;

export interface StoresTable {
  id: string;
  slug: string;
  name: string;
  status: "inactive" | "active";
  plan: string;
  client_secret_hash: string | null;
  secret_rotated_at: number | null;
  created_at: number;
  updated_at: number;
}

export interface UsersTable {
  id: string;
  email: string;
  password_hash: string;
  full_name: Generated<string>;
  is_super_admin: Generated<number>;
  /** Sealed (src/platform/secrets.ts, AAD secretAad.totp); never the secret itself. */
  totp_secret: string | null;
  totp_enabled: Generated<number>;
  /** The last TOTP time-step (epoch ms / 30 s) that verified: a code verifies at most once. */
  totp_last_step: number | null;
  created_at: number;
}

export type Role = "owner" | "admin" | "developer" | "viewer";

export interface MembershipsTable {
  store_id: string;
  user_id: string;
  role: Role;
  last_used_at: number | null;
  created_at: number;
}

export interface VerificationTokensTable {
  token_hash: string;
  store_id: string;
  expires_at: number;
  used_at: number | null;
  created_at: number;
}

export interface AuthEventsTable {
  id: string;
  store_id: string | null;
  user_id: string | null;
  kind: string;
  identity: string | null;
  ip: string | null;
  created_at: number;
}

export interface ProductsTable {
  store_id: string;
  product_id: string;
  vector_id: string;
  image_url: string;
  image_sha256: string;
  name: string | null;
  category: string | null;
  brand: string | null;
  price: number | null;
  color_name: string | null;
  /** JSON text */
  metadata: string;
  /** JSON text: [{hex, share}] */
  dominant_colors: string;
  model: string;
  created_at: number;
  updated_at: number;
  /** in_stock | low_stock | out_of_stock; null = unknown (migration 0026) */
  availability: string | null;
  /** Units in stock (≥ 0); null = not given (migration 0026) */
  stock_quantity: number | null;
}

export interface ProductImagesTable {
  store_id: string;
  sha256: string;
  content_type: string;
  width: number;
  height: number;
  /** Empty when the image is kept by the filesystem image store (stored_in = "filesystem"). */
  bytes: Buffer;
  /** "database" or "filesystem" (0017_image_store). */
  stored_in: Generated<string>;
  created_at: number;
}

export interface BulkJobsTable {
  job_id: string;
  store_id: string;
  status: "processing" | "completed" | "failed";
  total: number;
  callback_url: string | null;
  callback_secret: string | null;
  created_at: number;
  finished_at: number | null;
  /** What the job does to its items (migration 0028; earlier jobs are imports). */
  action: Generated<BulkAction>;
}

export type BulkAction = "import" | "delete" | "update";

export interface BulkJobItemsTable {
  job_id: string;
  idx: number;
  store_id: string;
  product_id: string;
  payload: string;
  status: "pending" | "succeeded" | "failed";
  error_code: string | null;
  error_message: string | null;
  updated_at: number;
}

export interface WebhooksTable {
  id: string;
  store_id: string;
  url: string;
  /** JSON text: string[] */
  events: string;
  secret: string;
  status: "active" | "disabled";
  disabled_reason: string | null;
  created_at: number;
  updated_at: number;
}

export type DeliveryStatus = "pending" | "delivered" | "failed" | "cancelled";

export interface WebhookDeliveriesTable {
  id: string;
  store_id: string;
  webhook_id: string | null;
  target_url: string;
  secret: string;
  event: string;
  ordering_key: string;
  seq: number;
  body: string;
  status: DeliveryStatus;
  attempts: Generated<number>;
  next_attempt_at: number;
  locked_until: number | null;
  last_status_code: number | null;
  last_error: string | null;
  created_at: number;
  delivered_at: number | null;
}

export interface WebhookAttemptsTable {
  id: string;
  delivery_id: string;
  store_id: string;
  attempt: number;
  status_code: number | null;
  duration_ms: number;
  error: string | null;
  next_attempt_at: number | null;
  created_at: number;
}

// --- billing (0006_billing)
export type BillingProvider = "none" | "local" | "stripe";

export interface BillingAccountsTable {
  store_id: string;
  provider: BillingProvider;
  stripe_customer_id: string | null;
  stripe_subscription_id: string | null;
  /** Stripe subscription status (active, past_due, canceled, …); null without a subscription. */
  subscription_status: string | null;
  current_period_start: number | null;
  current_period_end: number | null;
  /** `created` (ms) of the newest Stripe event applied; older events do not change the plan. */
  last_event_at: number | null;
  plan_source: string | null;
  plan_changed_at: number | null;
  created_at: number;
  updated_at: number;
}

export interface BillingCheckoutSessionsTable {
  token_hash: string;
  store_id: string;
  plan_name: string;
  status: "open" | "completed" | "cancelled";
  created_by: string | null;
  expires_at: number;
  created_at: number;
  finished_at: number | null;
}

export interface BillingInvoicesTable {
  id: string;
  store_id: string;
  provider: "local" | "stripe";
  provider_invoice_id: string;
  plan_name: string | null;
  /** Amount in the currency's minor unit (cents). */
  amount_minor: number;
  currency: string;
  status: "paid" | "open" | "failed" | "void" | "uncollectible";
  hosted_url: string | null;
  period_start: number | null;
  period_end: number | null;
  issued_at: number;
  created_at: number;
  updated_at: number;
}

export interface BillingStripeEventsTable {
  event_id: string;
  type: string;
  store_id: string | null;
  outcome: string;
  event_created_at: number;
  processed_at: number;
}

export interface BillingUsageTable {
  store_id: string;
  /** Start of the UTC hour the calls were made in (epoch ms). */
  bucket_start: number;
  api_calls: number;
  updated_at: number;
}

// --- security and team (issue 7)
export interface ApiKeysTable {
  id: string;
  store_id: string;
  name: string;
  /** SHA-256 hex of the whole key; the key itself is shown once. */
  key_hash: string;
  /** The first characters of the key, for recognising it in lists (`sk_live_AbCd1234`). */
  key_prefix: string;
  /** JSON text: permission names (string[]). */
  scopes: string;
  created_by: string | null;
  created_at: number;
  expires_at: number;
  last_used_at: number | null;
  revoked_at: number | null;
}

export interface IpAllowlistTable {
  id: string;
  store_id: string;
  /** Canonical address or network/prefix. */
  cidr: string;
  description: string;
  created_by: string | null;
  created_at: number;
}

export interface TeamInvitesTable {
  id: string;
  store_id: string;
  email: string;
  role: Role;
  /** SHA-256 hex of the single-use token. */
  token_hash: string;
  invited_by: string | null;
  created_at: number;
  expires_at: number;
  accepted_at: number | null;
  accepted_by: string | null;
  cancelled_at: number | null;
}

export interface UserGroupsTable {
  id: string;
  store_id: string;
  name: string;
  /** Lower-cased name, unique per store. */
  name_key: string;
  description: Generated<string>;
  created_at: number;
}

export interface UserGroupPermissionsTable {
  group_id: string;
  store_id: string;
  permission: string;
}

export interface UserGroupMembersTable {
  group_id: string;
  store_id: string;
  user_id: string;
  created_at: number;
}

export interface SearchHistoryTable {
  id: string;
  store_id: string;
  mode: string;
  /** The text of text-bearing searches (suggestions, top queries). */
  query_text: string | null;
  /** JSON text: what was searched (image URL, region, mode options; never image bytes). */
  query_summary: string;
  /** JSON text: the filters applied. */
  filters: string;
  /** JSON text: [{product_id, rank, score}] */
  results: string;
  result_count: number;
  latency_ms: number;
  /** "api" or "widget". */
  source: string;
  created_at: number;
}

// --- feedback and widget keys (0008_feedback_widget)
export interface WidgetKeysTable {
  id: string;
  store_id: string;
  name: string;
  /** SHA-256 hex of the whole public key `pk_live_…`; the key itself is shown once. */
  key_hash: string;
  /** The first characters of the key, for recognising it in lists. */
  key_prefix: string;
  /** JSON text: canonical origins (string[]), e.g. ["https://shop.example"]. */
  allowed_origins: string;
  created_by: string | null;
  created_at: number;
  updated_at: number;
  last_used_at: number | null;
  revoked_at: number | null;
}

export type FeedbackAction = "click" | "add_to_cart" | "purchase";

export interface SearchFeedbackTable {
  id: string;
  store_id: string;
  /** The search the event is attributed to; null = unattributed. */
  search_id: string | null;
  result_product_id: string;
  action: FeedbackAction;
  quantity: number;
  /** Purchases only: the line total in the currency's minor unit (e.g. cents). */
  order_value_minor: number | null;
  /** Purchases only: ISO 4217 code, upper case. */
  currency: string | null;
  session_id: string | null;
  /** 1-based position of the product in the attributed search's results; null when not shown there. */
  result_rank: number | null;
  /** "api" (bearer) or "widget" (public key). */
  source: string;
  widget_key_id: string | null;
  created_at: number;
}

/**
 * One vector per product (src/vectors). `embedding` is float32 little-endian bytes on SQLite and a
 * pgvector `vector` on PostgreSQL (written and read through casts from/to its text form).
 * Vectors are stored L2-normalised.
 */
export interface ProductVectorsTable {
  store_id: string;
  vector_id: string;
  product_id: string;
  /** Fingerprint of the model that produced the vector. */
  model: string;
  dim: number;
  embedding: Buffer | string;
  created_at: number;
}

/**
 * PostgreSQL only (0021): a category or brand of a store with a filter index, a compact copy of
 * its vectors (src/vectors/filter-indexes.ts). `value` is lower-cased.
 */
export interface VectorFilterIndexesTable {
  id: Generated<number>;
  store_id: string;
  field: "category" | "brand";
  value: string;
  dim: number;
  /** Its copies are kept by the triggers (migration 0021). */
  live: Generated<boolean>;
  /** Searches may use it. */
  ready: Generated<boolean>;
  rows: Generated<number>;
  created_at: number;
  /** Inverted lists of its IVFFlat index over the copies, once built (0022); null: searched exactly. */
  lists: Generated<number | null>;
  /** How many of them a search probes. */
  probes: Generated<number | null>;
  /** HNSW candidate list of a search through its graph over the copies, once built and checked (0030); null: none. */
  graph_ef: Generated<number | null>;
  /** Copies it held when its graph last failed the recall check (0030); null: none failed. */
  graph_checked: Generated<number | null>;
}

/** PostgreSQL only (0021): half-precision copies of the vectors of a filter index's products, kept by triggers. */
export interface ProductVectorCopiesTable {
  index_id: number;
  store_id: string;
  product_id: string;
  vector_id: string;
  embedding: string;
}

// --- assistant (0009_assistant)
export interface AssistantPublicKeysTable {
  id: string;
  store_id: string;
  name: string;
  /** SHA-256 hex of the whole key `store_pub_…`; the key itself is shown once. */
  key_hash: string;
  key_prefix: string;
  created_by: string | null;
  created_at: number;
  revoked_at: number | null;
}

export interface AssistantSessionsTable {
  id: string;
  store_id: string;
  /** SHA-256 hex of the opaque bearer `ast_…`. */
  token_hash: string;
  role: string;
  locale: string | null;
  public_key_id: string | null;
  created_at: number;
  expires_at: number;
  revoked_at: number | null;
  revoke_reason: string | null;
  /** Exchanged (signed-in) sessions: the store's customer id (assertion `sub`); null for anonymous. 0011. */
  customer_id: string | null;
}

export interface AssistantPolicyVersionsTable {
  store_id: string;
  concept_id: string;
  version: number;
  handle: string;
  title: string;
  body_markdown: string;
  locale: string;
  /** 0/1 */
  published: number;
  created_by: string | null;
  created_at: number;
}

export interface AssistantThreadsTable {
  id: string;
  store_id: string;
  session_id: string;
  locale: string;
  created_at: number;
}

// --- assistant storefront, settings, audit, exchange (0011_assistant_storefront)
export interface AssistantSettingsTable {
  store_id: string;
  /** ISO 4217 code, upper case. */
  currency: string;
  /** JSON text {email?, url?, phone?, hours?} or null. */
  support_contact: string | null;
  updated_by: string | null;
  updated_at: number;
}

export interface AssistantVocabularyTable {
  store_id: string;
  /** JSON array of word groups (arrays of lower-case words). */
  synonyms: string;
  /** JSON array of lower-case words. */
  scope_words: string;
  /** JSON array of lower-case words. */
  product_words: string;
  updated_by: string | null;
  updated_at: number;
}

export interface AssistantStorefrontConnectionsTable {
  /** conn_… */
  id: string;
  store_id: string;
  /** Normalised origin, e.g. https://shop.example.com */
  store_url: string;
  /** "connected" | "disconnected" (at most one connected per store). */
  status: string;
  /** "token" | "none" */
  auth: string;
  /** AES-256-GCM envelope of the private token (src/platform/secrets.ts); never the token. */
  token_ciphertext: string | null;
  shop_name: string | null;
  shop_currency: string | null;
  verified_at: number;
  created_by: string | null;
  created_at: number;
  updated_at: number;
  disconnected_at: number | null;
}

export interface AssistantAuditEventsTable {
  id: string;
  store_id: string;
  actor_user_id: string | null;
  /** e.g. connection.create, connection.credential, public_key.create, policy.put */
  operation: string;
  method: string;
  route: string;
  target_id: string | null;
  reason: string | null;
  /** "success" | "failure" */
  outcome: string;
  status_code: number;
  error_code: string | null;
  correlation_id: string;
  created_at: number;
}

export interface AssistantExchangeSecretsTable {
  /** exs_… id (not the secret) */
  id: string;
  store_id: string;
  /** AES-256-GCM envelope of the secret (needed to verify HS256 assertions). */
  secret_ciphertext: string;
  secret_prefix: string;
  created_by: string | null;
  created_at: number;
  revoked_at: number | null;
}

export interface AssistantExchangeJtisTable {
  store_id: string;
  jti: string;
  expires_at: number;
}

export interface AssistantCartsTable {
  id: string;
  store_id: string;
  session_id: string;
  /** "shopsight_catalog" or "storefront:<host>" */
  source: string;
  external_id: string | null;
  /** JSON text: [{product_id, variant_id, quantity}] */
  lines: string;
  created_at: number;
  updated_at: number;
}

export interface AssistantReturnsTable {
  id: string;
  store_id: string;
  session_id: string;
  customer_id: string;
  order_id: string;
  product_id: string | null;
  quantity: number | null;
  reason: string | null;
  status: string;
  source: string;
  external_id: string | null;
  created_at: number;
}

export interface AssistantOrdersTable {
  store_id: string;
  order_id: string;
  customer_id: string;
  status: string;
  placed_at: number;
  total_minor: number;
  currency: string;
  /** JSON text: [{product_id, title, quantity}] */
  items: string;
  updated_at: number;
}

// --- assistant chat (0010_assistant_chat)
export interface AssistantTurnsTable {
  id: string;
  store_id: string;
  thread_id: string;
  session_id: string;
  number: number;
  user_text: string;
  /** running | completed | failed */
  status: string;
  outcome: string | null;
  /** JSON text: the answer object of the message response. */
  answer: string | null;
  created_at: number;
  completed_at: number | null;
}

export interface AssistantEventsTable {
  store_id: string;
  thread_id: string;
  seq: number;
  turn_id: string | null;
  name: string;
  /** JSON text. */
  data: string;
  created_at: number;
}

export interface AssistantIntentsTable {
  id: string;
  store_id: string;
  session_id: string;
  thread_id: string;
  turn_id: string;
  action: string;
  /** JSON text: exactly the previewed arguments. */
  arguments: string;
  /** pending | consumed | cancelled | failed */
  status: string;
  /** JSON text: the action's result once consumed. */
  result: string | null;
  created_at: number;
  expires_at: number;
  resolved_at: number | null;
}

/** A store's own synonyms of text search (migration 0023; src/search/synonyms). */
export interface SearchSynonymsTable {
  id: string;
  store_id: string;
  kind: "one_way" | "multi_way";
  /** JSON array of phrases. */
  words: string;
  /** JSON array of phrases (one_way; empty for multi_way). */
  synonyms: string;
  created_at: number;
}

/** A store's merchandising rules of text search (migration 0027; src/search/rules). */
export interface SearchRulesTable {
  id: string;
  store_id: string;
  match: "exact" | "contains";
  /** The normalised query text: lower-case words joined by one space. */
  query: string;
  /** JSON array of {product_id, position}. */
  pins: string;
  /** JSON array of product ids. */
  hide: string;
  /** JSON array of {field, value}. */
  boost: string;
  /** JSON array of {field, value}. */
  bury: string;
  /** 1 | 0 */
  enabled: number;
  description: string | null;
  created_at: number;
  updated_at: number;
}

/** How many searches a merchandising rule applied to, per UTC day (migration 0027). */
export interface SearchRuleHitsTable {
  rule_id: string;
  store_id: string;
  /** Days since 1970-01-01 (UTC). */
  day: number;
  hits: number;
}

/** The words of a store's product text (migration 0023; src/lexical). */
export interface ProductTermsTable {
  store_id: string;
  term: string;
}

/** The product's tables (the job queue's `jobs` and the token revocations' `revoked_tokens` are declared beside their modules in src/platform). */
export interface ProductTables {
  stores: StoresTable;
  users: UsersTable;
  memberships: MembershipsTable;
  verification_tokens: VerificationTokensTable;
  auth_events: AuthEventsTable;
  products: ProductsTable;
  product_vectors: ProductVectorsTable;
  vector_filter_indexes: VectorFilterIndexesTable;
  product_vector_copies: ProductVectorCopiesTable;
  product_images: ProductImagesTable;
  bulk_jobs: BulkJobsTable;
  bulk_job_items: BulkJobItemsTable;
  webhooks: WebhooksTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
  search_history: SearchHistoryTable;
  search_feedback: SearchFeedbackTable;
  search_synonyms: SearchSynonymsTable;
  search_rules: SearchRulesTable;
  search_rule_hits: SearchRuleHitsTable;
  product_terms: ProductTermsTable;
  widget_keys: WidgetKeysTable;
  assistant_public_keys: AssistantPublicKeysTable;
  assistant_sessions: AssistantSessionsTable;
  assistant_threads: AssistantThreadsTable;
  assistant_policy_versions: AssistantPolicyVersionsTable;
  assistant_turns: AssistantTurnsTable;
  assistant_events: AssistantEventsTable;
  assistant_intents: AssistantIntentsTable;
  assistant_settings: AssistantSettingsTable;
  assistant_vocabulary: AssistantVocabularyTable;
  assistant_storefront_connections: AssistantStorefrontConnectionsTable;
  assistant_audit_events: AssistantAuditEventsTable;
  assistant_exchange_secrets: AssistantExchangeSecretsTable;
  assistant_exchange_jtis: AssistantExchangeJtisTable;
  assistant_carts: AssistantCartsTable;
  assistant_returns: AssistantReturnsTable;
  assistant_orders: AssistantOrdersTable;
  billing_accounts: BillingAccountsTable;
  billing_checkout_sessions: BillingCheckoutSessionsTable;
  billing_invoices: BillingInvoicesTable;
  billing_stripe_events: BillingStripeEventsTable;
  billing_usage: BillingUsageTable;
  api_keys: ApiKeysTable;
  ip_allowlist: IpAllowlistTable;
  team_invites: TeamInvitesTable;
  user_groups: UserGroupsTable;
  user_group_permissions: UserGroupPermissionsTable;
  user_group_members: UserGroupMembersTable;
}

// Every handle of src/platform/db is typed with these tables (see Tables there).
declare module "../platform/db/types.js" {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- the product's tables, merged into the ground layer's empty Tables
  interface Tables extends ProductTables {}
}
