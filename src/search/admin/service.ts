// Platform administration for super admins (spec: is_super_admin "platform-admin scope"; login
// redirect `/admin`): the list of every store and a plan override that bypasses checkout.
// The override goes through BillingService.applyPlanChange, the one path that changes a plan,
// recorded with plan_source "admin_override".
import { AppError } from "../../platform/errors/catalogue.js";
import { BillingService } from "../billing/service.js";
import { planOf, type PlanName } from "../../tenancy/plans.js";
import type { AdminRepository } from "./repository.js";
import type { AdminStore, PlanResponse } from "./schemas.js";
import type { Static } from "typebox";
import { iso } from "../../platform/clock.js";

export type AdminStoreView = Static<typeof AdminStore>;
export type PlanOverrideView = Static<typeof PlanResponse>;

const encodeCursor = (c: { createdAt: number; id: string }) => Buffer.from(JSON.stringify([c.createdAt, c.id])).toString("base64url");

function decodeCursor(cursor: string): { createdAt: number; id: string } {
  try {
    const value = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as unknown;
    if (Array.isArray(value) && value.length === 2 && Number.isSafeInteger(value[0]) && typeof value[1] === "string") {
      return { createdAt: value[0] as number, id: value[1] };
    }
  } catch {
    // fall through
  }
  throw new AppError("validation_failed", "The cursor is not one this API returned.", {
    errors: [{ field: "cursor", message: "is invalid" }],
  });
}

export class AdminService {
  private readonly repo: AdminRepository;
  private readonly billing: BillingService;

  constructor(deps: { repo: AdminRepository; billing: BillingService }) {
    this.repo = deps.repo;
    this.billing = deps.billing;
  }

  async listStores(options: { limit: number; cursor?: string | undefined; q?: string | undefined }) {
    const after = options.cursor ? decodeCursor(options.cursor) : undefined;
    const search = options.q?.trim() || undefined;
    const page = await this.repo.listStores({ limit: options.limit + 1, ...(after ? { after } : {}), ...(search ? { search } : {}) });
    const rows = page.rows.slice(0, options.limit);
    const owners = await this.repo.ownersOf(rows.map((r) => r.id));
    const last = rows[rows.length - 1];
    return {
      stores: rows.map((r): AdminStoreView => {
        const plan = planOf(r.plan);
        return {
          client_id: r.id,
          slug: r.slug,
          name: r.name,
          status: r.status,
          plan_name: plan.plan_name,
          max_products: plan.max_products,
          requests_per_minute: plan.requests_per_minute,
          products_count: r.products_count,
          members_count: r.members_count,
          owners: owners.get(r.id) ?? [],
          created_at: iso(r.created_at),
        };
      }),
      next_cursor: page.rows.length > options.limit && last ? encodeCursor({ createdAt: last.created_at, id: last.id }) : null,
      total: page.total,
    };
  }

  async overridePlan(slug: string, planName: PlanName): Promise<PlanOverrideView> {
    const store = await this.repo.findStoreBySlug(slug);
    if (!store) throw new AppError("not_found", `No store with slug "${slug}".`, { slug });
    const change = await this.billing.applyPlanChange(store.id, planName, "admin_override");
    return {
      client_id: store.id,
      slug: store.slug,
      name: store.name,
      plan_name: change.current,
      previous_plan: change.previous,
      changed: change.changed,
    };
  }
}
