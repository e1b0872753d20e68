import type { TaskList } from 'graphile-worker';
import { jobs, type LaurelTask, type TaskDeps } from '../jobs';
import { pruneTask } from './maintenance__prune';
import { trackReceiptTask } from './transactions__track_receipt';

/** Every task Laurel runs: one file per task, named after its job (`<table>__<action>`). */
const tasks: readonly LaurelTask[] = [pruneTask, trackReceiptTask];

/**
 * graphile-worker's task list, each handler built once from `deps`. Jobs are enqueued in the same
 * database transaction as the change that causes them (see enqueueJob in ../queue.ts).
 */
export function createTaskList(deps: TaskDeps): TaskList {
  return Object.fromEntries(tasks.map((task) => [task.name, task.create(deps)]));
}

/** Recurring tasks, in graphile-worker crontab syntax. */
export const crontab = [`*/10 * * * * ${jobs.prune.name} ?max=1`].join('\n');
