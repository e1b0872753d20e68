/**
 * `laurel key`: an API key for a wallet, by signing Laurel's challenge with a private key or one of
 * the local chain's dev accounts. The key alone goes to stdout (`export LAUREL_API_KEY=$(laurel key
 * --dev-account 0)`), what happened to stderr. With --key-file the key is kept there (mode 0600) and
 * reused while Laurel accepts it.
 */
import { parseArgs } from 'node:util';
import { HDNodeWallet, Wallet } from 'ethers';
import { Laurel } from '../laurel.js';
import { signIn } from '../sign-in.js';
import { CliFailure, type CliCommand } from './command.js';
import { fileKeyStore } from './key-file.js';

/** anvil's (and Hardhat's) well-known dev mnemonic: its accounts are funded on a local chain only. */
export const DEV_MNEMONIC = 'test test test test test test test test test test test junk';

const usage = `usage: laurel key (--private-key 0x… | --dev-account N) [options]

Gets an API key by signing Laurel's challenge; prints the key alone on stdout.

  --private-key 0x…   the wallet's private key (or LAUREL_PRIVATE_KEY)
  --dev-account N     account N (0, 1, …) of the local chain's dev mnemonic
                      ("${DEV_MNEMONIC}")
  --read-only         a key that can only read (scope read): safe in a browser page
  --expires-in T      the key expires after T: seconds, or 30m, 12h, 7d (default: never)
  --key-file FILE     keep the key in FILE (mode 0600) and reuse it while Laurel accepts it
  --url URL           Laurel (default LAUREL_URL, or http://127.0.0.1:4000)

example: export LAUREL_API_KEY=$(laurel key --dev-account 0 --key-file .data/keys.json)`;

const UNITS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400 };

/** `3600`, `30m`, `12h`, `7d` → seconds. */
export function parseDuration(text: string): number {
  const match = /^(\d+)([smhd]?)$/.exec(text.trim());
  const seconds = match ? Number(match[1]) * UNITS[match[2] || 's']! : NaN;
  if (!Number.isSafeInteger(seconds) || seconds <= 0) {
    throw new CliFailure(`--expires-in ${text}: give seconds (3600) or a number with s, m, h or d (12h)`);
  }
  return seconds;
}

function wallet(privateKey: string | undefined, devAccount: string | undefined): Wallet | HDNodeWallet {
  if (privateKey && devAccount !== undefined) {
    throw new CliFailure('give --private-key or --dev-account, not both');
  }
  if (devAccount !== undefined) {
    if (!/^\d{1,4}$/.test(devAccount)) throw new CliFailure(`--dev-account ${devAccount}: give 0, 1, 2, …`);
    return HDNodeWallet.fromPhrase(DEV_MNEMONIC, undefined, `m/44'/60'/0'/0/${Number(devAccount)}`);
  }
  if (!privateKey) {
    throw new CliFailure(
      'no wallet: give --private-key 0x… (or LAUREL_PRIVATE_KEY), or --dev-account N for a local chain',
    );
  }
  try {
    return new Wallet(privateKey.startsWith('0x') ? privateKey : `0x${privateKey}`);
  } catch {
    throw new CliFailure('the private key is not one: give 64 hex digits, with or without 0x');
  }
}

export const keyCommand: CliCommand = {
  name: 'key',
  summary: 'get an API key by signing with a private key or a local dev account',
  usage,
  async run(args, io) {
    let values;
    try {
      ({ values } = parseArgs({
        args,
        options: {
          'private-key': { type: 'string' },
          'dev-account': { type: 'string' },
          'read-only': { type: 'boolean' },
          'expires-in': { type: 'string' },
          'key-file': { type: 'string' },
          url: { type: 'string' },
        },
      }));
    } catch (error) {
      throw new CliFailure(`${(error as Error).message} (laurel key --help lists the options)`);
    }
    const signer = wallet(values['private-key'] ?? io.env.LAUREL_PRIVATE_KEY, values['dev-account']);
    const expiresInSeconds =
      values['expires-in'] === undefined ? undefined : parseDuration(values['expires-in']);
    const laurel = new Laurel({ url: values.url ?? io.env.LAUREL_URL ?? 'http://127.0.0.1:4000' });
    const file = values['key-file'];
    const signedIn = await signIn(laurel, signer, {
      store: file ? fileKeyStore(file) : undefined,
      scope: values['read-only'] ? 'read' : undefined,
      expiresInSeconds,
    });
    io.out(signedIn.apiKey);
    const kind = values['read-only'] ? 'read-only key' : 'key';
    io.err(
      signedIn.reused
        ? `the ${kind} of ${signedIn.address} kept in ${file}, still accepted by ${laurel.url}`
        : `a new ${kind} for ${signedIn.address} from ${laurel.url}${
            expiresInSeconds ? `, expiring in ${expiresInSeconds} s` : ''
          }${file ? `, kept in ${file} (mode 0600)` : ''}`,
    );
    return 0;
  },
};
