import { getAddress } from 'ethers';
import { LRUCache } from 'lru-cache';
import type { ContractCall, WriteFunctionName } from '../../chain/abis';
import { appFactoryInterface, appInterface } from '../../chain/contracts';
import type { Chain, ChainRegistry } from '../../chain/registry';
import type { TransactionBuilder, UnsignedTransactionJson } from '../../chain/transaction-builder';
import { viewCall } from '../../chain/view-call';
import { NotFoundError } from '../../errors';
import type { CreateAppInput, ListAppsInput } from './apps.schema';

/** 404 `app_not_found`: the address is not an app of the chain's AppFactory. */
export class AppNotFoundError extends NotFoundError {
  constructor() {
    super('app_not_found', 'App not found');
  }
}

export interface AppSummary {
  id: string;
  name: string;
  owner: string;
  xp_token: string;
}

/** An app's facts that never change (the App contract has no setter for them). */
interface AppFacts {
  name: string;
  owner: string;
  xpToken: string;
}

export interface AppsServiceDeps {
  chains: ChainRegistry;
  builder: TransactionBuilder;
}

/** Apps whose immutable facts are kept in memory (an entry is a few hundred bytes). */
const APP_CACHE_SIZE = 10_000;

/**
 * Apps live on chain: AppFactory.createApp makes one (an App clone with its XP token), and the
 * factory lists them. An app's existence, name, owner and XP token never change, so they are
 * cached in memory once seen (least recently used first out); operator status is read each time.
 */
export class AppsService {
  private readonly knownApps = new LRUCache<string, true>({ max: APP_CACHE_SIZE });
  private readonly facts = new LRUCache<string, AppFacts>({ max: APP_CACHE_SIZE });

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

  /** The apps `account` owns or operates, in creation order (contract views, one batch per step). */
  async listApps(input: ListAppsInput, account: string): Promise<AppSummary[]> {
    const chain = this.deps.chains.get(input.chain);
    const caller = getAddress(account);
    return this.deps.chains.call(chain, async (provider) => {
      const apps = (
        await viewCall<string[]>(provider, appFactoryInterface, chain.factoryAddress, 'allApps')
      ).map((app) => getAddress(app));
      for (const app of apps) this.knownApps.set(this.key(chain, app), true);
      const rows = await Promise.all(
        apps.map(async (app) => {
          const [facts, operator] = await Promise.all([
            this.appFacts(chain, app),
            viewCall<boolean>(provider, appInterface, app, 'isOperator', [caller]),
          ]);
          return operator ? { id: app, name: facts.name, owner: facts.owner, xp_token: facts.xpToken } : null;
        }),
      );
      return rows.filter((row): row is AppSummary => row !== null);
    });
  }

  /** Throws AppNotFoundError unless `appId` is an app of the chain's factory. */
  async requireApp(chain: Chain, appId: string): Promise<void> {
    const key = this.key(chain, appId);
    if (this.knownApps.has(key)) return;
    const isApp = await this.deps.chains.call(chain, (provider) =>
      viewCall<boolean>(provider, appFactoryInterface, chain.factoryAddress, 'isApp', [appId]),
    );
    if (!isApp) throw new AppNotFoundError();
    this.knownApps.set(key, true);
  }

  private async appFacts(chain: Chain, app: string): Promise<AppFacts> {
    const key = this.key(chain, app);
    const cached = this.facts.get(key);
    if (cached) return cached;
    const [name, owner, xpToken] = await this.deps.chains.call(chain, (provider) =>
      Promise.all([
        viewCall<string>(provider, appInterface, app, 'name'),
        viewCall<string>(provider, appInterface, app, 'owner'),
        viewCall<string>(provider, appInterface, app, 'xpToken'),
      ]),
    );
    const facts = { name, owner: getAddress(owner), xpToken: getAddress(xpToken) };
    this.facts.set(key, facts);
    return facts;
  }

  private key(chain: Chain, address: string): string {
    return `${chain.chainId}:${getAddress(address)}`;
  }
}
