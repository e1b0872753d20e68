import type { AuthenticatedAccount } from '../../../operations/request-context';
import type { TransactionsDeps } from '../transactions.deps';
import type { ReleaseReservationsInput } from '../transactions.schema';
import type { ReleasedReservations } from '../transactions.types';
import { releaseUnsentNonces } from './nonce-reservations';

/** A wallet's builds that were never sent: their nonce reservations, released on request. */
export class UnsentBuilds {
  constructor(private readonly deps: Pick<TransactionsDeps, 'chains' | 'prisma' | 'log'>) {}

  /**
   * Frees the nonces of the caller's builds on the chain that were never sent (rule 6 in
   * ./nonce-reservations.ts): the next build uses the chain's next nonce again.
   */
  async release(
    input: ReleaseReservationsInput,
    account: AuthenticatedAccount,
  ): Promise<ReleasedReservations> {
    const chain = this.deps.chains.get(input.chain);
    const released = await releaseUnsentNonces(this.deps.prisma, {
      chainId: chain.chainId,
      sender: account.address,
      from: 0,
    });
    if (released.length > 0) {
      this.deps.log.info({ chain: chain.name, sender: account.address, released }, 'released unsent builds');
    }
    return { chain: chain.name, sender: account.address, released };
  }
}
