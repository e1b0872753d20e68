import type { ContractCall, WriteFunctionName } from '../../chain/abis';
import { appFactoryInterface, appInterface } from '../../chain/contracts';
import type { Chain, ChainRegistry } from '../../chain/registry';
import type { UnsignedTransactionJson } from '../../chain/unsigned-transactions';
import type { TransactionBuilder } from '../transactions/building/transaction-builder';
import { viewCall } from '../../chain/view-call';
import { checksumAddress } from '../../addresses';
import { CacheOnSuccess } from '../../cache-on-success';
import { defineFailure } from '../../errors';
import type { IndexReader } from '../../indexer/read/index-reader';
import type { AppOperatorInput, CreateAppInput, ListAppsInput } from './apps.schema';
import type { AppInfo } from './apps.types';

/**
 * 404 `app_not_found`: the address is not an app of the chain's AppFactory. The message is the
 * documented one; the body also names the app and the chain that were asked (extra fields).
 */
export const APP_NOT_FOUND = defineFailure({
  status: 404,
  codes: ['app_not_found'],
  description:
    '`App not found`: `app_id` is not an app of this chain (the body repeats `app_id` and `chain`)',
});

export class AppNotFoundError extends APP_NOT_FOUND.Error {
  constructor(chain: Chain, appId: string) {
    super('App not found', { app_id: checksumAddress(appId), chain: chain.name });
  }
}

/** What every operation on an app needs to know of it. */
export interface KnownApp {
  /** Its XP token (checksummed). */
  xpToken: string;
}

export interface AppsServiceDeps {
  chains: ChainRegistry;
  builder: TransactionBuilder;
  index: IndexReader;
}

/** Apps known to exist, kept in memory (an app never stops existing, nor changes its XP token). */
const APP_CACHE_SIZE = 10_000;

/**
 * Apps live on chain: AppFactory.createApp makes one (an App clone with its XP token). Listings
 * come from the index of contract events (src/indexer), which also follows operators.
 */
export class AppsService {
  private readonly knownApps = new CacheOnSuccess<KnownApp>(APP_CACHE_SIZE);

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

  /**
   * App.addOperator(operator) (`added`) or App.removeOperator(operator), built for `sender`: only
   * the owner may send them, so the simulation answers another sender with NotOwner, a wallet
   * already operating (or owning) the app with AlreadyOperator, and one that does not operate it
   * with UnknownOperator.
   */
  async setOperator(
    input: AppOperatorInput,
    sender: string,
    added: boolean,
  ): Promise<UnsignedTransactionJson> {
    const chain = this.deps.chains.get(input.chain);
    return this.buildAppCall(chain, sender, {
      contract: 'App',
      address: input.app_id,
      functionName: added ? 'addOperator' : 'removeOperator',
      args: [input.operator_address],
    });
  }

  /** The apps `account` owns or operates on the chain, in creation order, with their operators, from the index. */
  async listApps(input: ListAppsInput, account: string): Promise<AppInfo[]> {
    const chain = this.deps.chains.get(input.chain);
    return this.deps.index.appsOf(chain.chainId, checksumAddress(account));
  }

  /**
   * The one rule of whether an address is an app: the chain's factory made it. The index answers
   * for the apps it has reached; an app too new for it (created a block ago by a plain execute) is
   * asked of the factory, so it can be rewarded and read at once. Throws AppNotFoundError.
   */
  async requireApp(chain: Chain, appId: string): Promise<KnownApp> {
    const app = checksumAddress(appId);
    const found = await this.knownApps.get(`${chain.chainId}:${app}`, async () => {
      const indexed = await this.deps.index.xpTokenOf(chain.chainId, app);
      return indexed ? { xpToken: indexed } : this.askFactory(chain, app);
    });
    if (!found) throw new AppNotFoundError(chain, app);
    return found;
  }

  private async askFactory(chain: Chain, app: string): Promise<KnownApp | null> {
    return this.deps.chains.withProvider(chain, async (provider) => {
      // One JSON-RPC batch; xpToken() of an address that is no app reverts or answers nothing.
      const [isApp, xpToken] = await Promise.all([
        viewCall<boolean>(provider, appFactoryInterface, chain.factoryAddress, 'isApp', [app]),
        viewCall<string>(provider, appInterface, app, 'xpToken').catch(() => null),
      ]);
      return isApp && xpToken ? { xpToken: checksumAddress(xpToken) } : null;
    });
  }
}
