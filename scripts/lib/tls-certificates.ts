/**
 * X.509 server certificates for the HTTPS webhook receivers of the tests and of
 * `npm run bench:webhooks`: for 127.0.0.1/localhost, signed by a CA (the committed test CA of
 * test/fixtures/tls, trusted by those processes through NODE_EXTRA_CA_CERTS), expired, or
 * self-signed.
 */
import { webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';

type CryptoKey = webcrypto.CryptoKey;
type CryptoKeyPair = webcrypto.CryptoKeyPair;

export interface PemPair {
  cert: string;
  key: string;
}

x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);

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

/**
 * A server certificate for 127.0.0.1 and localhost, signed by `ca` (or self-signed when `ca` is
 * null); `expired` makes one whose validity ended yesterday.
 */
export async function createServerCertificate(
  ca: PemPair | null,
  options: { expired?: boolean } = {},
): Promise<PemPair> {
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
