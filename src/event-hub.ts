/**
 * A small typed publish/subscribe hub: created before what publishes on it, so that what is built
 * later subscribes to it instead of being called back through a function set afterwards.
 * `Events` maps each event's name to its payload.
 */
export class EventHub<Events extends object> {
  private readonly handlers = new Map<keyof Events, Set<(payload: never) => Promise<void> | void>>();

  /** Runs `handler` at each `event`; returns what unsubscribes it. */
  on<E extends keyof Events>(event: E, handler: (payload: Events[E]) => Promise<void> | void): () => void {
    const handlers = this.handlers.get(event) ?? new Set();
    handlers.add(handler);
    this.handlers.set(event, handlers);
    return () => handlers.delete(handler);
  }

  /** Runs every handler of `event` together; rejects with the first failure once all have ended. */
  async publish<E extends keyof Events>(event: E, payload: Events[E]): Promise<void> {
    const handlers = [...(this.handlers.get(event) ?? [])] as ((
      payload: Events[E],
    ) => Promise<void> | void)[];
    const outcomes = await Promise.allSettled(handlers.map(async (handler) => handler(payload)));
    const failed = outcomes.find((outcome) => outcome.status === 'rejected');
    if (failed) throw failed.reason;
  }
}
