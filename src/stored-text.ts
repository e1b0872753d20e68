/**
 * Text from parties Laurel does not control (the chain, metadata hosts, webhook receivers) as
 * PostgreSQL can store it:
 * a `text` column refuses the NUL character and anything that is not valid UTF-8 (a JavaScript
 * string can hold unpaired surrogates), and a statement that meets one fails with every row in it.
 */

/** What stands for each NUL, each invalid UTF-8 sequence and each unpaired surrogate. */
export const REPLACEMENT_CHARACTER = '\uFFFD';

/** What the interface's descriptions say of a name, symbol or base URI read from the chain. */
export const CHAIN_TEXT_NOTE =
  'Written on the chain by its creator: NUL bytes and invalid UTF-8 read as U+FFFD, cut to CHAIN_TEXT_MAX_BYTES (docs/api-notes.md#names-from-the-chain)';

/** Bounds of a name, symbol or base URI read from the chain. */
export interface ChainTextLimits {
  /** UTF-8 bytes of the text kept (cut at a character boundary). */
  maxBytes: number;
  /** Bytes of the on-chain value kept beside a text stored altered. */
  rawMaxBytes: number;
}

/** CHAIN_TEXT_MAX_BYTES and CHAIN_TEXT_RAW_MAX_BYTES by default. */
export const DEFAULT_CHAIN_TEXT_LIMITS: ChainTextLimits = { maxBytes: 2048, rawMaxBytes: 64 * 1024 };

/**
 * A string read from the chain: its storable text and, when that text is not exactly the chain's
 * bytes (not valid UTF-8, holding NUL, or cut), the bytes themselves (the first `rawMaxBytes`).
 */
export interface ChainText {
  text: string;
  raw: Buffer | null;
}

/**
 * `text` with each NUL, unpaired surrogate and (given bytes) invalid UTF-8 sequence replaced by
 * U+FFFD: what a receiver, a metadata host or the chain sent, as any text column accepts it.
 */
export function storableText(text: Buffer | string): string {
  // Decoding replaces invalid sequences; encoding a string to UTF-8 replaces unpaired surrogates.
  const wellFormed = (Buffer.isBuffer(text) ? text : Buffer.from(text, 'utf8')).toString('utf8');
  return wellFormed.includes('\0') ? wellFormed.replaceAll('\0', REPLACEMENT_CHARACTER) : wellFormed;
}

/** Valid UTF-8 cut to at most `maxBytes` bytes, at a character boundary. */
function cutUtf8(encoded: Buffer, maxBytes: number): Buffer {
  if (encoded.length <= maxBytes) return encoded;
  let end = maxBytes;
  // Back to the first byte of the character the cut falls in (continuation bytes are 10xxxxxx).
  while (end > 0 && (encoded[end] & 0xc0) === 0x80) end -= 1;
  return encoded.subarray(0, end);
}

/** The chain's bytes of a `string` value as ChainText. */
export function chainTextOf(bytes: Uint8Array, limits: ChainTextLimits): ChainText {
  const value = Buffer.from(bytes);
  // Invalid sequences decode to U+FFFD (WHATWG's maximal subparts).
  const safe = storableText(value.toString('utf8'));
  const encoded = Buffer.from(safe, 'utf8');
  const kept = cutUtf8(encoded, limits.maxBytes);
  return {
    text: kept === encoded ? safe : kept.toString('utf8'),
    raw: kept.equals(value) ? null : value.subarray(0, limits.rawMaxBytes),
  };
}
