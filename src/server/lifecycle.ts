import type { Logger } from '../logger';

/** A stop step at least this long is logged. */
const SLOW_STEP_SECONDS = 1;

/**
 * What has started, stopped in reverse order. From the first moment of a stop the process is
 * draining (/ready answers 503, so load balancers send no more requests), and its grace runs:
 * `answerNow` is aborted `answerMarginMs` before the grace ends, so that requests that wait
 * (execute-and-wait) answer what they know while their connection is still open. A step that
 * fails is logged and the next one runs.
 */
export class Lifecycle {
  private readonly steps: { name: string; run: () => Promise<void> }[] = [];
  private readonly answering = new AbortController();
  draining = false;
  /** Aborted near the end of a stop's grace: what still waits answers now. */
  readonly answerNow: AbortSignal = this.answering.signal;

  constructor(
    private readonly log: Logger,
    private readonly grace: { graceMs: number; answerMarginMs: number },
  ) {}

  /** Registers how to stop what just started. */
  onStop(name: string, run: () => Promise<void>): void {
    this.steps.push({ name, run });
  }

  async stop(): Promise<void> {
    this.draining = true;
    const { graceMs, answerMarginMs } = this.grace;
    const answerTimer = setTimeout(() => this.answering.abort(), Math.max(0, graceMs - answerMarginMs));
    /** Steps that took a second or more, in seconds: what an operator reads when a deploy was slow. */
    const slow: Record<string, number> = {};
    for (const step of this.steps.reverse()) {
      this.log.debug({ step: step.name }, 'stopping');
      const started = performance.now();
      await step
        .run()
        .catch((error: unknown) => this.log.error({ err: error, step: step.name }, 'error while stopping'));
      const seconds = (performance.now() - started) / 1000;
      if (seconds >= SLOW_STEP_SECONDS) slow[step.name] = Math.round(seconds * 10) / 10;
    }
    if (Object.keys(slow).length > 0)
      this.log.info({ steps: slow }, 'stop: steps that took a second or more');
    clearTimeout(answerTimer);
    this.answering.abort();
    this.steps.length = 0;
  }
}

/** Waits for `work` at most `graceMs`; true when it finished. */
export async function withinGrace(work: Promise<void>, graceMs: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const finished = await Promise.race([
    work.then(() => true),
    new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), graceMs))),
  ]);
  clearTimeout(timer);
  return finished;
}
