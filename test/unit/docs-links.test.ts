import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** Every relative link and #anchor of the README and docs/ leads somewhere. */
const root = path.resolve(__dirname, '../..');
const documents = [
  'README.md',
  ...readdirSync(path.join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

/** The Markdown without fenced code blocks and inline code, where link syntax is only text. */
function prose(markdown: string): string {
  return markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '').replace(/`+[^`\n]*`+/g, '');
}

/** Targets of inline links `[text](target)` and reference definitions `[label]: target`. */
function linkTargets(markdown: string): string[] {
  const text = prose(markdown);
  const inline = [...text.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((match) => match[1]);
  const references = [...text.matchAll(/^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+"[^"]*")?\s*$/gm)].map(
    (match) => match[1],
  );
  return [...inline, ...references];
}

/**
 * The anchors GitHub gives a document's headings, as github-slugger makes them: the heading's text
 * in lower case, punctuation (and Markdown marks) dropped, spaces to dashes, repeats numbered.
 * Underscores stay, so `_emphasis_` in a heading would come out wrong: none of ours has it.
 */
function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const withoutCode = markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');
  for (const [, heading] of withoutCode.matchAll(/^ {0,3}#{1,6}[ \t]+(.+?)[ \t]*#*[ \t]*$/gm)) {
    const text = heading
      .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1') // a link's text only
      .replace(/<[^>]+>/g, ''); // inline HTML
    const base = text
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
      .replace(/ /g, '-');
    let anchor = base;
    for (let n = 1; anchors.has(anchor); n += 1) anchor = `${base}-${n}`;
    anchors.add(anchor);
  }
  return anchors;
}

function brokenLinks(document: string): string[] {
  const markdown = readFileSync(path.join(root, document), 'utf8');
  const broken: string[] = [];
  for (const target of linkTargets(markdown)) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // http:, https:, mailto:
    const [file, anchor] = target.split('#', 2) as [string, string | undefined];
    const resolved = file
      ? path.resolve(path.dirname(path.join(root, document)), decodeURI(file))
      : path.join(root, document);
    if (!existsSync(resolved)) {
      broken.push(`${target}: no such file`);
      continue;
    }
    if (anchor !== undefined) {
      if (!resolved.endsWith('.md')) broken.push(`${target}: an anchor into a file that is not Markdown`);
      else if (!headingAnchors(readFileSync(resolved, 'utf8')).has(decodeURIComponent(anchor)))
        broken.push(`${target}: no heading with that anchor`);
    }
  }
  return broken;
}

describe.each(documents)('%s', (document) => {
  it('has only links that resolve (files, and #anchors to their headings)', () => {
    expect(brokenLinks(document)).toEqual([]);
  });
});

describe('heading anchors as GitHub makes them', () => {
  it.each([
    ['## Two commands', 'two-commands'],
    [
      '### What the interface leaves open, and what Laurel does',
      'what-the-interface-leaves-open-and-what-laurel-does',
    ],
    [
      '## Transactions: nonces, gaps, dropped and ambiguous broadcasts',
      'transactions-nonces-gaps-dropped-and-ambiguous-broadcasts',
    ],
    ['## bench:build', 'benchbuild'],
    ['## `npm run demo`', 'npm-run-demo'],
    ['## Health, readiness and logs', 'health-readiness-and-logs'],
    ['### Senders, amounts and fees ##', 'senders-amounts-and-fees'],
    ['## A [link](x.md) in a heading', 'a-link-in-a-heading'],
    ['## WEBHOOK_SIGNATURE_HEADER', 'webhook_signature_header'],
  ])('%s → #%s', (heading, anchor) => {
    expect([...headingAnchors(heading)]).toEqual([anchor]);
  });

  it('numbers repeated headings', () => {
    expect([...headingAnchors('## Notes\n## Notes\n## Notes')]).toEqual(['notes', 'notes-1', 'notes-2']);
  });

  it('ignores headings in code blocks', () => {
    expect([...headingAnchors('```sh\n# a comment\n```\n# Title')]).toEqual(['title']);
  });
});
