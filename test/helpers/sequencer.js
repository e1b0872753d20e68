const { statSync } = require('node:fs');
const path = require('node:path');
const TestSequencer = require('@jest/test-sequencer').default;
const durations = require('../durations.json');
const groups = require('../groups.json');

/**
 * Jest's order when it has timings of an earlier run here. Without (a fresh clone, as in CI), the
 * seconds each file took in a whole run (test/durations.json, `npm run test:durations`) order it,
 * longest first, so that no long file starts last and runs alone at the end. Jest's own fallback,
 * the file's size, says little of how long a file waits on processes and chains. A file not listed
 * (new since) goes first, as jest puts a file without a timing, the largest first (a group file
 * weighing as much as its files).
 */
class RecordedDurationSequencer extends TestSequencer {
  sort(tests) {
    const sorted = super.sort(tests);
    if (sorted.some((test) => test.duration != null)) return sorted;
    const fileOf = (test) => path.relative(test.context.config.rootDir, test.path);
    const size = (test) =>
      (groups[fileOf(test)] ?? [fileOf(test)]).reduce(
        (sum, file) => sum + statSync(path.resolve(test.context.config.rootDir, file)).size,
        0,
      );
    const key = new Map(
      sorted.map((test) => {
        const seconds = durations[fileOf(test)];
        return [
          test,
          seconds === undefined ? { listed: false, weight: size(test) } : { listed: true, weight: seconds },
        ];
      }),
    );
    return sorted.sort((a, b) => {
      const [ka, kb] = [key.get(a), key.get(b)];
      if (ka.listed !== kb.listed) return ka.listed ? 1 : -1;
      return kb.weight - ka.weight;
    });
  }
}

module.exports = RecordedDurationSequencer;
