import { spawnSync } from 'node:child_process';
import { Wallet } from 'ethers';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../../src/embedded/ports';
import { createLogger } from '../../src/logger';
import { issueApiKey } from '../helpers/auth';
import { graphql, request, startTestLaurel, type TestLaurel } from '../helpers/laurel';
import { statusOf } from '../helpers/laurel-process';
import { waitUntil } from '../helpers/wait';
import { answerChallenge, startWebhookReceiver } from '../helpers/webhook-receiver';

/**
 * What an operator gets: /metrics in the Prometheus format (checked by Prometheus's own promtool),
 * on every process whatever its roles, the landing page, and a dashboard that asks only for
 * metrics Laurel exports.
 */
const root = path.resolve(__dirname, '../..');

/** The families of the issue: HTTP, transactions, jobs, webhooks, indexer, RPC, pools, read caches. */
const FAMILIES = [
  'laurel_http_requests_total',
  'laurel_http_request_duration_seconds',
  'laurel_http_rate_limited_total',
  'laurel_transactions_built_total',
  'laurel_transactions_broadcast_total',
  'laurel_nonce_reservations_open',
  'laurel_transactions_pending',
  'laurel_transactions_dropped_total',
  'laurel_jobs_runnable',
  'laurel_jobs_oldest_runnable_age_seconds',
  'laurel_job_failures_total',
  'laurel_job_fetches_total',
  'laurel_webhook_deliveries_total',
  'laurel_webhook_delivery_duration_seconds',
  'laurel_webhooks_deactivated_total',
  'laurel_badge_metadata_fetches_total',
  'laurel_indexer_head_block',
  'laurel_indexer_indexed_block',
  'laurel_indexer_lag_blocks',
  'laurel_indexer_lag_seconds',
  'laurel_indexer_events_total',
  'laurel_indexer_reorgs_total',
  'laurel_rpc_requests_total',
  'laurel_rpc_request_duration_seconds',
  'laurel_rpc_throttled_total',
  'laurel_db_pool_connections',
  'laurel_read_cache_requests_total',
  'laurel_read_cache_bytes',
  'laurel_process_cpu_seconds_total',
  'laurel_process_resident_memory_bytes',
];

/** The metric families an exposition declares (`# TYPE <name> <type>`). */
function familiesOf(exposition: string): Set<string> {
  return new Set([...exposition.matchAll(/^# TYPE (\S+) /gm)].map((match) => match[1]));
}

async function scrape(url: string, headers: Record<string, string> = {}) {
  const response = await fetch(`${url}/metrics`, { headers });
  return { status: response.status, type: response.headers.get('content-type'), text: await response.text() };
}

/** Without Prometheus's promtool its check is skipped with a notice, except under CI, which installs it. */
const promtool = spawnSync('promtool', ['--version']).status === 0 ? 'promtool' : null;
if (!promtool && process.env.CI) throw new Error('CI needs promtool (apt-get install prometheus)');
if (!promtool) console.warn('operability: promtool check skipped, no promtool (apt-get install prometheus)');

describe('an all-roles process', () => {
  let laurel: TestLaurel;

  beforeAll(async () => {
    laurel = await startTestLaurel({ chain: true });
  });
  afterAll(async () => {
    await laurel?.stop();
  });

  it('serves every family on /metrics to a loopback client, in the text format', async () => {
    await request(laurel.url, 'GET', '/v1/chains');
    await graphql(laurel.url, '{ __typename }');
    await graphql(laurel.url, 'query Named { chainList { name } }', {
      apiKey: await issueApiKey(laurel.url, Wallet.createRandom()),
    });
    const metrics = await scrape(laurel.url);
    expect(metrics.status).toBe(200);
    expect(metrics.type).toMatch(/^text\/plain; version=0\.0\.4/);
    const families = familiesOf(metrics.text);
    expect(FAMILIES.filter((family) => !families.has(family))).toEqual([]);
    // Labels are route templates and classes, never addresses or keys.
    expect(metrics.text).toMatch(
      /laurel_http_requests_total\{route="\/v1\/chains",method="GET",status_class="4xx"\} 1/,
    );
    // GraphQL requests by their root fields, as the operation log names them.
    expect(metrics.text).toMatch(
      /laurel_http_requests_total\{route="\/graphql chainList",method="POST",status_class="2xx"\} 1/,
    );
    expect(metrics.text).toMatch(
      /laurel_http_requests_total\{route="\/graphql __typename",method="POST",status_class="2xx"\} 1/,
    );
    expect(metrics.text).not.toMatch(/route="other"/);
    expect(metrics.text).not.toMatch(/0x[0-9a-fA-F]{40}/);
  });

  (promtool ? it : it.skip)('passes `promtool check metrics` (Prometheus’s own linter)', async () => {
    const { text } = await scrape(laurel.url);
    const checked = spawnSync(promtool!, ['check', 'metrics'], { input: text, encoding: 'utf8' });
    expect({ status: checked.status, problems: `${checked.stdout}${checked.stderr}` }).toEqual({
      status: 0,
      problems: '',
    });
  });

  it('refuses /metrics to other clients without the token', async () => {
    const address = Object.values(os.networkInterfaces())
      .flat()
      .find((entry) => entry && entry.family === 'IPv4' && !entry.internal)?.address;
    if (!address) return; // no interface but loopback on this machine
    const own = await startTestLaurel({
      env: { HOST: '0.0.0.0', METRICS_TOKEN: 'a-long-enough-token-1234' },
    });
    try {
      const url = own.url.replace('localhost', address);
      expect((await scrape(url)).status).toBe(403);
      expect((await scrape(url, { authorization: 'Bearer a-long-enough-token-1234' })).status).toBe(200);
    } finally {
      await own.stop();
    }
  });

  it('GET / answers a page for browsers and JSON for clients, linking what the process serves', async () => {
    const page = await fetch(`${laurel.url}/`, { headers: { accept: 'text/html' } });
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await page.text();
    for (const href of ['/docs', '/graphql', '/openapi.json', '/health', '/ready', '/metrics']) {
      expect(html).toContain(`href="${href}"`);
    }
    const json = await request<{ name: string; version: string; links: { href: string }[] }>(
      laurel.url,
      'GET',
      '/',
      {
        headers: { accept: 'application/json' },
      },
    );
    expect(json.body).toMatchObject({ name: 'Laurel', version: expect.stringMatching(/^\d+\.\d+\.\d+/) });
    expect(json.body.links.map((link) => link.href)).toEqual([
      '/docs',
      '/graphql',
      '/openapi.json',
      '/health',
      '/ready',
      '/metrics',
    ]);
  });

  it('the dashboard asks only for metrics Laurel exports', async () => {
    const dashboard = JSON.parse(readFileSync(path.join(root, 'ops/grafana-dashboard.json'), 'utf8')) as {
      panels: { title: string; targets: { expr: string }[] }[];
    };
    const families = familiesOf((await scrape(laurel.url)).text);
    const asked = dashboard.panels.flatMap((panel) =>
      panel.targets.flatMap((target) =>
        [...target.expr.matchAll(/\b(laurel_[a-z0-9_]+)/g)].map((match) => ({
          panel: panel.title,
          // A histogram's series are its family's name and a suffix.
          metric: match[1].replace(/_(bucket|sum|count)$/, ''),
        })),
      ),
    );
    expect(asked.length).toBeGreaterThan(FAMILIES.length);
    expect(asked.filter(({ metric }) => !families.has(metric))).toEqual([]);
    // And every family of the issue is on the dashboard.
    const shown = new Set(asked.map(({ metric }) => metric));
    expect(FAMILIES.filter((family) => !shown.has(family))).toEqual([]);
  });
});

describe('a worker-only process', () => {
  it('is scraped too: /metrics and / on its port, no API', async () => {
    const worker = await startTestLaurel({ chain: true, env: { LAUREL_ROLES: 'worker' } });
    try {
      const metrics = await scrape(worker.url);
      expect(metrics.status).toBe(200);
      const families = familiesOf(metrics.text);
      expect(FAMILIES.filter((family) => !families.has(family))).toEqual([]);
      // Every task's queue, empty or not.
      const reported = [...metrics.text.matchAll(/^laurel_jobs_runnable\{task="([^"]+)"\} \d+$/gm)];
      expect(reported.map((line) => line[1]).sort()).toEqual([
        'badge_metadata__fetch',
        'maintenance__prune',
        'transactions__check_receipts',
        'transactions__track_pending',
        'transactions__track_receipt',
        'webhook_deliveries__deliver',
        'webhook_deliveries__recover',
      ]);
      const home = await request<{ links: { href: string }[] }>(worker.url, 'GET', '/');
      expect(home.body.links.map((link) => link.href)).toEqual(['/health', '/ready', '/metrics']);
      // No API at all (openapi.json describes processes that serve it): a plain request.
      expect(await statusOf(`${worker.url}/v1/chains`)).toBe(404);
    } finally {
      await worker.stop();
    }
  });
});

describe('METRICS_PORT', () => {
  it('serves /metrics on its own port (to anyone), not on the API port', async () => {
    const port = await freePort();
    const laurel = await startTestLaurel({ env: { METRICS_PORT: String(port) } });
    try {
      const metrics = await scrape(`http://127.0.0.1:${port}`);
      expect(metrics.status).toBe(200);
      expect(familiesOf(metrics.text).has('laurel_http_requests_total')).toBe(true);
      expect((await scrape(laurel.url)).status).toBe(404);
    } finally {
      await laurel.stop();
    }
  });

  it('METRICS=off: nothing is served', async () => {
    const laurel = await startTestLaurel({ env: { METRICS: 'off' } });
    try {
      expect((await scrape(laurel.url)).status).toBe(404);
    } finally {
      await laurel.stop();
    }
  });
});

describe('request ids', () => {
  it("follow a request: its answer, its log line (with why it failed), its jobs' log lines", async () => {
    const lines: Record<string, unknown>[] = [];
    const log = createLogger('debug', {
      destination: { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) },
    });
    const [laurel, receiver] = await Promise.all([
      startTestLaurel({ chain: true, log, env: { LOG_LEVEL: 'debug' } }),
      startWebhookReceiver(),
    ]);
    try {
      const wallet = laurel.chain!.wallets[3];
      const apiKey = await issueApiKey(laurel.url, wallet);
      const api = (method: string, path: string, body?: unknown, requestId?: string) =>
        request(laurel.url, method, `/v1${path}`, {
          apiKey,
          body,
          headers: requestId ? { 'X-Request-Id': requestId } : {},
        });
      receiver.route('/hook', answerChallenge());
      const webhook = await api('POST', '/webhook', { url: receiver.url('/hook') });
      const id = (webhook.body.webhook as { id: number }).id;
      expect((await api('POST', `/webhook/${id}/test`)).status).toBe(200);

      // A refused request: the header, and its line with the reason.
      const refused = await api('POST', '/app/new', { chain: 'nowhere', name: 'x' }, 'req-refused');
      expect(refused.status).toBe(400);
      expect(refused.headers.get('x-request-id')).toBe('req-refused');
      await waitUntil('the refused request’s line', () =>
        lines.find((line) => line.requestId === 'req-refused' && line.msg === 'request'),
      );
      expect(lines.find((line) => line.requestId === 'req-refused' && line.msg === 'request')).toMatchObject({
        status: 400,
        error: { code: 'validation_error', message: expect.stringContaining('Unknown chain "nowhere"') },
      });

      // A broadcast: the receipt job and the webhook delivery it caused log the same id.
      const built = await api('POST', '/app/new', { chain: 'local', name: 'Traced' });
      const signed = await wallet.signTransaction(built.body.unsignedTransaction as Record<string, unknown>);
      const sent = await api(
        'POST',
        '/transactions/execute',
        { chain: 'local', signed_transaction: signed },
        'req-sent',
      );
      expect(sent.headers.get('x-request-id')).toBe('req-sent');
      await receiver.waitForCalls('/hook', 2);
      const jobLines = await waitUntil('the jobs’ lines', () => {
        const found = lines.filter((line) => line.requestId === 'req-sent' && line.msg !== 'request');
        return found.some((line) => line.msg === 'receipt recorded') &&
          found.some((line) => line.msg === 'webhook delivered')
          ? found
          : undefined;
      });
      expect(jobLines.map((line) => line.msg)).toEqual(
        expect.arrayContaining(['receipt recorded', 'webhook delivered']),
      );

      // What happened is counted: the build, the broadcast, the receipt's event and its delivery.
      // (The indexer reaches the app's block on its own: waited for.)
      const text = await waitUntil('the indexer’s events counted', async () => {
        const scraped = (await scrape(laurel.url)).text;
        return /laurel_indexer_events_total\{chain="local"\} [1-9]/.test(scraped) ? scraped : undefined;
      });
      for (const sample of [
        /laurel_transactions_built_total\{chain="local",outcome="built"\} [1-9]/,
        /laurel_transactions_broadcast_total\{chain="local",outcome="accepted"\} 1/,
        /laurel_webhook_deliveries_total\{outcome="succeeded",attempt="1"\} [1-9]/,
        /laurel_indexer_events_total\{chain="local"\} [1-9]/,
        /laurel_rpc_requests_total\{chain="local",provider="1",method="[a-zA-Z_]+",outcome="ok"\} [1-9]/,
      ]) {
        expect(text).toMatch(sample);
      }
    } finally {
      await Promise.all([laurel.stop(), receiver.stop()]);
    }
  });
});
