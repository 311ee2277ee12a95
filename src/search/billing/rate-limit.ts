// Plan rate limits (spec: Billing plan table; Errors 429 rate_limit_exceeded): every
// authenticated /v1/* call of a store counts against its plan's requests per minute (free 10,
// basic 60, premium 200, enterprise unlimited), in one fixed one-minute window per store.
// In-process for the embedded default; through Redis (REDIS_URL) so several processes enforce
// one budget. The plan is read per request, so a plan change applies at once.
import type { FastifyRequest } from "fastify";
import type { AppContext } from "../../context/context.js";
import { AppError } from "../../platform/errors/catalogue.js";
import type { Limiter } from "../../platform/rate-limit.js";
import { PLANS, type Plan } from "../../tenancy/plans.js";

export function createPlanRateLimit(ctx: AppContext) {
  const limiters = new Map<Plan["plan_name"], Limiter>();
  for (const plan of Object.values(PLANS)) {
    if (plan.requests_per_minute !== null) {
      limiters.set(plan.plan_name, ctx.limiters({ name: `plan-${plan.plan_name}`, points: plan.requests_per_minute, durationSec: 60 }));
    }
  }
  /** onRequest hook, after authentication: refuses the call past the plan's budget. */
  return async function planRateLimit(request: FastifyRequest): Promise<void> {
    const store = request.store;
    if (!store || !request.url.startsWith("/v1/")) return;
    const limiter = limiters.get(store.plan.plan_name);
    if (!limiter) return;
    const result = await limiter.consume(store.id);
    if (!result.allowed) {
      throw new AppError(
        "rate_limit_exceeded",
        `The ${store.plan.plan_name} plan allows ${limiter.points} requests per minute.`,
        { limit: limiter.points, window_seconds: 60, retry_after: result.retryAfterSec, plan: store.plan.plan_name },
        { "retry-after": String(result.retryAfterSec) },
      );
    }
  };
}
