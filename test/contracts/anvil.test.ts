import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Contract, Wallet } from 'ethers';
import { AppArtifact, AppFactoryArtifact, appFactoryInterface } from '../../src/chain/contracts';
import { ensureLaurelDeployed } from '../../src/chain/deploy';
import { ANVIL_CHAIN_ID, resolveAnvilBinary, startAnvil, type AnvilInstance } from '../../src/embedded/anvil';
import { anvilExitStateFile, inspectAnvilState } from '../../src/embedded/anvil-state';
import { freePort } from '../../src/embedded/ports';
import { processIsAlive } from '../../src/embedded/processes';
import { anvilDevPrivateKeys, anvilProvider, mined } from '../helpers/chain';
import { builtFile } from '../helpers/laurel-process';
import { waitUntil } from '../helpers/wait';

const [deployerKey, ownerKey] = anvilDevPrivateKeys(2);

/** The folder a running anvil was given for its states (`--cache-path`, from Linux /proc). */
function cachePathOf(pid: number): string {
  const args = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
  return args[args.indexOf('--cache-path') + 1]!;
}

async function withChain<T>(
  anvil: AnvilInstance,
  fn: (wallets: { deployer: Wallet; owner: Wallet }) => Promise<T>,
) {
  const provider = anvilProvider(anvil.rpcUrl);
  try {
    return await fn({ deployer: new Wallet(deployerKey!, provider), owner: new Wallet(ownerKey!, provider) });
  } finally {
    provider.destroy();
  }
}

async function createApp(factoryAddress: string, owner: Wallet, name: string): Promise<string> {
  const factory = new Contract(factoryAddress, AppFactoryArtifact.abi, owner);
  const receipt = await mined(factory.createApp(name));
  const log = receipt.logs.map((l) => appFactoryInterface.parseLog(l)).find((l) => l?.name === 'AppCreated');
  return log!.args.app as string;
}

async function rpcAnswers(url: string): Promise<boolean> {
  try {
    await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
      signal: AbortSignal.timeout(1000),
    });
    return true;
  } catch {
    return false;
  }
}

/** Waits (polling, 10 s at most) until anvil's state file holds block `blockNumber`. */
async function waitForSave(stateFile: string, blockNumber: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    try {
      const state = JSON.parse(fs.readFileSync(stateFile, 'utf8')) as { block?: { number?: string } };
      if (Number(state.block?.number ?? -1) >= blockNumber) return;
    } catch {
      // not written yet, or being written
    }
    if (Date.now() > deadline) throw new Error(`no save of block ${blockNumber} in ${stateFile}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('embedded anvil', () => {
  let dir: string;
  const started: AnvilInstance[] = [];
  const start = async (...args: Parameters<typeof startAnvil>) => {
    const anvil = await startAnvil(...args);
    started.push(anvil);
    return anvil;
  };

  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'laurel-anvil-'));
  });
  afterAll(async () => {
    await Promise.all(started.map((a) => a.stop()));
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('finds the anvil binary of this platform', () => {
    expect(fs.existsSync(resolveAnvilBinary())).toBe(true);
  });

  it('starts on a free local port with chain id 31337 and stops cleanly, once', async () => {
    const lines: string[] = [];
    const anvil = await start({ log: (line) => lines.push(line) });
    expect(anvil.chainId).toBe(ANVIL_CHAIN_ID);
    expect(anvil.rpcUrl).toBe(`http://127.0.0.1:${anvil.port}`);
    expect(await rpcAnswers(anvil.rpcUrl)).toBe(true);
    await anvil.stop();
    await anvil.stop();
    expect(await rpcAnswers(anvil.rpcUrl)).toBe(false);

    const port = await freePort();
    const onPort = await start({ port });
    expect(onPort.port).toBe(port);
    expect(await rpcAnswers(`http://127.0.0.1:${port}`)).toBe(true);
    await onPort.stop();
  });

  it('keeps the states of older blocks in a folder of its own, removed once it stops', async () => {
    const anvil = await start();
    const cachePath = cachePathOf(anvil.pid);
    expect(path.dirname(cachePath)).toBe(os.tmpdir());
    // anvil moves states to disk once it holds about 500 blocks in memory.
    const provider = anvilProvider(anvil.rpcUrl);
    await provider.send('anvil_mine', ['0x300']).finally(() => provider.destroy());
    const files = (folder: string) => fs.readdirSync(folder, { recursive: true }).length;
    await waitUntil('anvil to keep states on disk', async () => files(cachePath) > 0);
    await anvil.stop();
    expect(fs.existsSync(cachePath)).toBe(false);
  });

  it('removes that folder too when the process that started it exits without stopping it', async () => {
    // A process that starts anvil (as built), says where its folder is, and exits at once.
    const script = `
      const fs = require('node:fs');
      require(${JSON.stringify(builtFile('src/embedded/anvil'))})
        .startAnvil()
        .then((anvil) => {
          const args = fs.readFileSync('/proc/' + anvil.pid + '/cmdline', 'utf8').split('\\0');
          console.log(JSON.stringify({ pid: anvil.pid, cachePath: args[args.indexOf('--cache-path') + 1] }));
          process.exit(0);
        });`;
    const output = execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' });
    const { pid, cachePath } = JSON.parse(output.trim().split('\n').pop()!) as {
      pid: number;
      cachePath: string;
    };
    expect(path.dirname(cachePath)).toBe(os.tmpdir());
    expect(fs.existsSync(cachePath)).toBe(false);
    // Its anvil was told to stop as that process exited (it may stay a zombie, which is gone too).
    await waitUntil('the orphaned anvil to stop', () => !processIsAlive(pid));
  });

  it('keeps them beside a state file, in a folder that a start empties of what a killed anvil left', async () => {
    const stateFile = path.join(dir, 'with-states', 'state.json');
    const leftover = path.join(dir, 'with-states', 'states', 'anvil-state-left', 'block');
    fs.mkdirSync(path.dirname(leftover), { recursive: true });
    fs.writeFileSync(leftover, 'left by an anvil killed with its Laurel');
    const anvil = await start({ stateFile });
    expect(cachePathOf(anvil.pid)).toBe(path.join(dir, 'with-states', 'states'));
    expect(fs.existsSync(leftover)).toBe(false);
    await anvil.stop();
    expect(fs.existsSync(path.join(dir, 'with-states', 'states'))).toBe(false);
    expect(fs.existsSync(stateFile)).toBe(true);
  });

  it('keeps the chain state across a stop and a start with the same state file', async () => {
    const stateFile = path.join(dir, 'nested', 'chain', 'state.json'); // directories are created
    let anvil = await start({ stateFile });
    const { factory, app } = await withChain(anvil, async ({ deployer, owner }) => {
      const deployment = await ensureLaurelDeployed(deployer.provider!, deployer);
      expect(deployment.deployed).toBe(true);
      return { factory: deployment.factory, app: await createApp(deployment.factory, owner, 'Persistent') };
    });
    await anvil.stop();
    expect(fs.existsSync(stateFile)).toBe(true);

    anvil = await start({ stateFile });
    await withChain(anvil, async ({ deployer, owner }) => {
      const again = await ensureLaurelDeployed(deployer.provider!, deployer);
      expect(again.deployed).toBe(false);
      expect(again.factory).toBe(factory);
      const f = new Contract(factory, AppFactoryArtifact.abi, owner);
      expect(await f.allApps()).toEqual([app]);
      const a = new Contract(app, AppArtifact.abi, owner);
      expect(await a.name()).toBe('Persistent');
      expect(await a.owner()).toBe(owner.address);
      // The chain goes on: new transactions work after the restore.
      await createApp(factory, owner, 'After restart');
      expect(await f.appCount()).toBe(2n);
    });
    await anvil.stop();
  });

  it('keeps the state after an unclean stop (periodic dump)', async () => {
    const stateFile = path.join(dir, 'crash.json');
    let anvil = await start({ stateFile });
    const { factory, app } = await withChain(anvil, async ({ deployer, owner }) => {
      const deployment = await ensureLaurelDeployed(deployer.provider!, deployer);
      return { factory: deployment.factory, app: await createApp(deployment.factory, owner, 'Survivor') };
    });
    // anvil saves every second (--state-interval 1), rewriting the file in place: kill it right
    // after a save that holds the app, not while it writes the next one.
    const savedBlock = await withChain(anvil, ({ deployer }) => deployer.provider!.getBlockNumber());
    await waitForSave(stateFile, savedBlock);
    process.kill(anvil.pid, 'SIGKILL');
    await anvil.stop(); // resolves once the process is gone

    anvil = await start({ stateFile });
    await withChain(anvil, async ({ owner }) => {
      const f = new Contract(factory, AppFactoryArtifact.abi, owner);
      expect(await f.allApps()).toEqual([app]);
    });
    await anvil.stop();
  });

  it('restores the last good state when anvil was killed while saving it', async () => {
    const stateFile = path.join(dir, 'cut.json');
    let anvil = await start({ stateFile });
    const { factory, app } = await withChain(anvil, async ({ deployer, owner }) => {
      const deployment = await ensureLaurelDeployed(deployer.provider!, deployer);
      return { factory: deployment.factory, app: await createApp(deployment.factory, owner, 'Kept') };
    });
    await anvil.stop(); // saves on SIGTERM
    anvil = await start({ stateFile }); // keeps that state as the good copy
    await anvil.stop();
    fs.writeFileSync(stateFile, ''); // what a kill in the middle of a save leaves

    const reports: string[] = [];
    anvil = await start({ stateFile, report: (_level, message) => reports.push(message) });
    expect(reports).toEqual([expect.stringMatching(/cut short .* set aside as cut\.json\.broken/)]);
    expect(fs.readFileSync(`${stateFile}.broken`, 'utf8')).toBe('');
    await withChain(anvil, async ({ owner }) => {
      expect(await new Contract(factory, AppFactoryArtifact.abi, owner).allApps()).toEqual([app]);
    });
    await anvil.stop();
  });

  it('starts from a save whose balances agree with its blocks, never from one saved while a block was mined', async () => {
    const stateFile = path.join(dir, 'racy', 'state.json');
    let anvil = await start({ stateFile });
    const { factory, app } = await withChain(anvil, async ({ deployer, owner }) => {
      const deployment = await ensureLaurelDeployed(deployer.provider!, deployer);
      return { factory: deployment.factory, app: await createApp(deployment.factory, owner, 'Consistent') };
    });
    await anvil.stop(); // Laurel's save, then anvil's own at exit
    const saved = JSON.parse(fs.readFileSync(stateFile, 'utf8')) as { best_block_number: number };
    expect(inspectAnvilState(fs.readFileSync(stateFile, 'utf8'))).toEqual({
      usable: true,
      bestBlock: saved.best_block_number,
    });

    // What anvil 1.7.1 writes when a block is mined while it saves: the accounts already hold the
    // block's transaction (here: the app created), the blocks and receipts do not yet.
    const racy = JSON.parse(fs.readFileSync(stateFile, 'utf8')) as {
      best_block_number: number;
      blocks: { header: { number: string } }[];
      transactions: { block_number: number }[];
    };
    racy.blocks = racy.blocks.filter((block) => Number(block.header.number) < racy.best_block_number);
    racy.transactions = racy.transactions.filter((tx) => tx.block_number < racy.best_block_number);
    racy.best_block_number -= 1;
    const racyText = JSON.stringify(racy);
    expect(inspectAnvilState(racyText)).toMatchObject({
      usable: false,
      problem: expect.stringMatching(/state is ahead of its history .*nonce of/),
    });
    // Even a save that claims more blocks than Laurel's is not used when it disagrees with itself.
    racy.best_block_number += 10;
    fs.writeFileSync(anvilExitStateFile(stateFile), JSON.stringify(racy));
    const reports: string[] = [];
    anvil = await start({ stateFile, report: (level, message) => reports.push(`${level}: ${message}`) });
    expect(reports).toEqual([
      expect.stringMatching(
        /^warn: anvil's save at exit .* was .*ahead of its history.* set aside as state\.json\.at-exit\.broken, restored Laurel's last consistent save/,
      ),
    ]);
    await withChain(anvil, async ({ owner }) => {
      expect(await new Contract(factory, AppFactoryArtifact.abi, owner).allApps()).toEqual([app]);
      expect(await owner.provider!.getBlockNumber()).toBe(saved.best_block_number);
    });
    await anvil.stop();
  });

  it('reports why anvil could not start', async () => {
    const garbage = path.join(dir, 'garbage.json');
    fs.writeFileSync(garbage, 'not json');
    await expect(startAnvil({ stateFile: garbage })).rejects.toThrow(
      /anvil exited during start-up[\s\S]*garbage\.json/,
    );

    const port = await freePort();
    const sockets = new Set<net.Socket>();
    const blocker = net.createServer((socket) => sockets.add(socket));
    await new Promise<void>((resolve) => blocker.listen(port, '127.0.0.1', resolve));
    try {
      await expect(startAnvil({ port })).rejects.toThrow(/Address already in use/);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => blocker.close(resolve));
    }
  });
});
