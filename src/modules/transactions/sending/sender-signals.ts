import { setTimeout as sleep } from 'node:timers/promises';

/**
 * In-process wake-ups per (chain, sender): a send that waits on the sender's other transactions (a
 * nonce gap being filled, a receipt behind a queued predecessor) polls the node, and wakes early
 * when this process records, broadcasts or sees mined another transaction of the same sender, the
 * moment its own may move. Anvil (and any chain that mines a transaction as it arrives) mines a
 * queued transaction as soon as the gap before it fills: without the wake-up it waited out its
 * poll interval (up to 100 ms for a gap, and a receipt's backoff of 50, 100, 200… ms). Other
 * processes' sends are still seen by the polls.
 */
export class SenderSignals {
  private readonly waiting = new Map<string, Set<() => void>>();

  /** Wakes every wait of this sender. */
  notify(chainId: number, sender: string): void {
    const key = keyOf(chainId, sender);
    const wakes = this.waiting.get(key);
    if (!wakes) return;
    this.waiting.delete(key);
    for (const wake of wakes) wake();
  }

  /** Resolves after `ms`, or sooner when notify() is called for this sender or `until` is aborted. */
  async wait(chainId: number, sender: string, ms: number, until?: AbortSignal): Promise<void> {
    if (until?.aborted) return;
    const key = keyOf(chainId, sender);
    const abort = new AbortController();
    const wake = () => abort.abort();
    until?.addEventListener('abort', wake, { once: true });
    let wakes = this.waiting.get(key);
    if (!wakes) this.waiting.set(key, (wakes = new Set()));
    wakes.add(wake);
    try {
      await sleep(ms, undefined, { signal: abort.signal });
    } catch {
      // woken
    } finally {
      until?.removeEventListener('abort', wake);
      wakes.delete(wake);
      if (wakes.size === 0 && this.waiting.get(key) === wakes) this.waiting.delete(key);
    }
  }
}

const keyOf = (chainId: number, sender: string) => `${chainId}:${sender.toLowerCase()}`;
