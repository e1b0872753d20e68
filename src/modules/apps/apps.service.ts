import { getAddress } from 'ethers';
import { LRUCache } from 'lru-cache';
import type { ContractCall, WriteFunctionName } from '../../chain/abis';
import { appFactoryInterface } from '../../chain/contracts';
import type { Chain, ChainRegistry } from '../../chain/registry';
import type { PrismaClient } from '../../db/prisma';
import type { TransactionBuilder, UnsignedTransactionJson } from '../../chain/transaction-builder';
import { viewCall } from '../../chain/view-call';
import { NotFoundError } from '../../errors';
import type { CreateAppInput, ListAppsInput } from './apps.schema';

/**
 * 404 `app_not_found`: the address is not an app of the chain's AppFactory. The message is the
 * documented one; the body also names the app and the chain that were asked (extra fields).
 */
export class AppNotFoundError extends NotFoundError {
  constructor(chain: Chain, appId: string) {
    super('app_not_found', 'App not found', { app_id: getAddress(appId), chain: chain.name });
  }
}

export interface AppSummary {
  id: string;
  name: string;
  owner: string;
  xp_token: string;
}

export interface AppsServiceDeps {
  chains: ChainRegistry;
  builder: TransactionBuilder;
  prisma: PrismaClient;
}

/** Apps known to exist, kept in memory (an app never stops existing). */
const APP_CACHE_SIZE = 10_000;

/**
 * Apps live on chain: AppFactory.createApp makes one (an App clone with its XP token). Whether an
 * address is an app is asked of the factory (and remembered); listings come from the index of
 * contract events (src/indexer), which also follows operators.
 */
export class AppsService {
  private readonly knownApps = new LRUCache<string, true>({ max: APP_CACHE_SIZE });

  constructor(private readonly deps: AppsServiceDeps) {}

  /** The unsigned AppFactory.createApp(name) transaction; the sender becomes the owner. */
  async createApp(input: CreateAppInput, sender: string): Promise<UnsignedTransactionJson> {
    const chain = this.deps.chains.get(input.chain);
    return this.deps.builder.build({
      chain,
      from: sender,
      contract: 'AppFactory',
      address: chain.factoryAddress,
      functionName: 'createApp',
      args: [input.name],
    });
  }

  /**
   * A transaction calling one of an app's functions, built for `sender` (an owner or operator of the
   * app, or the simulation reverts with NotOperator); AppNotFoundError for an unknown app.
   */
  async buildAppCall<F extends WriteFunctionName<'App'>>(
    chain: Chain,
    sender: string,
    call: ContractCall<'App', F>,
  ): Promise<UnsignedTransactionJson> {
    await this.requireApp(chain, call.address);
    return this.deps.builder.build({ chain, from: sender, ...call });
  }

  /** The apps `account` owns or operates on the chain, in creation order, from the index. */
  async listApps(input: ListAppsInput, account: string): Promise<AppSummary[]> {
    const chain = this.deps.chains.get(input.chain);
    const caller = getAddress(account);
    return this.deps.prisma.$queryRaw<AppSummary[]>`
      SELECT a.address AS id, a.name, a.owner, a.xp_token
      FROM indexed_apps a
      WHERE a.chain_id = ${chain.chainId}
        AND (a.owner = ${caller} OR EXISTS (
          SELECT 1 FROM indexed_app_operators o
          WHERE o.chain_id = a.chain_id AND o.app_address = a.address AND o.operator = ${caller}))
      ORDER BY a.block_number, a.address`;
  }

  /** Throws AppNotFoundError unless `appId` is an app of the chain's factory. */
  async requireApp(chain: Chain, appId: string): Promise<void> {
    const key = this.key(chain, appId);
    if (this.knownApps.has(key)) return;
    const isApp = await this.deps.chains.call(chain, (provider) =>
      viewCall<boolean>(provider, appFactoryInterface, chain.factoryAddress, 'isApp', [appId]),
    );
    if (!isApp) throw new AppNotFoundError(chain, appId);
    this.knownApps.set(key, true);
  }

  private key(chain: Chain, address: string): string {
    return `${chain.chainId}:${getAddress(address)}`;
  }
}
