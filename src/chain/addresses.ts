import { getAddress } from 'ethers';
import { LRUCache } from 'lru-cache';

/** Addresses whose checksummed form is remembered (the busiest ones; least recently used first out). */
const CHECKSUMS_REMEMBERED = 10_000;
const checksums = new LRUCache<string, string>({ max: CHECKSUMS_REMEMBERED });

/**
 * ethers' `getAddress` (the EIP-55 checksummed form; throws on an invalid address), remembered per
 * input: the same wallets, apps and tokens come back on every request, and each checksum costs a
 * keccak-256.
 */
export function checksumAddress(address: string): string {
  let checksummed = checksums.get(address);
  if (checksummed === undefined) {
    checksummed = getAddress(address);
    checksums.set(address, checksummed);
  }
  return checksummed;
}
