import { NonceGapError } from '../../src/modules/transactions/transactions.failures';

/** The nonce-gap answer tells "never sent" apart from "sent by Laurel and dropped by the chain". */
const sender = '0x90F79bf6EB2c4f870365E785982E1f101E93b906';
const hash = (n: number) => `0x${String(n).repeat(64).slice(0, 64)}`;

it('keeps the usual advice (builds never sent) when no missing nonce is Laurel’s', () => {
  const error = new NonceGapError(hash(9), sender, 8, 7);
  expect(error.message).toBe(
    `Nonce 8 of ${sender} (the transaction's signer) cannot be mined yet: its nonce 7 is missing ` +
      `(built but never signed or sent?). Send the missing transaction, release the unsent builds ` +
      `(DELETE /v1/transactions/reservations), or build again: ${sender}'s next build uses nonce 7. ` +
      'Then send this transaction again.',
  );
  expect(error.details).toEqual({
    reason: 'nonce_gap',
    transactionHash: hash(9),
    sender,
    next_nonce: 7,
    missing_nonces: [7],
    rebroadcasting: [],
  });
});

it('says what Laurel does about the nonces it sent, and what the client does about the others', () => {
  const error = new NonceGapError(hash(9), sender, 10, 7, [
    { nonce: 7, transactionHash: hash(1) },
    { nonce: 9, transactionHash: hash(2) },
  ]);
  expect(error.message).toBe(
    `Nonce 10 of ${sender} (the transaction's signer) cannot be mined yet: its nonces 7 to 9 are missing. ` +
      `Laurel sent nonces 7 and 9 (${hash(1)} and ${hash(2)}) and the chain dropped them ` +
      `(a reorganisation, or the node's pool): Laurel is sending them again (GET /v1/transactions/{hash} follows each). ` +
      `Nonce 8 was built but never signed or sent? Send the missing transaction, release the unsent builds ` +
      `(DELETE /v1/transactions/reservations), or build again: ${sender}'s next build uses nonce 8. ` +
      'Send this transaction again once they are mined.',
  );
  expect(error.details).toMatchObject({
    missing_nonces: [7, 8, 9],
    rebroadcasting: [
      { nonce: 7, transactionHash: hash(1) },
      { nonce: 9, transactionHash: hash(2) },
    ],
  });
});

it('lists the first 100 missing nonces of a far-ahead nonce and counts the rest, at once', () => {
  // A signer may sign any nonce: the answer never spans the whole gap.
  const far = Number.MAX_SAFE_INTEGER - 1;
  const error = new NonceGapError(hash(9), sender, far, 7);
  const first = Array.from({ length: 100 }, (_, i) => 7 + i);
  expect(error.details).toMatchObject({ next_nonce: 7, missing_nonces: first });
  expect(error.message).toContain(`its nonces 7 to ${far - 1} are missing`);

  const dropped = new NonceGapError(hash(9), sender, far, 7, [{ nonce: 8, transactionHash: hash(1) }]);
  const unsent = [7, ...Array.from({ length: 99 }, (_, i) => 9 + i)];
  expect(dropped.message).toContain(
    `Nonces ${unsent.join(', ')} and ${far - 7 - 1 - 100} more were built but never signed or sent? ` +
      `Send the missing transactions, release the unsent builds (DELETE /v1/transactions/reservations), ` +
      `or build again: ${sender}'s next build uses nonce 7.`,
  );
  expect(dropped.details).toMatchObject({ missing_nonces: first });
});
