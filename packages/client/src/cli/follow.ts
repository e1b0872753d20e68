/** `laurel follow <hash>`: a transaction's status, one line per change, until it is mined or dropped. */
import { parseArgs } from 'node:util';
import { FollowTimeoutError, followTransaction, type TransactionState } from '../follow.js';
import { Laurel } from '../laurel.js';
import { CliFailure, type CliCommand } from './command.js';

const usage = `usage: laurel follow <hash> [--api-key KEY] [--chain NAME] [--timeout SECONDS]

Follows a transaction sent through Laurel (GET /v1/transactions/{hash}) and prints each change of
its status until it is mined or dropped. Exits 0 when it was mined successfully, 1 when it reverted,
was dropped, or the timeout passed.

  --api-key KEY      the key of the wallet that signed it (default: LAUREL_API_KEY)
  --chain NAME       the chain it was sent on (default: the one Laurel last saw it on)
  --timeout SECONDS  how long to follow (default 600)

  LAUREL_URL         where Laurel answers (default http://127.0.0.1:4000)

example: LAUREL_API_KEY=… laurel follow 0x5c50…e1f2`;

/** One line for a state: `success in block 12 (1 confirmation)`, `pending (sent again 1 time)`. */
export function describeState(state: TransactionState): string {
  const parts: string[] = [state.status];
  if (state.blockNumber !== null && state.blockNumber !== undefined)
    parts.push(`in block ${state.blockNumber}`);
  if (state.status !== 'pending' && state.status !== 'dropped')
    parts.push(`(${state.confirmations} confirmation${state.confirmations === 1 ? '' : 's'})`);
  if (state.rebroadcasts > 0)
    parts.push(`(sent again by Laurel ${state.rebroadcasts} time${state.rebroadcasts === 1 ? '' : 's'})`);
  const line = parts.join(' ');
  return state.error ? `${line}: ${state.error}` : line;
}

export const follow: CliCommand = {
  name: 'follow',
  summary: "follow a transaction's status until it is mined",
  usage,
  async run(args, io) {
    const { values, positionals } = (() => {
      try {
        return parseArgs({
          args,
          allowPositionals: true,
          options: { 'api-key': { type: 'string' }, chain: { type: 'string' }, timeout: { type: 'string' } },
        });
      } catch (error) {
        throw new CliFailure(`${(error as Error).message} (laurel follow --help)`);
      }
    })();
    const [hash, ...extra] = positionals;
    if (!hash || extra.length > 0) throw new CliFailure('give one transaction hash (laurel follow --help)');
    if (!/^0x[0-9a-fA-F]{64}$/.test(hash))
      throw new CliFailure(`"${hash}" is not a transaction hash (0x and 64 hex digits)`);
    const apiKey = values['api-key'] ?? io.env.LAUREL_API_KEY;
    if (!apiKey)
      throw new CliFailure(
        'no API key: set LAUREL_API_KEY or pass --api-key (the key of the wallet that signed it)',
      );
    const timeoutSeconds = Number(values.timeout ?? 600);
    if (!Number.isFinite(timeoutSeconds) || timeoutSeconds <= 0)
      throw new CliFailure(`--timeout "${values.timeout}" is not a number of seconds`);

    const laurel = new Laurel({ url: io.env.LAUREL_URL ?? 'http://127.0.0.1:4000', apiKey });
    const stop = new AbortController();
    void io.stopped.then(() =>
      stop.abort(new CliFailure(`stopped following ${hash} (it may still be mined: laurel follow it again)`)),
    );
    let state: TransactionState;
    try {
      state = await followTransaction(laurel, hash, {
        chain: values.chain,
        timeoutMs: timeoutSeconds * 1000,
        signal: stop.signal,
        onChange: (change) => io.out(`${hash} ${describeState(change)}`),
      });
    } catch (error) {
      if (error instanceof FollowTimeoutError) throw new CliFailure(error.message);
      throw error;
    }
    return state.status === 'success' ? 0 : 1;
  },
};
