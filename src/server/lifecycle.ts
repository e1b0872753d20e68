import type { Logger } from '../logger';

/**
 * What has started, stopped in reverse order. From the first moment of a stop the process is
 * draining (/ready answers 503, so load balancers send no more requests). A step that fails is
 * logged and the next one runs.
 */
export class Lifecycle {
  private readonly steps: { name: string; run: () => Promise<void> }[] = [];
  draining = false;

  constructor(private readonly log: Logger) {}

  /** Registers how to stop what just started. */
  onStop(name: string, run: () => Promise<void>): void {
    this.steps.push({ name, run });
  }

  async stop(): Promise<void> {
    this.draining = true;
    for (const step of this.steps.reverse()) {
      this.log.debug({ step: step.name }, 'stopping');
      await step
        .run()
        .catch((error: unknown) => this.log.error({ err: error, step: step.name }, 'error while stopping'));
    }
    this.steps.length = 0;
  }
}

/** Waits for `work` at most `graceMs`; what is still running then is left to the next stop step. */
export async function withinGrace(work: Promise<void>, graceMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([work, new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs)))]);
  clearTimeout(timer);
}
