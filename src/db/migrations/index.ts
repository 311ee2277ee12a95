// The ordered list of migrations. Append only: never edit one that has shipped.
import type { MigrationFactory } from "./types.js";
import m0001 from "./0001_accounts.js";
import m0002 from "./0002_vectors.js";
import m0003 from "./0003_catalog.js";
import m0004 from "./0004_jobs_webhooks.js";
import m0005 from "./0005_security_team.js";
import m0006 from "./0006_billing.js";
import m0007 from "./0007_search_history.js";
import m0008 from "./0008_feedback_widget.js";
import m0009 from "./0009_assistant.js";
import m0010 from "./0010_assistant_chat.js";
import m0011 from "./0011_assistant_storefront.js";
import m0014 from "./0014_hardening.js";
import m0017 from "./0017_image_store.js";
import m0018 from "./0018_lexical_index.js";
import m0019 from "./0019_lexical_versions.js";
import m0020 from "./0020_brand_filter_index.js";
import m0021 from "./0021_vector_filter_indexes.js";
import m0022 from "./0022_filter_index_lists.js";
import m0023 from "./0023_search_vocabulary.js";
import m0024 from "./0024_drop_trigram_index.js";
import m0025 from "./0025_job_turns.js";
import m0026 from "./0026_product_availability.js";
import m0027 from "./0027_search_rules.js";
import m0028 from "./0028_bulk_actions.js";
import m0029 from "./0029_assistant_vocabulary.js";
import m0030 from "./0030_filter_index_graphs.js";
import m0031 from "./0031_copies_apart.js";
import m0032 from "./0032_copies_apart_planned.js";
import m0033 from "./0033_lexical_words.js";
import m0034 from "./0034_filter_indexes_with_ids.js";
import m0035 from "./0035_fts_usermerge.js";

export const migrations: Record<string, MigrationFactory> = {
  "0001_accounts": m0001,
  "0002_vectors": m0002,
  "0003_catalog": m0003,
  "0004_jobs_webhooks": m0004,
  "0005_security_team": m0005,
  "0006_billing": m0006,
  "0007_search_history": m0007,
  "0008_feedback_widget": m0008,
  "0009_assistant": m0009,
  "0010_assistant_chat": m0010,
  "0011_assistant_storefront": m0011,
  "0014_hardening": m0014,
  "0017_image_store": m0017,
  "0018_lexical_index": m0018,
  "0019_lexical_versions": m0019,
  "0020_brand_filter_index": m0020,
  "0021_vector_filter_indexes": m0021,
  "0022_filter_index_lists": m0022,
  "0023_search_vocabulary": m0023,
  "0024_drop_trigram_index": m0024,
  "0025_job_turns": m0025,
  "0026_product_availability": m0026,
  "0027_search_rules": m0027,
  "0028_bulk_actions": m0028,
  "0029_assistant_vocabulary": m0029,
  "0030_filter_index_graphs": m0030,
  "0031_copies_apart": m0031,
  "0032_copies_apart_planned": m0032,
  "0033_lexical_words": m0033,
  "0034_filter_indexes_with_ids": m0034,
  "0035_fts_usermerge": m0035,
};
