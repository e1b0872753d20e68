import { Wallet } from 'ethers';
import type { Pool } from 'pg';
import { appInterface } from '../../src/chain/contracts';
import { createLogger } from '../../src/logger';
import { createTestPool } from '../helpers/database';
import { client, createApp, eventArg, issueApiKeys, type Client, type Unsigned } from '../helpers/flow';
import { graphql, startTestLaurel, type TestLaurel } from '../helpers/laurel';
import { waitUntil } from '../helpers/wait';
import {
  failTimes,
  json,
  neverAnswer,
  redirectTo,
  startWebhookReceiver,
  type WebhookReceiver,
} from '../helpers/webhook-receiver';

/**
 * Badge metadata, resolved in the background and answered from PostgreSQL. Badges are created
 * and rewarded through Laurel's REST builders, signed locally and sent with execute-and-wait; their
 * metadata is served by a local HTTPS server (a certificate of the test CA), directly and as an
 * IPFS gateway. The SSRF rule is on (no private networks) with 127.0.0.1 allowed explicitly, so
 * that a redirect to another loopback address stands for one into a private network.
 */
const MAX_BYTES = 4096;
const TIMEOUT_MS = 1000;
const REFRESH_SECONDS = 3;

let laurel: TestLaurel;
let metadataHost: WebhookReceiver;
let pool: Pool;
let api: Client;
let apiKey: string;
let appId: string;
const user = Wallet.createRandom().address;
const logLines: Record<string, unknown>[] = [];

async function createBadge(name: string, baseUri: string): Promise<string> {
  const built = await api.post('/badge/new', {
    chain: 'local',
    app_id: appId,
    badge_name: name,
    base_uri: baseUri,
  });
  expect(built.status).toBe(200);
  const receipt = await api.execute(built.body.unsignedTransaction as Unsigned);
  return eventArg(receipt.logs, appInterface, 'BadgeCreated', 'badge');
}

async function rewardBadge(badge: string): Promise<void> {
  const built = await api.post('/reward/badge', {
    chain: 'local',
    app_id: appId,
    receiver: user,
    badge_id: badge,
    amount: 1,
    action_id: 'collect',
  });
  expect(built.status).toBe(200);
  await api.execute(built.body.unsignedTransaction as Unsigned);
}

type Listed = { id: string; metadata: Record<string, unknown> | null };

async function collectedBadges(): Promise<Listed[]> {
  const profile = await api.get(`/profile?chain=local&user_id=${user}&app_id=${appId}`);
  expect(profile.status).toBe(200);
  return profile.body.collected_badges as Listed[];
}

async function listedBadges(): Promise<Listed[]> {
  const listed = await api.get(`/badges?chain=local&app_id=${appId}`);
  expect(listed.status).toBe(200);
  return listed.body.badges as Listed[];
}

async function storedRow(uri: string) {
  const { rows } = await pool.query<{
    document: Record<string, unknown> | null;
    error: string | null;
    failed_attempts: number;
  }>('SELECT document, error, failed_attempts FROM badge_metadata WHERE uri = $1', [uri]);
  return rows[0];
}

const callsTo = (path: string) => metadataHost.calls.filter((call) => call.path === path).length;

beforeAll(async () => {
  metadataHost = await startWebhookReceiver();
  laurel = await startTestLaurel({
    chain: true,
    log: createLogger('info', {
      destination: {
        write: (line: string) => void logLines.push(JSON.parse(line) as Record<string, unknown>),
      },
    }),
    env: {
      BADGE_METADATA_IPFS_GATEWAY: metadataHost.url('/ipfs'),
      BADGE_METADATA_ALLOW_PRIVATE_NETWORKS: 'false',
      BADGE_METADATA_ALLOWED_ADDRESSES: '127.0.0.1',
      BADGE_METADATA_TIMEOUT_MS: String(TIMEOUT_MS),
      BADGE_METADATA_MAX_BYTES: String(MAX_BYTES),
      BADGE_METADATA_RETRIES: '2',
      BADGE_METADATA_RETRY_BASE_MS: '100',
      BADGE_METADATA_REFRESH_SECONDS: String(REFRESH_SECONDS),
    },
  });
  pool = createTestPool(laurel.databaseUrl, 2);
  const [, owner] = laurel.chain!.wallets;
  [apiKey] = await issueApiKeys(laurel.url, [owner]);
  api = client(laurel.url, apiKey, owner);
  appId = await createApp(api, 'Collectors');
});
afterAll(async () => {
  await pool?.end();
  await laurel?.stop();
  await metadataHost?.stop();
});

describe('badge metadata', () => {
  const gold = { name: 'Gold', description: 'First place', image: 'ipfs://bafyimage/gold.png' };
  const silver = { name: 'Silver', attributes: [{ trait_type: 'rank', value: 2 }] };
  let goldBadge: string;
  let silverBadge: string;

  it('of an https:// and an ipfs:// base URI shows in GET /v1/profile within seconds of the badge being indexed', async () => {
    metadataHost.route('/meta/gold.json', (_call, response) => json(response, 200, gold));
    metadataHost.route('/ipfs/bafysilver/silver.json', (_call, response) => json(response, 200, silver));
    goldBadge = await createBadge('Gold', metadataHost.url('/meta/gold.json'));
    silverBadge = await createBadge('Silver', 'ipfs://bafysilver/silver.json');
    await rewardBadge(goldBadge);
    await rewardBadge(silverBadge);

    // Answered at once, never waiting on a fetch: null until the document is known.
    const known = await waitUntil(
      'both documents in the profile',
      async () => {
        const badges = await collectedBadges();
        return badges.every((badge) => badge.metadata !== null) && badges;
      },
      10_000,
    );
    expect(known).toEqual([
      { id: goldBadge, name: 'Gold', metadataURI: metadataHost.url('/meta/gold.json'), metadata: gold },
      { id: silverBadge, name: 'Silver', metadataURI: 'ipfs://bafysilver/silver.json', metadata: silver },
    ]);
    // The listing and GraphQL answer the same documents.
    expect((await listedBadges()).map((badge) => badge.metadata)).toEqual([gold, silver]);
    const viaGraphql = await graphql<{ profile: { collected_badges: { metadata: unknown }[] } }>(
      laurel.url,
      `
        query ($user: String!, $app: String!) {
          profile(chain: "local", user_id: $user, app_id: $app) {
            collected_badges {
              metadata
            }
          }
        }
      `,
      { apiKey, variables: { user, app: appId } },
    );
    expect(viaGraphql.body.data?.profile.collected_badges.map((badge) => badge.metadata)).toEqual([
      gold,
      silver,
    ]);
    expect(metadataHost.calls.find((call) => call.path === '/meta/gold.json')?.headers['user-agent']).toMatch(
      /^Laurel-Metadata\//,
    );
  });

  it('refreshes an https:// document after BADGE_METADATA_REFRESH_SECONDS; an ipfs:// one is never fetched again', async () => {
    const goldV2 = { ...gold, description: 'Still first' };
    metadataHost.route('/meta/gold.json', (_call, response) => json(response, 200, goldV2));
    await waitUntil(
      'the refreshed document in the profile (the read cache was told)',
      async () => (await collectedBadges())[0].metadata?.description === 'Still first',
      4 * REFRESH_SECONDS * 1000,
    );
    expect(callsTo('/meta/gold.json')).toBeGreaterThanOrEqual(2);
    expect(callsTo('/ipfs/bafysilver/silver.json')).toBe(1);
  });

  it('retries a fetch that may pass (HTTP 503) until the document arrives', async () => {
    const bronze = { name: 'Bronze' };
    metadataHost.route(
      '/meta/bronze.json',
      failTimes(2, (_call, response) => json(response, 200, bronze), 503),
    );
    const uri = metadataHost.url('/meta/bronze.json');
    const badge = await createBadge('Bronze', uri);
    await waitUntil(
      'the document after two failed attempts',
      async () => (await listedBadges()).find((listed) => listed.id === badge)?.metadata !== null,
      10_000,
    );
    expect(callsTo('/meta/bronze.json')).toBeGreaterThanOrEqual(3);
    expect(await storedRow(uri)).toEqual({ document: bronze, error: null, failed_attempts: 0 });
  });

  it('leaves metadata null for hostile hosts, with the reason stored and logged, and the service unharmed', async () => {
    metadataHost.route('/meta/huge.json', (_call, response) =>
      response
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ padding: 'x'.repeat(1024 * 1024) })),
    );
    metadataHost.route('/meta/slow.json', neverAnswer);
    metadataHost.route(
      '/meta/redirect.json',
      redirectTo(`https://127.0.0.2:${metadataHost.port}/meta/internal.json`),
    );
    metadataHost.route('/meta/internal.json', (_call, response) => json(response, 200, { secret: true }));
    metadataHost.route('/meta/html.json', (_call, response) =>
      response.writeHead(200, { 'content-type': 'text/html' }).end('<html>not json</html>'),
    );
    metadataHost.route('/meta/array.json', (_call, response) => json(response, 200, [1, 2, 3]));
    const hostile: [string, string, RegExp][] = [
      [
        'Huge',
        metadataHost.url('/meta/huge.json'),
        new RegExp(`^the document is larger than ${MAX_BYTES} bytes$`),
      ],
      [
        'Slow',
        metadataHost.url('/meta/slow.json'),
        new RegExp(`^timeout: no answer within ${TIMEOUT_MS} ms$`),
      ],
      [
        'Redirect',
        metadataHost.url('/meta/redirect.json'),
        /^refused address: .*127\.0\.0\.2.*private IP address/,
      ],
      ['Html', metadataHost.url('/meta/html.json'), /^the document is not JSON: /],
      ['Array', metadataHost.url('/meta/array.json'), /^the document is an array, not a JSON object$/],
      [
        'Plain HTTP',
        `http://127.0.0.1:${metadataHost.port}/meta/gold.json`,
        /^only https:\/\/ and ipfs:\/\//,
      ],
    ];
    const badges: string[] = [];
    for (const [name, uri] of hostile) badges.push(await createBadge(name, uri));
    for (const badge of badges) await rewardBadge(badge);

    for (const [name, uri, reason] of hostile) {
      const row = await waitUntil(
        `the failure of ${name} stored`,
        async () => {
          // The row exists from the badge's indexing on; its error once the first attempt is over.
          const row = await storedRow(uri);
          return row?.error ? row : false;
        },
        15_000,
      );
      expect({ name, document: row.document, error: row.error }).toEqual({
        name,
        document: null,
        error: expect.stringMatching(reason),
      });
      expect(
        logLines.some(
          (line) =>
            line.uri === uri &&
            line.msg?.toString().startsWith('badge metadata fetch failed') &&
            line.reason === row.error,
        ),
      ).toBe(true);
    }
    // The redirect went nowhere; the profile answers (metadata null) while slow fetches go on.
    expect(callsTo('/meta/internal.json')).toBe(0);
    const collected = await collectedBadges();
    expect(collected.filter((badge) => badges.includes(badge.id)).map((badge) => badge.metadata)).toEqual(
      badges.map(() => null),
    );
    // The documents fetched before are still answered.
    expect(collected.find((badge) => badge.id === silverBadge)?.metadata).toEqual(silver);
  });

  it('runs at most 4 fetches at once, so slow hosts hold at most 4 job slots', async () => {
    let open = 0;
    let mostOpen = 0;
    const uris = Array.from({ length: 8 }, (_, i) => metadataHost.url(`/meta/stalling-${i}.json`));
    uris.forEach((_, i) =>
      metadataHost.route(`/meta/stalling-${i}.json`, (_call, response) => {
        mostOpen = Math.max(mostOpen, ++open);
        response.once('close', () => open--);
      }),
    );
    for (const [i, uri] of uris.entries()) await createBadge(`Stalling ${i}`, uri);
    for (const uri of uris) {
      await waitUntil(
        `the timeout of ${uri} stored`,
        async () => (await storedRow(uri))?.error ?? false,
        30_000,
      );
    }
    expect(mostOpen).toBeGreaterThanOrEqual(1);
    expect(mostOpen).toBeLessThanOrEqual(4);
    // Meanwhile the other jobs run: a reward's receipt is tracked, its profile answers at once.
    const before = (await collectedBadges()).length;
    await rewardBadge(goldBadge);
    expect(await collectedBadges()).toHaveLength(before);
  });

  it('forgets a URI no indexed badge names any more (its badge was in a reorganised block), without fetching it', async () => {
    const uri = metadataHost.url('/meta/orphan.json');
    await pool.query(
      `INSERT INTO badge_metadata (uri, document, fetched_at, attempted_at) VALUES ($1, '{"name":"Gone"}', now(), now())`,
      [uri],
    );
    await laurel.tasks.badgeMetadata.attempt(uri, 1);
    expect(await storedRow(uri)).toBeUndefined();
    expect(callsTo('/meta/orphan.json')).toBe(0);
    const { rows } = await pool.query(
      `SELECT 1 FROM graphile_worker.jobs WHERE key = 'badge_metadata__fetch:' || md5($1)`,
      [uri],
    );
    expect(rows).toHaveLength(0);
  });

  it('counts fetches by outcome in laurel_badge_metadata_fetches_total', async () => {
    const text = await (await fetch(`${laurel.url}/metrics`)).text();
    for (const outcome of [
      'fetched',
      'http_status',
      'too_large',
      'timeout',
      'refused_address',
      'not_json',
      'not_object',
      'unsupported_uri',
    ]) {
      expect(text).toMatch(
        new RegExp(`^laurel_badge_metadata_fetches_total\\{outcome="${outcome}"\\} [1-9]`, 'm'),
      );
    }
  });
});
