import type { JsonRpcProvider } from 'ethers';
import { chainConfigSchema, type ChainConfig, type ChainEntry } from '../config';
import { ChainUnavailableError, ValidationError } from '../errors';
import type { Logger } from '../logger';
import type { LaurelMetrics } from '../metrics';
import { PooledJsonRpcProvider } from './pooled-provider';
import type { ProviderHealth } from './rpc-pool';

/** Placeholder explorer of the embedded `local` chain: same URL form as a real explorer, on a reserved host. */
export const LOCAL_EXPLORER_URL = 'https://explorer.local.invalid';

export interface Chain extends Omit<ChainConfig, 'rpcUrls'> {
  /**
   * The chain's provider, created once: a JsonRpcProvider over all of the chain's RPC providers
   * (failover, rate limits, lag, broadcasting: src/chain/rpc-pool.ts); requests made in the same
   * tick go out as one JSON-RPC batch.
   */
  provider: PooledJsonRpcProvider;
}

export interface ChainHealth {
  name: string;
  ok: boolean;
  error?: string;
  /** Each RPC provider, by name (`local#1`), never by URL. */
  providers: ProviderHealth[];
}

/** The one place that maps chain names to chain ids, RPC providers, explorers and factories. */
export class ChainRegistry {
  private readonly byName = new Map<string, Chain>();

  constructor(
    chains: readonly ChainEntry[],
    private readonly rpcTimeoutMs: number,
    /** Where providers' changes of state are logged, and their requests counted. */
    private readonly observers: { log?: Logger; metrics?: LaurelMetrics | null } = {},
  ) {
    for (const chain of chains) this.add(chain);
  }

  add(entry: ChainEntry): Chain {
    const { rpcUrls, ...config } = chainConfigSchema.parse(entry);
    const chain: Chain = {
      ...config,
      explorerUrl: config.explorerUrl.replace(/\/+$/, ''),
      provider: new PooledJsonRpcProvider(config.chainId, {
        chain: config.name,
        rpcUrls,
        timeoutMs: this.rpcTimeoutMs,
        maxLagBlocks: config.maxProviderLagBlocks,
        ...this.observers,
      }),
    };
    this.byName.set(chain.name, chain);
    return chain;
  }

  list(): Chain[] {
    return [...this.byName.values()];
  }

  /** The chain named by a request; an unknown name is a validation error on `chain`. */
  get(name: string): Chain {
    const chain = this.byName.get(name);
    if (!chain) {
      const served = this.list().map((c) => c.name);
      throw ValidationError.field(
        'chain',
        `Unknown chain "${name}"; this service serves: ${served.length ? served.join(', ') : 'no chain'}`,
      );
    }
    return chain;
  }

  byChainId(chainId: number): Chain | undefined {
    return this.list().find((chain) => chain.chainId === chainId);
  }

  transactionUrl(chain: Chain, hash: string): string {
    return `${chain.explorerUrl}/tx/${hash}`;
  }

  /**
   * Runs RPC work against a chain with a deadline; unreachable or silent providers become a 503
   * naming the chain instead of a hang or a 500 (the provider pool raises ChainUnavailableError when
   * none of them could answer). AppErrors raised inside pass through.
   */
  async withProvider<T>(chain: Chain, work: (provider: JsonRpcProvider) => Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new ChainUnavailableError(chain.name, `no answer within ${this.rpcTimeoutMs} ms`, true)),
        this.rpcTimeoutMs,
      );
    });
    try {
      return await Promise.race([work(chain.provider), deadline]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** For /ready: each provider of every chain asked for its head; a chain is ok when one of them is. */
  async checkAll(): Promise<ChainHealth[]> {
    return Promise.all(
      this.list().map(async (chain) => {
        const providers = await chain.provider.pool.check();
        const ok = providers.some((provider) => provider.ok);
        const failing = providers.map((provider) => `${provider.name} ${provider.state}`).join(', ');
        return { name: chain.name, ok, providers, ...(!ok && { error: `no provider answers (${failing})` }) };
      }),
    );
  }

  destroy(): void {
    for (const chain of this.list()) chain.provider.destroy();
  }
}
