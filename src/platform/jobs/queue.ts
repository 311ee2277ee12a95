// A durable job queue on the application database (the `jobs` table). Jobs are enqueued inside
// the caller's transaction, claimed one at a time with a lease (PostgreSQL: FOR UPDATE SKIP
// LOCKED, so any number of workers claim each job exactly once; SQLite: one atomic UPDATE …
// RETURNING), and the lease is renewed while the handler runs. A process killed mid-job stops
// renewing; once the lease lapses another worker (or the restarted process) claims the job again.
// Handlers must therefore be idempotent: a job may run more than once.
//
// Fairness between stores:
//   - one store's jobs never fill every slot of a process: it holds at most max(1, concurrency − 1)
//     of them, so with two or more slots another store's job starts at once;
//   - over all processes a store runs at most `perStore` jobs (counted from the lease-holding rows;
//     on PostgreSQL claims take a transaction-scoped advisory lock, so they see each other);
//   - a claim takes the store running the fewest jobs, then the store served least recently (its
//     latest `claimed_at`: round-robin between stores), then the job waiting longest;
//   - a handler that has run for `sliceMs` while another store's job waits (JobContext.turnOver)
//     returns "yield": the job goes to the back of the queue without counting an attempt.
import { sql } from "kysely";
import type { Clock } from "../clock.js";
import type { Database, Executor } from "../db/index.js";
import { uuid } from "../ids.js";
import { messageOf } from "../errors/catalogue.js";
import type { Generated, Selectable } from "kysely";

export type JobStatus = "queued" | "running" | "completed" | "failed";

export interface JobsTable {
  id: string;
  store_id: string;
  kind: string;
  payload: string;
  status: JobStatus;
  attempts: Generated<number>;
  run_after: number;
  locked_by: string | null;
  locked_until: number | null;
  error: string | null;
  created_at: number;
  updated_at: number;
  finished_at: number | null;
  /** When a worker last claimed it (migration 0025): the fair order's "served least recently". */
  claimed_at: Generated<number | null>;
}

declare module "../db/types.js" {
  interface Tables {
    jobs: JobsTable;
  }
}

export type JobRow = Selectable<JobsTable>;

export interface JobContext<P> {
  id: string;
  storeId: string;
  payload: P;
  attempt: number;
  /** Aborted when the queue stops; long handlers check it between units of work. */
  signal: AbortSignal;
  /**
   * Aborted once this run has lasted the queue's time slice while another store has a job waiting
   * that it may run: the handler should start nothing new, finish what is in flight and return "yield".
   */
  turnOver: AbortSignal;
}

export interface JobHandler<P = unknown> {
  kind: string;
  /** Attempts before the job is marked failed. */
  maxAttempts?: number;
  /** Resolves when the job is done, or with "yield" to be continued later (see turnOver). */
  // eslint-disable-next-line @typescript-eslint/no-invalid-void-type -- handlers that finish resolve with nothing (async functions), "yield" is the one outcome they name
  run(job: JobContext<P>): Promise<void | "yield">;
  /** Called once when the job has failed for good. */
  onFailed?(job: JobContext<P>, error: Error): Promise<void>;
}

export interface QueueOptions {
  instanceId?: string;
  leaseMs?: number;
  pollMs?: number;
  /** Jobs run at once by this process. */
  concurrency?: number;
  /** Jobs of one store running at once over every worker process (default 4). */
  perStore?: number;
  /** How long a job runs before it yields its slot to a waiting store's job (default 30 s). */
  sliceMs?: number;
  onError?: (error: unknown, job: JobRow) => void;
}

const retryDelayMs = (attempt: number) => Math.min(60_000, 1000 * 2 ** (attempt - 1));

/** The advisory lock PostgreSQL claims hold for their transaction, per schema (as the vector index's locks). */
const CLAIM_LOCK = ".shopsight:jobs-claim";

/** How often a job past its slice looks for a waiting store (a query each time). */
const YIELD_CHECK_MS = 1000;

export class JobQueue {
  readonly instanceId: string;
  private readonly leaseMs: number;
  private readonly pollMs: number;
  private readonly concurrency: number;
  private readonly perStore: number;
  private readonly perStoreHere: number;
  private readonly sliceMs: number;
  /** Jobs this process runs, per store (the loop's, not drain's). */
  private readonly runningHere = new Map<string, number>();
  private readonly handlers = new Map<string, JobHandler>();
  private readonly running = new Set<Promise<void>>();
  private timer: NodeJS.Timeout | undefined;
  private stopping = new AbortController();
  private started = false;
  private wake: (() => void) | undefined;

  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
    private readonly options: QueueOptions = {},
  ) {
    this.instanceId = options.instanceId ?? uuid();
    this.leaseMs = options.leaseMs ?? 30_000;
    this.pollMs = options.pollMs ?? 250;
    this.concurrency = options.concurrency ?? 2;
    this.perStore = options.perStore ?? 4;
    this.perStoreHere = Math.max(1, this.concurrency - 1);
    this.sliceMs = options.sliceMs ?? 30_000;
  }

  /** Registers the handler of one job kind; `P` types its payload where it is written (`register<{ n: number }>({…})`). */
  register<P>(handler: JobHandler<P>): void {
    this.handlers.set(handler.kind, handler);
  }

  /** Adds a job inside `tx` (so it exists exactly when the caller's change commits). */
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters -- P checks the payload against its handler's type where the job is written
  async enqueue<P>(tx: Executor, storeId: string, kind: string, payload: P, id = uuid()): Promise<string> {
    const now = this.clock.now();
    await tx
      .insertInto("jobs")
      .values({
        id,
        store_id: storeId,
        kind,
        payload: JSON.stringify(payload),
        status: "queued",
        run_after: now,
        locked_by: null,
        locked_until: null,
        error: null,
        created_at: now,
        updated_at: now,
        finished_at: null,
      })
      .execute();
    return id;
  }

  /**
   * Embedded (SQLite) mode runs one process, so at start every job still marked running was
   * interrupted by a crash: make it claimable at once instead of waiting for its lease to lapse.
   */
  async recoverInterrupted(): Promise<number> {
    if (this.database.dialect !== "sqlite") return 0;
    const res = await this.database.db
      .updateTable("jobs")
      .set({ status: "queued", locked_by: null, locked_until: null })
      .where("status", "=", "running")
      .executeTakeFirst();
    return Number(res.numUpdatedRows);
  }

  /**
   * Puts a job this instance runs back in the queue at once (a handler interrupted by stop() that
   * left its remaining work for later), so the next start or another worker claims it without
   * waiting for the lease to lapse.
   */
  async release(jobId: string, options: { yielded?: boolean } = {}): Promise<void> {
    const now = this.clock.now();
    await this.database.db
      .updateTable("jobs")
      .set({
        status: "queued",
        locked_by: null,
        locked_until: null,
        updated_at: now,
        // A job that yielded its slot goes to the back of the queue, and its run was no attempt.
        ...(options.yielded ? { run_after: now, attempts: sql<number>`attempts - 1` } : {}),
      })
      .where("id", "=", jobId)
      .where("status", "=", "running")
      .where("locked_by", "=", this.instanceId)
      .execute();
  }

  /** Tells an idle worker loop to look for work now (after a commit that enqueued a job). */
  poke(): void {
    this.wake?.();
  }

  /**
   * The jobs of `j`'s store that hold a live lease: what the per-store cap and the fair order read
   * (the jobs_claim_idx index on (status, run_after) finds the few running rows).
   */
  private runningOfStore(now: number) {
    return sql<number>`(SELECT count(*) FROM jobs r WHERE r.store_id = j.store_id AND r.status = 'running' AND r.locked_until >= ${now})`;
  }

  /** When `j`'s store last had a job claimed (-1: never, so first), read through jobs_store_claimed_idx. */
  private lastServedOfStore() {
    return sql<number>`(SELECT coalesce(max(c.claimed_at), -1) FROM jobs c WHERE c.store_id = j.store_id)`;
  }

  /** Due jobs of this queue's kinds whose store is under its running caps (all processes, and this one). */
  private dueJobs(executor: Executor, now: number) {
    const due = executor
      .selectFrom("jobs as j")
      .where("j.kind", "in", [...this.handlers.keys()])
      .where((eb) =>
        eb.or([
          eb.and([eb("j.status", "=", "queued"), eb("j.run_after", "<=", now)]),
          eb.and([eb("j.status", "=", "running"), eb("j.locked_until", "<", now)]),
        ]),
      )
      .where(this.runningOfStore(now), "<", this.perStore);
    // Stores holding all the slots this process lets one store have are not due here.
    const full = [...this.runningHere].filter(([, n]) => n >= this.perStoreHere).map(([store]) => store);
    return full.length > 0 ? due.where("j.store_id", "not in", full) : due;
  }

  /**
   * Claims one due job (queued, or running with a lapsed lease), or returns undefined: from the
   * store running the fewest jobs, under its cap, then the job waiting longest.
   */
  async claim(): Promise<JobRow | undefined> {
    if (this.handlers.size === 0) return undefined;
    const pickIn = async (tx: Executor) => {
      const now = this.clock.now();
      const due = this.dueJobs(tx, now)
        .select("j.id")
        .orderBy(this.runningOfStore(now))
        .orderBy(this.lastServedOfStore())
        .orderBy("j.run_after")
        .orderBy("j.id")
        .limit(1);
      return tx
        .updateTable("jobs")
        .set({
          status: "running",
          locked_by: this.instanceId,
          locked_until: now + this.leaseMs,
          attempts: sql`attempts + 1`,
          updated_at: now,
          claimed_at: now,
        })
        .where("id", "=", this.database.dialect === "postgres" ? due.forUpdate().skipLocked() : due)
        .returningAll()
        .executeTakeFirst();
    };
    // SQLite: one process, and the UPDATE is one atomic statement. PostgreSQL: claims from every
    // process take turns, so the running counts they read are never stale.
    if (this.database.dialect !== "postgres") return pickIn(this.database.db);
    return this.database.transaction(async (tx) => {
      await sql`SELECT pg_advisory_xact_lock(hashtext(current_schema() || ${CLAIM_LOCK}))`.execute(tx);
      return pickIn(tx);
    });
  }

  /** Whether a store other than `storeId` has a due job this process may run now (under its caps). */
  async othersWaiting(storeId: string): Promise<boolean> {
    const row = await this.dueJobs(this.database.db, this.clock.now())
      .select("j.id")
      .where("j.store_id", "<>", storeId)
      .limit(1)
      .executeTakeFirst();
    return row !== undefined;
  }

  /**
   * Unfinished jobs per (kind, status) and the age of the oldest queued job per kind: figures
   * /metrics reports (read at scrape time).
   */
  async snapshot(): Promise<{
    counts: { kind: string; status: string; count: number }[];
    oldest: { kind: string; ageSeconds: number }[];
  }> {
    const db = this.database.db;
    const now = this.clock.now();
    const counts = await db
      .selectFrom("jobs")
      .select(["kind", "status", (eb) => eb.fn.countAll<number>().as("n"), (eb) => eb.fn.min("created_at").as("oldest")])
      .where("status", "in", ["queued", "running"])
      .groupBy(["kind", "status"])
      .execute();
    return {
      counts: counts.map((r) => ({ kind: r.kind, status: r.status, count: r.n })),
      oldest: counts.filter((r) => r.status === "queued").map((r) => ({ kind: r.kind, ageSeconds: Math.max(0, (now - r.oldest) / 1000) })),
    };
  }

  /** Claims and runs due jobs until none is left; for tests and the CLI. Returns how many ran. */
  async drain(): Promise<number> {
    let n = 0;
    for (let job = await this.claim(); job; job = await this.claim()) {
      await this.execute(job);
      n += 1;
    }
    return n;
  }

  start(): void {
    if (this.started) return;
    this.started = true;
    this.stopping = new AbortController();
    // A function, not the property: the flag changes while this loop awaits.
    const stopped = () => this.stopping.signal.aborted;
    const loop = async () => {
      while (!stopped()) {
        while (this.running.size < this.concurrency && !stopped()) {
          let job: JobRow | undefined;
          try {
            job = await this.claim();
          } catch (error) {
            this.options.onError?.(error, undefined as unknown as JobRow);
          }
          if (!job) break;
          const store = job.store_id;
          this.runningHere.set(store, (this.runningHere.get(store) ?? 0) + 1);
          const p = this.execute(job).finally(() => {
            const left = (this.runningHere.get(store) ?? 1) - 1;
            if (left > 0) this.runningHere.set(store, left);
            else this.runningHere.delete(store);
            this.running.delete(p);
            this.wake?.();
          });
          this.running.add(p);
        }
        await new Promise<void>((resolve) => {
          this.wake = resolve;
          this.timer = setTimeout(resolve, this.pollMs);
        });
        clearTimeout(this.timer);
        this.wake = undefined;
      }
    };
    void loop();
  }

  /** Stops claiming, signals running handlers and waits for them to settle. */
  async stop(): Promise<void> {
    this.started = false;
    this.stopping.abort();
    this.wake?.();
    await Promise.allSettled([...this.running]);
  }

  private async execute(job: JobRow): Promise<void> {
    const handler = this.handlers.get(job.kind);
    if (!handler) return;
    const turn = new AbortController();
    const ctx: JobContext<unknown> = {
      id: job.id,
      storeId: job.store_id,
      payload: JSON.parse(job.payload),
      attempt: job.attempts,
      signal: this.stopping.signal,
      turnOver: turn.signal,
    };
    const startedAt = this.clock.now();
    const turnWatch = setInterval(() => {
      if (turn.signal.aborted || this.clock.now() - startedAt < this.sliceMs) return;
      void this.othersWaiting(job.store_id)
        .then((waiting) => waiting && turn.abort())
        .catch(() => undefined);
    }, YIELD_CHECK_MS);
    const heartbeat = setInterval(
      () => {
        void this.database.db
          .updateTable("jobs")
          .set({ locked_until: this.clock.now() + this.leaseMs })
          .where("id", "=", job.id)
          .where("locked_by", "=", this.instanceId)
          .execute()
          .catch(() => undefined);
      },
      Math.max(50, Math.floor(this.leaseMs / 3)),
    );
    try {
      const outcome = await handler.run(ctx);
      if (this.stopping.signal.aborted) return; // interrupted: leave it for the next claim
      if (outcome === "yield") await this.release(job.id, { yielded: true });
      else await this.finish(job.id, "completed", null);
    } catch (error) {
      if (this.stopping.signal.aborted) return;
      this.options.onError?.(error, job);
      const max = handler.maxAttempts ?? 5;
      if (job.attempts >= max) {
        await this.finish(job.id, "failed", messageOf(error));
        await handler.onFailed?.(ctx, error as Error);
      } else {
        const now = this.clock.now();
        await this.database.db
          .updateTable("jobs")
          .set({
            status: "queued",
            run_after: now + retryDelayMs(job.attempts),
            locked_by: null,
            locked_until: null,
            updated_at: now,
            error: messageOf(error),
          })
          .where("id", "=", job.id)
          .execute();
      }
    } finally {
      clearInterval(heartbeat);
      clearInterval(turnWatch);
    }
  }

  private async finish(id: string, status: "completed" | "failed", error: string | null): Promise<void> {
    const now = this.clock.now();
    await this.database.db
      .updateTable("jobs")
      .set({ status, error, locked_by: null, locked_until: null, updated_at: now, finished_at: now })
      .where("id", "=", id)
      .execute();
  }
}
