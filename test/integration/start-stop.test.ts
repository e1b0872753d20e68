import { rmSync } from 'node:fs';
import {
  buildService,
  makeDataDir,
  processesUsing,
  rpc,
  startLaurelProcess,
  stopLaurelProcess,
} from '../helpers/laurel-process';

/**
 * `npm start` as a user runs it: the built service on an empty data folder, with no configuration
 * but PORT and DATA_DIR. It must print its URLs, answer, stop cleanly on SIGTERM/SIGINT leaving no
 * postgres or anvil behind, and find its data (database and chain state) again on the next start.
 */
let dataDir: string;

beforeAll(() => {
  buildService();
  dataDir = makeDataDir();
}, 120_000);

afterAll(() => {
  rmSync(dataDir, { recursive: true, force: true });
});

it('starts with nothing configured, stops cleanly, and restarts on the same data', async () => {
  const first = await startLaurelProcess(dataDir);
  expect(first.output()).toMatch(/postgres\s+embedded PostgreSQL/);
  expect(first.output()).toMatch(/chain\s+local \(chain id 31337\)/);
  expect(first.output()).toMatch(/REST\s+http:\/\/\S+\/v1/);
  expect((await fetch(`${first.url}/health`)).status).toBe(200);
  const typename = await fetch(`${first.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: '{ __typename }' }),
  });
  expect(await typename.json()).toEqual({ data: { __typename: 'Query' } });
  const factory = /factory (0x[0-9a-fA-F]{40})/.exec(first.output())![1];
  const chainUrl = /anvil on (http:\/\/\S+),/.exec(first.output())![1];
  // Leave a mark on the chain that must survive the restart.
  await rpc(chainUrl, 'anvil_mine', ['0x5']);
  const blocksBefore = Number(await rpc<string>(chainUrl, 'eth_blockNumber'));

  // The output is part of the expectation so that a failure shows why the process exited.
  expect({ code: await stopLaurelProcess(first, 'SIGTERM'), output: first.output() }).toMatchObject({
    code: 0,
  });
  expect(processesUsing(dataDir)).toEqual([]);

  const second = await startLaurelProcess(dataDir);
  expect(second.output()).toMatch(/migrations\s+database is up to date/);
  expect(second.output()).toContain(`factory ${factory}`);
  const secondChainUrl = /anvil on (http:\/\/\S+),/.exec(second.output())![1];
  expect(Number(await rpc<string>(secondChainUrl, 'eth_blockNumber'))).toBeGreaterThanOrEqual(blocksBefore);
  // Ctrl-C under `npm start`: the terminal's SIGINT and npm's forwarded one arrive together.
  expect({ code: await stopLaurelProcess(second, 'SIGINT', 2), output: second.output() }).toMatchObject({
    code: 0,
  });
  expect(second.output()).toContain('laurel: stopped');
  expect(processesUsing(dataDir)).toEqual([]);
}, 180_000);
