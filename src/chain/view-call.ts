import type { Interface, JsonRpcProvider, Result } from 'ethers';

/**
 * One read-only contract call (eth_call), decoded to all its return values. Calls made in the same
 * tick on one provider go out as one JSON-RPC batch. A revert rejects with ethers' CALL_EXCEPTION.
 */
export async function viewCallResult(
  provider: JsonRpcProvider,
  contractInterface: Interface,
  to: string,
  method: string,
  args: readonly unknown[] = [],
): Promise<Result> {
  // provider.send, not provider.call(): ethers caches identical calls for 250 ms, and these views
  // (operators, badge lists) change with every transaction.
  const result = (await provider.send('eth_call', [
    { to, data: contractInterface.encodeFunctionData(method, args) },
    'latest',
  ])) as string;
  return contractInterface.decodeFunctionResult(method, result);
}

/** viewCallResult's first return value: the usual case of a view with one output. */
export async function viewCall<T>(
  provider: JsonRpcProvider,
  contractInterface: Interface,
  to: string,
  method: string,
  args: readonly unknown[] = [],
): Promise<T> {
  return (await viewCallResult(provider, contractInterface, to, method, args))[0] as T;
}
