import { HDNodeWallet } from 'ethers';
import { DEV_CHAIN_DEPLOYER, DEV_CHAIN_EXAMPLES } from '../../src/chain/deploy';
import { ANVIL_MNEMONIC } from '../../src/embedded/anvil';
import {
  LOGS_PAGE_SIZE_DIGITS,
  MAX_LOGS_PAGE_SIZE,
  PAGE_NUMBER_DIGITS,
} from '../../src/modules/webhooks/webhooks.schema';

describe('what the API reference states of inputs', () => {
  it('the logs page patterns accept exactly the bounds (leading zeros read as Number() reads them)', () => {
    for (let n = 0; n <= 1000; n += 1) {
      for (const text of [String(n), `00${n}`]) {
        expect({ text, page: PAGE_NUMBER_DIGITS.test(text) }).toEqual({ text, page: n >= 1 });
        expect({ text, pageSize: LOGS_PAGE_SIZE_DIGITS.test(text) }).toEqual({
          text,
          pageSize: n >= 1 && n <= MAX_LOGS_PAGE_SIZE,
        });
      }
    }
    for (const text of ['', '-1', '1.0', '1e2', ' 1', '١']) {
      expect({
        text,
        page: PAGE_NUMBER_DIGITS.test(text),
        pageSize: LOGS_PAGE_SIZE_DIGITS.test(text),
      }).toEqual({
        text,
        page: false,
        pageSize: false,
      });
    }
  });

  it('the examples name the dev chain: its deployer is the mnemonic’s first account', () => {
    expect(HDNodeWallet.fromPhrase(ANVIL_MNEMONIC, undefined, "m/44'/60'/0'/0/0").address).toBe(
      DEV_CHAIN_DEPLOYER,
    );
    expect(HDNodeWallet.fromPhrase(ANVIL_MNEMONIC, undefined, "m/44'/60'/0'/0/1").address).toBe(
      DEV_CHAIN_EXAMPLES.user,
    );
  });
});
