/**
 * X.509 certificates for local HTTPS webhook receivers (tests, `npm run bench:webhooks`,
 * `npm run demo`): a certificate authority, and server certificates for 127.0.0.1/localhost signed
 * by one (the committed test CA of test/fixtures/tls, or the development CA of a local setup),
 * expired, or self-signed.
 */
// @peculiar/x509 needs the Reflect metadata polyfill loaded before it.
import 'reflect-metadata';
import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { webcrypto } from 'node:crypto';
import path from 'node:path';
import type * as X509 from '@peculiar/x509';

type CryptoKey = webcrypto.CryptoKey;
type CryptoKeyPair = webcrypto.CryptoKeyPair;

export interface PemPair {
  cert: string;
  key: string;
}

let x509Loaded: Promise<typeof X509> | undefined;

/**
 * @peculiar/x509, loaded on first use: it weighs about a tenth of Laurel's module graph, and most
 * starts and test files never make a certificate.
 */
function loadX509(): Promise<typeof X509> {
  x509Loaded ??= import('@peculiar/x509').then((x509) => {
    x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);
    return x509;
  });
  return x509Loaded;
}

const ALGORITHM = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
const DAY = 24 * 60 * 60 * 1000;
const CA_KEY_ALGORITHM = { name: 'ECDSA', namedCurve: 'P-256' } as const;

async function privateKeyPem(key: CryptoKey): Promise<string> {
  const der = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', key));
  const lines = der
    .toString('base64')
    .match(/.{1,64}/g)!
    .join('\n');
  return `-----BEGIN PRIVATE KEY-----\n${lines}\n-----END PRIVATE KEY-----\n`;
}

function serial(): string {
  return Buffer.from(webcrypto.getRandomValues(new Uint8Array(12))).toString('hex');
}

/** A certificate authority (10 years) that may sign server certificates only. */
export async function createCertificateAuthority(name: string): Promise<PemPair> {
  const x509 = await loadX509();
  const keys = (await webcrypto.subtle.generateKey(ALGORITHM, true, ['sign', 'verify'])) as CryptoKeyPair;
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serial(),
    name: `CN=${name}`,
    notBefore: new Date(Date.now() - DAY),
    notAfter: new Date(Date.now() + 3650 * DAY),
    signingAlgorithm: ALGORITHM,
    keys,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
    ],
  });
  return { cert: cert.toString('pem'), key: await privateKeyPem(keys.privateKey) };
}

/** Where a local setup keeps its development CA: `<dataDir>/webhook-dev-ca/ca.pem` and `ca.key`. */
export function developmentCaFiles(dataDir: string): { cert: string; key: string } {
  const folder = path.join(dataDir, 'webhook-dev-ca');
  return { cert: path.join(folder, 'ca.pem'), key: path.join(folder, 'ca.key') };
}

/**
 * The development CA of a local setup, created on first use. Laurel trusts it for webhook calls
 * (only in a development setup), so that a receiver on this machine with a certificate it signed,
 * such as `npm run demo`'s, can be verified.
 */
export async function ensureDevelopmentCa(dataDir: string): Promise<{ pair: PemPair; created: boolean }> {
  const files = developmentCaFiles(dataDir);
  if (existsSync(files.cert) && existsSync(files.key)) {
    return {
      pair: { cert: readFileSync(files.cert, 'utf8'), key: readFileSync(files.key, 'utf8') },
      created: false,
    };
  }
  const pair = await createCertificateAuthority('Laurel development CA (webhooks)');
  mkdirSync(path.dirname(files.cert), { recursive: true, mode: 0o700 });
  writeFileSync(files.key, pair.key, { mode: 0o600 });
  writeFileSync(files.cert, pair.cert);
  return { pair, created: true };
}

/**
 * A server certificate for 127.0.0.1 and localhost, signed by `ca` (or self-signed when `ca` is
 * null); `expired` makes one whose validity ended yesterday.
 */
export async function createServerCertificate(
  ca: PemPair | null,
  options: { expired?: boolean } = {},
): Promise<PemPair> {
  const x509 = await loadX509();
  const keys = (await webcrypto.subtle.generateKey(ALGORITHM, true, ['sign', 'verify'])) as CryptoKeyPair;
  const notAfter = options.expired ? new Date(Date.now() - DAY) : new Date(Date.now() + 30 * DAY);
  const extensions = [
    new x509.SubjectAlternativeNameExtension([
      { type: 'ip', value: '127.0.0.1' },
      { type: 'dns', value: 'localhost' },
    ]),
    new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
  ];
  const common = {
    serialNumber: serial(),
    notBefore: new Date(notAfter.getTime() - 60 * DAY),
    notAfter,
    signingAlgorithm: ALGORITHM,
    extensions,
  };
  if (!ca) {
    const cert = await x509.X509CertificateGenerator.createSelfSigned({
      ...common,
      name: 'CN=localhost',
      keys,
    });
    return { cert: cert.toString('pem'), key: await privateKeyPem(keys.privateKey) };
  }
  const caCert = new x509.X509Certificate(ca.cert);
  const caKey = await webcrypto.subtle.importKey(
    'pkcs8',
    Buffer.from(ca.key.replace(/-----[^-]+-----|\s/g, ''), 'base64'),
    CA_KEY_ALGORITHM,
    false,
    ['sign'],
  );
  const cert = await x509.X509CertificateGenerator.create({
    ...common,
    subject: 'CN=localhost',
    issuer: caCert.subject,
    publicKey: keys.publicKey,
    signingKey: caKey,
  });
  return { cert: cert.toString('pem'), key: await privateKeyPem(keys.privateKey) };
}
