/**
 * How the subscription server closes its WebSockets: the close codes it uses, each for what a
 * client should do next; the closing handshake with its deadline; and the timer that closes a
 * connection when its key expires.
 */
import { CloseCode } from 'graphql-ws';
import type { WebSocket } from 'ws';

/** Closes a connection whose key is missing, unknown or revoked (graphql-ws clients do not retry it). */
export const UNAUTHENTICATED_CLOSE_CODE = CloseCode.Unauthorized;
/**
 * Closes a connection over a cap (WebSockets per key) or that goes on subscribing over the wallet's
 * budget: HTTP's 429. graphql-ws clients do not retry it (it is their TooManyInitialisationRequests).
 */
export const TOO_MANY_CLOSE_CODE = 4429;
/** Closes a connection whose key cannot be checked now (the database is gone): clients retry. */
export const TRY_AGAIN_LATER_CLOSE_CODE = 1013;
/** What every connection is closed with when the process stops (clients reconnect to another). */
export const GOING_AWAY_CLOSE_CODE = 1001;
/** How long clients have to answer the closing handshake before their sockets are cut. */
const CLOSE_HANDSHAKE_MS = 1_000;
/** The longest delay a Node timer takes (a longer one fires at once). */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Calls `expired` at `expiresAt` (by this process's clock), in steps a timer can take (unref'd);
 * returns what cancels it.
 */
export function atExpiry(expiresAt: Date, expired: () => void): () => void {
  let timer: NodeJS.Timeout | undefined;
  const wait = () => {
    const left = expiresAt.getTime() - Date.now();
    if (left <= 0) return expired();
    timer = setTimeout(wait, Math.min(left, MAX_TIMER_MS)).unref();
  };
  wait();
  return () => clearTimeout(timer);
}

/** Closes `socket` with `code`; cut if its client does not answer the closing handshake in time. */
export function closeSocket(socket: WebSocket, code: number, reason: string): Promise<void> {
  return new Promise((resolve) => {
    if (socket.readyState === socket.CLOSED) return resolve();
    const timer = setTimeout(() => socket.terminate(), CLOSE_HANDSHAKE_MS);
    socket.once('close', () => {
      clearTimeout(timer);
      resolve();
    });
    socket.close(code, reason);
  });
}
