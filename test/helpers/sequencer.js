const { statSync } = require('node:fs');
const path = require('node:path');
const TestSequencer = require('@jest/test-sequencer').default;
const groups = require('../groups.json');

/**
 * Jest's order, where a group file (test/groups.json) weighs as much as its files. With no timings
 * of an earlier run (a fresh clone), jest starts the largest files first; a group file is a few
 * lines, and would otherwise start last and run alone at the end.
 */
class GroupAwareSequencer extends TestSequencer {
  sort(tests) {
    const sorted = super.sort(tests);
    if (sorted.some((test) => test.duration != null)) return sorted;
    const weights = new Map(
      sorted.map((test) => {
        const root = test.context.config.rootDir;
        const files = groups[path.relative(root, test.path)] ?? [test.path];
        const weight = files.reduce((sum, file) => sum + statSync(path.resolve(root, file)).size, 0);
        return [test, weight];
      }),
    );
    return sorted.sort((a, b) => weights.get(b) - weights.get(a));
  }
}

module.exports = GroupAwareSequencer;
