import { Wallet } from 'ethers';
import { appInterface, creditTokenInterface } from '../../src/chain/contracts';
import { revertReason } from '../../src/chain/reverts';

/** A node's revert as ethers reports it: the revert data under `data`. */
const reverted = (data: string) => ({ code: 'CALL_EXCEPTION', data });

describe('revert reasons', () => {
  const wallet = Wallet.createRandom().address;

  it("name a Laurel custom error with its arguments, and Error(string)'s text", () => {
    expect(revertReason(reverted(appInterface.encodeErrorResult('NotOperator', [wallet])))).toBe(
      `NotOperator(${wallet})`,
    );
    expect(revertReason(reverted(appInterface.encodeErrorResult('Error', ['no'])))).toBe('no');
  });

  it("read a batch's BatchCallFailed as the failing item and that call's own revert", () => {
    const inner = creditTokenInterface.encodeErrorResult('ERC20InsufficientBalance', [wallet, 1n, 5n]);
    const batch = appInterface.encodeErrorResult('BatchCallFailed', [3n, inner]);
    expect(revertReason(reverted(batch))).toBe(`item 3: ERC20InsufficientBalance(${wallet}, 1, 5)`);
    expect(revertReason(reverted(appInterface.encodeErrorResult('BatchCallFailed', [0n, '0x'])))).toBe(
      'item 0: execution reverted without a reason (out of gas or an invalid operation)',
    );
  });
});
