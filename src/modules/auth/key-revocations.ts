/**
 * Revocations of API keys, told to every listening process: the statement that revokes a key also
 * sends a NOTIFY naming its id, delivered when (and only if) it commits. What holds a key's live
 * use (a WebSocket authenticated with it) ends it when told.
 */
import type { NotificationSession } from '../../db/notifications';
import { Prisma } from '../../db/prisma';
import type { Logger } from '../../logger';
import type { RevocationWatcher } from '../../operations/request-context';

const CHANNEL = 'laurel_api_key_revocations';

/** The NOTIFY of the revocation of the key whose id is `id` (an SQL expression), in the statement that revokes it. */
export function keyRevocationNotice(id: Prisma.Sql): Prisma.Sql {
  return Prisma.sql`pg_notify(${CHANNEL}, ${id}::text)`;
}

/** What KeyRevocations needs to find revocations it may have missed. */
export interface RevokedKeys {
  /** Of `ids`, those revoked. */
  revokedAmong(ids: string[]): Promise<string[]>;
}

/** Who watches revocations; each is told of every key revoked in any process. */
export class KeyRevocations {
  private readonly watchers = new Set<RevocationWatcher>();

  constructor(
    session: NotificationSession,
    private readonly keys: RevokedKeys,
    /** Told first, of one key or (null) of any: what a process remembers of valid keys. */
    private readonly forget: (apiKeyId: string | null) => void,
    private readonly log: Logger,
  ) {
    session.on(CHANNEL, {
      notified: (id) => this.revoked(id),
      // Revocations sent while nobody listened are unknown: once listening again, the keys in live
      // use are looked up.
      missed: (listening) => {
        this.forget(null);
        if (listening) void this.recheck();
      },
    });
  }

  watch(watcher: RevocationWatcher): () => void {
    this.watchers.add(watcher);
    return () => this.watchers.delete(watcher);
  }

  /** Tells every watcher (this process's revocations too: before their answer, without the session). */
  revoked(apiKeyId: string): void {
    this.forget(apiKeyId);
    for (const watcher of this.watchers) watcher.revoked(apiKeyId);
  }

  private async recheck(): Promise<void> {
    const held = [...new Set([...this.watchers].flatMap((watcher) => [...watcher.keys()]))];
    if (held.length === 0) return;
    try {
      for (const id of await this.keys.revokedAmong(held)) this.revoked(id);
    } catch (error) {
      this.log.warn({ err: error }, 'API keys: cannot look up revocations missed while not listening');
    }
  }
}
