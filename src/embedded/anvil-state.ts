/**
 * The embedded anvil's saved chain, kept so that its state (balances, storage, nonces) always
 * agrees with its history (blocks, transactions, receipts and their logs), which Laurel's index
 * follows.
 *
 * anvil 1.7.1 dumps its state (`--state`, `--dump-state`, `--state-interval`, `anvil_dumpState`) by
 * reading the blocks, then the transactions, then the accounts, while it goes on mining: a block
 * mined in between is in the balances but not in the blocks, and a chain loaded from such a dump
 * has balances no receipt or log explains. It also rewrites its file in place, so a kill in the
 * middle of a save leaves it cut short. Hence:
 * - Laurel saves the chain itself (`saveAnvilState`): `anvil_dumpState`, checked (`inspectAnvilState`),
 *   again with mining paused when the check fails, then written atomically (temporary file, fsync,
 *   rename) to the state file, periodically and as anvil is stopped.
 * - anvil's own save at exit (what a SIGTERM from the watchdog leaves when Laurel died) goes to a
 *   file beside it, and is only used when it is complete, agrees with itself and is newer
 *   (`chooseAnvilState`).
 */
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import zlib from 'node:zlib';

const gunzip = promisify(zlib.gunzip);

/** What a saved chain holds, or why it cannot be used. */
export type AnvilStateCheck =
  { usable: true; bestBlock: number } | { usable: false; problem: string; bestBlock?: number };

interface DumpedState {
  best_block_number?: number;
  accounts?: Record<string, { nonce?: number | string; code?: string }>;
  blocks?: { header?: { number?: string }; transactions?: { transaction?: { hash?: string } }[] }[];
  transactions?: { info?: { transaction_hash?: string; from?: string }; block_number?: number }[];
}

/** An account that only sends transactions (no code, or an EIP-7702 delegation), whose nonce counts them. */
function sendsOnly(code: string | undefined): boolean {
  return !code || code === '0x' || code.startsWith('0xef0100');
}

/**
 * Whether a dump's state agrees with its history: every block's transactions have their receipts
 * (and no receipt names a block the dump lacks), and every sending account's nonce counts its
 * transactions in the blocks (a block mined while the dump read the accounts shows there).
 */
export function inspectAnvilState(text: string): AnvilStateCheck {
  let state: DumpedState;
  try {
    state = JSON.parse(text) as DumpedState;
  } catch {
    return { usable: false, problem: 'cut short (killed while saving)' };
  }
  const { best_block_number: best, accounts, blocks, transactions } = state;
  if (typeof best !== 'number' || !accounts || !blocks || !transactions) {
    return { usable: false, problem: 'not an anvil state (no blocks, transactions or accounts)' };
  }
  const inBlocks = new Map<string, number>();
  let highest = -1;
  for (const block of blocks) {
    const number = Number(block.header?.number ?? -1);
    highest = Math.max(highest, number);
    for (const { transaction } of block.transactions ?? []) {
      if (transaction?.hash) inBlocks.set(transaction.hash, number);
    }
  }
  const ahead = (what: string) => ({
    usable: false as const,
    bestBlock: best,
    problem: `its state is ahead of its history (${what}: saved while a block was being mined)`,
  });
  if (highest !== best) return ahead(`its latest block is ${highest}, not ${best}`);
  const sent = new Map<string, number>();
  let receipts = 0;
  for (const { info, block_number: number } of transactions) {
    const hash = info?.transaction_hash ?? '';
    if (inBlocks.get(hash) !== number) return ahead(`a receipt of ${hash} without its block`);
    receipts += 1;
    const from = (info?.from ?? '').toLowerCase();
    sent.set(from, (sent.get(from) ?? 0) + 1);
  }
  if (receipts !== inBlocks.size) return ahead('a block transaction without its receipt');
  for (const [address, account] of Object.entries(accounts)) {
    if (!sendsOnly(account.code)) continue;
    if (Number(account.nonce ?? 0) !== (sent.get(address.toLowerCase()) ?? 0)) {
      return ahead(`the nonce of ${address} counts transactions its blocks lack`);
    }
  }
  return { usable: true, bestBlock: best };
}

/** Where anvil writes its own save when it exits (beside the state file Laurel writes). */
export function anvilExitStateFile(stateFile: string): string {
  return `${stateFile}.at-exit`;
}

function inspectFile(file: string): AnvilStateCheck | null {
  if (!fs.existsSync(file)) return null;
  return inspectAnvilState(fs.readFileSync(file, 'utf8'));
}

/** Writes `data` to `file` so that a crash leaves either the old file or the new one, never a mix. */
async function writeAtomically(file: string, data: Buffer): Promise<void> {
  const temporary = `${file}.tmp`;
  const handle = await fs.promises.open(temporary, 'w');
  try {
    await handle.writeFile(data);
    await handle.sync();
  } finally {
    await handle.close();
  }
  await fs.promises.rename(temporary, file);
  const folder = await fs.promises.open(path.dirname(file), 'r');
  try {
    await folder.sync();
  } finally {
    await folder.close();
  }
}

/**
 * Before anvil starts on `stateFile`: keeps there the newest saved chain whose state agrees with its
 * history, of Laurel's last save (the file) and anvil's save at exit. What cannot be used is set
 * aside as `<file>.broken` and reported; when nothing can, the state file stays as it is (anvil
 * then refuses a cut file, saying why). Returns the lines to report, with their level.
 */
export function chooseAnvilState(stateFile: string): { level: 'warn' | 'error'; message: string }[] {
  const reports: { level: 'warn' | 'error'; message: string }[] = [];
  const atExit = anvilExitStateFile(stateFile);
  const saved = inspectFile(stateFile);
  const exited = inspectFile(atExit);
  const name = path.basename(stateFile);
  const setAside = (file: string) => {
    fs.renameSync(file, `${file}.broken`);
    return `${path.basename(file)}.broken`;
  };
  if (exited?.usable && (!saved?.usable || exited.bestBlock > saved.bestBlock)) {
    if (saved && !saved.usable) {
      reports.push({
        level: 'warn',
        message: `anvil's state file ${stateFile} was ${saved.problem}: set aside as ${setAside(stateFile)}, restored anvil's own save at exit (block ${exited.bestBlock})`,
      });
    }
    fs.renameSync(atExit, stateFile);
    return reports;
  }
  if (exited && !exited.usable) {
    const kept = saved?.usable ? `restored Laurel's last consistent save (block ${saved.bestBlock})` : '';
    reports.push({
      level: 'warn',
      message: `anvil's save at exit ${atExit} was ${exited.problem}: set aside as ${setAside(atExit)}${kept ? `, ${kept}` : ''}`,
    });
  } else if (exited) {
    fs.rmSync(atExit);
  }
  if (saved && !saved.usable) {
    reports.push({
      level: 'error',
      message:
        `anvil's state file ${stateFile} was ${saved.problem}, and no consistent save is left: ` +
        (saved.bestBlock === undefined
          ? 'anvil cannot start from it'
          : `the local chain's balances may disagree with its blocks, and so with Laurel's index; ` +
            `to start afresh, stop Laurel and remove ${path.dirname(stateFile)} and the database's data folder`) +
        ` (${name})`,
    });
  }
  return reports;
}

/**
 * Saves the chain anvil at `rpcUrl` serves to `stateFile`, once its state agrees with its history:
 * first as it runs, then (if a block was being mined meanwhile) with mining paused for the time of
 * the dump. Returns what was saved, or why no dump could be (the file is then left as it was).
 */
export async function saveAnvilState(
  rpc: <T>(method: string, params?: unknown[]) => Promise<T>,
  stateFile: string,
): Promise<AnvilStateCheck> {
  let check: AnvilStateCheck = { usable: false, problem: 'not saved' };
  for (const paused of [false, true]) {
    if (paused) await rpc('evm_setAutomine', [false]);
    let dump: string;
    try {
      dump = await rpc<string>('anvil_dumpState');
    } finally {
      if (paused) await rpc('evm_setAutomine', [true]);
    }
    const json = await gunzip(Buffer.from(dump.slice(2), 'hex'));
    check = inspectAnvilState(json.toString('utf8'));
    if (check.usable) {
      await writeAtomically(stateFile, json);
      return check;
    }
  }
  return check;
}
