import { promises as fs } from 'node:fs';
import path from 'node:path';

/**
 * `mkdir -p`: the folder and any missing parents. Node's own (`{ recursive: true }`) loops for ever
 * on a path whose parent exists and refuses children (under /proc: ENOENT with the parent there);
 * this fails with that error.
 */
export async function makeFolder(folder: string, mode?: number): Promise<void> {
  try {
    await fs.mkdir(folder, { mode });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST' && (await fs.stat(folder)).isDirectory()) return;
    const parent = path.dirname(folder);
    if (code !== 'ENOENT' || parent === folder) throw error;
    await makeFolder(parent, mode);
    await fs.mkdir(folder, { mode }).catch((again: NodeJS.ErrnoException) => {
      if (again.code !== 'EEXIST') throw again;
    });
  }
}
