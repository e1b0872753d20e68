import path from 'node:path';
import groups from '../groups.json';

const root = path.resolve(__dirname, '../..');

/**
 * Runs the files of the group `groupFile` (test/groups.json) in this one jest file, each in a
 * describe block named after it, where its hooks stay: jest loads src and its libraries once for
 * the group instead of once per file. A run that names a file runs it alone (jest.config.js).
 */
export function runGroup(groupFile: string): void {
  const files = (groups as Record<string, string[]>)[path.relative(root, groupFile)];
  if (!files) throw new Error(`${groupFile} is not a group of test/groups.json`);
  for (const file of files) {
    describe(file, () => {
      // jest's require, inside the describe block: the file's hooks and tests become the block's.
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      require(path.join(root, file));
    });
  }
}
