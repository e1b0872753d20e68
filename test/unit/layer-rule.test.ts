import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ESLint } from 'eslint';

/**
 * The layer rule of docs/architecture.md is `npm run lint`'s: these plant files that nothing on
 * disk holds (ESLint lints their text as if at that path) and read what the project's own
 * eslint.config.mjs says of them, so the rule cannot silently stop refusing.
 */
const root = path.resolve(__dirname, '../..');
const eslint = new ESLint({ cwd: root });

/** The messages of the rules `rule` matches for `code` linted as the file `file` (relative to the root). */
async function ruleMessages(rule: RegExp, file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(root, file) });
  return result!.messages
    .filter((message) => message.ruleId !== null && rule.test(message.ruleId))
    .map((message) => message.message);
}

/** The boundaries messages for `code` linted as the file `file`. */
const layerProblems = (file: string, code: string) => ruleMessages(/^boundaries\//, file, code);

describe('the layer rule', () => {
  it('refuses an import that runs from a lower layer up', async () => {
    expect(
      await layerProblems(
        'src/chain/planted.ts',
        "import { AppsService } from '../modules/apps/apps.service';\nexport const planted = AppsService;\n",
      ),
    ).toEqual(['the chain layer imports from modules, a layer above it (docs/architecture.md#layers)']);
    // A type-only import and a re-export run up as much as a value import does.
    expect(
      await layerProblems(
        'src/logger-planted.ts',
        "import type { RequestContext } from './operations/request-context';\nexport type Planted = RequestContext;\n" +
          "export { startLaurel } from './server/laurel';\n",
      ),
    ).toEqual([
      'the basics layer imports from operations, indexer, a layer above it (docs/architecture.md#layers)',
      'the basics layer imports from server, a layer above it (docs/architecture.md#layers)',
    ]);
    // The sections of the configuration are basics too.
    expect(
      await layerProblems(
        'src/config/planted.ts',
        "import { ChainRegistry } from '../chain/registry';\nexport const planted = ChainRegistry;\n",
      ),
    ).toEqual(['the basics layer imports from chain, a layer above it (docs/architecture.md#layers)']);
  });

  it('lets a layer import its own layer and those below it', async () => {
    expect(
      await layerProblems(
        'src/modules/planted.ts',
        "import { liveValues } from '../operations/live';\nimport { AppsService } from './apps/apps.service';\n" +
          "import { envSchema } from '../config';\nexport const planted = [liveValues, AppsService, envSchema];\n",
      ),
    ).toEqual([]);
    expect(
      await layerProblems(
        'src/main.ts',
        "import { startLaurel } from './server/laurel';\nexport const planted = startLaurel;\n",
      ),
    ).toEqual([]);
  });

  it('places every file of src/ in a layer: a new folder must be given one', async () => {
    expect(await layerProblems('src/planted-folder/planted.ts', 'export const planted = 1;\n')).toEqual([
      'File does not match any file pattern and does not belong to any known element',
    ]);
  });

  it('has the layers of docs/architecture.md, in its order', async () => {
    const config = (await eslint.calculateConfigForFile(path.join(root, 'src/main.ts'))) as {
      settings: { 'boundaries/files': { category: string }[] };
    };
    const configured = [...new Set(config.settings['boundaries/files'].map((file) => file.category))];
    const architecture = readFileSync(path.join(root, 'docs/architecture.md'), 'utf8');
    const block = /^## Layers\n\n```\n([\s\S]*?)\n```/m.exec(architecture)![1]!;
    const documented = block
      .split('\n')
      .filter((line) => /^\S/.test(line))
      .map((line) => line.split(/\s{2,}/)[0]);
    expect(configured).toEqual(documented);
  });
});

describe('the file length rule', () => {
  /** The max-lines messages for `lines` lines of code linted as the file `file`. */
  function lengthProblems(file: string, lines: number): Promise<string[]> {
    const code = Array.from({ length: lines }, (_, i) => `export const line${i} = ${i};`).join('\n') + '\n';
    return ruleMessages(/^max-lines$/, file, code);
  }

  it('refuses a file of src/ over 500 lines, the generated ABIs aside', async () => {
    expect(await lengthProblems('src/modules/planted.ts', 500)).toEqual([]);
    expect(await lengthProblems('src/modules/planted.ts', 501)).toEqual([
      'File has too many lines (501). Maximum allowed is 500.',
    ]);
    expect(await lengthProblems('src/chain/contracts/build/planted.ts', 900)).toEqual([]);
  });
});
