// Revoked token ids, kept until the token would have expired anyway. The database is the
// shared record, so a revocation holds across processes.
import type { Clock } from "../clock.js";
import type { Database } from "../db/index.js";

export interface RevokedTokensTable {
  jti: string;
  /** When the token can no longer be refreshed (its expiry + the refresh grace); pruned after. */
  expires_at: number;
}

declare module "../db/types.js" {
  interface Tables {
    revoked_tokens: RevokedTokensTable;
  }
}

export interface RevocationStore {
  /** Revokes `jti`; false when it was already revoked (so two refreshes of one token cannot both win). */
  revoke(jti: string, expiresAtMs: number): Promise<boolean>;
  isRevoked(jti: string): Promise<boolean>;
  /** Drops entries whose tokens have expired. */
  prune(): Promise<number>;
}

export function createRevocationStore(database: Database, clock: Clock): RevocationStore {
  const { db } = database;
  return {
    async revoke(jti, expiresAtMs) {
      const res = await db
        .insertInto("revoked_tokens")
        .values({ jti, expires_at: expiresAtMs })
        .onConflict((oc) => oc.column("jti").doNothing())
        .executeTakeFirst();
      return Number(res.numInsertedOrUpdatedRows ?? 0) > 0;
    },
    async isRevoked(jti) {
      const row = await db.selectFrom("revoked_tokens").select("jti").where("jti", "=", jti).executeTakeFirst();
      return row !== undefined;
    },
    async prune() {
      const res = await db.deleteFrom("revoked_tokens").where("expires_at", "<", clock.now()).executeTakeFirst();
      return Number(res.numDeletedRows);
    },
  };
}
