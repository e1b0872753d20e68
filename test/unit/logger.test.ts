import { Writable } from 'node:stream';
import { createLogger } from '../../src/logger';

function capture(): { stream: Writable; lines: () => string } {
  let text = '';
  const stream = new Writable({
    write(chunk, _encoding, done) {
      text += chunk.toString();
      done();
    },
  });
  return { stream, lines: () => text };
}

describe('createLogger', () => {
  it('never writes a configured secret (an RPC URL with its API key), wherever it appears', () => {
    const rpcUrl = 'https://eth.example.com/v2/sk_live_1234567890';
    const out = capture();
    const log = createLogger('info', { secrets: [rpcUrl], destination: out.stream });
    log.error({ err: new Error(`request to ${rpcUrl} failed`), chain: { rpcUrl } }, `cannot reach ${rpcUrl}`);
    expect(out.lines()).toContain('[redacted]');
    expect(out.lines()).not.toContain('sk_live_1234567890');
  });

  it('redacts API keys and signatures by field', () => {
    const out = capture();
    const log = createLogger('info', { destination: out.stream });
    log.info({ body: { api_key: 'laurel_secret', signature: '0xsig' } }, 'verified');
    expect(out.lines()).not.toMatch(/laurel_secret|0xsig/);
  });
});
