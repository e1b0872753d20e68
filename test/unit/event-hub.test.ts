import { EventHub } from '../../src/event-hub';

interface Events {
  restarted: string;
  reorganised: { chain: string; ancestor: number };
}

describe('EventHub', () => {
  it('runs every subscriber of an event with its payload, and none of another event', async () => {
    const hub = new EventHub<Events>();
    const heard: string[] = [];
    hub.on('restarted', (chain) => void heard.push(`first ${chain}`));
    hub.on('restarted', async (chain) => {
      await Promise.resolve();
      heard.push(`second ${chain}`);
    });
    hub.on('reorganised', ({ chain, ancestor }) => void heard.push(`reorganised ${chain} ${ancestor}`));

    await hub.publish('restarted', 'local');
    expect(heard.sort()).toEqual(['first local', 'second local']);
    await hub.publish('reorganised', { chain: 'local', ancestor: 7 });
    expect(heard).toContain('reorganised local 7');
  });

  it('a failing subscriber fails the publish once every other subscriber has run', async () => {
    const hub = new EventHub<Events>();
    const heard: string[] = [];
    hub.on('restarted', async () => {
      throw new Error('reconcile failed');
    });
    hub.on('restarted', async (chain) => {
      await new Promise((resolve) => setImmediate(resolve));
      heard.push(chain);
    });
    await expect(hub.publish('restarted', 'local')).rejects.toThrow('reconcile failed');
    expect(heard).toEqual(['local']);
  });

  it('an unsubscribed handler runs no more; an event nobody hears is published as nothing', async () => {
    const hub = new EventHub<Events>();
    const heard: string[] = [];
    const off = hub.on('restarted', (chain) => void heard.push(chain));
    await hub.publish('restarted', 'a');
    off();
    await hub.publish('restarted', 'b');
    await expect(hub.publish('reorganised', { chain: 'a', ancestor: 1 })).resolves.toBeUndefined();
    expect(heard).toEqual(['a']);
  });
});
