import { readFileSync } from 'node:fs';
import { openApiContract, openApiFile } from '../helpers/openapi-contract';

describe('openapi.json as a document', () => {
  it('is a valid OpenAPI 3.1 document (its official JSON Schema)', async () => {
    const { Validator } = await import('@seriousme/openapi-schema-validator');
    const result = await new Validator().validate(
      JSON.parse(readFileSync(openApiFile, 'utf8')) as Record<string, unknown>,
    );
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('has a schema ajv compiles (strictly) for every status of every operation', () => {
    const contract = openApiContract();
    let compiled = 0;
    for (const [template, operations] of Object.entries(contract.document.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        for (const [status, response] of Object.entries(operation.responses)) {
          expect({ template, method, status, content: Object.keys(response.content ?? {}) }).toEqual({
            template,
            method,
            status,
            content: ['application/json'],
          });
          contract.validator([
            'paths',
            template,
            method,
            'responses',
            status,
            'content',
            'application/json',
            'schema',
          ]);
          compiled += 1;
        }
      }
    }
    expect(compiled).toBeGreaterThan(200);
  });
});
