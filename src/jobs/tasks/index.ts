import type { TaskList } from 'graphile-worker';
import type { Services } from '../../modules';
import { maintenance__prune } from './maintenance__prune';
import { createTrackReceiptTask } from './transactions__track_receipt';
import { createDeliverWebhookTask } from './webhook_deliveries__deliver';
import { createRecoverDeliveriesTask, RECOVER_DELIVERIES_TASK } from './webhook_deliveries__recover';

/**
 * Every job Laurel runs: one file per task, named `<table>__<action>`, given the services it
 * needs. Jobs are enqueued in the same database transaction as the change that causes them (see
 * enqueueJob in ../queue.ts).
 */
export function createTaskList(services: Services): TaskList {
  return {
    maintenance__prune,
    transactions__track_receipt: createTrackReceiptTask(services),
    webhook_deliveries__deliver: createDeliverWebhookTask(services.webhooks.deliverer),
    [RECOVER_DELIVERIES_TASK]: createRecoverDeliveriesTask(services.config.webhooks.deliveryLeaseSeconds),
  };
}

/** Recurring tasks, in graphile-worker crontab syntax. */
export const crontab = [
  '*/10 * * * * maintenance__prune ?max=1',
  `* * * * * ${RECOVER_DELIVERIES_TASK} ?max=1`,
].join('\n');
