/** The chains: their entries (CHAINS or CHAINS_FILE), the embedded local chain and the RPC deadline. */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { ConfigError, describeIssues, positiveInt, type Parsed } from './values';

const addressPattern = /^0x[0-9a-fA-F]{40}$/;

/** One RPC provider of a chain: a URL, or a URL with its own request rate. */
const rpcEndpointSchema = z
  .preprocess(
    (value) => (typeof value === 'string' ? { url: value } : value),
    z
      .object({
        url: z.string().url(),
        maxRequestsPerSecond: z.number().positive().optional(),
      })
      .strict(),
  )
  .describe('a URL, or `{url, maxRequestsPerSecond}`');

/** The fields of a chain entry, as CHAINS gives them (docs/configuration.md lists them). */
export const chainEntrySchema = z
  .object({
    name: z
      .string()
      .min(1)
      .max(255)
      .describe('the `chain` value of requests; unique (`local` is reserved when `LOCAL_CHAIN=on`)'),
    chainId: z
      .number()
      .int()
      .positive()
      .describe('the chain id; `execute` without `chain` finds the chain of a signed transaction by it'),
    rpcUrl: z
      .string()
      .url()
      .optional()
      .describe(
        'JSON-RPC URL of a node, for a chain with one provider (give `rpcUrl` or `rpcUrls`); it often embeds a provider key, so logs show it as `[redacted]`',
      ),
    rpcUrls: z
      .array(rpcEndpointSchema)
      .min(1, 'give at least one RPC URL')
      .optional()
      .describe(
        "the chain's JSON-RPC providers: calls are spread over the healthy ones and fail over on errors, timeouts and throttling; signed transactions go to all of them. `/ready` and logs name them `<chain>#1`, `<chain>#2`… in this order, never by URL (see docs/providers.md)",
      ),
    explorerUrl: z
      .string()
      .url()
      .describe('block explorer: answers give `blockExplorerUrl` = `<explorerUrl>/tx/<hash>`'),
    factoryAddress: z
      .string()
      .regex(addressPattern, 'must be a 0x-prefixed address')
      .describe("Laurel's AppFactory on that chain (`npm run contracts:deploy` prints the entry)"),
    confirmations: z
      .number()
      .int()
      .min(1)
      .default(1)
      .describe('confirmations `execute-and-wait` waits for; the indexer reads only blocks that have them'),
    startBlock: z
      .number()
      .int()
      .min(0)
      .optional()
      .describe("first block the indexer reads, e.g. the factory's deployment block; 0 when absent"),
    finalityDepth: z
      .number()
      .int()
      .min(0)
      .optional()
      .describe(
        'blocks below the head after which a block counts as final: the window of blocks a reorganisation may replace (see docs/reorgs.md); default by chain id: 64 on Ethereum and its testnets, 256 on Polygon PoS, 300 on OP-stack and Arbitrum chains, 64 on local chains (31337, 1337), 256 elsewhere',
      ),
    finalizedTag: z
      .boolean()
      .optional()
      .describe(
        "whether a block the node calls `finalized` (`eth_getBlockByNumber('finalized')`) counts as final before it is `finalityDepth` deep; default `true`, `false` for a node whose tag is not to be trusted",
      ),
    maxRequestsPerSecond: z
      .number()
      .positive()
      .optional()
      .describe(
        "calls per second Laurel sends to each provider of the chain at most (a JSON-RPC batch counts each call; a provider's own `maxRequestsPerSecond` overrides it); absent: no limit of its own, a provider that throttles is still backed off",
      ),
    maxProviderLagBlocks: z
      .number()
      .int()
      .min(0)
      .default(5)
      .describe(
        "a provider whose head is more than this many blocks behind the others is not asked for the head, nor for anything read at 'latest' or 'pending' (receipts, nonces, estimates); it still serves older blocks it has. Raise it on chains with sub-second blocks",
      ),
    maxFeePerGasCap: z
      .string()
      .regex(/^\d+$/, 'must be a decimal integer string (wei)')
      .optional()
      .describe(
        'upper bound of the `maxFeePerGas` (and gas price) of built transactions, in wei; absent: no cap',
      ),
  })
  // A misspelt field would otherwise be dropped in silence (a fee cap not applied).
  .strict();

/** A chain entry checked (one URL or more, none twice) and with every provider's effective rate. */
export const chainConfigSchema = chainEntrySchema
  .superRefine((chain, ctx) => {
    if (chain.rpcUrl === undefined && chain.rpcUrls === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['rpcUrls'],
        message: 'give rpcUrls (one or more RPC URLs) or rpcUrl',
      });
    }
    if (chain.rpcUrl !== undefined && chain.rpcUrls !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['rpcUrl'], message: 'give either rpcUrl or rpcUrls, not both' });
    }
    const urls = (chain.rpcUrls ?? []).map((endpoint) => endpoint.url);
    urls.forEach((url, index) => {
      if (urls.indexOf(url) !== index) {
        ctx.addIssue({ code: 'custom', path: ['rpcUrls', index], message: 'the same URL is given twice' });
      }
    });
  })
  .transform(({ rpcUrl, rpcUrls, ...chain }) => ({
    ...chain,
    rpcUrls: (rpcUrls ?? [{ url: rpcUrl! }]).map((endpoint) => ({
      url: endpoint.url,
      maxRequestsPerSecond: endpoint.maxRequestsPerSecond ?? chain.maxRequestsPerSecond,
    })),
  }));
/** A chain entry as CHAINS gives it (rpcUrl or rpcUrls, defaults left out). */
export type ChainEntry = z.input<typeof chainConfigSchema>;
export type ChainConfig = z.infer<typeof chainConfigSchema>;

export const chainsVariables = {
  LOCAL_CHAIN: z
    .enum(['auto', 'on', 'off'])
    .default('auto')
    .describe(
      '`auto`: start the embedded anvil chain `local` only when neither `CHAINS` nor `CHAINS_FILE` is given (an empty list is refused); `on`: always; `off`: never',
    ),
  LOCAL_CHAIN_SAVE_INTERVAL_MS: positiveInt(1000).describe(
    'how often the embedded chain is saved to `DATA_DIR/anvil/state.json` (only a save whose balances agree with its blocks is kept; it is also saved when Laurel stops): what a kill of anvil alone can lose',
  ),
  CHAINS_FILE: z
    .string()
    .min(1)
    .optional()
    .describe('path of a JSON file holding the array of chain entries (used when `CHAINS` is unset)'),
  CHAINS: z
    .string()
    .min(1)
    .optional()
    .describe('the chain entries as a JSON array (see [Chain entries](#chain-entries))'),
  RPC_TIMEOUT_MS: positiveInt(10_000).describe(
    'deadline of every RPC call; a node that does not answer gives a 503 naming the chain',
  ),
};

export interface ChainsConfig {
  /** 'auto' starts the local anvil chain only when no chain is configured. */
  localChain: 'auto' | 'on' | 'off';
  /** Whether CHAINS or CHAINS_FILE gave the list (an empty one included): a deployment's setup. */
  listGiven: boolean;
  /** How often the embedded chain is saved (ms). */
  localChainSaveIntervalMs: number;
  chains: ChainConfig[];
  rpcTimeoutMs: number;
}

/** The chains' part of Config; a bad entry, or `local` named twice, is a ConfigError. */
export function chainsConfig(e: Parsed<typeof chainsVariables>, cwd: string): ChainsConfig {
  const variable = chainListVariable(e);
  const listGiven = variable !== null;
  const chains = variable === null ? [] : parseChains(e, variable, cwd);
  if (e.LOCAL_CHAIN === 'on' && chains.some((chain) => chain.name === 'local')) {
    throw new ConfigError(
      `${variable}: the name "local" is reserved for the embedded chain (LOCAL_CHAIN=on)`,
    );
  }
  // An empty list, as a template may render one, is no development setup: it says so rather than
  // starting the embedded chain with a developer's allowances.
  if (listGiven && chains.length === 0 && e.LOCAL_CHAIN === 'auto') {
    throw new ConfigError(
      `${variable}: an empty list: name at least one chain, or set LOCAL_CHAIN=off to serve none (on: the embedded chain alone); leave CHAINS and CHAINS_FILE unset for a development setup`,
    );
  }
  return {
    localChain: e.LOCAL_CHAIN,
    listGiven,
    localChainSaveIntervalMs: e.LOCAL_CHAIN_SAVE_INTERVAL_MS,
    chains,
    rpcTimeoutMs: e.RPC_TIMEOUT_MS,
  };
}

/** The variable that gives the chain list: CHAINS, else CHAINS_FILE, else none (null). */
function chainListVariable(e: Parsed<typeof chainsVariables>): 'CHAINS' | 'CHAINS_FILE' | null {
  return e.CHAINS !== undefined ? 'CHAINS' : e.CHAINS_FILE !== undefined ? 'CHAINS_FILE' : null;
}

function parseChains(
  e: Parsed<typeof chainsVariables>,
  variable: 'CHAINS' | 'CHAINS_FILE',
  cwd: string,
): ChainConfig[] {
  let raw: string;
  if (variable === 'CHAINS') {
    raw = e.CHAINS!;
  } else {
    const file = path.resolve(cwd, e.CHAINS_FILE!);
    if (!existsSync(file)) throw new ConfigError(`CHAINS_FILE: file not found: ${file}`);
    raw = readFileSync(file, 'utf8');
  }
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch (error) {
    throw new ConfigError(`${variable}: not valid JSON (${(error as Error).message})`);
  }
  const parsed = z
    .array(chainConfigSchema)
    .superRefine((chains, ctx) => {
      const seen = new Set<string>();
      chains.forEach((chain, index) => {
        if (seen.has(chain.name)) {
          ctx.addIssue({
            code: 'custom',
            path: [index, 'name'],
            message: `duplicate chain name "${chain.name}"`,
          });
        }
        seen.add(chain.name);
      });
    })
    .safeParse(json);
  if (!parsed.success) throw new ConfigError(`${variable}: ${describeIssues(parsed.error)}`);
  return parsed.data;
}

/** Whether the embedded anvil chain named `local` runs. */
export function wantsLocalChain(config: ChainsConfig): boolean {
  return config.localChain === 'on' || (config.localChain === 'auto' && config.chains.length === 0);
}
