import { readFileSync, rmSync, watch } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { Client } from 'pg';
import { startEmbeddedPostgres } from '../../src/embedded/postgres';
import { makeDataDir } from '../helpers/laurel-process';

/**
 * The embedded PostgreSQL's port is free when Laurel chooses it, but another process can bind it
 * before PostgreSQL does (seen in a full test run: a first `npm start` then failed with "could not
 * create any TCP/IP sockets"). Laurel then starts it on another port and stores that one.
 */
it('starts PostgreSQL on another port when its chosen one was taken before the server bound it', async () => {
  const dataDir = makeDataDir();
  const stateFile = path.join(dataDir, 'postgres.json');
  const thief = net.createServer();
  let stolenPort: number | undefined;
  // The state file is written as soon as the port is chosen, and initdb runs before the server
  // starts: the port is taken in between, as another process of the machine could.
  const watcher = watch(dataDir, (_event, file) => {
    if (file !== 'postgres.json' || stolenPort !== undefined) return;
    let state: { port: number };
    try {
      state = JSON.parse(readFileSync(stateFile, 'utf8')) as { port: number };
    } catch {
      return; // read while being written: the next event has it whole
    }
    stolenPort = state.port;
    thief.listen(stolenPort, '127.0.0.1');
  });
  const log: string[] = [];
  try {
    const database = await startEmbeddedPostgres({
      dataDir,
      database: 'laurel',
      persistent: false,
      supervise: false,
      log: (line) => log.push(line),
    });
    try {
      expect(thief.listening).toBe(true);
      expect(log.join('\n')).toContain('Address already in use');
      expect(database.port).not.toBe(stolenPort);
      expect((JSON.parse(readFileSync(stateFile, 'utf8')) as { port: number }).port).toBe(database.port);
      const client = new Client({ connectionString: database.databaseUrl });
      await client.connect();
      expect((await client.query<{ one: number }>('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
      await client.end();
    } finally {
      await database.stop();
    }
  } finally {
    watcher.close();
    thief.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
