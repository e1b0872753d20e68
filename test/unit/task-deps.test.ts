import { combineTaskDeps, type TaskDeps } from '../../src/jobs/tasks';

const handlers = {
  receipts: { trackReceipt: async () => undefined, trackPending: async () => 0 },
  receiptChecks: { checkReceipts: async () => undefined },
  deliveries: { attempt: async () => undefined },
  badgeMetadata: { attempt: async () => undefined },
} satisfies Partial<TaskDeps>;

const housekeeping = (name: string) => ({ pruneExpired: async () => ({ [name]: 1 }) });

describe('combineTaskDeps', () => {
  it("joins the modules' parts and the root's, housekeeping in the order given", () => {
    const auth = housekeeping('challenges');
    const webhooks = housekeeping('events');
    const indexer = housekeeping('unindexable events');
    const tasks = combineTaskDeps([
      { housekeeping: [auth] },
      { receipts: handlers.receipts, receiptChecks: handlers.receiptChecks },
      { deliveries: handlers.deliveries, housekeeping: [webhooks] },
      { badgeMetadata: handlers.badgeMetadata },
      { housekeeping: [indexer] },
    ]);
    expect(tasks).toEqual({ ...handlers, housekeeping: [auth, webhooks, indexer] });
  });

  it('names what no part gives', () => {
    expect(() => combineTaskDeps([{ receipts: handlers.receipts }, { housekeeping: [] }])).toThrow(
      'nothing gives the job tasks their receiptChecks, deliveries, badgeMetadata',
    );
  });
});
