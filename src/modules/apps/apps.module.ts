import { defineModule } from '../module';
import { AppsResolver } from './apps.resolver';
import { appsRoutes } from './apps.routes';
import { AppsService } from './apps.service';

/** Apps: creation (AppFactory.createApp), listing, and the app lookup other modules use. */
export const appsModule = defineModule({
  name: 'apps',
  service: ({ chains, builder, index }) => new AppsService({ chains, builder, index }),
  resolver: AppsResolver,
  routes: appsRoutes,
});
