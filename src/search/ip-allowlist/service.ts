// The store's IP allow-list (spec: Security records "IP whitelist"; issue 7).
// Entries are single IPv4/IPv6 addresses or CIDR ranges, kept in canonical form. While the list
// is non-empty, machine grants (/oauth/token and their tokens) and API keys of the store are
// refused from any other client address with 403 ip_not_allowed. User logins are not: see docs/api-search.md, "IP allow-list".
import type { AppContext } from "../../context/context.js";
import { AppError } from "../../platform/errors/catalogue.js";
import { prefixedId } from "../../platform/ids.js";
import { formatRange, parseRange } from "../../tenancy/security/ip.js";
import { SecurityRepository, type AllowlistRow } from "../../tenancy/security/repository.js";
import { ipAllowedForStore } from "../../tenancy/security/allowlist.js";
import { iso } from "../../platform/clock.js";

export const ALLOWLIST_MAX_ENTRIES = 100;

export function allowlistView(row: AllowlistRow) {
  return {
    id: row.id,
    ip_address: row.cidr,
    description: row.description,
    created_at: iso(row.created_at),
  };
}

export class IpAllowlistService {
  private readonly repo: SecurityRepository;

  constructor(
    private readonly ctx: AppContext,
    deps: { repo: SecurityRepository },
  ) {
    this.repo = deps.repo;
  }

  async add(storeId: string, actorUserId: string | null, input: { ip_address: string; description?: string | undefined }) {
    const parsed = parseRange(input.ip_address);
    if (!parsed.ok) {
      throw new AppError("validation_failed", `ip_address ${parsed.reason}.`, {
        errors: [{ field: "ip_address", message: parsed.reason }],
      });
    }
    const cidr = formatRange(parsed.range);
    const existing = await this.repo.listAllowlist(storeId);
    if (existing.some((e) => e.cidr === cidr)) {
      throw new AppError("conflict", `${cidr} is already on the allow-list.`, { ip_address: cidr });
    }
    if (existing.length >= ALLOWLIST_MAX_ENTRIES) {
      throw new AppError("unprocessable", `The allow-list holds at most ${ALLOWLIST_MAX_ENTRIES} entries; use CIDR ranges.`);
    }
    const row = {
      id: prefixedId("ip"),
      cidr,
      description: (input.description ?? "").trim(),
      created_by: actorUserId,
      created_at: this.ctx.clock.now(),
    };
    await this.repo.addAllowlistEntry(storeId, row);
    return allowlistView({ ...row, store_id: storeId });
  }

  async list(storeId: string) {
    return (await this.repo.listAllowlist(storeId)).map(allowlistView);
  }

  async remove(storeId: string, entryId: string) {
    if (!(await this.repo.deleteAllowlistEntry(storeId, entryId))) {
      throw new AppError("not_found", `No allow-list entry ${entryId} in this store.`);
    }
    return { deleted: true as const, id: entryId };
  }

  /** Whether machine credentials of the store may be used from `ip` now. */
  isAllowed(storeId: string, ip: string): Promise<boolean> {
    return ipAllowedForStore(this.repo, storeId, ip);
  }
}
