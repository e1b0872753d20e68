import { readFileSync } from 'node:fs';
import { CONFIG_DOCS_FILE, configReference, withCurrentReference } from '../../scripts/emit-config-docs';
import { envSchema } from '../../src/config';

describe('docs/configuration.md', () => {
  it('is what `npm run docs:config` generates from src/config.ts', () => {
    const committed = readFileSync(CONFIG_DOCS_FILE, 'utf8');
    expect(committed).toBe(withCurrentReference(committed));
  });

  it('lists every environment variable of the schema, each with its description', () => {
    const reference = configReference();
    for (const [name, schema] of Object.entries(envSchema.shape)) {
      expect(schema.description).toBeTruthy();
      expect(reference).toContain(`| \`${name}\` |`);
    }
  });
});
