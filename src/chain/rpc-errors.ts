function isPrintable(character: string): boolean {
  const code = character.codePointAt(0)!;
  return code >= 0x20 && !(code >= 0x7f && code <= 0x9f) && code !== 0xfffd;
}

/**
 * The node's own message from an ethers JSON-RPC error: first line, control characters (anvil
 * appends raw revert bytes) removed, at most 200 characters.
 */
export function nodeMessageOf(error: unknown, fallback: string): string {
  const e = error as {
    info?: { error?: { message?: unknown } };
    error?: { message?: unknown };
    shortMessage?: unknown;
  };
  const candidates = [e?.info?.error?.message, e?.error?.message, e?.shortMessage, (error as Error)?.message];
  const message = candidates.find((value): value is string => typeof value === 'string' && value.length > 0);
  const line = [...(message ?? fallback).split('\n')[0]].filter(isPrintable).join('').trim();
  return line.length > 200 ? `${line.slice(0, 197)}...` : line;
}
