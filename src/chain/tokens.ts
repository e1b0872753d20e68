import { CacheOnSuccess } from '../cache-on-success';
import { getAddress, isError } from 'ethers';
import { checksumAddress } from '../addresses';
import { AppError } from '../errors';
import { creditTokenInterface } from './contracts';
import type { ChainTextLimits } from '../stored-text';
import type { Chain, ChainRegistry } from './registry';
import { viewCall, viewText } from './view-call';

/** A Laurel credit or point token (CreditToken). */
export interface TokenInfo {
  /** Checksummed. */
  address: string;
  name: string;
  symbol: string;
  decimals: number;
  /** True for a non-transferable point token. */
  isPoint: boolean;
  /** The app that mints it (checksummed). */
  app: string | null;
}

/** Views of a token's immutable facts; the first two are strings its app's owner chose (viewText). */
const TEXT_FIELDS = ['name', 'symbol'] as const;
const FIELDS = ['decimals', 'isPoint', 'app'] as const;

/** A view that reverts or answers nothing means "not a Laurel token"; an unreachable node does not. */
function unlessNotAToken<T>(call: Promise<T>): Promise<T | null> {
  return call.catch((error: unknown) => {
    if (isError(error, 'CALL_EXCEPTION') || isError(error, 'BAD_DATA')) return null;
    throw error;
  });
}

/**
 * Looks up Laurel credit/point tokens by address. A token's name, symbol, decimals, kind and app
 * never change, so a found token is cached in memory for the life of the process (per chain and
 * address); one lookup is one JSON-RPC batch (code + five views). An address that is not a
 * contract, or whose views revert or answer nothing, is not a Laurel token: null (not cached,
 * since a token may be deployed there later).
 */
/** Tokens whose immutable facts are kept in memory (least recently used first out). */
const TOKEN_CACHE_SIZE = 10_000;

export class TokenDirectory {
  private readonly known = new CacheOnSuccess<TokenInfo>(TOKEN_CACHE_SIZE);

  constructor(
    private readonly chains: ChainRegistry,
    private readonly text: ChainTextLimits,
  ) {}

  get(chain: Chain, address: string): Promise<TokenInfo | null> {
    const checksummed = checksumAddress(address);
    return this.known.get(`${chain.chainId}:${checksummed}`, () => this.lookup(chain, checksummed));
  }

  private async lookup(chain: Chain, address: string): Promise<TokenInfo | null> {
    const [code, name, symbol, decimals, isPoint, app] = await this.chains.withProvider(chain, (provider) =>
      Promise.all([
        provider.getCode(address),
        ...TEXT_FIELDS.map((method) =>
          unlessNotAToken(viewText(provider, creditTokenInterface, address, method, this.text)),
        ),
        ...FIELDS.map((method) =>
          unlessNotAToken(viewCall<unknown>(provider, creditTokenInterface, address, method)),
        ),
      ]),
    );
    if (
      code === '0x' ||
      name == null ||
      symbol == null ||
      decimals == null ||
      isPoint == null ||
      app == null
    ) {
      return null;
    }
    try {
      return {
        address,
        name: String(name),
        symbol: String(symbol),
        decimals: Number(decimals),
        isPoint: Boolean(isPoint),
        app: getAddress(String(app)),
      };
    } catch (error) {
      if (error instanceof AppError) throw error;
      return null;
    }
  }
}
