import { formatBaseUnits } from '../../chain/amounts';
import type { Chain, ChainRegistry } from '../../chain/registry';
import type { PrismaClient } from '../../db/prisma';
import { Prisma } from '../../generated/prisma/client';
import { AppNotFoundError } from '../apps/apps.service';
import type { ProfileInput } from './profile.schema';

const XP_DECIMALS = 18;

export interface CollectedBadge {
  id: string;
  name: string;
  metadataURI: string | null;
  metadata: null;
}

export interface CompletedActionEntry {
  name: string;
  /** XP rewarded by the action, in formatted units ("0" for a badge, credit or point reward). */
  xp_rewarded: string;
  /** Block time, seconds since the epoch, as a decimal string. */
  createdAt: string;
}

export interface CreditBalanceEntry {
  token_id: string;
  token_name: string;
  token_balance: string;
  token_balance_formatted: string;
  token_symbol: string;
  token_decimals: number;
}

export interface UserProfile {
  user_id: string;
  /** XP in formatted units (18 decimals), as a decimal string. */
  xp_balance: string;
  collected_badges: CollectedBadge[];
  completed_actions: CompletedActionEntry[];
  /** Only with an app: its credit and point tokens. */
  credit_balances?: CreditBalanceEntry[];
}

export interface ProfileServiceDeps {
  prisma: PrismaClient;
  chains: ChainRegistry;
}

/**
 * Profiles from the index: a user's XP balance, badges, completed actions and (for one app) credit
 * and point balances. Built for many users at once (four queries whatever their number), so a list
 * of profiles (GraphQL's leaderboard entries) costs the same as one.
 */
export class ProfileService {
  constructor(private readonly deps: ProfileServiceDeps) {}

  async profile(input: ProfileInput, caller: string): Promise<UserProfile> {
    const chain = this.deps.chains.get(input.chain);
    if (input.app_id) await this.requireApp(chain, input.app_id);
    const [profile] = await this.profiles(chain, input.app_id, [input.user_id ?? caller]);
    return profile;
  }

  /** 404 `App not found` unless the index knows the app. */
  async requireApp(chain: Chain, appId: string): Promise<void> {
    const apps = await this.deps.prisma.$queryRaw<unknown[]>`
      SELECT 1 FROM indexed_apps WHERE chain_id = ${chain.chainId} AND address = ${appId}`;
    if (apps.length === 0) throw new AppNotFoundError();
  }

  /** The profiles of `users` (checksummed), in that order; of one app when `appId` is given. */
  async profiles(chain: Chain, appId: string | undefined, users: readonly string[]): Promise<UserProfile[]> {
    const { prisma } = this.deps;
    const chainId = chain.chainId;
    const ofApp = (column: Prisma.Sql) => (appId ? Prisma.sql`AND ${column} = ${appId}` : Prisma.empty);
    const userList = [...users];
    const [xp, badges, actions, credits] = await Promise.all([
      prisma.$queryRaw<{ holder: string; balance: string }[]>`
        SELECT b.holder, sum(b.balance)::text AS balance
        FROM token_balances b
        JOIN indexed_tokens t ON t.chain_id = b.chain_id AND t.address = b.token_address AND t.kind = 'xp'
        WHERE b.chain_id = ${chainId} AND b.holder = ANY(${userList}) ${ofApp(Prisma.sql`t.app_address`)}
        GROUP BY b.holder`,
      prisma.$queryRaw<{ holder: string; address: string; name: string; base_uri: string }[]>`
        SELECT h.holder, g.address, g.name, g.base_uri
        FROM badge_holdings h
        JOIN indexed_badges g ON g.chain_id = h.chain_id AND g.address = h.badge_address
        WHERE h.chain_id = ${chainId} AND h.holder = ANY(${userList}) AND h.count > 0
          ${ofApp(Prisma.sql`g.app_address`)}
        ORDER BY g.block_number, g.address`,
      prisma.$queryRaw<
        { user_address: string; action_name: string; kind: string; amount: string; at: string }[]
      >`
        SELECT user_address, action_name, kind::text, amount::text, extract(epoch FROM block_time)::bigint::text AS at
        FROM completed_actions
        WHERE chain_id = ${chainId} AND user_address = ANY(${userList}) ${ofApp(Prisma.sql`app_address`)}
        ORDER BY block_number DESC, log_index DESC`,
      appId
        ? prisma.$queryRaw<
            {
              address: string;
              name: string;
              symbol: string;
              decimals: number;
              holder: string | null;
              balance: string | null;
            }[]
          >`
            SELECT t.address, t.name, t.symbol, t.decimals, b.holder, b.balance::text AS balance
            FROM indexed_tokens t
            LEFT JOIN token_balances b
              ON b.chain_id = t.chain_id AND b.token_address = t.address AND b.holder = ANY(${userList})
            WHERE t.chain_id = ${chainId} AND t.app_address = ${appId} AND t.kind <> 'xp'
            ORDER BY t.kind, t.name, t.address`
        : Promise.resolve([]),
    ]);

    const xpOf = new Map(xp.map((row) => [row.holder, BigInt(row.balance)]));
    const badgesOf = groupBy(badges, (row) => row.holder);
    const actionsOf = groupBy(actions, (row) => row.user_address);
    return users.map((user) => {
      const profile: UserProfile = {
        user_id: user,
        xp_balance: formatBaseUnits(xpOf.get(user) ?? 0n, XP_DECIMALS),
        collected_badges: (badgesOf.get(user) ?? []).map((row) => ({
          id: row.address,
          name: row.name,
          metadataURI: row.base_uri || null,
          metadata: null,
        })),
        completed_actions: (actionsOf.get(user) ?? []).map((row) => ({
          name: row.action_name,
          xp_rewarded: row.kind === 'xp' ? formatBaseUnits(BigInt(row.amount), XP_DECIMALS) : '0',
          createdAt: row.at,
        })),
      };
      if (appId) profile.credit_balances = creditBalancesOf(credits, user);
      return profile;
    });
  }
}

function groupBy<T>(rows: readonly T[], keyOf: (row: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const row of rows) {
    const key = keyOf(row);
    const group = groups.get(key);
    if (group) group.push(row);
    else groups.set(key, [row]);
  }
  return groups;
}

/** One entry per credit/point token of the app, 0 where the user holds none. */
function creditBalancesOf(
  rows: {
    address: string;
    name: string;
    symbol: string;
    decimals: number;
    holder: string | null;
    balance: string | null;
  }[],
  user: string,
): CreditBalanceEntry[] {
  const tokens = new Map<string, CreditBalanceEntry>();
  for (const row of rows) {
    const held = row.holder === user ? BigInt(row.balance ?? '0') : 0n;
    const known = tokens.get(row.address);
    if (known && held === 0n) continue;
    tokens.set(row.address, {
      token_id: row.address,
      token_name: row.name,
      token_balance: held.toString(),
      token_balance_formatted: formatBaseUnits(held, row.decimals),
      token_symbol: row.symbol,
      token_decimals: row.decimals,
    });
  }
  return [...tokens.values()];
}
