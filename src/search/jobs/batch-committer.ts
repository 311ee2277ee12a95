// Group commit for bulk items: items that finish embedding together (the model runtime resolves a
// whole batch in one tick) are written by one call, so a bulk job writes one transaction per model
// batch instead of one per item. An item added while a write runs waits for the next one, which
// takes everything queued by then; each add() resolves (or rejects) once its own write finished.
export class BatchCommitter<T> {
  private queue: { entry: T; resolve: () => void; reject: (error: unknown) => void }[] = [];
  private writing = false;
  private scheduled = false;

  /** `write` receives the queued entries in the order they were added. */
  constructor(private readonly write: (entries: T[]) => Promise<void>) {}

  add(entry: T): Promise<void> {
    return new Promise((resolve, reject) => {
      this.queue.push({ entry, resolve, reject });
      this.schedule();
    });
  }

  /** At the end of this turn of the event loop, so that entries resolved together share a write. */
  private schedule(): void {
    if (this.writing || this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      void this.flush();
    });
  }

  private async flush(): Promise<void> {
    if (this.writing || this.queue.length === 0) return;
    this.writing = true;
    const batch = this.queue.splice(0);
    try {
      await this.write(batch.map((b) => b.entry));
      for (const b of batch) b.resolve();
    } catch (error) {
      for (const b of batch) b.reject(error);
    } finally {
      this.writing = false;
      if (this.queue.length > 0) this.schedule();
    }
  }
}
