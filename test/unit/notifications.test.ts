import net from 'node:net';
import { NotificationSession } from '../../src/db/notifications';
import { createLogger } from '../../src/logger';
import { waitUntil } from '../helpers/wait';

describe('NotificationSession', () => {
  it('stops while its connection is still being opened, and closes that connection', async () => {
    // Takes connections and never answers: the session's connection stays in the opening.
    const sockets: net.Socket[] = [];
    const server = net.createServer((socket) => {
      sockets.push(socket);
      socket.resume(); // reads (and drops) what comes, so that the client's close is seen
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as net.AddressInfo;
    try {
      const session = new NotificationSession(
        `postgresql://laurel:secret@127.0.0.1:${port}/laurel`,
        createLogger('silent'),
      );
      session.on('index_changed', { notified: () => undefined, missed: () => undefined });
      const listened = session.listen();
      await waitUntil('the session to open its connection', () => sockets.length > 0);

      await session.stop();
      await listened;
      expect(session.listening).toBe(false);
      await waitUntil('its connection to be closed', () => sockets[0]!.closed);
      expect(sockets).toHaveLength(1);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
