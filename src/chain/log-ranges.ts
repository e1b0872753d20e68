/**
 * How many blocks to ask of eth_getLogs after a provider refused a range, read from its message.
 * Two kinds of refusal:
 * - `range`: the provider caps the block range whatever the result (QuickNode "limited to a 10,000
 *   range", public nodes "exceed maximum block range: 5000", Ankr "block range is too wide"...):
 *   remembered for that provider for the life of the process;
 * - `results`: too many logs in the answer (Infura "query returned more than 10000 results",
 *   Alchemy "Log response size exceeded ... this block range should work: [0x.., 0x..]"): depends on
 *   how busy those blocks were, so it only narrows the rest of the current call.
 * A message that names a size (a limit, or a suggested range) gives it; otherwise the span is halved.
 * The wordings are those collected by Ponder's getLogsRetryHelper and the providers' documentation.
 */
import { LOG_LIMIT_WORDS } from './rpc-failures';

export interface LogRangeAdvice {
  kind: 'range' | 'results';
  /** The largest span (blocks, inclusive) to ask next; always below the refused span, at least 1. */
  maxSpan: number;
}

/** Limits messages state, as a number of blocks (the group). */
const STATED_RANGE_LIMITS: readonly RegExp[] = [
  /maximum is set to (\d+)/i, // avalanche: "requested too many blocks from a to b, maximum is set to N"
  /max range: (\d+)/i, // cloudflare
  /maximum allowed number of requested blocks is (\d+)/i, // thirdweb
  /limited to a ([\d,.]+)/i, // quicknode, 1rpc, blast
  /limited to ([\d,.]+) block/i, // blockpi
  /max(?:imum)? block range:? ([\d,.]+)/i, // publicnode; "exceed maximum block range: 5000"
  /range allowed for your plan \(\d+ > (\d+)\)/i, // blast
  /limit the query to at most ([\d,.]+) blocks/i, // coinbase
  /block range greater than ([\d,.]+) max/i,
  /block range exceeds ([\d,.]+)/i,
  /block range is too wide \(maximum (\d+)\)/i, // moonbeam
  /up to a ([\d,.]+) block range/i, // aurora
  /blocks distance: (\d+)/i, // ankr
  /query exceeds max block range ([\d,.]+)/i,
];

/** A range the message suggests: "[0xfrom, 0xto]" (Alchemy, Infura, zkSync). */
const SUGGESTED_RANGE = /(?:range should work|with this block range):? \[0x([0-9a-f]+),\s*0x([0-9a-f]+)\]/i;
const RESULT_WORDS =
  /results|response size|response too large|logs matched by query exceeds|too many logs|more than [\d,]+ logs|query timeout/i;

/** The advice for a refusal of `span` blocks, or null when the message is not about limits. */
export function logRangeAdvice(message: string, span: number): LogRangeAdvice | null {
  if (!LOG_LIMIT_WORDS.test(message)) return null;
  const below = (n: number) => Math.max(1, Math.min(span - 1, Math.floor(n)));
  const suggested = SUGGESTED_RANGE.exec(message);
  if (suggested) {
    const size = parseInt(suggested[2], 16) - parseInt(suggested[1], 16) + 1;
    return { kind: 'results', maxSpan: below(size > 0 ? size : span / 2) };
  }
  if (RESULT_WORDS.test(message)) return { kind: 'results', maxSpan: below(span / 2) };
  for (const pattern of STATED_RANGE_LIMITS) {
    const stated = Number(pattern.exec(message)?.[1].replace(/[,.]/g, '') ?? 0);
    if (stated > 0) return { kind: 'range', maxSpan: below(stated) };
  }
  return { kind: 'range', maxSpan: below(span / 2) };
}
