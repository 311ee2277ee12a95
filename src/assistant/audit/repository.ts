// The admin audit trail of the Assistant API. storeId first on every method.
import type { Selectable } from "kysely";
import type { Executor } from "../../platform/db/index.js";
import type { AssistantAuditEventsTable } from "../../db/schema.js";

export type AuditRow = Selectable<AssistantAuditEventsTable>;

export class AuditRepository {
  constructor(private readonly db: Executor) {}

  async insert(storeId: string, row: Omit<AuditRow, "store_id">): Promise<void> {
    await this.db
      .insertInto("assistant_audit_events")
      .values({ ...row, store_id: storeId })
      .execute();
  }

  /** Newest first; `before` continues after the event (created_at, id) of a previous page. */
  list(storeId: string, limit: number, before?: { createdAt: number; id: string }, operation?: string): Promise<AuditRow[]> {
    let q = this.db.selectFrom("assistant_audit_events").selectAll().where("store_id", "=", storeId);
    if (operation) q = q.where("operation", "=", operation);
    if (before) {
      q = q.where((eb) =>
        eb.or([eb("created_at", "<", before.createdAt), eb.and([eb("created_at", "=", before.createdAt), eb("id", "<", before.id)])]),
      );
    }
    return q.orderBy("created_at", "desc").orderBy("id", "desc").limit(limit).execute();
  }
}
