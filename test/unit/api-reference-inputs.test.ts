import { HDNodeWallet } from 'ethers';
import { DEV_CHAIN_DEPLOYER, DEV_CHAIN_EXAMPLES } from '../../src/chain/deploy';
import { ANVIL_MNEMONIC } from '../../src/embedded/anvil';
import {
  MAX_PAGE_NUMBER,
  MAX_PAGE_SIZE,
  PAGE_NUMBER_DIGITS,
  PAGE_SIZE_DIGITS as LOGS_PAGE_SIZE_DIGITS,
} from '../../src/validation';

const MAX_LOGS_PAGE_SIZE = MAX_PAGE_SIZE;

describe('what the API reference states of inputs', () => {
  it('the page patterns accept exactly the bounds (leading zeros read as Number() reads them)', () => {
    for (let n = MAX_PAGE_NUMBER - 1000; n <= MAX_PAGE_NUMBER + 1000; n += 1) {
      for (const text of [String(n), `00${n}`]) {
        expect({ text, page: PAGE_NUMBER_DIGITS.test(text) }).toEqual({ text, page: n <= MAX_PAGE_NUMBER });
      }
    }
    expect(PAGE_NUMBER_DIGITS.test('99999999999999999999')).toBe(false);
    for (let n = 0; n <= 1000; n += 1) {
      for (const text of [String(n), `00${n}`]) {
        expect({ text, page: PAGE_NUMBER_DIGITS.test(text) }).toEqual({
          text,
          page: n >= 1 && n <= MAX_PAGE_NUMBER,
        });
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
