import { Wallet } from 'ethers';
import { Client } from 'pg';
import { connectionConfig } from '../../src/db/connection';
import { withNotificationsHeldBack } from '../helpers/database';
import { client, createApp, issueApiKeys, type Client as ApiClient, type Unsigned } from '../helpers/flow';
import { request, startTestLaurel, type TestLaurel } from '../helpers/laurel';
import {
  productionPostgresMissing,
  startProductionPostgres,
  type ProductionDatabase,
  type ProductionPostgres,
} from '../helpers/production-postgres';
import { answerChallenge, startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver';
import { waitUntil } from '../helpers/wait';

/**
 * Laurel on PostgreSQL as production runs it (test/helpers/production-postgres.ts): Debian's
 * PostgreSQL 15 primary with TLS, a streaming replica, and PgBouncer 1.18 in transaction mode in
 * front of the primary. Laurel gets DATABASE_URL = PgBouncer (so DATABASE_POOLER is `transaction`:
 * no statement prepared by name), DATABASE_DIRECT_URL = the primary over TLS (verify-full against the
 * CA made for the test) and DATABASE_READ_URL = the replica (sslmode=require).
 *
 * Skipped where Debian's `postgresql` and `pgbouncer` are not installed, except under CI, which
 * installs them (.ci/run) and where a skip would hide a failure.
 */
const missing = productionPostgresMissing();
if (missing && !process.env.CI) {
  console.warn(`production-postgres.test.ts skipped: ${missing}`);
}
const describeWithServers = missing && !process.env.CI ? describe.skip : describe;

interface ReadyBody {
  status: string;
  checks: {
    readReplicas?: { name: string; state: string; lagBytes: number | null }[];
    indexer: { active: boolean; cursor: number }[];
  };
}

describeWithServers(
  'Laurel on PostgreSQL 15 behind PgBouncer (transaction mode), with a streaming replica and TLS',
  () => {
    let pg: ProductionPostgres;
    let database: ProductionDatabase;
    let laurel: TestLaurel;
    let receiver: WebhookReceiver;
    let owner: Wallet;
    let api: ApiClient;
    let appId: string;

    const sqlOn = async <T>(url: string, text: string, values: unknown[] = []): Promise<T[]> => {
      const db = new Client(connectionConfig(url));
      await db.connect();
      try {
        return (await db.query(text, values)).rows as T[];
      } finally {
        await db.end();
      }
    };
    const ready = () => request<ReadyBody>(laurel.url, 'GET', '/ready');
    const replicaState = async () => (await ready()).body.checks.readReplicas?.[0].state;
    const replicaCurrentMetric = async () =>
      /^laurel_read_replica_current\{replica="replica 1"\} (\d)$/m.exec(
        await (await fetch(`${laurel.url}/metrics`)).text(),
      )?.[1];
    const actionsOf = async (user: string) => {
      const result = await api.get(`/profile?chain=local&user_id=${user}&app_id=${appId}`);
      expect(result.status).toBe(200);
      return (result.body.completed_actions as { name: string }[]).map((action) => action.name);
    };
    const buildXP = async (user: string, action: string) => {
      const built = await api.post('/reward/XP', {
        chain: 'local',
        app_id: appId,
        receiver: user,
        amount: 1,
        action_id: action,
      });
      expect(built.status).toBe(200);
      return built.body.unsignedTransaction as Unsigned;
    };
    const rewardXP = async (user: string, action: string) => {
      await api.execute(await buildXP(user, action));
    };

    beforeAll(async () => {
      if (missing) throw new Error(`CI must run these tests: ${missing}`);
      pg = await startProductionPostgres();
      database = await pg.createDatabase();
      receiver = await startWebhookReceiver();
      laurel = await startTestLaurel({
        chain: true,
        database: { url: database.directUrl, drop: () => database.drop() },
        env: {
          DATABASE_URL: database.poolerUrl,
          DATABASE_DIRECT_URL: `${database.directUrl}?sslmode=verify-full&sslrootcert=${pg.caFile}`,
          DATABASE_READ_URL: `${database.replicaUrl}?sslmode=require`,
          INDEXER_POLL_INTERVAL_MS: '100',
        },
      });
      [, owner] = laurel.chain!.wallets;
      const [ownerKey] = await issueApiKeys(laurel.url, [owner]);
      api = client(laurel.url, ownerKey, owner);
      appId = await createApp(api, 'Pooled');
    }, 180_000);

    afterAll(async () => {
      await laurel?.stop();
      await receiver?.stop();
      await pg?.stop();
    }, 60_000);

    it('sends no statement by name through the pooler, and the direct and replica connections use TLS', async () => {
      expect(laurel.services.config.databasePooler).toBe('transaction');
      const connections = await sqlOn<{ server: string; ssl: boolean; n: string }>(
        database.directUrl,
        `SELECT CASE WHEN a.client_port IS NULL THEN 'local' ELSE 'tcp' END AS server, s.ssl, count(*)::text AS n
       FROM pg_stat_activity a JOIN pg_stat_ssl s USING (pid)
       WHERE a.datname = $1 AND a.pid <> pg_backend_pid() GROUP BY 1, 2`,
        [database.name],
      );
      // Laurel's sessions (LISTEN, indexer, worker) are encrypted; PgBouncer's server connections are not.
      expect(connections.find((row) => row.ssl)).toBeDefined();
      const replicaConnections = await sqlOn<{ ssl: boolean }>(
        database.replicaUrl,
        `SELECT s.ssl FROM pg_stat_activity a JOIN pg_stat_ssl s USING (pid) WHERE a.datname = $1 AND a.pid <> pg_backend_pid()`,
        [database.name],
      );
      expect(replicaConnections.length).toBeGreaterThan(0);
      expect(replicaConnections.every((row) => row.ssl)).toBe(true);
    });

    it('builds, reserves nonces, executes, delivers webhooks and counts request budgets through PgBouncer', async () => {
      const path = '/pooled';
      receiver.route(path, answerChallenge());
      const created = await api.post('/webhook', { url: receiver.url(path), events: ['transaction'] });
      expect(created.status).toBe(201);
      const webhookId = (created.body.webhook as { id: number }).id;
      expect((await api.post(`/webhook/${webhookId}/test`, {})).status).toBe(200);

      // Ten builds at once for one sender: distinct, consecutive nonces (laurel_reserve_nonces).
      const builds = await Promise.all(
        Array.from({ length: 10 }, (_, i) => api.post('/app/new', { chain: 'local', name: `Pooled ${i}` })),
      );
      expect(builds.map((build) => build.status)).toEqual(Array(10).fill(200));
      const nonces = builds
        .map((build) => (build.body.unsignedTransaction as { nonce: number }).nonce)
        .sort((a, b) => a - b);
      expect(nonces).toEqual(Array.from({ length: 10 }, (_, i) => nonces[0] + i));
      await Promise.all(builds.map((build) => api.execute(build.body.unsignedTransaction as Unsigned)));

      // Every transaction event delivered by the worker (graphile-worker on the direct connection,
      // the deliveries' statements through the pooler), after the test call.
      const calls = await receiver.waitForCalls(path, 11, 60_000);
      expect(calls.filter((call) => JSON.parse(call.body).event === 'transaction')).toHaveLength(10);

      // Requests counted in memory and flushed to PostgreSQL (laurel-budget-flush), and keys listed.
      const answers = await Promise.all(Array.from({ length: 50 }, () => api.get('/chains')));
      expect(answers.every((answer) => answer.status === 200)).toBe(true);
      expect((await api.get('/keys')).status).toBe(200);

      const stats = await pg.poolerStats(database.name);
      expect(Number(stats.total_query_count)).toBeGreaterThan(100);
    }, 120_000);

    it('shows a reward right after execute-and-wait, while the replica is paused, and uses the replica again once it has caught up', async () => {
      await waitUntil('the replica to be current', async () => (await replicaState()) === 'current');
      const user = Wallet.createRandom().address;
      await pg.pauseReplay();
      try {
        await rewardXP(user, 'while-paused');
        expect(await actionsOf(user)).toEqual(['while-paused']);
        // The replica has not replayed it: that answer came from the primary.
        const onReplica = await sqlOn<{ n: string }>(
          database.replicaUrl,
          'SELECT count(*)::text AS n FROM completed_actions WHERE user_address = $1',
          [user],
        );
        expect(onReplica).toEqual([{ n: '0' }]);
        await waitUntil('/ready to show the replica behind', async () => (await replicaState()) === 'behind');
        const body = (await ready()).body;
        expect(body.status).toBe('ready');
        expect(body.checks.readReplicas![0].lagBytes).toBeGreaterThan(0);
        expect(await replicaCurrentMetric()).toBe('0');
      } finally {
        await pg.resumeReplay();
      }
      await waitUntil('the replica to be current again', async () => (await replicaState()) === 'current');
      expect(await replicaCurrentMetric()).toBe('1');
      expect(await actionsOf(user)).toEqual(['while-paused']);

      // Reads of users not asked before (nothing cached) go to the replica now: its scans count them.
      const scans = async () =>
        Number(
          (
            await sqlOn<{ n: string }>(
              database.replicaUrl,
              `SELECT (coalesce(sum(idx_scan), 0) + coalesce(sum(seq_scan), 0))::text AS n
             FROM pg_stat_user_tables WHERE relname LIKE 'completed_actions%'`,
            )
          )[0].n,
        );
      const before = await scans();
      for (let i = 0; i < 5; i += 1) expect(await actionsOf(Wallet.createRandom().address)).toEqual([]);
      await waitUntil('the replica to have answered the profiles', async () => (await scans()) > before);
    }, 120_000);

    it("shows a reward that the indexer wrote first, while the replica is paused and the indexer's notification is held back", async () => {
      await waitUntil('the replica to be current', async () => (await replicaState()) === 'current');
      const user = Wallet.createRandom().address;
      await pg.pauseReplay();
      try {
        await withNotificationsHeldBack(database.directUrl, async () => {
          const unsigned = await buildXP(user, 'indexed first');
          // Sent straight to the node: the indexer puts it in the index before execute-and-wait sees it.
          const sent = await laurel.chain!.provider.broadcastTransaction(
            await owner.signTransaction(unsigned),
          );
          const { blockNumber } = (await sent.wait())!;
          await waitUntil(
            'the indexer to pass the block',
            async () => (await ready()).body.checks.indexer[0].cursor >= blockNumber,
          );
          await api.execute(unsigned);
          expect(await actionsOf(user)).toEqual(['indexed first']);
        });
      } finally {
        await pg.resumeReplay();
      }
    }, 120_000);

    it('follows the chain with the indexer (lock and writes on the direct connection) and drops cached profiles on its commits', async () => {
      const user = Wallet.createRandom().address;
      await rewardXP(user, 'first');
      // Read twice: the second answer is kept by the read cache.
      expect(await actionsOf(user)).toEqual(['first']);
      expect(await actionsOf(user)).toEqual(['first']);
      // A reward sent to the node without Laurel: only the indexer puts it in the index, and its
      // NOTIFY (heard on the direct connection) drops the cached profile.
      await laurel.chain!.provider.broadcastTransaction(
        await owner.signTransaction(await buildXP(user, 'second')),
      );
      await waitUntil('the indexer to put the reward in the profile', async () =>
        (await actionsOf(user)).length === 2 ? true : undefined,
      );
      expect(await actionsOf(user)).toEqual(['second', 'first']);
      const indexer = (await ready()).body.checks.indexer[0];
      expect(indexer.active).toBe(true);
    }, 120_000);

    it('skips a replica that is down (reads go to the primary, /ready says so) and uses it again once it is back', async () => {
      const user = Wallet.createRandom().address;
      await rewardXP(user, 'before-outage');
      await pg.stopReplica();
      try {
        expect(await actionsOf(user)).toEqual(['before-outage']);
        expect(await actionsOf(Wallet.createRandom().address)).toEqual([]);
        await waitUntil('/ready to show the replica down', async () => (await replicaState()) === 'down');
        expect((await ready()).status).toBe(200);
      } finally {
        await pg.startReplica();
      }
      await waitUntil(
        'the replica to be current again',
        async () => (await replicaState()) === 'current',
        60_000,
      );
      expect(await actionsOf(user)).toEqual(['before-outage']);
    }, 120_000);

    it("reads sslmode as libpq does: require encrypts without checking, verify-full checks the server's certificate against sslrootcert", async () => {
      const ssl = 'SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()';
      expect(await sqlOn(`${database.directUrl}?sslmode=require`, ssl)).toEqual([{ ssl: true }]);
      expect(await sqlOn(`${database.directUrl}?sslmode=verify-ca&sslrootcert=${pg.caFile}`, ssl)).toEqual([
        { ssl: true },
      ]);
      expect(
        await sqlOn(
          `${database.directUrl.replace('127.0.0.1', 'localhost')}?sslmode=verify-full&sslrootcert=${pg.caFile}`,
          ssl,
        ),
      ).toEqual([{ ssl: true }]);
      // Not signed by a CA Node trusts: verify-full without the CA file refuses the server.
      await expect(sqlOn(`${database.directUrl}?sslmode=verify-full`, ssl)).rejects.toThrow(/certificate/);
      expect(await sqlOn(`${database.directUrl}?sslmode=disable`, ssl)).toEqual([{ ssl: false }]);
    });
  },
);
