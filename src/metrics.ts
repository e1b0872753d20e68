/**
 * Laurel's Prometheus metrics, every family in one place (prom-client). One LaurelMetrics per
 * started Laurel, with its own registry: the process's default metrics (`laurel_process_*`,
 * `laurel_nodejs_*`) and Laurel's own. Labels are bounded sets only: route templates, chain
 * names, provider indexes, task names, outcomes — never an address, key, URL or hash.
 *
 * Counters and histograms are recorded where things happen. Gauges of state kept elsewhere (the
 * job queue in PostgreSQL, pools, caches) are read when Prometheus scrapes, from the sources the
 * composition root registers with `observe`.
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/** Seconds: from a cached read (sub-millisecond) to a slow chain call. */
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** A gauge's values at scrape time: one per label set. */
export type GaugeReading = { labels: Record<string, string>; value: number }[];
type GaugeSource = () => GaugeReading | Promise<GaugeReading>;

/** A pg pool's counts (pg.Pool has them). */
export interface PoolCounts {
  totalCount: number;
  idleCount: number;
  waitingCount: number;
}

export class LaurelMetrics {
  readonly registry = new Registry();
  private readonly sources = new Map<string, GaugeSource[]>();

  private counter<L extends string>(name: string, help: string, labelNames: readonly L[]) {
    return new Counter<L>({ name, help, labelNames, registers: [this.registry] });
  }

  private histogram<L extends string>(name: string, help: string, labelNames: readonly L[]) {
    return new Histogram<L>({ name, help, labelNames, buckets: LATENCY_BUCKETS, registers: [this.registry] });
  }

  /** A gauge whose values come from the sources `observe`d under its name, read at each scrape. */
  private observedGauge<L extends string>(name: string, help: string, labelNames: readonly L[]) {
    const sources = this.sources;
    return new Gauge<L>({
      name,
      help,
      labelNames,
      registers: [this.registry],
      async collect() {
        this.reset();
        for (const source of sources.get(name) ?? []) {
          for (const { labels, value } of await source())
            this.set(labels as Partial<Record<L, string>>, value);
        }
      },
    });
  }

  // HTTP
  readonly httpRequests = this.counter('laurel_http_requests_total', 'HTTP requests answered', [
    'route',
    'method',
    'status_class',
  ]);
  readonly httpDuration = this.histogram(
    'laurel_http_request_duration_seconds',
    'Time to answer an HTTP request',
    ['route', 'method'],
  );
  readonly rateLimited = this.counter(
    'laurel_http_rate_limited_total',
    'Requests refused for a request budget (wallet, key issuance per client or per wallet, anonymous GraphQL, webhook tests)',
    ['budget'],
  );

  // Transactions
  readonly transactionsBuilt = this.counter(
    'laurel_transactions_built_total',
    'Unsigned transactions built, by outcome (built, reverted, unfunded, failed)',
    ['chain', 'outcome'],
  );
  readonly transactionsBroadcast = this.counter(
    'laurel_transactions_broadcast_total',
    'Signed transactions sent through execute, by outcome (accepted, or the code they were refused with: nonce_gap, chain_unavailable…)',
    ['chain', 'outcome'],
  );
  readonly transactionsRebroadcast = this.counter(
    'laurel_transactions_rebroadcast_total',
    'Recorded transactions the node had lost that Laurel sent again, by outcome (accepted, or the code the node refused them with)',
    ['chain', 'outcome'],
  );
  readonly transactionsDropped = this.counter(
    'laurel_transactions_dropped_total',
    'Recorded transactions the node no longer knew (marked dropped, nonce freed)',
    ['chain'],
  );
  readonly nonceReservations = this.observedGauge(
    'laurel_nonce_reservations_open',
    'Nonce reservations held (built transactions not yet counted by the chain)',
    ['chain'],
  );
  readonly receiptsPending = this.observedGauge(
    'laurel_transactions_pending',
    'Transactions broadcast through Laurel whose receipt is not recorded yet',
    ['chain'],
  );

  // Jobs
  readonly jobsRunnable = this.observedGauge(
    'laurel_jobs_runnable',
    'Jobs due and not locked by a worker (graphile-worker queue depth)',
    ['task'],
  );
  readonly jobsOldestRunnableAge = this.observedGauge(
    'laurel_jobs_oldest_runnable_age_seconds',
    'How long the oldest runnable job has been due',
    ['task'],
  );
  readonly jobFetches = this.counter(
    'laurel_job_fetches_total',
    'Job fetches by the workers, by result (job, none, error): an idle worker fetches when a job falls due, else once every 30 s',
    ['result'],
  );
  readonly jobFailures = this.counter(
    'laurel_job_failures_total',
    'Job runs that failed and will be retried (or gave up)',
    ['task'],
  );

  // Webhooks
  readonly webhookDeliveries = this.counter(
    'laurel_webhook_deliveries_total',
    'Webhook call attempts, by outcome (succeeded, failed) and attempt number',
    ['outcome', 'attempt'],
  );
  readonly webhookDeliveryDuration = this.histogram(
    'laurel_webhook_delivery_duration_seconds',
    'Time of one webhook call (all its redirects)',
    [],
  );
  readonly webhooksDeactivated = this.counter(
    'laurel_webhooks_deactivated_total',
    'Webhooks deactivated after their last failed attempt',
    [],
  );

  // Badge metadata
  readonly badgeMetadataFetches = this.counter(
    'laurel_badge_metadata_fetches_total',
    'Badge metadata fetch attempts, by outcome: fetched, or why they failed (timeout, network, refused_address, certificate, http_status, too_large, not_json, not_object, unsupported_uri, too_many_redirects…)',
    ['outcome'],
  );

  // Indexer
  readonly indexerHead = this.observedGauge('laurel_indexer_head_block', 'Latest block the node reported', [
    'chain',
  ]);
  readonly indexerIndexed = this.observedGauge('laurel_indexer_indexed_block', 'Last block indexed', [
    'chain',
  ]);
  readonly indexerLagBlocks = this.observedGauge(
    'laurel_indexer_lag_blocks',
    'Blocks between the last indexed block and the head',
    ['chain'],
  );
  readonly indexerLagSeconds = this.observedGauge(
    'laurel_indexer_lag_seconds',
    'Age of the last indexed block (seconds since its timestamp)',
    ['chain'],
  );
  readonly indexerEvents = this.counter(
    'laurel_indexer_events_total',
    'Contract events written to the index',
    ['chain'],
  );
  readonly indexerUnindexable = this.counter(
    'laurel_indexer_unindexable_events_total',
    'Events of Laurel contracts the indexer passed without writing them (recorded in unindexable_events)',
    ['chain'],
  );
  readonly indexerReorgs = this.counter(
    'laurel_indexer_reorgs_total',
    'Chain reorganisations handled by the indexer (rolled back and re-indexed)',
    ['chain'],
  );

  // RPC
  readonly rpcRequests = this.counter(
    'laurel_rpc_requests_total',
    'Requests to a chain provider (one JSON-RPC call, or a batch: method `batch`), by outcome: ok, error (the node answered an error, such as a revert), throttled, timeout, lagging, failed (refused, reset, 5xx...)',
    ['chain', 'provider', 'method', 'outcome'],
  );
  readonly rpcDuration = this.histogram(
    'laurel_rpc_request_duration_seconds',
    'Time of one JSON-RPC call (or batch) to a chain provider',
    ['chain', 'provider', 'method'],
  );
  readonly rpcThrottled = this.counter(
    'laurel_rpc_throttled_total',
    'Calls a provider throttled (HTTP 429, JSON-RPC -32005)',
    ['chain', 'provider'],
  );

  // PostgreSQL pools
  readonly poolConnections = this.observedGauge(
    'laurel_db_pool_connections',
    "Connections of the process's PostgreSQL pools, by state (in_use, idle) and clients waiting",
    ['pool', 'state'],
  );

  // Read replicas (DATABASE_READ_URL), labelled `replica 1`, `replica 2`… in the variable's order
  readonly readReplicaCurrent = this.observedGauge(
    'laurel_read_replica_current',
    'Whether a read replica serves the index reads (1: it has replayed every index commit known; 0: behind or down)',
    ['replica'],
  );
  readonly readReplicaLagBytes = this.observedGauge(
    'laurel_read_replica_lag_bytes',
    'WAL bytes a read replica has still to replay to serve reads (absent while it is down)',
    ['replica'],
  );

  // Read caches
  readonly readCacheRequests = this.counter(
    'laurel_read_cache_requests_total',
    'Reads of the index answered from memory (hit) or PostgreSQL (miss)',
    ['result'],
  );
  readonly readCacheBytes = this.observedGauge(
    'laurel_read_cache_bytes',
    'Estimated bytes of the answers the read cache keeps',
    [],
  );

  // GraphQL subscriptions
  readonly subscriptionsOpen = this.observedGauge(
    'laurel_subscriptions_open',
    'GraphQL subscriptions this process holds open, by root field',
    ['field'],
  );
  readonly subscriptionPushes = this.counter(
    'laurel_subscription_pushes_total',
    'Values pushed to GraphQL subscribers, by root field',
    ['field'],
  );
  readonly subscriptionsRefused = this.counter(
    'laurel_subscriptions_refused_total',
    'WebSocket connections and subscriptions refused, by reason (unauthenticated, rate_limited, too_many_subscriptions, too_many_websockets, invalid)',
    ['reason'],
  );

  constructor() {
    collectDefaultMetrics({ register: this.registry, prefix: 'laurel_' });
    // Gauges named like counters (`*_total`): Prometheus's linter (promtool check metrics) refuses them.
    for (const name of ['active_handles_total', 'active_requests_total', 'active_resources_total']) {
      this.registry.removeSingleMetric(`laurel_nodejs_${name}`);
    }
  }

  /** Adds a source to an observed gauge (its values are read at each scrape). */
  observe(gauge: Gauge, source: GaugeSource): void {
    const name = (gauge as unknown as { name: string }).name;
    this.sources.set(name, [...(this.sources.get(name) ?? []), source]);
  }

  /** Reports a pg pool's connections under `pool`. */
  watchPool(pool: string, counts: PoolCounts): void {
    this.observe(this.poolConnections, () => [
      { labels: { pool, state: 'in_use' }, value: counts.totalCount - counts.idleCount },
      { labels: { pool, state: 'idle' }, value: counts.idleCount },
      { labels: { pool, state: 'waiting' }, value: counts.waitingCount },
    ]);
  }

  /** The Prometheus text exposition. */
  exposition(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}

/** The status class of an HTTP status code: `2xx`, `4xx`… */
export function statusClass(status: number): string {
  return `${Math.floor(status / 100)}xx`;
}
