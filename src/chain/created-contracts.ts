import { getAddress, type JsonRpcProvider } from 'ethers';
import { appFactoryInterface, appInterface } from './contracts';
import { viewCall } from './view-call';

/** The ids (addresses) of what a transaction created: apps, badges, credit (and point) tokens. */
export interface CreatedContracts {
  apps: string[];
  badges: string[];
  credit_tokens: string[];
}

/** A receipt's log as ethers' TransactionReceipt (or its JSON) has it. */
export interface ReceiptLog {
  address: string;
  topics: readonly string[];
  data: string;
}

const APP_CREATED = appFactoryInterface.getEvent('AppCreated')!.topicHash;
const CREDIT_TOKEN_CREATED = appInterface.getEvent('CreditTokenCreated')!.topicHash;
const BADGE_CREATED = appInterface.getEvent('BadgeCreated')!.topicHash;

const indexedAddress = (topic: string): string => getAddress(`0x${topic.slice(26)}`);

/**
 * What a mined transaction created, from its receipt's logs: apps from the chain's factory's
 * `AppCreated`, credit tokens and badges from an app's `CreditTokenCreated` and `BadgeCreated`.
 * Only Laurel's contracts count: an app is the factory's (created in these logs, or `isApp` on the
 * factory, one batched eth_call per other emitter), so a contract that merely emits the same
 * events names nothing.
 */
export async function createdContracts(
  provider: JsonRpcProvider,
  factoryAddress: string,
  logs: readonly ReceiptLog[],
): Promise<CreatedContracts> {
  const factory = getAddress(factoryAddress);
  const apps = logs
    .filter((log) => log.topics[0] === APP_CREATED && getAddress(log.address) === factory)
    .map((log) => indexedAddress(log.topics[1]));
  const creations = logs.filter(
    (log) => (log.topics[0] === CREDIT_TOKEN_CREATED || log.topics[0] === BADGE_CREATED) && log.topics[1],
  );
  const emitters = [...new Set(creations.map((log) => getAddress(log.address)))];
  const confirmed = new Set(apps);
  await Promise.all(
    emitters
      .filter((emitter) => !confirmed.has(emitter))
      .map(async (emitter) => {
        if (await viewCall<boolean>(provider, appFactoryInterface, factory, 'isApp', [emitter])) {
          confirmed.add(emitter);
        }
      }),
  );
  const created = (topic: string) =>
    creations
      .filter((log) => log.topics[0] === topic && confirmed.has(getAddress(log.address)))
      .map((log) => indexedAddress(log.topics[1]));
  return { apps, badges: created(BADGE_CREATED), credit_tokens: created(CREDIT_TOKEN_CREATED) };
}
