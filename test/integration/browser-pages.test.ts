import { existsSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';
import { issueApiKey } from '../helpers/auth';
import { startTestLaurel, type TestLaurel } from '../helpers/laurel';

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

/** A page that records what it asked for and what went wrong in it. */
async function openPage(path: string): Promise<{ page: Page; requested: string[]; problems: string[] }> {
  const page = await browser.newPage();
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
  it('/docs renders the API reference from /openapi.json, every operation listed, nothing fetched elsewhere', async () => {
    const { page, requested, problems } = await openPage('/docs');
    await page.locator('.swagger-ui .info .title').filter({ hasText: 'Laurel' }).waitFor();
    await page.locator('.opblock').first().waitFor();
    const paths = await page.locator('.opblock-summary-path').allTextContents();
    const documented = (await (await fetch(`${laurel.url}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    const operations = Object.values(documented.paths).reduce((n, item) => n + Object.keys(item).length, 0);
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
});

/** Replaces the text of one of GraphiQL's editors (CodeMirror 5, which hangs itself on its element). */
async function setEditorText(page: Page, container: string, text: string): Promise<void> {
  const editor = page.locator(`${container} .CodeMirror`);
  await editor.waitFor();
  await editor.evaluate((element, value) => {
    (element as unknown as { CodeMirror: { setValue(text: string): void } }).CodeMirror.setValue(value);
  }, text);
}
