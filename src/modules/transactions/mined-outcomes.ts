import type { JsonRpcProvider, TransactionReceipt } from 'ethers';
import { createdContracts, type ReceiptLog } from '../../chain/created-contracts';
import type { Chain, ChainRegistry } from '../../chain/registry';
import { minedRevertReason } from '../../chain/reverts';
import type { Logger } from '../../logger';
import type { CreatedContracts } from './transactions.types';

/** What a successful receipt created; undefined (logged) when the node cannot tell now. */
export async function createdBy(
  chains: ChainRegistry,
  log: Logger,
  chain: Chain,
  logs: readonly ReceiptLog[],
): Promise<CreatedContracts | undefined> {
  try {
    return await chains.withProvider(chain, (provider) =>
      createdContracts(provider, chain.factoryAddress, logs),
    );
  } catch (error) {
    log.warn(
      { chain: chain.name, err: (error as Error).message },
      'could not check what the transaction created',
    );
    return undefined;
  }
}

/** The call a mined transaction made, replayed to read why it reverted. */
type RevertedCall = Parameters<typeof minedRevertReason>[1];

/**
 * `Transaction reverted: <reason>` for a reverted receipt: `call` (or, given a function, the call
 * it reads from the node) replayed at the receipt's block; `reason unknown` when the node cannot tell.
 */
export async function revertError(
  chains: ChainRegistry,
  chain: Chain,
  receipt: TransactionReceipt,
  call: RevertedCall | ((provider: JsonRpcProvider) => Promise<RevertedCall | null>),
): Promise<string> {
  const reason = await chains
    .withProvider(chain, async (provider) => {
      const replayed = typeof call === 'function' ? await call(provider) : call;
      return replayed && minedRevertReason(provider, replayed, receipt.blockNumber);
    })
    .catch(() => null);
  return `Transaction reverted: ${reason ?? 'reason unknown'}`;
}
