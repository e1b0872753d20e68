import { keccak256 } from 'ethers';
import { createKeccak } from 'hash-wasm';

let installed: Promise<void> | undefined;

/**
 * Makes every keccak256 of ethers (transaction hashes, the signer's address, address checksums,
 * event topics) run hash-wasm's WebAssembly keccak instead of ethers' JavaScript one
 * (@noble/hashes). A send hashes its whole signed transaction several times, and a batch's runs
 * to kilobytes; each receipt log's address is checksummed. `npm run bench:flow` (batch mode)
 * measures the difference; the digests are the same (test/unit/keccak.test.ts). Idempotent; the
 * process-wide registration is what ethers offers for this (`keccak256.register`).
 */
export function installWasmKeccak(): Promise<void> {
  installed ??= createKeccak(256).then((hasher) => {
    keccak256.register((data: Uint8Array): Uint8Array => {
      // Synchronous from init to digest: no other call can interleave on the one hasher.
      hasher.init();
      hasher.update(data);
      return hasher.digest('binary');
    });
  });
  return installed;
}
