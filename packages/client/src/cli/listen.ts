/**
 * `laurel listen`: a local HTTPS receiver registered and verified as a webhook of the caller's
 * account, printing each call with its signature checked, or forwarding it to a local URL (as the
 * Stripe CLI's `listen` does); Ctrl-C deletes the webhook it created.
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { LaurelError } from '../errors.js';
import { Laurel } from '../laurel.js';
import {
  challengeAnswer,
  verifyWebhook,
  WebhookVerificationError,
  type LaurelWebhookEvent,
} from '../webhooks.js';
import { CliFailure, type CliCommand, type CliIo } from './command.js';

const DEFAULT_CERT = '.data/dev-cert/cert.pem';
const DEFAULT_KEY = '.data/dev-cert/key.pem';
const DEFAULT_URL = 'http://127.0.0.1:4000';

const usage = `usage: laurel listen [--forward-to <url>] [--port <n>] [--cert <file>] [--key <file>] [--api-key <key>]

Starts an HTTPS receiver on 127.0.0.1, registers it as a webhook of your account (POST /v1/webhook),
verifies it (POST /v1/webhook/:id/test, answering the challenge), then prints each call with its
signature checked. Ctrl-C deletes the webhook.

  --forward-to <url>  also POST each verified call (its headers and raw body) to this URL; prints its answer
  --port <n>          the receiver's port (default: any free one)
  --cert, --key       a certificate Laurel trusts, PEM (default ${DEFAULT_CERT} and ${DEFAULT_KEY}: in a
                      Laurel checkout, \`npm run dev:cert\` writes them, signed by the development CA that a
                      development setup of Laurel trusts)
  --api-key <key>     the account's key (default LAUREL_API_KEY)
  --signature-header  the Laurel's WEBHOOK_SIGNATURE_HEADER (default x-laurel-signature)

LAUREL_URL names the Laurel (default ${DEFAULT_URL}).
Example: laurel listen --forward-to http://localhost:3000/webhooks/laurel`;

function readPem(file: string, what: string, option: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    throw new CliFailure(
      `no ${what} at ${file}: run \`npm run dev:cert\` in the Laurel checkout (it writes a certificate signed by the development CA Laurel trusts), or pass ${option} <file>`,
    );
  }
}

function readBody(request: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks)));
    request.on('error', reject);
  });
}

/** The headers of a call as fetch sends them again (repeated ones joined). */
function forwardedHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const hopByHop = new Set(['host', 'connection', 'content-length', 'transfer-encoding', 'keep-alive']);
  return Object.fromEntries(
    Object.entries(headers)
      .filter(([name, value]) => value !== undefined && !hopByHop.has(name))
      .map(([name, value]) => [name, Array.isArray(value) ? value.join(', ') : String(value)]),
  );
}

function describe(event: LaurelWebhookEvent): string {
  if (event.event === 'test') return `test ${event.idempotency_key}`;
  const receipt = event.payload;
  return `transaction ${event.idempotency_key} ${receipt.hash} status ${receipt.status ?? '?'} block ${receipt.blockNumber}`;
}

export const listen: CliCommand = {
  name: 'listen',
  summary: 'receive webhook calls on this machine: print them verified, or forward them',
  usage,
  async run(args: string[], io: CliIo): Promise<number> {
    const { values } = parseArgs({
      args,
      options: {
        'forward-to': { type: 'string' },
        port: { type: 'string', default: '0' },
        cert: { type: 'string', default: DEFAULT_CERT },
        key: { type: 'string', default: DEFAULT_KEY },
        'api-key': { type: 'string' },
        'signature-header': { type: 'string' },
      },
    });
    const apiKey = values['api-key'] ?? io.env.LAUREL_API_KEY;
    if (!apiKey)
      throw new CliFailure(
        'no API key: set LAUREL_API_KEY or pass --api-key (`laurel help` lists how to get one)',
      );
    const forwardTo = values['forward-to'];
    if (forwardTo !== undefined && !URL.canParse(forwardTo)) {
      throw new CliFailure(`--forward-to ${forwardTo} is not a URL (e.g. http://localhost:3000/webhooks)`);
    }
    const port = Number(values.port);
    if (!Number.isInteger(port) || port < 0 || port > 65535)
      throw new CliFailure(`--port ${values.port} is not a port`);
    const cert = readPem(values.cert, 'certificate', '--cert');
    const key = readPem(values.key, 'private key', '--key');
    const signatureHeader = values['signature-header'];

    const laurel = new Laurel({ url: io.env.LAUREL_URL ?? DEFAULT_URL, apiKey });
    let secret = (await laurel.call(laurel.api.GET('/v1/webhook/secret'))).webhook_secret;

    const verify = async (body: Buffer, headers: IncomingHttpHeaders) => {
      try {
        return await verifyWebhook(body, headers, { secret, signatureHeader });
      } catch (error) {
        if (!(error instanceof WebhookVerificationError) || error.reason !== 'signature_mismatch')
          throw error;
        // The secret may have been rotated since listen started: read it once more.
        secret = (await laurel.call(laurel.api.GET('/v1/webhook/secret'))).webhook_secret;
        return verifyWebhook(body, headers, { secret, signatureHeader });
      }
    };

    const forward = async (body: Buffer, headers: IncomingHttpHeaders): Promise<void> => {
      try {
        const answer = await fetch(forwardTo!, {
          method: 'POST',
          headers: forwardedHeaders(headers),
          body: new Uint8Array(body),
        });
        const text = (await answer.text()).slice(0, 200);
        io.out(`  -> POST ${forwardTo} answered ${answer.status}${text ? `: ${text}` : ''}`);
      } catch (error) {
        io.out(
          `  -> POST ${forwardTo} failed: ${String((error as Error).cause ?? (error as Error).message)}`,
        );
      }
    };

    const server: Server = createServer({ cert, key }, (request, response) => {
      void (async () => {
        const body = await readBody(request);
        let event: LaurelWebhookEvent;
        try {
          event = await verify(body, request.headers);
        } catch (error) {
          const reason = error instanceof Error ? error.message : String(error);
          io.out(`${new Date().toISOString()} refused a call (not verified): ${reason}`);
          response
            .writeHead(401, { 'content-type': 'application/json' })
            .end(JSON.stringify({ error: reason }));
          return;
        }
        if (event.event === 'test') {
          response
            .writeHead(200, { 'content-type': 'application/json' })
            .end(JSON.stringify(challengeAnswer(request.headers, { signatureHeader })));
          return;
        }
        io.out(`${new Date().toISOString()} ${describe(event)} (signature verified)`);
        // Laurel hears 2xx once the call verified, as the Stripe CLI acknowledges: the forward's answer is printed.
        response.writeHead(204).end();
        if (forwardTo) await forward(body, request.headers);
      })();
    });
    server.on('tlsClientError', () => undefined);
    await new Promise<void>((resolve, reject) => {
      server.once('error', (error) =>
        reject(new CliFailure(`cannot listen on 127.0.0.1:${port}: ${error.message} (pass another --port)`)),
      );
      server.listen(port, '127.0.0.1', resolve);
    });
    const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    const closeServer = () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      });

    let webhookId: number | undefined;
    try {
      const { webhook } = await laurel.call(laurel.api.POST('/v1/webhook', { body: { url } }));
      webhookId = webhook.id;
      await laurel.call(
        laurel.api.POST('/v1/webhook/{id}/test', { params: { path: { id: String(webhook.id) } } }),
      );
      io.out(
        `listening on ${url}: webhook #${webhook.id} is verified; calls print here${forwardTo ? ` and go to ${forwardTo}` : ''}. Ctrl-C deletes it.`,
      );
      await io.stopped;
      return 0;
    } catch (error) {
      if (error instanceof LaurelError && error.status === 422) {
        throw new CliFailure(`Laurel could not verify ${url}: ${error.message}`);
      }
      throw error;
    } finally {
      await closeServer();
      if (webhookId !== undefined) {
        await laurel
          .call(laurel.api.DELETE('/v1/webhook/{id}', { params: { path: { id: String(webhookId) } } }))
          .then(
            () => io.out(`deleted webhook #${webhookId}`),
            (error: Error) =>
              io.err(
                `could not delete webhook #${webhookId}: ${error.message} (DELETE /v1/webhook/${webhookId})`,
              ),
          );
      }
    }
  },
};
