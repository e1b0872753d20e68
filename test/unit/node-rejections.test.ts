import { NODE_REJECTIONS, rejectionOf, TransactionRejectedError } from '../../src/chain/node-rejections';

const hash = `0x${'ab'.repeat(32)}`;
const sender = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const transaction = { hash, from: sender, nonce: 3 };

/** A JSON-RPC error as ethers throws it for eth_sendRawTransaction: the node's message under info.error. */
const nodeError = (message: string) => ({
  shortMessage: 'could not coalesce error',
  info: { error: { code: -32000, message } },
});

describe('rejectionOf: what a node refusing a signed transaction means', () => {
  it.each([
    ['nonce too low: next nonce 5, tx nonce 3', 'nonce_too_low', 409],
    ['nonce has already been used', 'nonce_too_low', 409],
    ['nonce too high', 'nonce_too_high', 409],
    ['replacement transaction underpriced', 'replacement_underpriced', 409],
    ['insufficient funds for gas * price + value: have 0 want 21000', 'insufficient_funds', 422],
    ['intrinsic gas too low: gas 20000, minimum needed 21000', 'gas_limit_rejected', 422],
    ['max fee per gas less than block base fee', 'fee_too_low', 422],
    ['invalid chain id for signer', 'invalid_signature', 422],
    ['something no node has ever said', 'transaction_rejected', 422],
  ])('%s → %s (%i)', (message, code, status) => {
    const error = rejectionOf(nodeError(message), transaction);
    expect(error).toBeInstanceOf(TransactionRejectedError);
    // A refusal about nonces names the wallet whose nonces they are.
    const aboutNonces = status === 409;
    expect({
      code: error.code,
      status: error.httpStatus,
      message: error.message,
      details: error.details,
    }).toEqual({
      code,
      status,
      message: aboutNonces ? `${message} (nonce 3 of ${sender}, the transaction's signer)` : message,
      details: { reason: code, transactionHash: hash, sender },
    });
  });

  it('has a case above for every class it recognises', () => {
    expect(NODE_REJECTIONS.map((rejection) => rejection.code)).toEqual([
      'nonce_too_low',
      'nonce_too_high',
      'replacement_underpriced',
      'insufficient_funds',
      'gas_limit_rejected',
      'fee_too_low',
      'invalid_signature',
    ]);
  });

  it('keeps only the first line of the node message, without control characters', () => {
    const error = rejectionOf(nodeError('insufficient funds\u0001\u0002\nsecond line'), transaction);
    expect(error.message).toBe('insufficient funds');
  });
});
