import type { Chain } from './registry';
import type { ContractCall, LaurelContractName, WriteFunctionName } from './abis';

/** The unsigned EIP-1559 transaction every build answers, as the interface shows it. */
export interface UnsignedTransactionJson {
  to: string;
  data: string;
  /** Decimal integer strings. */
  maxPriorityFeePerGas: string;
  maxFeePerGas: string;
  gasLimit: string;
  nonce: number;
  chainId: number;
  type: 2;
}

/** A build: one Laurel contract function called by `from` on `chain`, checked against the ABI. */
export type BuildRequest<C extends LaurelContractName, F extends WriteFunctionName<C>> = ContractCall<
  C,
  F
> & {
  chain: Chain;
  /** The sender: the caller's wallet (ctx.account.address). */
  from: string;
};
