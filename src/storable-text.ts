/**
 * Text that any PostgreSQL text column (and a JSON parameter read by `json_to_recordset`) accepts,
 * made from bytes or a string another party sent: invalid UTF-8 and lone surrogates become U+FFFD
 * (as a UTF-8 decoder does), and so does NUL, which PostgreSQL's text cannot hold.
 */
export function storableText(text: Buffer | string): string {
  const decoded = Buffer.isBuffer(text) ? text.toString('utf8') : Buffer.from(text, 'utf8').toString('utf8');
  return decoded.includes('\u0000') ? decoded.replaceAll('\u0000', '\uFFFD') : decoded;
}
