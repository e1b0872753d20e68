import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Config } from '../../config';
import { remembered } from '../../cache-on-success';
import {
  STANDARD_WEBHOOKS_SECRET_PREFIX,
  webhookSigningKey,
  type WebhookSigningKey,
} from './webhook-signature';
import type { StoredWebhookSecret, WebhooksRepository } from './webhooks.repository';
import { makeFolder } from '../../make-folder';

/** Where the generated encryption key is kept when WEBHOOK_SECRET_ENCRYPTION_KEY is unset. */
export const WEBHOOK_KEY_FILE = 'webhook-secret-encryption.key';
const CIPHER = 'aes-256-gcm';
const FORMAT_VERSION = 'v1';
/** Signing keys kept decrypted, one per stored secret: at most this many accounts' worth. */
const SIGNING_KEY_CACHE_SIZE = 1000;

/** A new account secret in the Standard Webhooks form: `whsec_` + base64 of 32 random bytes. */
export function generateWebhookSecret(): string {
  return STANDARD_WEBHOOKS_SECRET_PREFIX + randomBytes(32).toString('base64');
}

/**
 * The AES-256 key that encrypts webhook secrets at rest: WEBHOOK_SECRET_ENCRYPTION_KEY, or else the
 * key file in the data folder, generated (mode 0600) on the first start. Losing the key makes the
 * stored secrets unreadable: owners then rotate theirs.
 */
export async function resolveWebhookEncryptionKey(
  config: Config,
): Promise<{ key: Buffer; /** 'environment', 'generated', or the key file read. */ source: string }> {
  if (config.webhooks.secretEncryptionKey) {
    return { key: Buffer.from(config.webhooks.secretEncryptionKey, 'base64'), source: 'environment' };
  }
  const file = path.join(config.dataDir, WEBHOOK_KEY_FILE);
  if (existsSync(file)) {
    const key = Buffer.from((await fs.readFile(file, 'utf8')).trim(), 'base64');
    if (key.length !== 32) throw new Error(`${file}: not a 32-byte base64 key`);
    return { key, source: file };
  }
  const key = randomBytes(32);
  await makeFolder(config.dataDir);
  // 'wx': two processes starting at once cannot both write a key; the loser reads the winner's.
  await fs
    .writeFile(file, `${key.toString('base64')}\n`, { mode: 0o600, flag: 'wx' })
    .catch(async (error) => {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    });
  const stored = Buffer.from((await fs.readFile(file, 'utf8')).trim(), 'base64');
  return { key: stored, source: 'generated' };
}

/** Encrypts and decrypts secrets with AES-256-GCM: `v1.<iv>.<tag>.<ciphertext>`, base64 parts. */
export class WebhookSecretBox {
  constructor(private readonly key: Buffer) {
    if (key.length !== 32) throw new Error('the webhook secret encryption key must be 32 bytes');
  }

  encrypt(secret: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv(CIPHER, this.key, iv);
    const ciphertext = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
    return [FORMAT_VERSION, iv, cipher.getAuthTag(), ciphertext]
      .map((part) => (typeof part === 'string' ? part : part.toString('base64')))
      .join('.');
  }

  decrypt(stored: string): string {
    const [version, iv, tag, ciphertext] = stored.split('.');
    if (version !== FORMAT_VERSION || !iv || !tag || ciphertext === undefined) {
      throw new Error('unreadable stored webhook secret');
    }
    const decipher = createDecipheriv(CIPHER, this.key, Buffer.from(iv, 'base64'));
    decipher.setAuthTag(Buffer.from(tag, 'base64'));
    return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64')), decipher.final()]).toString(
      'utf8',
    );
  }
}

/** An account's secret, and when the one a rotation replaced stops signing calls (null: none does). */
export interface WebhookSecretState {
  secret: string;
  previousExpiresAt: Date | null;
}

/**
 * One signing secret per account, created on first use, replaced by rotate(); the replaced one may
 * stay valid for a window, calls being signed with both meanwhile.
 */
export class WebhookSecrets {
  /**
   * Signing keys by the stored (encrypted) secret they come from. Each encryption has a random IV,
   * so a rotated secret is stored under a new text: a caller holding the current row finds its
   * current key, or decrypts it, and never gets a key of a replaced secret. Nothing to invalidate.
   */
  private readonly signingKeys = remembered(
    (secretEncrypted) => webhookSigningKey(this.box.decrypt(secretEncrypted)),
    SIGNING_KEY_CACHE_SIZE,
  );

  constructor(
    private readonly repository: WebhooksRepository,
    private readonly box: WebhookSecretBox,
  ) {}

  /** The signing key of a secret as read from its row (the delivery query reads it with the delivery). */
  signingKey(secretEncrypted: string): WebhookSigningKey {
    return this.signingKeys(secretEncrypted);
  }

  /** The signing key of the account's secret, created now when it has none yet. */
  async signingKeyOf(accountAddress: string): Promise<WebhookSigningKey> {
    return this.signingKey((await this.stored(accountAddress)).secretEncrypted);
  }

  /** The account's secret, created now when it has none yet. */
  async get(accountAddress: string): Promise<string> {
    return (await this.state(accountAddress)).secret;
  }

  /** The account's secret (created now when it has none yet) and a replaced one's expiry. */
  async state(accountAddress: string): Promise<WebhookSecretState> {
    const { secretEncrypted, previousExpiresAt } = await this.stored(accountAddress);
    return { secret: this.box.decrypt(secretEncrypted), previousExpiresAt };
  }

  /** The account's stored (encrypted) secret, created now when it has none yet. */
  private async stored(accountAddress: string): Promise<StoredWebhookSecret> {
    const existing = await this.repository.storedSecret(accountAddress);
    if (existing) return existing;
    // Two first calls at once: both insert-or-ignore, then both read the one that won.
    await this.repository.insertSecret(accountAddress, this.box.encrypt(generateWebhookSecret()));
    const created = await this.repository.storedSecret(accountAddress);
    if (!created) throw new Error(`the webhook secret of ${accountAddress} was not stored`);
    return created;
  }

  /**
   * Replaces the account's secret with a new one; calls signed from now on use it, and for
   * `overlapSeconds` the replaced one too (a second rotation within that window drops the older).
   */
  async rotate(accountAddress: string, overlapSeconds = 0): Promise<WebhookSecretState> {
    const secret = generateWebhookSecret();
    const previousExpiresAt = await this.repository.rotateSecret(
      accountAddress,
      this.box.encrypt(secret),
      overlapSeconds,
    );
    return { secret, previousExpiresAt };
  }
}
