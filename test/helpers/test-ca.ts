import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { PemPair } from '../../src/modules/webhooks/certificates';

/** The committed test CA (test/fixtures/tls), trusted by the test processes through NODE_EXTRA_CA_CERTS. */
export const TEST_CA_CERT_FILE = path.resolve(__dirname, '../fixtures/tls/test-ca.pem');

export function testCa(): PemPair {
  return {
    cert: readFileSync(TEST_CA_CERT_FILE, 'utf8'),
    key: readFileSync(TEST_CA_CERT_FILE.replace(/\.pem$/, '.key'), 'utf8'),
  };
}
