/**
 * An HTTPS webhook receiver on 127.0.0.1 for the scripts (`npm run demo`, `npm run chaos`): a
 * certificate signed by the given CA (the development CA a local Laurel trusts), the answer to
 * Laurel's verification challenge on every path, and every `transaction` event recorded with when
 * it arrived and whether both signatures (Laurel's and Standard Webhooks') verify with the secret
 * of the path it came to (one webhook, and so one account's secret, per path).
 */
import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:https';
import type { IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { createServerCertificate, type PemPair } from '../../src/modules/webhooks/certificates';

export interface ReceivedEvent {
  /** The path it was sent to. */
  path: string;
  hash: string;
  idempotencyKey: string;
  /** Date.now() when its body had arrived. */
  at: number;
  laurelSignature: boolean;
  standardSignature: boolean;
}

export class WebhookReceiver {
  /** Each path's webhook secret (set it before verifying the webhook: the challenge is signed too). */
  readonly secrets = new Map<string, string>();
  readonly events: ReceivedEvent[] = [];
  private server: Server | undefined;
  private origin = '';

  constructor(private readonly ca: PemPair) {}

  /** Starts listening on a free loopback port. */
  async start(): Promise<void> {
    const server = createServer(await createServerCertificate(this.ca), (request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const path = request.url ?? '/';
        const laurelSignature = String(request.headers['x-laurel-signature'] ?? '');
        const message = JSON.parse(body) as {
          event: string;
          idempotency_key?: string;
          payload: { hash?: string } | null;
        };
        if (message.event === 'transaction' && message.payload?.hash) {
          const secret = this.secrets.get(path) ?? '';
          this.events.push({
            path,
            hash: message.payload.hash.toLowerCase(),
            idempotencyKey: message.idempotency_key ?? '',
            at: Date.now(),
            laurelSignature: laurelSignature === createHmac('sha256', secret).update(body).digest('base64'),
            standardSignature: verifiesAsStandardWebhook(secret, body, request.headers),
          });
        }
        // The verification challenge: echo the signature header's value.
        response
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ challenge: laurelSignature }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    this.server = server;
    this.origin = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  /** The URL of `path` (e.g. `/laurel-events`) on this receiver. */
  url(path: string): string {
    return this.origin + path;
  }

  /** The first event of transaction `hash`, once it arrives; null after `timeoutMs`. */
  async eventOf(hash: string, timeoutMs: number): Promise<ReceivedEvent | null> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const event = this.events.find((received) => received.hash === hash.toLowerCase());
      if (event) return event;
      if (Date.now() > deadline) return null;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  stop(): void {
    this.server?.close();
    this.server?.closeAllConnections();
  }
}

function verifiesAsStandardWebhook(secret: string, body: string, headers: IncomingHttpHeaders): boolean {
  try {
    new Webhook(secret).verify(body, headers as Record<string, string>);
    return true;
  } catch {
    return false;
  }
}
