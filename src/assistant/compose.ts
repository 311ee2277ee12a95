// The Assistant API's composition root: every repository is built here once, every service once
// with its collaborators handed in (no service constructs another service or a repository it
// keeps). Services still take the process context (src/context/context.ts) for its adapters —
// clock, config, database transactions, limiters, concurrency, outbound fetch, model — which are
// built once there. A repository bound to an open transaction (`repo.with(tx)`, `new X(tx)`) is
// made inside that transaction.
//
//   ctx ─┬─ repositories (sessions, threads, public keys, policies, settings, audit, connections,
//        │                exchange, storefront carts/orders, the tenancy's stores)
//        ├─ settings, publicKeys, policies, audit, connections, exchange
//        ├─ sessions ← publicKeys
//        ├─ gateway ← catalog port (the Search API's), settings
//        ├─ knowledge ← settings (the grounding engine, built on the first question)
//        ├─ chat ← sessions, settings, knowledge, gateway, agent
//        ├─ catalog ← gateway
//        └─ guards ← sessions repository (the shopper-session lookup)
//
// src/serve.ts (the process role serving the APIs) calls composeAssistant once and hands the result
// to buildAssistantApp; tests do the same through test/support/harness.ts.
import type { AppContext } from "../context/context.js";
import { tenancyRepositories } from "../tenancy/compose.js";
import { agentFor, type TurnAgent } from "./agent/index.js";
import { AuditRepository } from "./audit/repository.js";
import { AuditService } from "./audit/service.js";
import { CatalogService } from "./catalog/service.js";
import { ChatService } from "./chat/service.js";
import { ConnectionsService } from "./connections/service.js";
import { ExchangeRepository } from "./exchange/repository.js";
import { ExchangeService } from "./exchange/service.js";
import { createGuards, type AssistantGuards } from "./http/auth.js";
import { createKnowledge } from "./knowledge/index.js";
import type { Knowledge } from "./knowledge/types.js";
import { PoliciesRepository } from "./policies/repository.js";
import { PoliciesService } from "./policies/service.js";
import { PublicKeysRepository } from "./public-keys/repository.js";
import { PublicKeysService } from "./public-keys/service.js";
import { SessionsRepository } from "./sessions/repository.js";
import { SessionsService } from "./sessions/service.js";
import { SettingsRepository } from "./settings/repository.js";
import { AssistantSettingsService } from "./settings/service.js";
import type { CatalogPort } from "../shared/catalog-port.js";
import { ConnectionsRepository } from "./storefront/connections-repository.js";
import { createStorefrontGateway } from "./storefront/index.js";
import { StorefrontRepository } from "./storefront/repository.js";
import type { StorefrontGateway } from "./storefront/types.js";
import { ChatRepository } from "./threads/repository.js";

/** What the Assistant API is built from besides the context. */
export interface AssistantComposeOptions {
  /** The store's own products (src/search/catalog/port.ts, built by composeSearch as services.catalog), the embedded catalogue. */
  catalog: CatalogPort;
  /** A knowledge engine in place of the grounding engine (tests). */
  knowledge?: Knowledge;
  /** An agent in place of the configured one (tests). Default: agentFor(ctx). */
  agent?: TurnAgent;
}

/** Every service of the Assistant API, each built once. */
export interface AssistantServices {
  guards: AssistantGuards;
  audit: AuditService;
  publicKeys: PublicKeysService;
  sessions: SessionsService;
  policies: PoliciesService;
  settings: AssistantSettingsService;
  gateway: StorefrontGateway;
  chat: ChatService;
  connections: ConnectionsService;
  catalog: CatalogService;
  exchange: ExchangeService;
}

export function composeAssistant(ctx: AppContext, options: AssistantComposeOptions): AssistantServices {
  const db = ctx.database.db;
  const tenancy = tenancyRepositories(db);
  const stores = tenancy.accounts;
  const sessionsRepo = new SessionsRepository(db);
  const threads = new ChatRepository(db);
  const connectionsRepo = new ConnectionsRepository(db);

  const settings = new AssistantSettingsService(ctx, new SettingsRepository(db));
  const publicKeys = new PublicKeysService(ctx, new PublicKeysRepository(db));
  const policiesRepo = new PoliciesRepository(db);
  const sessions = new SessionsService(ctx, { sessions: sessionsRepo, keys: publicKeys, stores, turns: threads });
  const gateway = createStorefrontGateway(ctx, {
    catalog: options.catalog,
    connections: connectionsRepo,
    settings,
    storefront: new StorefrontRepository(db, ctx.database.dialect),
  });
  const knowledge =
    options.knowledge ??
    onFirstUse(() =>
      createKnowledge(ctx, { policies: policiesRepo, settings, storeName: async (id) => (await stores.findStore(id))?.name }),
    );
  const agent = options.agent ?? agentFor(ctx);
  return {
    guards: createGuards(ctx, sessionsRepo, tenancy),
    audit: new AuditService(ctx, new AuditRepository(db)),
    publicKeys,
    sessions,
    policies: new PoliciesService(ctx, policiesRepo),
    settings,
    gateway,
    chat: new ChatService(ctx, { threads, sessions, stores, settings, knowledge, gateway, agent }),
    connections: new ConnectionsService(ctx, connectionsRepo),
    catalog: new CatalogService(gateway),
    exchange: new ExchangeService(ctx, { exchange: new ExchangeRepository(db), stores, sessions: sessionsRepo }),
  };
}

/**
 * The knowledge engine, built on its first question: building it starts loading the typo
 * corrector's word list, which a process that never chats (or a test app) should not pay for.
 */
export function onFirstUse(build: () => Knowledge): Knowledge {
  let engine: Knowledge | undefined;
  const get = (): Knowledge => (engine ??= build());
  return {
    classify: (...args) => get().classify(...args),
    answer: (...args) => get().answer(...args),
    ground: (...args) => get().ground(...args),
    phrase: (...args) => get().phrase(...args),
  };
}
