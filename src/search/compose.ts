// The Search API's composition root: every repository is created once here, and every service
// gets its collaborators (repositories, other services) as constructor parameters. No service or
// route constructs another service or repository; a service takes from the context (AppContext)
// only the adapters built once in src/context/context.ts (clock, config, database for
// transactions and read replicas, jobs, fetch, images, vectors, mailer, limiters).
// Each process role calls composeSearch once: src/serve.ts (api, worker, all) and src/cli.ts.
// Tests take their services from the composition of their test app (test/support/harness.ts).
import type { AppContext } from "../context/context.js";
import type { CatalogPort } from "../shared/catalog-port.js";
import { LexicalRepository } from "../lexical/repository.js";
import { tenancyRepositories, type TenancyRepositories } from "../tenancy/compose.js";
import { AccountsService } from "./accounts/service.js";
import { AdminRepository } from "./admin/repository.js";
import { AdminService } from "./admin/service.js";
import { AuthService } from "./auth/service.js";
import { BillingRepository } from "./billing/repository.js";
import { BillingService } from "./billing/service.js";
import { StripeGateway } from "./billing/stripe.js";
import { createUsageMeter, type UsageMeter } from "./billing/usage-meter.js";
import { CatalogRepository } from "./catalog/repository.js";
import { SearchCatalog } from "./catalog/port.js";
import { FeedbackRepository } from "./feedback/repository.js";
import { FeedbackService } from "./feedback/service.js";
import { BulkJobsRepository } from "./jobs/repository.js";
import { BulkJobsService } from "./jobs/service.js";
import { BulkActionsService } from "./jobs/actions.js";
import { DemoCatalogue } from "./products/demo.js";
import { Reindexer } from "./products/reindex.js";
import { ProductsRepository } from "./products/repository.js";
import { ProductsService } from "./products/service.js";
import { SearchRepository } from "./query/repository.js";
import { SearchService } from "./query/service.js";
import { ApiKeysService } from "./api-keys/service.js";
import { IpAllowlistService } from "./ip-allowlist/service.js";
import { SecurityOverviewService } from "./security/service.js";
import { TwoFactorService } from "./two-factor/service.js";
import { TeamRepository } from "./team/repository.js";
import { TeamService } from "./team/service.js";
import { UsersService } from "./users/service.js";
import { WebhooksRepository } from "./webhooks/repository.js";
import { WebhooksService } from "./webhooks/service.js";
import { RulesRepository } from "./rules/repository.js";
import { RulesService } from "./rules/service.js";
import { SynonymsRepository } from "./synonyms/repository.js";
import { SynonymsService } from "./synonyms/service.js";
import { WidgetKeysRepository } from "./widget/repository.js";
import { WidgetKeysService, WidgetSearchService } from "./widget/service.js";

/** The Search API's repositories over the context's primary database (one of each). */
export interface SearchRepositories extends TenancyRepositories {
  admin: AdminRepository;
  billing: BillingRepository;
  bulkJobs: BulkJobsRepository;
  catalog: CatalogRepository;
  feedback: FeedbackRepository;
  /** Product text index for writes (products, reindex). */
  lexical: LexicalRepository;
  /** Product text index for searches: rankings cached while the store's text is unchanged. */
  lexicalCached: LexicalRepository;
  products: ProductsRepository;
  search: SearchRepository;
  rules: RulesRepository;
  synonyms: SynonymsRepository;
  team: TeamRepository;
  webhooks: WebhooksRepository;
  widgetKeys: WidgetKeysRepository;
}

export interface SearchServices {
  repositories: SearchRepositories;
  accounts: AccountsService;
  admin: AdminService;
  apiKeys: ApiKeysService;
  auth: AuthService;
  billing: BillingService;
  /** Bulk delete and bulk update of a selection of products (jobs like bulk imports). */
  bulkActions: BulkActionsService;
  bulkJobs: BulkJobsService;
  /** The assistant's view of the catalogue (src/shared/catalog-port.ts). */
  catalog: CatalogPort;
  demo: DemoCatalogue;
  feedback: FeedbackService;
  ipAllowlist: IpAllowlistService;
  products: ProductsService;
  reindexer: Reindexer;
  /** Merchandising rules: CRUD, matching a query (cached per store), hit counts. */
  rules: RulesService;
  search: SearchService;
  securityOverview: SecurityOverviewService;
  stripe: StripeGateway;
  synonyms: SynonymsService;
  team: TeamService;
  twoFactor: TwoFactorService;
  /** Counts authenticated /v1/* calls per store; the Search API app installs its hooks. */
  usageMeter: UsageMeter;
  users: UsersService;
  webhooks: WebhooksService;
  widgetKeys: WidgetKeysService;
  widgetSearch: WidgetSearchService;
}

export function searchRepositories(ctx: AppContext): SearchRepositories {
  const { db, dialect } = ctx.database;
  const { minRows } = ctx.config.vectorFilterIndexes;
  return {
    ...tenancyRepositories(db),
    admin: new AdminRepository(db),
    billing: new BillingRepository(db),
    bulkJobs: new BulkJobsRepository(db, dialect),
    catalog: new CatalogRepository(db, dialect),
    feedback: new FeedbackRepository(db),
    lexical: new LexicalRepository(db, dialect),
    lexicalCached: new LexicalRepository(db, dialect, { cached: true, changeClock: () => ctx.database.changeClock() }),
    products: new ProductsRepository(db, dialect),
    search: new SearchRepository(db, dialect, undefined, minRows),
    rules: new RulesRepository(db),
    synonyms: new SynonymsRepository(db),
    team: new TeamRepository(db),
    webhooks: new WebhooksRepository(db),
    widgetKeys: new WidgetKeysRepository(db),
  };
}

/** Builds every Search API service once, each with its collaborators handed in. */
export function composeSearch(ctx: AppContext, repositories: SearchRepositories = searchRepositories(ctx)): SearchServices {
  const r = repositories;
  const stripe = new StripeGateway(ctx.config);
  const usageMeter = createUsageMeter(ctx, r.billing);
  // Counts still pending when the context closes without the app (CLI, worker) are written too.
  ctx.onClose(() => usageMeter.close());
  const billing = new BillingService(ctx, { repo: r.billing, gateway: stripe, meter: usageMeter });
  const webhooks = new WebhooksService(ctx, { repo: r.webhooks });
  const products = new ProductsService(ctx, { repo: r.products, lexical: r.lexical, accounts: r.accounts, webhooks });
  const bulkJobs = new BulkJobsService(ctx, { repo: r.bulkJobs, products, webhooks });
  const rules = new RulesService(ctx, { repo: r.rules });
  // Hit counts still pending when the context closes are written too.
  ctx.onClose(() => rules.flushHits());
  const search = new SearchService(ctx, { repo: r.search, products: r.products, lexical: r.lexicalCached, synonyms: r.synonyms, rules });
  return {
    repositories,
    accounts: new AccountsService(ctx, { repo: r.accounts }),
    admin: new AdminService({ repo: r.admin, billing }),
    apiKeys: new ApiKeysService(ctx, { repo: r.security }),
    auth: new AuthService(ctx, { repo: r.accounts, security: r.security }),
    billing,
    bulkActions: new BulkActionsService(ctx, { repo: r.bulkJobs, products, jobs: bulkJobs }),
    bulkJobs,
    catalog: new SearchCatalog(ctx, search, r.catalog, rules),
    demo: new DemoCatalogue(ctx),
    feedback: new FeedbackService(ctx, { repo: r.feedback, searches: r.search, products: r.products, rules }),
    ipAllowlist: new IpAllowlistService(ctx, { repo: r.security }),
    products,
    rules,
    reindexer: new Reindexer(ctx, { repo: r.products, text: r.lexical }),
    search,
    securityOverview: new SecurityOverviewService(ctx, { repo: r.security, accounts: r.accounts }),
    stripe,
    synonyms: new SynonymsService(ctx, { repo: r.synonyms }),
    team: new TeamService(ctx, { repo: r.team, accounts: r.accounts, users: r.users }),
    twoFactor: new TwoFactorService(ctx, { repo: r.accounts }),
    usageMeter,
    users: new UsersService(ctx, { repo: r.users, accounts: r.accounts, security: r.security }),
    webhooks,
    widgetKeys: new WidgetKeysService(ctx, { repo: r.widgetKeys, accounts: r.accounts }),
    widgetSearch: new WidgetSearchService(ctx, {
      search,
      products: r.products,
      lexical: r.lexical,
      feedback: r.feedback,
      widgetKeys: r.widgetKeys,
    }),
  };
}
