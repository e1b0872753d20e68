/**
 * PostgreSQL notifications between Laurel's processes: one LISTEN session per process (a session
 * connection, DATABASE_DIRECT_URL), shared by every channel a part of Laurel listens on (index
 * commits, transaction statuses). A NOTIFY sent inside a transaction is delivered when, and only
 * if, it commits.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { Client, type ClientBase } from 'pg';
import { connectionConfig } from './connection';
import type { Logger } from '../logger';

const RECONNECT_DELAY_MS = 1_000;

/** What a channel's listener is told. */
export interface ChannelListener {
  /** A notification's payload. */
  notified(payload: string): void;
  /**
   * The session was (re)opened or lost: notifications sent meanwhile are unknown, so everything
   * derived from them may be stale. `listening` says whether the session is up now.
   */
  missed(listening: boolean): void;
}

/** Inside a transaction: tells every listening process once the transaction commits. */
export async function notifyChannel(db: ClientBase, channel: string, payload: string): Promise<void> {
  await db.query('SELECT pg_notify($1, $2)', [channel, payload]);
}

/** The process's LISTEN session: kept open, reopened when lost. */
export class NotificationSession {
  private readonly channels = new Map<string, ChannelListener[]>();
  private client: Client | null = null;
  private stopped = false;
  private loop: Promise<void> | null = null;
  private readonly wake = new AbortController();
  /** Whether notifications of other processes are heard now. */
  listening = false;

  constructor(
    private readonly databaseUrl: string,
    private readonly log: Logger,
  ) {}

  /** Listens on `channel`: every channel is registered before listen(). */
  on(channel: string, listener: ChannelListener): void {
    if (!/^[a-z_]+$/.test(channel)) throw new Error(`not a channel name: ${channel}`);
    if (this.loop) throw new Error(`channel ${channel} registered after listen()`);
    this.channels.set(channel, [...(this.channels.get(channel) ?? []), listener]);
  }

  /** Opens the session; resolves once it listens or failed once. */
  async listen(): Promise<void> {
    if (this.loop) return;
    let firstAttempt!: () => void;
    const attempted = new Promise<void>((resolve) => (firstAttempt = resolve));
    this.loop = this.run(firstAttempt);
    await attempted;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.wake.abort();
    // A session still being opened is cut: pg's goodbye would wait for a server that may never
    // answer (and a stop that waited for it to open would then wait for it to be lost: forever).
    if (!this.listening) this.client?.connection.stream.destroy();
    else await this.client?.end().catch(() => undefined);
    await this.loop;
  }

  private missed(): void {
    for (const listeners of this.channels.values()) {
      for (const listener of listeners) listener.missed(this.listening);
    }
  }

  private async run(attempted: () => void): Promise<void> {
    while (!this.stopped) {
      const client = new Client(connectionConfig(this.databaseUrl));
      // Known to stop() from now on, also while it is being opened.
      this.client = client;
      const lost = new Promise<void>((resolve) => {
        client.on('error', (error) => {
          if (!this.stopped) this.log.warn({ err: error }, 'notifications: connection lost');
          resolve();
        });
        client.on('end', () => resolve());
      });
      client.on('notification', ({ channel, payload }) => {
        for (const listener of this.channels.get(channel) ?? []) listener.notified(payload ?? '');
      });
      try {
        await client.connect();
        for (const channel of this.channels.keys()) await client.query(`LISTEN ${channel}`);
        this.listening = true;
        // Whatever was notified while nobody listened is unknown.
        this.missed();
        attempted();
        await lost;
      } catch (error) {
        if (!this.stopped) this.log.warn({ err: error }, 'notifications: cannot listen; retrying');
      } finally {
        this.listening = false;
        this.client = null;
        this.missed();
        attempted();
        await client.end().catch(() => undefined);
      }
      await delay(RECONNECT_DELAY_MS, undefined, { signal: this.wake.signal }).catch(() => undefined);
    }
  }
}
