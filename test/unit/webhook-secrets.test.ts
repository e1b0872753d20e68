import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/config';
import {
  generateWebhookSecret,
  resolveWebhookEncryptionKey,
  WEBHOOK_KEY_FILE,
  WebhookSecretBox,
} from '../../src/modules/webhooks/webhook-secrets';

describe('webhook secrets', () => {
  it('are whsec_ + base64 of 32 random bytes', () => {
    const secret = generateWebhookSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(secret.slice(6), 'base64')).toHaveLength(32);
    expect(generateWebhookSecret()).not.toBe(secret);
  });

  it('are stored encrypted, readable only with the same key', () => {
    const box = new WebhookSecretBox(randomBytes(32));
    const secret = generateWebhookSecret();
    const stored = box.encrypt(secret);
    expect(stored).toMatch(/^v1\./);
    expect(stored).not.toContain(secret.slice(6));
    expect(box.encrypt(secret)).not.toBe(stored); // a fresh IV each time
    expect(box.decrypt(stored)).toBe(secret);
    expect(() => new WebhookSecretBox(randomBytes(32)).decrypt(stored)).toThrow();
  });

  it('use WEBHOOK_SECRET_ENCRYPTION_KEY, or a key generated once into the data folder', async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'laurel-key-'));
    try {
      const key = randomBytes(32).toString('base64');
      const configured = await resolveWebhookEncryptionKey(
        loadConfig({ DATA_DIR: dataDir, WEBHOOK_SECRET_ENCRYPTION_KEY: key }),
      );
      expect(configured).toEqual({ key: Buffer.from(key, 'base64'), source: 'environment' });

      const first = await resolveWebhookEncryptionKey(loadConfig({ DATA_DIR: dataDir }));
      const file = path.join(dataDir, WEBHOOK_KEY_FILE);
      expect(first.source).toBe('generated');
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(readFileSync(file, 'utf8').trim()).toBe(first.key.toString('base64'));
      const again = await resolveWebhookEncryptionKey(loadConfig({ DATA_DIR: dataDir }));
      expect(again).toEqual({ key: first.key, source: file });
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('reject a configured key that is not 32 bytes of base64', () => {
    expect(() => loadConfig({ WEBHOOK_SECRET_ENCRYPTION_KEY: 'short' })).toThrow(
      /WEBHOOK_SECRET_ENCRYPTION_KEY/,
    );
  });
});
