import { getBytes, Interface, type JsonRpcProvider, type Result } from 'ethers';
import { remembered } from '../cache-on-success';
import { chainTextOf, type ChainTextLimits } from '../stored-text';

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
  return contractInterface.decodeFunctionResult(
    method,
    await ethCall(provider, contractInterface, to, method, args),
  );
}

async function ethCall(
  provider: JsonRpcProvider,
  contractInterface: Interface,
  to: string,
  method: string,
  args: readonly unknown[],
): Promise<string> {
  // provider.send, not provider.call(): ethers caches identical calls for 250 ms, and these views
  // (operators, badge lists) change with every transaction.
  return (await provider.send('eth_call', [
    { to, data: contractInterface.encodeFunctionData(method, args) },
    'latest',
  ])) as string;
}

/**
 * A view answering one `string` set by whoever created the contract (a name, a symbol, a base URI),
 * read as its bytes (the same encoding: ethers refuses to decode bytes that are not valid UTF-8) and
 * kept as the index keeps it (chainTextOf), so that it reads the same here as in listings.
 */
export async function viewText(
  provider: JsonRpcProvider,
  contractInterface: Interface,
  to: string,
  method: string,
  limits: ChainTextLimits,
): Promise<string> {
  const result = await ethCall(provider, contractInterface, to, method, []);
  // The same view answering `bytes` (outputs are not part of the selector): a result that does not
  // decode rejects as viewCall's does (BAD_DATA).
  const [bytes] = bytesView(method).decodeFunctionResult(method, result);
  return chainTextOf(getBytes(bytes as string), limits).text;
}

const bytesView = remembered(
  (method: string) => new Interface([`function ${method}() view returns (bytes)`]),
  100,
);

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
