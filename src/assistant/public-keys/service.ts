// Store public keys: the widget's only credential. Public by nature (they sit in page HTML), but
// kept as SHA-256 hashes at rest like every other key; the full key is shown once, on creation.
import type { AppContext } from "../../context/context.js";
import { AppError } from "../../platform/errors/catalogue.js";
import { prefixedId, randomSecret, sha256 } from "../../platform/ids.js";
import type { PublicKeyRow, PublicKeysRepository } from "./repository.js";
import { iso } from "../../platform/clock.js";
import type { PublicKeyView } from "./schemas.js";

export const PUBLIC_KEY_PREFIX = "store_pub_";
/** Active keys a store may hold at once. */
export const PUBLIC_KEY_MAX_ACTIVE = 20;

export function publicKeyView(row: PublicKeyRow): PublicKeyView {
  return {
    id: row.id,
    name: row.name,
    key_prefix: row.key_prefix,
    status: row.revoked_at === null ? "active" : "revoked",
    created_at: iso(row.created_at),
    revoked_at: iso(row.revoked_at),
  };
}

export class PublicKeysService {
  constructor(
    private readonly ctx: AppContext,
    private readonly repo: PublicKeysRepository,
  ) {}

  async create(storeId: string, name: string, createdBy: string | null): Promise<PublicKeyView & { key: string }> {
    const active = (await this.repo.list(storeId)).filter((k) => k.revoked_at === null).length;
    if (active >= PUBLIC_KEY_MAX_ACTIVE) {
      throw new AppError("conflict", `A store may hold at most ${PUBLIC_KEY_MAX_ACTIVE} active public keys; revoke one first.`);
    }
    const key = randomSecret(PUBLIC_KEY_PREFIX, 24);
    const row: PublicKeyRow = {
      id: prefixedId("spk"),
      store_id: storeId,
      name,
      key_hash: sha256(key),
      key_prefix: key.slice(0, PUBLIC_KEY_PREFIX.length + 6),
      created_by: createdBy,
      created_at: this.ctx.clock.now(),
      revoked_at: null,
    };
    await this.repo.insert(storeId, row);
    return { ...publicKeyView(row), key };
  }

  async list(storeId: string): Promise<PublicKeyView[]> {
    return (await this.repo.list(storeId)).map(publicKeyView);
  }

  /** Revokes the key; sessions already minted with it keep running until they expire or are revoked. */
  async revoke(storeId: string, id: string): Promise<void> {
    const row = await this.repo.find(storeId, id);
    if (!row) throw new AppError("not_found", "No such public key in this store.");
    await this.repo.revoke(storeId, id, this.ctx.clock.now());
  }

  /** The active key's row, or 401. */
  async resolve(key: string): Promise<PublicKeyRow> {
    const row = key.startsWith(PUBLIC_KEY_PREFIX) ? await this.repo.findByHash(sha256(key)) : undefined;
    if (!row || row.revoked_at !== null) throw new AppError("unauthorized", "The store public key is invalid or has been revoked.");
    return row;
  }
}
