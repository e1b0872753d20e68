/**
 * Calls to hosts users name (webhooks, badge metadata): their connections, and whether they may
 * reach non-public addresses.
 */
import { z } from 'zod';
import { DEFAULT_OUTBOUND_AGENT } from '../outbound-https';
import { isLoopbackHost } from './server';
import { positiveInt, type Parsed } from './values';

/**
 * Whether calls to hosts users name may reach non-public addresses (`auto`: in a development setup
 * that listens on loopback only, where no one else can name them).
 */
export const privateNetworksAllowance = (calls: string) =>
  z
    .enum(['true', 'false', 'auto'])
    .default('auto')
    .describe(
      `\`true\`: ${calls} may reach loopback, private and link-local addresses (tests); \`auto\`: only in a development setup (the local chain and no \`CHAINS\`) listening on loopback (\`HOST\` 127.0.0.1, ::1 or localhost)`,
    );

/** Laurel on its own local chain and nothing else, and where it listens. */
export interface Setup {
  /** A developer's machine, not a deployment: the local chain and no other. */
  developmentSetup: boolean;
  host: string;
}

/** What a `privateNetworksAllowance` setting means in this setup. */
export function privateNetworksAllowed(setting: 'true' | 'false' | 'auto', setup: Setup): boolean {
  // Reachable from elsewhere, anyone could name a private address: only an explicit `true` then.
  return setting === 'auto' ? setup.developmentSetup && isLoopbackHost(setup.host) : setting === 'true';
}

export const outboundVariables = {
  OUTBOUND_IDLE_SOCKET_MS: positiveInt(DEFAULT_OUTBOUND_AGENT.idleSocketMs).describe(
    'a kept-alive connection of webhook calls or badge metadata fetches idle this long is closed',
  ),
  OUTBOUND_MAX_SOCKETS: positiveInt(DEFAULT_OUTBOUND_AGENT.maxSockets).describe(
    'connections webhook calls (and, apart, badge metadata fetches) hold open at most over every host; a call past it waits for one within its deadline, and idle connections of other hosts are closed to make room',
  ),
};

export interface OutboundConfig {
  /** The connections of each client that calls hosts users name (webhooks, badge metadata). */
  outbound: { idleSocketMs: number; maxSockets: number };
}

export function outboundConfig(e: Parsed<typeof outboundVariables>): OutboundConfig {
  return { outbound: { idleSocketMs: e.OUTBOUND_IDLE_SOCKET_MS, maxSockets: e.OUTBOUND_MAX_SOCKETS } };
}
