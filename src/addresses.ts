import { getAddress } from 'ethers';
import { remembered } from './cache-on-success';

/**
 * ethers' `getAddress` (the EIP-55 checksummed form; throws on an invalid address), remembered for
 * the 10,000 busiest inputs: the same wallets, apps and tokens come back on every request, and each
 * checksum costs a keccak-256.
 */
export const checksumAddress: (address: string) => string = remembered(getAddress, 10_000);
