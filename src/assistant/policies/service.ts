// Store policies as versioned concepts: PUT stores a new concept_version whenever any field
// differs from the newest version (an identical PUT changes nothing and returns that version).
// Answers use the newest version of a concept only when it is published.
import type { AppContext } from "../../context/context.js";
import { AppError } from "../../platform/errors/catalogue.js";
import type { PoliciesRepository, PolicyVersionRow } from "./repository.js";
import { iso } from "../../platform/clock.js";
import type { PolicyInput, PolicyView } from "./schemas.js";

export function policyView(row: PolicyVersionRow): PolicyView {
  return {
    concept_id: row.concept_id,
    concept_version: row.version,
    handle: row.handle,
    title: row.title,
    body_markdown: row.body_markdown,
    locale: row.locale,
    published: row.published === 1,
    updated_at: iso(row.created_at),
  };
}

export class PoliciesService {
  constructor(
    private readonly ctx: AppContext,
    private readonly repo: PoliciesRepository,
  ) {}

  async put(
    storeId: string,
    conceptId: string,
    input: PolicyInput,
    actor: string | null,
  ): Promise<{ policy: PolicyView; changed: boolean }> {
    // Two concurrent PUTs of one concept race for the next version number; the loser re-reads
    // and compares against the winner's version (so neither change is lost nor turned into a 500).
    for (let attempt = 0; ; attempt++) {
      const latest = await this.repo.latest(storeId, conceptId);
      if (latest) {
        const current = policyView(latest);
        const same = (Object.keys(input) as Array<keyof PolicyInput>).every((k) => current[k] === input[k]);
        if (same) return { policy: current, changed: false };
      }
      // A handle names one concept within a store and locale.
      const clash = (await this.repo.latestAll(storeId)).find(
        (r) => r.concept_id !== conceptId && r.handle === input.handle && r.locale === input.locale,
      );
      if (clash)
        throw new AppError("conflict", `The handle "${input.handle}" is already used by the concept "${clash.concept_id}".`, {
          concept_id: clash.concept_id,
        });
      const row: PolicyVersionRow = {
        store_id: storeId,
        concept_id: conceptId,
        version: latest ? latest.version + 1 : 1,
        handle: input.handle,
        title: input.title,
        body_markdown: input.body_markdown,
        locale: input.locale,
        published: input.published ? 1 : 0,
        created_by: actor,
        created_at: this.ctx.clock.now(),
      };
      if (await this.repo.insert(storeId, row)) return { policy: policyView(row), changed: true };
      if (attempt >= 8) throw new AppError("conflict", "The policy is being changed by several requests at once; try again.");
    }
  }

  async list(storeId: string): Promise<PolicyView[]> {
    return (await this.repo.latestAll(storeId)).map(policyView);
  }

  /** Every version of a policy, newest first; 404 for a concept the store does not have. */
  async versions(storeId: string, conceptId: string): Promise<PolicyView[]> {
    const rows = await this.repo.versions(storeId, conceptId);
    if (rows.length === 0) throw new AppError("not_found", `No policy "${conceptId}".`);
    return rows.map(policyView);
  }
}
