import { HDNodeWallet } from 'ethers';
import { ensureLaurelDeployed } from '../chain/deploy';
import type { ChainEventHub } from '../chain/chain-events';
import { ChainRegistry, LOCAL_EXPLORER_URL, type Chain } from '../chain/registry';
import { wantsLocalChain, type Config } from '../config';
import { ANVIL_MNEMONIC, startAnvil } from '../embedded/anvil';
import type { SupervisorReport } from '../embedded/supervisor';
import type { Logger } from '../logger';
import type { LaurelMetrics } from '../metrics';
import { anvilStateFile } from './infrastructure';
import type { Lifecycle } from './lifecycle';

/**
 * The chains served: the configured ones, and the embedded `local` anvil (with Laurel deployed on
 * it) when no chain is configured or LOCAL_CHAIN=on. Once a crashed anvil is back and Laurel's
 * contracts are there again, `chainRestarted` is published on `events`.
 */
export async function startChains(
  config: Config,
  lifecycle: Lifecycle,
  log: Logger,
  metrics: LaurelMetrics | null,
  report: SupervisorReport,
  progress: (line: string) => void,
  events: ChainEventHub,
): Promise<ChainRegistry> {
  const chains = new ChainRegistry(config.chains, config.rpcTimeoutMs, { log, metrics });
  lifecycle.onStop('chain providers', async () => chains.destroy());
  if (wantsLocalChain(config)) {
    const deployerOn = (chain: Chain) =>
      HDNodeWallet.fromPhrase(ANVIL_MNEMONIC, undefined, "m/44'/60'/0'/0/0").connect(chain.provider);
    const anvil = await startAnvil({
      stateFile: anvilStateFile(config),
      saveIntervalMs: config.localChainSaveIntervalMs,
      log: (line) => log.debug({ anvil: line }),
      supervise: true,
      report,
      // A restarted anvil reloads its state file; Laurel's contracts are redeployed if it lacked them.
      onRestart: async () => {
        const local = chains.get('local');
        await ensureLaurelDeployed(local.provider, deployerOn(local));
        await events.publish('chainRestarted', local);
      },
    });
    lifecycle.onStop('anvil', () => anvil.stop());
    const local = chains.add({
      name: 'local',
      chainId: anvil.chainId,
      rpcUrl: anvil.rpcUrl,
      explorerUrl: LOCAL_EXPLORER_URL,
      factoryAddress: '0x0000000000000000000000000000000000000000',
      confirmations: 1,
    });
    const { factory } = await ensureLaurelDeployed(local.provider, deployerOn(local));
    local.factoryAddress = factory;
    progress(`chain       local (chain id ${anvil.chainId}) anvil on ${anvil.rpcUrl}, factory ${factory}`);
  }
  for (const { name, chainId } of config.chains) {
    // Hosts only: paths and queries often carry API keys.
    const hosts = chains
      .get(name)
      .provider.pool.endpoints.map((endpoint) => `${endpoint.name} ${endpoint.host}`);
    progress(`chain       ${name} (chain id ${chainId}) ${hosts.join(', ')}`);
  }
  return chains;
}
