import { Authorized, Query, Resolver } from 'type-graphql';
import type { ChainRegistry } from '../../chain/registry';
import { ChainInfo } from './chains.types';

@Resolver()
export class ChainsResolver {
  constructor(private readonly chains: ChainRegistry) {}

  @Authorized()
  @Query(() => [ChainInfo], { description: 'The chains this service serves' })
  async chainList(): Promise<ChainInfo[]> {
    return this.chains.list().map(({ name, chainId, explorerUrl, factoryAddress, confirmations }) => ({
      name,
      chainId,
      explorerUrl,
      factoryAddress,
      confirmations,
    }));
  }
}
