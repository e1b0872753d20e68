import type { Chain } from '../chain/registry';
import type { Pool } from 'pg';

/**
 * Facts of the index that never change once written (an app's XP token, a token's decimals), read
 * once and kept in memory, so reads do not look them up on every request. Only found rows are
 * kept: an app the indexer has not reached yet is looked up again next time.
 */
export class IndexDirectory {
  private readonly xpTokens = new Map<string, string>();
  private readonly decimals = new Map<string, number>();

  constructor(private readonly pool: Pool) {}

  /** The XP token of an indexed app; null when the index does not know the app. */
  async xpTokenOf(chain: Chain, app: string): Promise<string | null> {
    const key = `${chain.chainId}:${app}`;
    const known = this.xpTokens.get(key);
    if (known) return known;
    const { rows } = await this.pool.query<{ xp_token: string }>(
      'SELECT xp_token FROM indexed_apps WHERE chain_id = $1 AND address = $2',
      [chain.chainId, app],
    );
    if (rows.length === 0) return null;
    this.xpTokens.set(key, rows[0].xp_token);
    return rows[0].xp_token;
  }

  /** Decimals of an indexed ERC-20 (0 for a badge); null for a token the index does not know. */
  async decimalsOf(chain: Chain, token: string): Promise<number | null> {
    const key = `${chain.chainId}:${token}`;
    const known = this.decimals.get(key);
    if (known !== undefined) return known;
    const { rows } = await this.pool.query<{ decimals: number }>(
      `SELECT decimals FROM indexed_tokens WHERE chain_id = $1 AND address = $2
       UNION ALL SELECT 0 FROM indexed_badges WHERE chain_id = $1 AND address = $2`,
      [chain.chainId, token],
    );
    if (rows.length === 0) return null;
    this.decimals.set(key, rows[0].decimals);
    return rows[0].decimals;
  }
}
