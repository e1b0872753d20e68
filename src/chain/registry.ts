import { FetchRequest, JsonRpcProvider, Network, isError } from 'ethers';
import type { ChainConfig } from '../config';
import { AppError, ChainUnavailableError, ValidationError } from '../errors';

/** Placeholder explorer of the embedded `local` chain: same URL form as a real explorer, on a reserved host. */
export const LOCAL_EXPLORER_URL = 'https://explorer.local.invalid';

export interface Chain {
  name: string;
  chainId: number;
  rpcUrl: string;
  explorerUrl: string;
  factoryAddress: string;
  confirmations: number;
  /** First block the indexer reads. */
  startBlock?: number;
  /** One provider per chain, created once; requests made in the same tick go out as one JSON-RPC batch. */
  provider: JsonRpcProvider;
}

export function createProvider(rpcUrl: string, chainId: number, timeoutMs: number): JsonRpcProvider {
  const request = new FetchRequest(rpcUrl);
  request.timeout = timeoutMs;
  const network = Network.from(chainId);
  // No response cache: a pending nonce or receipt read 100 ms ago may already be stale.
  return new JsonRpcProvider(request, network, {
    staticNetwork: network,
    cacheTimeout: -1,
    batchStallTime: 2,
    batchMaxCount: 50,
  });
}

/** Whether an error means the node could not be reached or did not answer in time. */
export function isUnreachable(error: unknown): boolean {
  if (isError(error, 'TIMEOUT') || isError(error, 'NETWORK_ERROR')) return true;
  if (isError(error, 'SERVER_ERROR')) return true;
  const socketErrors = ['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'EHOSTUNREACH', 'ETIMEDOUT'];
  const { code, cause } = (error ?? {}) as { code?: unknown; cause?: { code?: unknown } };
  return socketErrors.includes(String(code)) || socketErrors.includes(String(cause?.code));
}

/** Why a node could not be used, in words that carry no URL, host or port. */
function unreachableReason(error: unknown): string {
  if (isError(error, 'TIMEOUT')) return 'its node did not answer in time';
  if (isError(error, 'SERVER_ERROR')) return 'its node answered with a server error';
  const { code, cause } = (error ?? {}) as { code?: unknown; cause?: { code?: unknown } };
  const socketError = String(cause?.code ?? code);
  if (socketError === 'ECONNREFUSED') return 'its node refused the connection';
  if (socketError === 'ENOTFOUND') return "its node's host name does not resolve";
  return 'its node cannot be reached';
}

/** Whether the node could not even be connected to: then a request certainly did not reach it. */
function wasRefused(error: unknown): boolean {
  const refusals = ['ECONNREFUSED', 'ENOTFOUND', 'EHOSTUNREACH'];
  const { code, cause } = (error ?? {}) as { code?: unknown; cause?: { code?: unknown } };
  return refusals.includes(String(code)) || refusals.includes(String(cause?.code));
}

/** The one place that maps chain names to chain ids, RPC providers, explorers and factories. */
export class ChainRegistry {
  private readonly byName = new Map<string, Chain>();

  constructor(
    chains: ChainConfig[],
    private readonly rpcTimeoutMs: number,
  ) {
    for (const chain of chains) this.add(chain);
  }

  add(config: ChainConfig): Chain {
    const chain: Chain = {
      ...config,
      explorerUrl: config.explorerUrl.replace(/\/+$/, ''),
      provider: createProvider(config.rpcUrl, config.chainId, this.rpcTimeoutMs),
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
   * Runs RPC work against a chain with a deadline; an unreachable or silent node becomes a 503
   * naming the chain instead of a hang or a 500. AppErrors raised inside pass through.
   */
  async call<T>(chain: Chain, work: (provider: JsonRpcProvider) => Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new ChainUnavailableError(chain.name, `no answer within ${this.rpcTimeoutMs} ms`, true)),
        this.rpcTimeoutMs,
      );
    });
    try {
      return await Promise.race([work(chain.provider), deadline]);
    } catch (error) {
      if (error instanceof AppError) throw error;
      // The reason names no URL or address: an RPC URL often embeds a provider's API key.
      if (isUnreachable(error)) {
        throw new ChainUnavailableError(chain.name, unreachableReason(error), !wasRefused(error));
      }
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }

  /** For /ready: every chain answers eth_blockNumber. */
  async checkAll(): Promise<{ name: string; ok: boolean; error?: string }[]> {
    return Promise.all(
      this.list().map(async (chain) => {
        try {
          await this.call(chain, (provider) => provider.getBlockNumber());
          return { name: chain.name, ok: true };
        } catch (error) {
          return { name: chain.name, ok: false, error: (error as Error).message };
        }
      }),
    );
  }

  destroy(): void {
    for (const chain of this.list()) chain.provider.destroy();
  }
}
