import { defineModule } from '../module';
import { ChainsResolver } from './chains.resolver';
import { chainsRoutes } from './chains.routes';

/** The chains this service serves (the chain registry itself is the chain layer, src/chain). */
export const chainsModule = defineModule({
  name: 'chains',
  service: ({ chains }) => chains,
  resolver: ChainsResolver,
  routes: chainsRoutes,
});
