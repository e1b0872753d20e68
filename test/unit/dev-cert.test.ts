import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { connect } from 'node:tls';
import { makeDevCertificate } from '../../scripts/dev-cert';

let dataDir: string;
beforeAll(() => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'laurel-dev-cert-'));
});
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

/** Whether a TLS client trusting only `ca` accepts `server` as `servername` (127.0.0.1 when absent). */
function handshake(server: Server, ca: string, servername?: string): Promise<string | null> {
  const { port } = server.address() as AddressInfo;
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port, ca, servername, rejectUnauthorized: false }, () => {
      const error = socket.authorizationError;
      socket.destroy();
      resolve(error ? String(error) : null);
    });
    socket.on('error', reject);
  });
}

it('npm run dev:cert signs a certificate for 127.0.0.1 and localhost with the development CA', async () => {
  const made = await makeDevCertificate({ dataDir, outDir: path.join(dataDir, 'dev-cert') });
  expect(made.caCreated).toBe(true);
  expect(made.caFile).toBe(path.join(dataDir, 'webhook-dev-ca', 'ca.pem'));
  expect(statSync(made.keyFile).mode & 0o777).toBe(0o600);
  const ca = readFileSync(made.caFile, 'utf8');
  const server = createServer({ cert: readFileSync(made.certFile), key: readFileSync(made.keyFile) });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    expect(await handshake(server, ca)).toBeNull();
    expect(await handshake(server, ca, 'localhost')).toBeNull();
    expect(await handshake(server, ca, 'example.com')).toMatch(/ERR_TLS_CERT_ALTNAME_INVALID|does not match/);
    // Another CA (the tests' own) does not vouch for it.
    expect(
      await handshake(server, readFileSync(path.join(__dirname, '../fixtures/tls/test-ca.pem'), 'utf8')),
    ).toMatch(/UNABLE_TO_VERIFY_LEAF_SIGNATURE|unable to verify/);
  } finally {
    server.close();
  }
  expect(made.validTo.getTime()).toBeGreaterThan(Date.now());

  // Run again: the same CA signs, so a running Laurel keeps trusting what it makes.
  const again = await makeDevCertificate({ dataDir, outDir: path.join(dataDir, 'dev-cert') });
  expect(again.caCreated).toBe(false);
  expect(readFileSync(again.caFile, 'utf8')).toBe(ca);
});
