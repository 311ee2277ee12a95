// Hardening (issue 17):
//   - users.totp_last_step: the last TOTP time-step that verified, so a code verifies once;
//   - revocations are kept until the token can no longer be refreshed (expiry + 5 min grace):
//     rows written before this migration are extended by the grace;
//   - secrets still in clear are sealed with the connector key (src/platform/secrets.ts):
//     users.totp_secret, webhooks.secret, webhook_deliveries.secret, bulk_jobs.callback_secret.
import type { MigrationDb, MigrationFactory } from "./types.js";
import { isSealed } from "../../platform/secrets.js";
import { secretAad } from "../sealed-columns.js";

const REFRESH_GRACE_MS = 300_000;

/** Each sealed column: table, key column, secret column, and the AAD of a row. */
const SEALED = [
  { table: "users", key: "id", column: "totp_secret", aad: secretAad.totp },
  { table: "webhooks", key: "id", column: "secret", aad: secretAad.webhook },
  { table: "webhook_deliveries", key: "id", column: "secret", aad: secretAad.delivery },
  { table: "bulk_jobs", key: "job_id", column: "callback_secret", aad: secretAad.callback },
] as const;

const migration: MigrationFactory = (types) => ({
  async up(db: MigrationDb) {
    await db.schema.alterTable("users").addColumn("totp_last_step", "bigint").execute();
    await db
      .updateTable("revoked_tokens")
      .set((eb) => ({ expires_at: eb("expires_at", "+", REFRESH_GRACE_MS) }))
      .execute();

    for (const { table, key, column, aad } of SEALED) {
      const rows = (await db.selectFrom(table).select([key, column]).where(column, "is not", null).execute()) as Record<string, string>[];
      const clear = rows.filter((r) => !isSealed(r[column]!));
      if (clear.length === 0) continue;
      if (!types.secrets) {
        throw new Error(
          `${clear.length} ${table}.${column} values are in clear and no connector key was given to seal them; start the server once to run this migration.`,
        );
      }
      for (const row of clear) {
        await db
          .updateTable(table)
          .set({ [column]: types.secrets.seal(row[column]!, aad(row[key]!)) })
          .where(key, "=", row[key]!)
          .execute();
      }
    }
  },
});

export default migration;
