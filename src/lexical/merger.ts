// Merging of the full-text index's segments once writes pause (SQLite; migration 0035 says why:
// FTS5 writes a segment per transaction, and every query word is looked up in each segment).
// Every `quietMs` the merger looks at textChanges() (src/lexical/changes.ts): when it moved since
// the last look, writes are going on and it waits; at the first look that finds it still, it
// merges, `pages` pages a step with the event loop free between steps, until FTS5 has nothing left
// to merge or `maxSteps` are done (the rest at the next look). It also merges once after it
// starts (an index written by an earlier process). A failed step is reported to `onError` and
// the merge is tried again after the next change. Writes by other processes are merged after this
// process's next change or start; FTS5's own merging (four segments of a level) goes on meanwhile.
import { setImmediate as freeTheLoop } from "node:timers/promises";
import { textChanges } from "./changes.js";

export interface MergerOptions {
  /** How long the text must stay unchanged before merging (and the interval of the looks). */
  quietMs?: number;
  /** Leaf pages written per step at most (FTS5 'merge', N): a step holds the event loop and the write lock. */
  pages?: number;
  /** Steps per pause at most. */
  maxSteps?: number;
}

export class SegmentMerger {
  private readonly quietMs: number;
  private readonly pages: number;
  private readonly maxSteps: number;
  /** textChanges() at the last look; undefined before the first (so that the first look counts as a change). */
  private seen: number | undefined;
  private due = false;
  private stopped = false;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<number> | undefined;

  constructor(
    /** One merge step of at most `pages` pages: whether it merged anything (LexicalRepository.mergeSegments). */
    private readonly step: (pages: number) => Promise<boolean>,
    private readonly onError: (error: unknown) => void,
    options: MergerOptions = {},
  ) {
    this.quietMs = options.quietMs ?? 1000;
    this.pages = options.pages ?? 128;
    this.maxSteps = options.maxSteps ?? 64;
  }

  start(): void {
    this.stopped = false;
    this.timer = setInterval(() => void this.look(), this.quietMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.running;
  }

  /** One look (the interval's; tests call it): the merge it started, resolving to the steps that merged something, if it started one. */
  look(): Promise<number> | undefined {
    if (this.running) return undefined;
    const now = textChanges();
    if (now !== this.seen) {
      this.seen = now;
      this.due = true;
      return undefined;
    }
    if (!this.due) return undefined;
    this.due = false;
    const run = this.merge().finally(() => (this.running = undefined));
    this.running = run;
    return run;
  }

  private async merge(): Promise<number> {
    let merged = 0;
    try {
      while (merged < this.maxSteps && !this.stopped && (await this.step(this.pages))) {
        merged++;
        await freeTheLoop();
      }
      if (merged === this.maxSteps) this.due = true; // more to merge: at the next look
    } catch (error) {
      this.onError(error);
    }
    return merged;
  }
}
