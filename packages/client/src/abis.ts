/** Laurel's contract ABIs (a copy of the server's, written by `npm run contracts:build` and drift-tested). */
import {
  AppAbi,
  AppFactoryAbi,
  BadgeAbi,
  CreditTokenAbi,
  CreditTokenDeployerAbi,
  XPTokenAbi,
} from './generated/abis.js';

export const laurelAbis = {
  AppFactory: AppFactoryAbi,
  App: AppAbi,
  XPToken: XPTokenAbi,
  CreditToken: CreditTokenAbi,
  CreditTokenDeployer: CreditTokenDeployerAbi,
  Badge: BadgeAbi,
} as const;

export type LaurelContractName = keyof typeof laurelAbis;
