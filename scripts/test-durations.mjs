// Writes test/durations.json, the seconds each jest file of a whole run took, from that run's
// report: `npm test -- --json --outputFile=run.json`, then `npm run test:durations -- run.json`.
// The sequencer (test/helpers/sequencer.js) orders a fresh clone's run by them, longest first.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const [report] = process.argv.slice(2);
if (!report) {
  console.error('usage: npm run test:durations -- <report of npm test -- --json --outputFile=…>');
  process.exit(1);
}
const root = path.resolve(import.meta.dirname, '..');
const { testResults } = JSON.parse(readFileSync(report, 'utf8'));
const seconds = Object.fromEntries(
  testResults
    .map((result) => [
      path.relative(root, result.name),
      Math.round((result.endTime - result.startTime) / 100) / 10,
    ])
    .sort(([a], [b]) => a.localeCompare(b)),
);
writeFileSync(path.join(root, 'test/durations.json'), `${JSON.stringify(seconds, null, 2)}\n`);
console.log(`test/durations.json: ${Object.keys(seconds).length} files`);
