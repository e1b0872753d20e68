/** What the client package's tests share (test/client/). */
import type { Wallet } from 'ethers';
import { executeSigned, type Laurel } from '../../packages/client/src/index';

/**
 * A real transaction of `wallet` (1 wei to itself, `wallet` connected to the chain) sent through
 * the client's execute-and-wait on `local`: one `transaction` webhook event. Its hash, once Laurel
 * has answered.
 */
export async function selfTransfer(client: Laurel, wallet: Wallet): Promise<string> {
  const populated = await wallet.populateTransaction({ to: wallet.address, value: 1n });
  const signedTransaction = await wallet.signTransaction(populated);
  const executed = await executeSigned(client, { chain: 'local', signedTransaction }, { wait: true });
  return executed.transactionHash;
}
