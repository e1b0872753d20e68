// A live profile from Node with @laurel/client: a GraphQL subscription over WebSocket, printing the
// profile now and each time the index changes it. The client reconnects (and subscribes again) when
// the connection drops or Laurel restarts, and stops with one line when the key is refused.
//
//   export LAUREL_API_KEY=$(npx laurel key --dev-account 0)   (a key of the local chain's dev account)
//   node examples/subscribe.mjs [user address]
//   (LAUREL_URL, default http://127.0.0.1:4000; CHAIN, default local; PUSHES: stop after that many)
import WebSocket from 'ws';
import { LaurelSubscriptions } from '@laurel/client';

const base = (process.env.LAUREL_URL ?? 'http://127.0.0.1:4000').replace(/\/$/, '');
const apiKey = process.env.LAUREL_API_KEY;
if (!apiKey) {
  console.error(
    'set LAUREL_API_KEY to an API key: `export LAUREL_API_KEY=$(npx laurel key --dev-account 0)` on a local chain (or --private-key 0x…), or sign in with signIn from @laurel/client',
  );
  process.exit(1);
}
const pushes = Number(process.env.PUSHES ?? Infinity);

// Node 22 and browsers have a WebSocket of their own; Node 20 needs the `ws` package's.
const live = new LaurelSubscriptions({ url: base, apiKey }, { webSocket: WebSocket });
let received = 0;
try {
  for await (const profile of live.iterate(
    'profileChanged',
    { chain: process.env.CHAIN ?? 'local', user_id: process.argv[2] },
    { user_id: true, xp_balance: true, completed_actions: { name: true, xp_rewarded: true } },
  )) {
    console.log(JSON.stringify(profile));
    if (++received >= pushes) break;
  }
} catch (error) {
  console.error(error instanceof Error ? error.message : String(error));
  process.exitCode = 1;
}
await live.dispose();
