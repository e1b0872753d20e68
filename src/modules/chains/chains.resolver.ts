import { Resolver } from 'type-graphql';
import type { ChainRegistry } from '../../chain/registry';
import { Operation } from '../../operations/operation';
import { listChainsSchema } from './chains.schema';
import { ChainInfo } from './chains.types';

@Resolver()
export class ChainsResolver {
  constructor(private readonly chains: ChainRegistry) {}

  @Operation({
    kind: 'query',
    scope: 'read',
    input: listChainsSchema,
    output: [ChainInfo],
    description: 'The chains this service serves',
  })
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
