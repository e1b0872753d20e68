/**
 * Ingest throughput of the indexer: reward events per second while a fresh index catches up with a
 * backlog of BENCH_INGEST_EVENTS (100,000) App.rewardXP rewards on anvil (each one a Rewarded and an
 * XP Transfer log), next to a baseline measured in the same run on the same chain: fetching the same
 * logs with eth_getLogs over the same block ranges and decoding them, without writing anything.
 *
 *   npm run bench:ingest
 *
 * The backlog is made quickly by a small helper contract, made an operator of the app, that calls
 * App.rewardXP BENCH_INGEST_PER_TX (250) times per transaction for 10,000 distinct users. Everything
 * runs on loopback in a temporary folder removed at the end (embedded PostgreSQL, anvil).
 *
 * Block tracking (reorganisations, docs/reorgs.md) is on as for any local chain: the blocks above
 * the finalized one (anvil's `finalized` tag, head - 64) are recorded with their hashes.
 * BENCH_INGEST_FINALITY_DEPTH=<n> sets the chain's finalityDepth and ignores the tag, e.g. a depth
 * above the backlog's blocks puts every block of it in the window (headers read and recorded for
 * each, undo journals written).
 */
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  Contract,
  ContractFactory,
  Wallet,
  encodeBytes32String,
  type ContractTransactionResponse,
} from 'ethers';
import { Pool } from 'pg';
import solc from 'solc';
import { appFactoryInterface, appInterface } from '../src/chain/contracts';
import { deployLaurel } from '../src/chain/deploy';
import { ChainRegistry, LOCAL_EXPLORER_URL } from '../src/chain/registry';
import { migrate } from '../src/db/migrator';
import { ANVIL_MNEMONIC, startAnvil } from '../src/embedded/anvil';
import { startEmbeddedPostgres, type EmbeddedPostgresHandle } from '../src/embedded/postgres';
import { ChainIndexer } from '../src/indexer/chain-indexer';
import { getLogs } from '../src/indexer/logs-client';
import {
  appEventTopics,
  decodeLogs,
  discoverContracts,
  topics,
  type ChainLog,
} from '../src/indexer/log-decoder';
import { createLogger } from '../src/logger';
import { MB, sampleRss } from './lib/local-laurel';
import { cpuSecondsOf } from './lib/process-cpu';
import { printTopStatements, resetStatementStats, statementStatsSettings } from './lib/statement-stats';
import { DEFAULT_CHAIN_TEXT_LIMITS } from '../src/stored-text';

const EVENTS = Number(process.env.BENCH_INGEST_EVENTS ?? 100_000);
const PER_TX = Number(process.env.BENCH_INGEST_PER_TX ?? 250);
const BLOCK_RANGE = Number(process.env.BENCH_INGEST_BLOCK_RANGE ?? 20);
const FINALITY_DEPTH = process.env.BENCH_INGEST_FINALITY_DEPTH;

const BATCH_REWARDER = `
// SPDX-License-Identifier: UNLICENSED
pragma solidity ^0.8.24;
interface IApp { function rewardXP(address receiver, uint256 amount, bytes32 actionId) external; }
contract BatchRewarder {
  function reward(address app, uint256 first, uint256 count, bytes32 actionId) external {
    for (uint256 i = 0; i < count; ++i) {
      IApp(app).rewardXP(address(uint160(0x10000 + ((first + i) % 10000))), 1 ether, actionId);
    }
  }
}`;

function compileBatchRewarder(): { abi: unknown[]; bytecode: string } {
  const input = {
    language: 'Solidity',
    sources: { 'BatchRewarder.sol': { content: BATCH_REWARDER } },
    settings: {
      optimizer: { enabled: true, runs: 200 },
      outputSelection: { '*': { '*': ['abi', 'evm.bytecode'] } },
    },
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input))) as {
    contracts: Record<string, Record<string, { abi: unknown[]; evm: { bytecode: { object: string } } }>>;
  };
  const compiled = output.contracts['BatchRewarder.sol'].BatchRewarder;
  return { abi: compiled.abi, bytecode: `0x${compiled.evm.bytecode.object}` };
}

async function main(): Promise<void> {
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'laurel-bench-ingest-'));
  chmodSync(scratch, 0o755);
  const anvil = await startAnvil();
  const registry = new ChainRegistry(
    [
      {
        name: 'bench',
        chainId: anvil.chainId,
        rpcUrl: anvil.rpcUrl,
        explorerUrl: LOCAL_EXPLORER_URL,
        factoryAddress: '0x0000000000000000000000000000000000000000',
        confirmations: 1,
        ...(FINALITY_DEPTH ? { finalityDepth: Number(FINALITY_DEPTH), finalizedTag: false } : {}),
      },
    ],
    60_000,
  );
  const chain = registry.get('bench');
  // Stopped at the end, or when something fails after it started (anvil too: the process would hang).
  let postgres: EmbeddedPostgresHandle | undefined;
  try {
    const database = await startEmbeddedPostgres({
      dataDir: scratch,
      database: 'bench',
      persistent: false,
      settings: statementStatsSettings,
    });
    postgres = database;
    const owner = Wallet.fromPhrase(ANVIL_MNEMONIC, chain.provider);
    const deployment = await deployLaurel(owner);
    chain.factoryAddress = deployment.factory;
    const factory = new Contract(deployment.factory, appFactoryInterface, owner);
    const created = await (
      await (factory.createApp('Ingest') as Promise<ContractTransactionResponse>)
    ).wait();
    const appAddress = created!.logs
      .map((log) => appFactoryInterface.parseLog(log))
      .find((event) => event?.name === 'AppCreated')!.args.app as string;
    const { abi, bytecode } = compileBatchRewarder();
    const rewarder = await new ContractFactory(abi as never, bytecode, owner).deploy();
    await rewarder.waitForDeployment();
    const app = new Contract(appAddress, appInterface, owner);
    await (
      await (app.addOperator(await rewarder.getAddress()) as Promise<ContractTransactionResponse>)
    ).wait();

    // The backlog: sent one after the other without waiting for receipts (anvil mines each at once).
    const generationStarted = Date.now();
    const transactions = Math.ceil(EVENTS / PER_TX);
    let nonce = await owner.getNonce();
    let last: ContractTransactionResponse | undefined;
    for (let t = 0; t < transactions; t += 1) {
      const count = Math.min(PER_TX, EVENTS - t * PER_TX);
      last = (await rewarder.getFunction('reward')(
        appAddress,
        t * PER_TX,
        count,
        encodeBytes32String('bench'),
        {
          nonce: nonce++,
          gasLimit: 29_000_000,
        },
      )) as ContractTransactionResponse;
    }
    const lastReceipt = await last!.wait();
    if (lastReceipt?.status !== 1) throw new Error('the last backlog transaction failed');
    const head = await chain.provider.getBlockNumber();
    console.log(
      `backlog: ${EVENTS} rewards (${2 * EVENTS} logs) in ${transactions} transactions up to block ${head}, ` +
        `made in ${((Date.now() - generationStarted) / 1000).toFixed(1)} s`,
    );

    // Baseline: the same eth_getLogs ranges, decoded, nothing written.
    const baselineStarted = Date.now();
    let decoded = 0;
    let timestampsInLogs = false;
    let fetchMs = 0;
    let decodeMs = 0;
    const known = {
      factory: deployment.factory,
      apps: new Set<string>(),
      tokens: new Map(),
      badges: new Set<string>(),
    };
    for (let from = 0; from <= head; from += BLOCK_RANGE) {
      const to = Math.min(head, from + BLOCK_RANGE - 1);
      const fetch = async (address: string[], eventTopics: string[]) => {
        const started = performance.now();
        const logs =
          address.length === 0
            ? []
            : await getLogs(chain, { fromBlock: from, toBlock: to, address, topics: [eventTopics] });
        fetchMs += performance.now() - started;
        return logs;
      };
      const toChainLogs = (raw: Awaited<ReturnType<typeof fetch>>): ChainLog[] =>
        raw.map((log) => ({ ...log, blockNumber: Number(log.blockNumber), logIndex: Number(log.logIndex) }));
      const factoryLogs = toChainLogs(await fetch([known.factory], [topics.appCreated]));
      discoverContracts(factoryLogs, known);
      const appRaw = await fetch([...known.apps], appEventTopics);
      const appLogs = toChainLogs(appRaw);
      discoverContracts(appLogs, known);
      const tokenRaw = await fetch(
        [...known.tokens].filter(([, kind]) => kind !== 'xp').map(([token]) => token as string),
        [topics.transfer],
      );
      timestampsInLogs ||= [...appRaw, ...tokenRaw].some((log) => 'blockTimestamp' in log);
      const tokenLogs = toChainLogs(tokenRaw);
      const logs = [...factoryLogs, ...appLogs, ...tokenLogs];
      const decodeStarted = performance.now();
      decoded += decodeLogs(logs, known, DEFAULT_CHAIN_TEXT_LIMITS).events.filter(
        (event) => event.type === 'reward',
      ).length;
      decodeMs += performance.now() - decodeStarted;
    }
    const baselineSeconds = (Date.now() - baselineStarted) / 1000;

    // The indexer, from block 0 into an empty index.
    await migrate(database.databaseUrl);
    const pool = new Pool({ connectionString: database.databaseUrl, max: 4 });
    pool.on('error', () => undefined); // connections cut when the database stops at the end
    const indexer = new ChainIndexer({
      chain,
      pool,
      log: createLogger(process.env.LOG_LEVEL ?? 'info'),
      pollIntervalMs: 20,
      maxBlockRange: BLOCK_RANGE,
      startBlock: 0,
    });
    await resetStatementStats(database.databaseUrl);
    const readCpu = () => cpuSecondsOf({ indexer: 'self', PostgreSQL: database.pid, anvil: anvil.pid });
    const cpuBefore = readCpu();
    const indexStarted = Date.now();
    const rssBefore = process.memoryUsage.rss();
    const rss = sampleRss();
    indexer.start();
    while (indexer.status().cursor < head) await new Promise((resolve) => setTimeout(resolve, 20));
    const indexSeconds = (Date.now() - indexStarted) / 1000;
    const peakRss = rss.stop();
    const cpuAfter = readCpu();
    await indexer.stop();
    const { rows } = await pool.query<{ n: string }>('SELECT count(*) AS n FROM completed_actions');
    const tracked = await pool.query<{ n: string }>('SELECT count(*) AS n FROM indexed_blocks');
    await pool.end();

    const rate = (events: number, seconds: number) => Math.round(events / seconds);
    console.log(
      `\nindexer    ${rows[0].n} rewards in ${indexSeconds.toFixed(2)} s: ${rate(Number(rows[0].n), indexSeconds)} rewards/s`,
    );
    console.log(
      `baseline   ${decoded} rewards fetched and decoded, nothing written, in ${baselineSeconds.toFixed(2)} s: ${rate(decoded, baselineSeconds)} rewards/s (eth_getLogs ${(fetchMs / 1000).toFixed(2)} s, decoding ${(decodeMs / 1000).toFixed(2)} s)`,
    );
    console.log(
      `getLogs    eth_getLogs alone (the node's ceiling for this backlog): ${rate(decoded, fetchMs / 1000)} rewards/s` +
        `${timestampsInLogs ? '' : ' (logs carry no blockTimestamp: the indexer also reads block headers)'}`,
    );
    console.log(
      `ratio      indexer / baseline = ${(baselineSeconds / indexSeconds).toFixed(2)}x   (block range ${BLOCK_RANGE})`,
    );
    console.log(
      `memory     peak RSS of this process while indexing: ${(peakRss / MB).toFixed(0)} MB ` +
        `(${(rssBefore / MB).toFixed(0)} MB when it began: solc, the backlog's making, the baseline)`,
    );
    console.log(
      `cpu        while indexing, CPU seconds: ${Object.entries(cpuAfter)
        .map(
          ([name, seconds]) => `${name} ${(seconds - cpuBefore[name as keyof typeof cpuBefore]).toFixed(2)}`,
        )
        .join(', ')}`,
    );
    console.log(
      `tracking   ${tracked.rows[0].n} blocks recorded above the finalized block ` +
        `(${FINALITY_DEPTH ? `finalityDepth ${FINALITY_DEPTH}, finalized tag ignored` : "the chain's defaults"})`,
    );
    await printTopStatements(database.databaseUrl, 12);
  } finally {
    registry.destroy();
    await postgres?.stop();
    await anvil.stop();
    rmSync(scratch, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error('bench:ingest failed:', error);
  process.exitCode = 1;
});
