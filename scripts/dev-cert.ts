/**
 * `npm run dev:cert`: a server certificate for 127.0.0.1 and localhost, signed by the development CA
 * of a data folder, for a webhook receiver of your own on this machine. A development setup of
 * Laurel (only its own local chain) trusts that CA for webhook calls, so the receiver can be
 * verified (POST /v1/webhook/:id/test) without openssl or NODE_EXTRA_CA_CERTS.
 *
 *   npm run dev:cert                                   (writes .data/dev-cert/cert.pem and key.pem)
 *   npm run dev:cert -- --data-dir <folder> --out <folder>
 *
 * The CA is created when the data folder has none yet; Laurel reads it when it starts.
 */
import { X509Certificate } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
// Moves with webhook delivery (src/modules/webhooks/) in the restructuring.
import {
  createServerCertificate,
  developmentCaFiles,
  ensureDevelopmentCa,
} from '../src/modules/webhooks/certificates';

export interface DevCertificate {
  /** Files written: the server certificate and its private key (PEM). */
  certFile: string;
  keyFile: string;
  /** The development CA's certificate that signed it. */
  caFile: string;
  /** Whether the CA was created now (a Laurel already running on the folder must be restarted to trust it). */
  caCreated: boolean;
  /** When the certificate expires. */
  validTo: Date;
}

/** Signs a new server certificate with the development CA of `dataDir` (created if missing) into `outDir`. */
export async function makeDevCertificate(options: {
  dataDir: string;
  outDir: string;
}): Promise<DevCertificate> {
  // Created with the usual mode first: as root, PostgreSQL (run as `postgres`) must traverse it later.
  mkdirSync(options.dataDir, { recursive: true });
  const ca = await ensureDevelopmentCa(options.dataDir);
  const pair = await createServerCertificate(ca.pair);
  mkdirSync(options.outDir, { recursive: true });
  const certFile = path.join(options.outDir, 'cert.pem');
  const keyFile = path.join(options.outDir, 'key.pem');
  writeFileSync(certFile, pair.cert);
  writeFileSync(keyFile, pair.key, { mode: 0o600 });
  return {
    certFile,
    keyFile,
    caFile: developmentCaFiles(options.dataDir).cert,
    caCreated: ca.created,
    validTo: new Date(new X509Certificate(pair.cert).validTo),
  };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      'data-dir': { type: 'string', default: process.env.DATA_DIR ?? '.data' },
      out: { type: 'string' },
    },
  });
  const dataDir = path.resolve(values['data-dir']);
  const made = await makeDevCertificate({
    dataDir,
    outDir: path.resolve(values.out ?? path.join(dataDir, 'dev-cert')),
  });
  // Relative to where it was run when inside it, else absolute.
  const shown = (file: string) => {
    const relative = path.relative(process.cwd(), file);
    return relative && !relative.startsWith('..') ? relative : file;
  };
  const [cert, key, ca] = [shown(made.certFile), shown(made.keyFile), shown(made.caFile)];
  console.log(`certificate  ${cert}   for 127.0.0.1 and localhost, valid until ${made.validTo.toISOString().slice(0, 10)}
key          ${key}
signed by    ${ca}   (the development CA${made.caCreated ? ', created now' : ''})

Serve your webhook receiver with them, e.g. in Node:
  https.createServer({ cert: readFileSync('${cert}'), key: readFileSync('${key}') }, handler).listen(8443, '127.0.0.1')
and register https://127.0.0.1:8443/<path> with POST /v1/webhook, then verify it with POST /v1/webhook/:id/test.

Laurel trusts this CA for webhook calls in a development setup (npm start with no CHAINS), where it
also lets them reach 127.0.0.1; with CHAINS configured it does not trust it.${
    made.caCreated
      ? `\nA Laurel already running on ${shown(dataDir)} reads the CA when it starts: restart it.`
      : ''
  }
Other clients trust it with --cacert ${ca} (curl) or NODE_EXTRA_CA_CERTS=${ca} (Node).`);
}

if (require.main === module) {
  main().catch((error: unknown) => {
    console.error(`dev:cert failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  });
}
