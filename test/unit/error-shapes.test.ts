import { z } from 'zod';
import { AppError, ValidationError, type ValidationIssue } from '../../src/errors';
import {
  ERROR_FIELD_BODY,
  renderError,
  STATUS_FAILED_BODY,
  SUCCESS_FALSE_BODY,
  ERROR_ISSUES_BODY,
  ZOD_RESULT_BODY,
} from '../../src/operations/error-shapes';
import { addressSchema, parseInput } from '../../src/validation';

function validationErrorOf(schema: z.ZodTypeAny, input: unknown): ValidationError {
  try {
    parseInput(schema, input);
  } catch (error) {
    return error as ValidationError;
  }
  throw new Error('expected a validation error');
}

describe('documented failure bodies', () => {
  it('renders the zod-result shape exactly as the interface shows it (leaderboard)', () => {
    const error = validationErrorOf(z.object({ page: z.string().regex(/^\d+$/) }), { page: 'a' });
    expect(renderError(ZOD_RESULT_BODY, error)).toEqual({
      status: 400,
      body: {
        success: false,
        error: {
          issues: [{ validation: 'regex', code: 'invalid_string', message: 'Invalid', path: ['page'] }],
          name: 'ZodError',
        },
      },
    });
  });

  it('renders Shape B with parameter and path set to the field name', () => {
    const error = validationErrorOf(z.object({ token_id: addressSchema }), { token_id: '0x12' });
    expect(renderError(SUCCESS_FALSE_BODY, error).body).toEqual({
      success: false,
      error: {
        code: 'validation_error',
        message: 'token_id: Invalid address',
        issues: [
          { code: 'invalid_string', message: 'Invalid address', parameter: 'token_id', path: 'token_id' },
        ],
      },
    });
  });

  it('renders Shape C with zod issues and array paths', () => {
    const error = validationErrorOf(z.object({ chain: z.string() }), {});
    expect(renderError(ERROR_ISSUES_BODY, error)).toEqual({
      status: 400,
      body: {
        error: {
          issues: [
            {
              code: 'invalid_type',
              expected: 'string',
              received: 'undefined',
              path: ['chain'],
              message: 'Required',
            },
          ],
        },
      },
    });
  });

  it('renders failures in Shapes A and B with their details', () => {
    const notFound = new AppError('badge_not_found', 'Too many badges found', 404, {
      badges: [{ id: '0x1', name: 'a' }],
    });
    expect(renderError(STATUS_FAILED_BODY, notFound)).toEqual({
      status: 404,
      body: { status: 'failed', error: 'Too many badges found', badges: [{ id: '0x1', name: 'a' }] },
    });
    const tokenNotFound = new AppError('token_not_found', 'Token not found', 404);
    expect(renderError(SUCCESS_FALSE_BODY, tokenNotFound).body).toEqual({
      success: false,
      error: { code: 'token_not_found', message: 'Token not found' },
    });
    expect(renderError(ERROR_FIELD_BODY, new AppError('x', 'Signature verification failed', 401))).toEqual({
      status: 401,
      body: { error: 'Signature verification failed' },
    });
  });

  it('keeps Shape A validation issues readable', () => {
    const issues: ValidationIssue[] = [{ code: 'custom', path: ['url'], message: 'Only HTTPS urls allowed' }];
    expect(renderError(STATUS_FAILED_BODY, new ValidationError(issues)).body).toEqual({
      status: 'failed',
      error: 'url: Only HTTPS urls allowed',
      issues,
    });
  });
});

describe('addressSchema', () => {
  it('accepts the documented pattern with or without 0x, in any case, and checksums', () => {
    const lower = 'f39fd6e51aad88f6f4ce6ab8827279cfffb92266';
    const checksummed = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';
    expect(addressSchema.parse(lower)).toBe(checksummed);
    expect(addressSchema.parse(`0x${lower.toUpperCase()}`)).toBe(checksummed);
    expect(addressSchema.safeParse('0x123').success).toBe(false);
  });
});
