// Telling every process of a deployment that something changed, so that each empties what it
// cached of it. One process alone: the subscribers are called at once. With Redis (REDIS_URL): a
// publication also goes out on a pub/sub channel of the deployment's namespace, and every other
// process calls its own subscribers when it arrives (a few milliseconds later). Redis does not
// keep messages for a subscriber that is disconnected, so when the subscribing connection comes
// back after a drop, every subscriber is called as if everything had changed.
import type { Redis } from "ioredis";
import { randomUUID } from "node:crypto";

export interface Invalidations {
  /** Calls the subscribers of `topic` in this process and, when shared, in every other one. */
  publish(topic: string): void;
  /** Calls `fn` on each publication of `topic` (here or elsewhere); returns the unsubscribe. */
  subscribe(topic: string, fn: () => void): () => void;
  /** Whether other processes hear of publications (Redis), so a cache may rely on being told. */
  readonly shared: boolean;
  close(): Promise<void>;
}

/** Publications in this process only, or over Redis pub/sub on `channel` when `redis` is given. */
export function createInvalidations(redis: Redis | undefined, channel: string): Invalidations {
  const subscribers = new Map<string, Set<() => void>>();
  const notify = (topic: string | undefined) => {
    const fns = topic === undefined ? [...subscribers.values()].flatMap((s) => [...s]) : [...(subscribers.get(topic) ?? [])];
    for (const fn of fns) fn();
  };
  const origin = randomUUID();
  // ioredis: a connection in subscriber mode runs nothing else, so it is a second one.
  const listener = redis?.duplicate();
  if (listener) {
    let connectedBefore = false;
    listener.on("ready", () => {
      if (connectedBefore) notify(undefined); // messages may have been missed while away
      connectedBefore = true;
    });
    listener.on("message", (_channel: string, text: string) => {
      try {
        const message = JSON.parse(text) as { origin?: unknown; topic?: unknown };
        if (message.origin !== origin && typeof message.topic === "string") notify(message.topic);
      } catch {
        // not ours
      }
    });
    // A failure to subscribe surfaces as the connection's error events; publishing still works.
    listener.subscribe(channel).catch(() => undefined);
    listener.on("error", () => undefined);
  }
  const sending = new Set<Promise<unknown>>();
  return {
    shared: redis !== undefined,
    publish(topic) {
      notify(topic);
      if (!redis) return;
      const sent = redis.publish(channel, JSON.stringify({ origin, topic })).catch(() => undefined);
      sending.add(sent);
      void sent.finally(() => sending.delete(sent));
    },
    subscribe(topic, fn) {
      let set = subscribers.get(topic);
      if (!set) subscribers.set(topic, (set = new Set()));
      set.add(fn);
      return () => set.delete(fn);
    },
    /** Waits for publications still on their way (a short-lived CLI's change must get out), then unsubscribes. */
    async close() {
      await Promise.all(sending);
      listener?.disconnect();
    },
  };
}
