import { Wallet } from 'ethers';
import { Laurel, LaurelError, signIn, type KeyStore } from '../../packages/client/src/index';
import { startTestLaurel, type TestLaurel } from '../helpers/laurel';

let laurel: TestLaurel;
beforeAll(async () => {
  laurel = await startTestLaurel();
});
afterAll(async () => {
  await laurel?.stop();
});

/** A store the test can read: what a caller's file or localStorage would hold. */
function memoryStore(): KeyStore & { keys: Map<string, string> } {
  const keys = new Map<string, string>();
  return { keys, get: (slot) => keys.get(slot), set: (slot, key) => void keys.set(slot, key) };
}

describe('sign-in', () => {
  it('gets a key by signing the challenge, keeps it, and reuses it while Laurel accepts it', async () => {
    const wallet = Wallet.createRandom();
    const store = memoryStore();
    const client = new Laurel({ url: laurel.url });
    const first = await signIn(client, wallet, { store });
    expect(first).toEqual({
      apiKey: expect.stringMatching(/\S{20,}/),
      address: wallet.address,
      reused: false,
    });
    expect(client.apiKey).toBe(first.apiKey);
    expect([...store.keys.values()]).toEqual([first.apiKey]);

    const again = await signIn(new Laurel({ url: laurel.url }), wallet, { store });
    expect(again).toEqual({ ...first, reused: true });
    const keys = await client.call(client.api.GET('/v1/keys'));
    expect(keys.keys).toHaveLength(1);
  });

  it('gets a new key when the kept one was revoked', async () => {
    const wallet = Wallet.createRandom();
    const store = memoryStore();
    const client = new Laurel({ url: laurel.url });
    const first = await signIn(client, wallet, { store });
    const { keys } = await client.call(client.api.GET('/v1/keys'));
    await client.call(client.api.DELETE('/v1/keys/{id}', { params: { path: { id: keys[0]!.id } } }));
    const second = await signIn(client, wallet, { store });
    expect(second.reused).toBe(false);
    expect(second.apiKey).not.toBe(first.apiKey);
  });

  it('asks for a read-only key that expires, and the key list shows both', async () => {
    const wallet = Wallet.createRandom();
    const client = new Laurel({ url: laurel.url });
    await signIn(client, wallet, { scope: 'read', expiresInSeconds: 3600 });
    const { keys } = await client.call(client.api.GET('/v1/keys'));
    expect(keys[0]).toMatchObject({ scope: 'read', expires_at: expect.any(String) });
    const refused = await client
      .call(client.api.POST('/v1/webhook', { body: { url: 'https://example.com/' } }))
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(LaurelError);
    expect((refused as LaurelError).status).toBe(403);
  });

  it('names the request and the documented message when Laurel refuses', async () => {
    const client = new Laurel({ url: laurel.url });
    const refused = await client
      .call(
        client.api.POST('/key/verify', {
          body: { public_address: Wallet.createRandom().address, signature: '0x00' },
        }),
      )
      .then(
        () => null,
        (e: unknown) => e as LaurelError,
      );
    expect(refused).toBeInstanceOf(LaurelError);
    expect(refused?.message).toMatch(/^POST \/key\/verify answered 4\d\d: /);
  });

  it('says when no Laurel answers', async () => {
    const client = new Laurel({ url: 'http://127.0.0.1:9' });
    const refused = await client.call(client.api.GET('/v1/keys')).catch((e: unknown) => e as LaurelError);
    expect(refused).toMatchObject({
      status: 0,
      message: expect.stringMatching(/^no Laurel answers at http:\/\/127\.0\.0\.1:9/),
    });
  });
});
