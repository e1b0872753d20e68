import type { TaskList } from 'graphile-worker';
import { jobs, type LaurelTask } from '../jobs';
import { fetchBadgeMetadataTask, type BadgeMetadataAttempts } from './badge_metadata__fetch';
import { pruneTask, type Housekeeping } from './maintenance__prune';
import { checkReceiptsTask, type ReceiptChecks } from './transactions__check_receipts';
import { trackPendingTask } from './transactions__track_pending';
import { trackReceiptTask, type ReceiptTracking } from './transactions__track_receipt';
import { deliverWebhookTask, type DeliveryAttempts } from './webhook_deliveries__deliver';
import { recoverDeliveriesTask } from './webhook_deliveries__recover';

export type { BadgeMetadataAttempts, DeliveryAttempts, Housekeeping, ReceiptChecks, ReceiptTracking };
export type { ReceiptJob, ReceiptJobAttempt } from './transactions__track_receipt';

/**
 * What the tasks are built from: the module methods they call, each declared by its task. Each
 * module gives its part (src/modules/module.ts, `tasks`); combineTaskDeps puts them together.
 */
export interface TaskDeps {
  receipts: ReceiptTracking;
  receiptChecks: ReceiptChecks;
  deliveries: DeliveryAttempts;
  badgeMetadata: BadgeMetadataAttempts;
  housekeeping: readonly Housekeeping[];
}

/** The parts of TaskDeps that someone must give (housekeeping may be empty). */
const REQUIRED: readonly (keyof TaskDeps)[] = ['receipts', 'receiptChecks', 'deliveries', 'badgeMetadata'];

/** TaskDeps from the parts given (the modules', the composition root's): housekeeping lists are joined. */
export function combineTaskDeps(parts: readonly Partial<TaskDeps>[]): TaskDeps {
  const combined: Partial<TaskDeps> = {};
  const housekeeping: Housekeeping[] = [];
  for (const { housekeeping: more = [], ...part } of parts) {
    Object.assign(combined, part);
    housekeeping.push(...more);
  }
  const missing = REQUIRED.filter((key) => combined[key] === undefined);
  if (missing.length > 0) throw new Error(`nothing gives the job tasks their ${missing.join(', ')}`);
  return { ...(combined as TaskDeps), housekeeping };
}

/**
 * Every task, one file each, named after its job (`<table>__<action>`). Jobs are enqueued in the
 * same database transaction as the change that causes them (enqueueJob in ../queue.ts, or the SQL
 * functions of the migrations).
 */
const tasks: readonly LaurelTask<TaskDeps>[] = [
  pruneTask,
  trackReceiptTask,
  trackPendingTask,
  checkReceiptsTask,
  deliverWebhookTask,
  recoverDeliveriesTask,
  fetchBadgeMetadataTask,
];

/** graphile-worker's task list, each handler built once from `deps`. */
export function createTaskList(deps: TaskDeps): TaskList {
  return Object.fromEntries(tasks.map((task) => [task.name, task.create(deps)]));
}

/** The name of every task (the metrics report each one's queue, empty or not). */
export function taskNames(): string[] {
  return tasks.map((task) => task.name);
}

/** Recurring tasks, in graphile-worker crontab syntax. */
export const crontab = [
  `*/10 * * * * ${jobs.prune.name} ?max=1`,
  `* * * * * ${jobs.recoverDeliveries.name} ?max=1`,
  `* * * * * ${jobs.trackPending.name} ?max=1`,
].join('\n');
