import { Lifecycle } from '../../src/server/lifecycle';
import { loggerInto } from '../helpers/logs';

afterEach(() => {
  jest.useRealTimers();
});

it('stops in reverse order and logs the steps that took a second or more', async () => {
  jest.useFakeTimers();
  const lines: string[] = [];
  const lifecycle = new Lifecycle(loggerInto('info', lines), { graceMs: 10_000, answerMarginMs: 1_000 });
  const order: string[] = [];
  lifecycle.onStop('pools', async () => void order.push('pools'));
  // A worker waiting for a job whose node call hangs, as a deploy right after a paused node meets.
  lifecycle.onStop('worker', async () => {
    order.push('worker');
    await new Promise((resolve) => setTimeout(resolve, 7_500));
  });
  lifecycle.onStop('http', async () => {
    order.push('http');
    await new Promise((resolve) => setTimeout(resolve, 400));
  });
  const stopped = lifecycle.stop();
  await jest.advanceTimersByTimeAsync(8_000);
  await stopped;
  expect(order).toEqual(['http', 'worker', 'pools']);
  const logged = lines.map((line) => JSON.parse(line) as { msg: string; steps?: unknown });
  expect(logged).toEqual([
    expect.objectContaining({ msg: 'stop: steps that took a second or more', steps: { worker: 7.5 } }),
  ]);
});

it('logs nothing of a quick stop', async () => {
  const lines: string[] = [];
  const lifecycle = new Lifecycle(loggerInto('info', lines), { graceMs: 10_000, answerMarginMs: 1_000 });
  lifecycle.onStop('pools', async () => undefined);
  await lifecycle.stop();
  expect(lines).toEqual([]);
});
