/**
 * Which provider a call goes to next: one that was not avoided for a failure, then the shortest
 * wait (Retry-After, Laurel's own budget), then the fewest calls in flight, then the least
 * recently chosen.
 */
import type { ProviderStates } from './provider-health';
import type { RpcEndpoint } from './rpc-endpoint';
import type { Need } from './rpc-requests';

interface Candidate {
  endpoint: RpcEndpoint;
  wait: number;
  avoided: boolean;
}

/** The best provider for a call of `cost` calls not yet tried, and how long it would make the call wait. */
export function chooseProvider(
  endpoints: readonly RpcEndpoint[],
  health: ProviderStates,
  need: Need,
  cost: number,
  tried: ReadonlySet<RpcEndpoint>,
  now: number,
): { endpoint: RpcEndpoint; wait: number } | undefined {
  const best = health.bestHead(now);
  let chosen: Candidate | undefined;
  for (const endpoint of endpoints) {
    if (tried.has(endpoint) || !health.serves(endpoint, need, best, now)) continue;
    const wait = waitOf(endpoint, cost, now);
    const candidate = { endpoint, wait, avoided: endpoint.avoidUntil > now };
    if (!chosen || before(candidate, chosen)) chosen = candidate;
  }
  return chosen;
}

function before(a: Candidate, b: Candidate): boolean {
  if (a.avoided !== b.avoided) return !a.avoided;
  if (a.wait !== b.wait) return a.wait < b.wait;
  if (a.endpoint.inFlight !== b.endpoint.inFlight) return a.endpoint.inFlight < b.endpoint.inFlight;
  return a.endpoint.lastChosenAt < b.endpoint.lastChosenAt;
}

/** The providers not tried yet and not blocked (Retry-After): those `chooseProvider` passed over for their head. */
export function passedOver(
  endpoints: readonly RpcEndpoint[],
  tried: ReadonlySet<RpcEndpoint>,
  now: number,
): RpcEndpoint[] {
  return endpoints.filter((e) => !tried.has(e) && e.blockedUntil <= now);
}

/** How long `cost` calls would wait for this provider: its Retry-After, then its budget. */
export function waitOf(endpoint: RpcEndpoint, cost: number, now: number): number {
  return Math.max(0, endpoint.blockedUntil - now, endpoint.rate?.waitFor(cost, now) ?? 0);
}

/** Takes the provider's budget for `cost` calls; returns how long to wait before sending. */
export function reserve(endpoint: RpcEndpoint, cost: number, now: number): number {
  endpoint.lastChosenAt = now;
  return Math.max(0, endpoint.blockedUntil - now, endpoint.rate?.take(cost, now) ?? 0);
}
