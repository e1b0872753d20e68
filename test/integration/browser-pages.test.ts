import { existsSync } from 'node:fs';
import { getBytes, Wallet } from 'ethers';
import { chromium, type Browser, type Page } from 'playwright-core';
import { DEV_CHAIN_EXAMPLES } from '../../src/chain/deploy';
import { issueApiKey } from '../helpers/auth';
import { client, createApp, executeAndWait, type Unsigned } from '../helpers/flow';
import { request, startTestLaurel, type TestLaurel } from '../helpers/laurel';
import { openApiContract } from '../helpers/openapi-contract';

/**
 * The pages people open in a browser, rendered by a real headless Chromium (Debian's `chromium`,
 * or CHROMIUM_PATH): the API reference at /docs and the GraphQL Playground at /graphql. Every
 * file they load comes from Laurel itself (the machine has no internet, and users may not either).
 * Without a Chromium these tests are skipped with a notice, except under CI, which installs it.
 */
const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const haveChromium = existsSync(chromiumPath);
if (!haveChromium && process.env.CI)
  throw new Error(`CI needs Chromium at ${chromiumPath} (apt-get install chromium)`);
if (!haveChromium)
  console.warn(`browser-pages: skipped, no Chromium at ${chromiumPath} (apt-get install chromium)`);
const describeInBrowser = haveChromium ? describe : describe.skip;

/** The flags a root process on a machine without internet needs (see the machine notes in README). */
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

let laurel: TestLaurel;
let browser: Browser;

beforeAll(async () => {
  if (!haveChromium) return;
  laurel = await startTestLaurel({ chain: true });
  browser = await chromium.launch({ executablePath: chromiumPath, args: CHROMIUM_ARGS });
});
afterAll(async () => {
  await browser?.close();
  await laurel?.stop();
});

/** A page that records what it asked for and what went wrong in it; `prepare` runs before it loads. */
async function openPage(
  path: string,
  prepare?: (page: Page) => Promise<void>,
): Promise<{ page: Page; requested: string[]; problems: string[] }> {
  const page = await browser.newPage();
  await prepare?.(page);
  const requested: string[] = [];
  const problems: string[] = [];
  page.on('request', (request) => requested.push(request.url()));
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console error: ${message.text()}`);
  });
  page.on('requestfailed', (request) =>
    problems.push(`failed: ${request.url()} ${request.failure()?.errorText}`),
  );
  page.on('response', async (response) => {
    if (response.status() >= 400)
      problems.push(`${response.status()}: ${response.url()} ${await response.text()}`);
  });
  await page.goto(`${laurel.url}${path}`, { waitUntil: 'load' });
  return { page, requested, problems };
}

function outsideLaurel(urls: string[]): string[] {
  return urls.filter((url) => !url.startsWith(laurel.url) && !url.startsWith('data:'));
}

describeInBrowser('in headless Chromium', () => {
  it('/docs "Try it out" with the pre-filled examples: an explanatory 404 before the dev chain’s first app exists, 200 with it', async () => {
    const wallet = laurel.chain!.wallets[5];
    const apiKey = await issueApiKey(laurel.url, wallet);
    const { page, problems } = await openPage('/docs');
    await page.locator('.opblock').first().waitFor();
    await page.evaluate(`window.ui.preauthorizeApiKey('apiKey', ${JSON.stringify(apiKey)})`);

    // No app yet: the examples name the dev chain's first app, and the answer says it is not there.
    const early = await tryItOut(page, 'leaderboard', 'leaderboard', '/v1/leaderboard');
    expect(early).toEqual({
      status: 404,
      body: { status: 'failed', error: 'App not found', app_id: DEV_CHAIN_EXAMPLES.firstApp, chain: 'local' },
    });

    // The fixture: the first app created on a fresh chain, by the key's wallet.
    expect(await createApp(client(laurel.url, apiKey, wallet), 'Try it out')).toBe(
      DEV_CHAIN_EXAMPLES.firstApp,
    );
    const built = await tryItOut(page, 'rewards', 'rewardXP', '/v1/reward/XP');
    expect(built).toMatchObject({
      status: 200,
      body: { status: 'success', unsignedTransaction: expect.any(Object) },
    });
    await executeAndWait(
      laurel.url,
      (built.body as { unsignedTransaction: Unsigned }).unsignedTransaction,
      wallet,
      apiKey,
    );

    const board = await tryItOut(page, 'leaderboard', 'leaderboard', '/v1/leaderboard');
    expect(board).toEqual({ status: 200, body: [{ user: DEV_CHAIN_EXAMPLES.user, xp_rewarded: '1.5' }] });
    const profile = await tryItOut(page, 'profile', 'profile', '/v1/profile');
    expect(profile).toMatchObject({ status: 200, body: { user_id: wallet.address } });

    // The browser reports the 404 it was shown as a failed load: that one was expected.
    const expected = /^404: |status of 404 \(Not Found\)$/;
    expect(problems.filter((problem) => !expected.test(problem))).toEqual([]);
    await page.close();
  });

  it('/docs renders the API reference from /openapi.json, every operation listed, nothing fetched elsewhere', async () => {
    const { page, requested, problems } = await openPage('/docs');
    await page.locator('.swagger-ui .info .title').filter({ hasText: 'Laurel' }).waitFor();
    await page.locator('.opblock').first().waitFor();
    const paths = await page.locator('.opblock-summary-path').allTextContents();
    const documented = (await (await fetch(`${laurel.url}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, unknown>>;
      webhooks: Record<string, Record<string, unknown>>;
    };
    // Swagger UI lists the webhook calls (transaction, test) among the operations.
    const operations = [documented.paths, documented.webhooks]
      .flatMap((items) => Object.values(items))
      .reduce((n, item) => n + Object.keys(item).length, 0);
    expect(Object.keys(documented.webhooks).sort()).toEqual(['test', 'transaction']);
    expect(paths.length).toBe(operations);
    expect(paths.map((text) => text.replace(/\u200b/g, ''))).toContain('/v1/reward/XP');

    // Open one operation: its request body schema is shown.
    await page.locator('.opblock-summary-path', { hasText: '/v1/reward/XP' }).first().click();
    await page.locator('.opblock-body .model-example, .opblock-body .body-param').first().waitFor();

    expect(problems).toEqual([]);
    expect(outsideLaurel(requested)).toEqual([]);
    await page.close();
  });

  it('/graphql opens the Playground; its example query runs with the X-API-KEY put in its Headers tab', async () => {
    const wallet = laurel.chain!.wallets[6];
    const apiKey = await issueApiKey(laurel.url, wallet);
    const { page, requested, problems } = await openPage('/graphql');
    await page.locator('.graphiql-container').waitFor();

    await page.evaluate('localStorage.clear()');
    // The page opens with the Headers tab showing an empty X-API-KEY; the schema loaded without one.
    await page.getByRole('button', { name: 'Show Documentation Explorer' }).click();
    await page.locator('.graphiql-doc-explorer').filter({ hasText: 'Mutation' }).waitFor();
    await setEditorText(
      page,
      '.graphiql-editor-tool .graphiql-editor:not(.hidden)',
      JSON.stringify({ 'X-API-KEY': apiKey }),
    );
    const answer = page.waitForResponse(
      (response) =>
        response.url() === `${laurel.url}/graphql` &&
        !!response.request().postData()?.includes('ProfileAndLeaderboard'),
    );
    await page.locator('.graphiql-execute-button').click();
    const response = await answer;
    // The example query it opens with (a profile and a leaderboard in one request) runs as it is.
    expect({ status: response.status(), body: await response.json() }).toEqual({
      status: 200,
      body: {
        data: {
          profile: expect.objectContaining({ user_id: wallet.address }),
          leaderboard: expect.any(Array),
        },
      },
    });
    const result = page.locator('.result-window');
    await result.filter({ hasText: wallet.address }).waitFor();
    expect(await result.textContent()).toContain('"leaderboard": [');

    expect(problems).toEqual([]);
    expect(outsideLaurel(requested)).toEqual([]);
    await page.close();
  });

  it('the Playground runs a subscription over WebSocket with the same X-API-KEY: the profile now, then after a reward', async () => {
    const wallet = laurel.chain!.wallets[7];
    const apiKey = await issueApiKey(laurel.url, wallet);
    const api = client(laurel.url, apiKey, wallet);
    const appId = await createApp(api, 'Playground live');
    const user = Wallet.createRandom().address;
    const { page, requested, problems } = await openPage('/graphql');
    await page.locator('.graphiql-container').waitFor();
    await page.evaluate('localStorage.clear()');
    await setEditorText(
      page,
      '.graphiql-editor-tool .graphiql-editor:not(.hidden)',
      JSON.stringify({ 'X-API-KEY': apiKey }),
    );
    const subscription = `subscription Live { profileChanged(chain: "local", user_id: "${user}") { xp_balance } }`;
    await setEditorText(page, '.graphiql-query-editor', subscription);
    // GraphiQL takes in an edit (its operation name too) a moment later, when it also stores the query.
    await page.waitForFunction(`localStorage.getItem('graphiql:query') === ${JSON.stringify(subscription)}`);
    await page.locator('.graphiql-execute-button').click();
    const result = page.locator('.result-window');
    await result.filter({ hasText: '"xp_balance": "0"' }).waitFor();

    const built = await api.post('/reward/XP', {
      chain: 'local',
      app_id: appId,
      receiver: user,
      amount: 2,
      action_id: 'live',
    });
    await api.execute(built.body.unsignedTransaction as Unsigned);
    await result.filter({ hasText: '"xp_balance": "2"' }).waitFor();

    expect(problems).toEqual([]);
    expect(outsideLaurel(requested)).toEqual([]);
    await page.close();
  });
});

describeInBrowser('"Sign in with a wallet" in headless Chromium', () => {
  it('the Playground: the new read-only key goes into its Headers editor, and a query that needs a key runs', async () => {
    const wallet = laurel.chain!.wallets[8];
    const { page, requested, problems } = await openPage('/graphql', (page) => injectWallet(page, wallet));
    await page.locator('.graphiql-container').waitFor();
    await page.getByRole('button', { name: 'Sign in with a wallet' }).click();
    await page
      .locator(SIGN_IN_STATUS)
      .filter({ hasText: `Signed in as ${wallet.address}: a read-only key` })
      .waitFor();
    const headers = JSON.parse(await editorText(page, HEADERS_EDITOR)) as Record<string, string>;
    expect(headers).toEqual({ 'X-API-KEY': expect.stringMatching(/^laurel_/) });
    const apiKey = headers['X-API-KEY'];

    const query = '{ apiKeys { prefix scope expires_at } }';
    await setEditorText(page, '.graphiql-query-editor', query);
    await page.waitForFunction(`localStorage.getItem('graphiql:query') === ${JSON.stringify(query)}`);
    const answer = page.waitForResponse(
      (response) =>
        response.url() === `${laurel.url}/graphql` && !!response.request().postData()?.includes('apiKeys'),
    );
    await page.locator('.graphiql-execute-button').click();
    const response = await answer;
    expect(response.request().headers()['x-api-key']).toBe(apiKey);
    const body = (await response.json()) as {
      data: { apiKeys: { prefix: string; scope: string; expires_at: string }[] };
    };
    expect(body).toEqual({ data: { apiKeys: [expect.objectContaining({ scope: 'read' })] } });
    await page.locator('.result-window').filter({ hasText: '"scope": "read"' }).waitFor();

    // Laurel's list of the wallet's keys (read with a key of its own) has it: read-only, for a day.
    const listed = await keysOfWallet(wallet);
    const made = listed.find((key) => apiKey.startsWith(key.prefix));
    expect(made).toMatchObject({ scope: 'read', revoked_at: null });
    const hours = (Date.parse(made!.expires_at!) - Date.now()) / 3_600_000;
    expect(hours).toBeGreaterThan(23);
    expect(hours).toBeLessThanOrEqual(24);

    expect(problems).toEqual([]);
    expect(outsideLaurel(requested)).toEqual([]);
    await page.close();
  });

  it('the landing page: a full key shown once, copied, and handed to the Playground it links to', async () => {
    const wallet = laurel.chain!.wallets[9];
    const { page, requested, problems } = await openPage('/', (page) => injectWallet(page, wallet));
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: laurel.url });
    await page.getByLabel('Key scope').selectOption('full');
    await page.getByRole('button', { name: 'Sign in with a wallet' }).click();
    const shown = page.locator('#laurel-key-value');
    await shown.waitFor();
    const apiKey = (await shown.textContent()) ?? '';
    expect(apiKey).toMatch(/^laurel_/);
    await page.getByRole('button', { name: 'Copy' }).click();
    await page.getByRole('button', { name: 'Copied' }).waitFor();
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(apiKey);
    const listed = await keysOfWallet(wallet);
    expect(listed.find((key) => apiKey.startsWith(key.prefix))).toMatchObject({
      scope: 'full',
      revoked_at: null,
    });

    await page.getByRole('link', { name: 'Open the GraphQL Playground with this key' }).click();
    await page.locator('.graphiql-container').waitFor();
    // GraphiQL makes its editors a moment after the page loads; the key goes in once they exist.
    await page.waitForFunction(
      ([selector, key]) => {
        const { document } = globalThis as unknown as { document: { querySelector(s: string): unknown } };
        const element = document.querySelector(selector) as { CodeMirror?: { getValue(): string } } | null;
        return element?.CodeMirror?.getValue().includes(key) ?? false;
      },
      [`${HEADERS_EDITOR} .CodeMirror`, apiKey] as const,
    );
    expect(JSON.parse(await editorText(page, HEADERS_EDITOR))).toEqual({ 'X-API-KEY': apiKey });

    expect(problems).toEqual([]);
    expect(outsideLaurel(requested)).toEqual([]);
    await page.close();
  });

  it('without a wallet the page says how to get one, or a key by other means', async () => {
    const { page, problems } = await openPage('/graphql');
    await page.getByRole('button', { name: 'Sign in with a wallet' }).click();
    const status = page.locator(SIGN_IN_STATUS);
    await status.filter({ hasText: 'No wallet in this browser' }).waitFor();
    expect(await status.textContent()).toMatch(
      /MetaMask.*`laurel key`.*POST \/key\/challenge then POST \/key\/verify/,
    );
    expect(problems).toEqual([]);
    await page.close();
  });
});

/** The Playground's Headers editor (the tab it opens with). */
const HEADERS_EDITOR = '.graphiql-editor-tool .graphiql-editor:not(.hidden)';
/** Where "Sign in with a wallet" says what happened. */
const SIGN_IN_STATUS = '#laurel-sign-in-status';

/**
 * An EIP-1193 wallet in the page (`window.ethereum`, before any script of the page runs), backed by
 * `wallet` in this process: the page's requests come here (page.exposeFunction), where ethers signs.
 */
async function injectWallet(page: Page, wallet: Wallet): Promise<void> {
  await page.exposeFunction('laurelTestWallet', async (method: string, params: unknown[]) => {
    switch (method) {
      case 'eth_requestAccounts':
      case 'eth_accounts':
        return [wallet.address];
      case 'personal_sign': {
        const [message, from] = params as [string, string];
        if (from.toLowerCase() !== wallet.address.toLowerCase()) throw new Error(`unknown account ${from}`);
        return wallet.signMessage(getBytes(message));
      }
      default:
        throw new Error(`the test wallet does not do ${method}`);
    }
  });
  await page.addInitScript(() => {
    const page = globalThis as unknown as {
      laurelTestWallet(method: string, params: unknown[]): Promise<unknown>;
      ethereum: unknown;
    };
    page.ethereum = {
      request: ({ method, params }: { method: string; params?: unknown[] }) =>
        page.laurelTestWallet(method, params ?? []),
    };
  });
}

/** The wallet's keys as Laurel lists them, read with a key of its own. */
async function keysOfWallet(wallet: Wallet) {
  const apiKey = await issueApiKey(laurel.url, wallet, { scope: 'read', expires_in_seconds: 60 });
  const listed = await request<{
    keys: { prefix: string; scope: string; revoked_at: string | null; expires_at: string | null }[];
  }>(laurel.url, 'GET', '/v1/keys', { apiKey });
  return listed.body.keys;
}

/** The text of one of GraphiQL's editors. */
async function editorText(page: Page, container: string): Promise<string> {
  return page
    .locator(`${container} .CodeMirror`)
    .evaluate((element) =>
      (element as unknown as { CodeMirror: { getValue(): string } }).CodeMirror.getValue(),
    );
}

/**
 * Swagger UI's "Try it out" of one operation, as a person does it: open it, Try it out, Execute,
 * with the values it pre-fills. Returns what the API answered (checked against openapi.json).
 */
async function tryItOut(
  page: Page,
  tag: string,
  operationId: string,
  path: string,
): Promise<{ status: number; body: Record<string, unknown> | unknown[] }> {
  const operation = page.locator(`#operations-${tag}-${operationId}`);
  if (!(await operation.locator('.try-out').isVisible())) await operation.locator('.opblock-summary').click();
  const tryOut = operation.locator('.try-out__btn');
  if ((await tryOut.textContent())?.includes('Try it out')) await tryOut.click();
  const answer = page.waitForResponse((response) => new URL(response.url()).pathname === path);
  await operation.locator('.execute').click();
  const response = await answer;
  const result = { status: response.status(), body: (await response.json()) as Record<string, unknown> };
  openApiContract().check({
    method: response.request().method(),
    url: response.url(),
    headers: new Headers(await response.allHeaders()),
    ...result,
  });
  return result;
}

/** Replaces the text of one of GraphiQL's editors (CodeMirror 5, which hangs itself on its element). */
async function setEditorText(page: Page, container: string, text: string): Promise<void> {
  const editor = page.locator(`${container} .CodeMirror`);
  await editor.waitFor();
  await editor.evaluate((element, value) => {
    (element as unknown as { CodeMirror: { setValue(text: string): void } }).CodeMirror.setValue(value);
  }, text);
}
