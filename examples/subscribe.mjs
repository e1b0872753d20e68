// A live profile from Node: a GraphQL subscription over WebSocket (graphql-ws, with the `ws`
// package as its WebSocket), printing the profile now and each time the index changes it.
//
//   LAUREL_API_KEY=laurel_… node examples/subscribe.mjs [user address]
//   (LAUREL_URL, default http://127.0.0.1:4000; CHAIN, default local; PUSHES: stop after that many)
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';

const base = (process.env.LAUREL_URL ?? 'http://127.0.0.1:4000').replace(/\/$/, '');
const apiKey = process.env.LAUREL_API_KEY;
if (!apiKey) throw new Error('set LAUREL_API_KEY (see the README: POST /key/challenge, then /key/verify)');
const pushes = Number(process.env.PUSHES ?? Infinity);

const client = createClient({
  url: `${base.replace(/^http/, 'ws')}/graphql`,
  webSocketImpl: WebSocket,
  // The key goes in connection_init's payload, under the name of the HTTP header.
  connectionParams: { 'X-API-KEY': apiKey },
});

const subscription = client.iterate({
  query: `subscription ($chain: String!, $user: String) {
    profileChanged(chain: $chain, user_id: $user) { user_id xp_balance completed_actions { name xp_rewarded } }
  }`,
  variables: { chain: process.env.CHAIN ?? 'local', user: process.argv[2] },
});
let received = 0;
for await (const { data, errors } of subscription) {
  if (errors) throw new Error(errors.map((error) => error.message).join('; '));
  console.log(JSON.stringify(data.profileChanged));
  if (++received >= pushes) break;
}
await client.dispose();
