import { z } from 'zod';
import {
  AppError,
  ValidationError,
  summarizeIssues,
  type DocumentedFailure,
  type ValidationIssue,
} from '../errors';
// zod with `.openapi()` (the schemas below are the API reference's components).
import '../validation';

/**
 * The interface's failure bodies, each declared once: the schema the API reference publishes and
 * the rendering the server answers come from the same entry. Each REST path names the pair it
 * uses, by the look of its bodies (the interface calls them Shape A, B and C):
 *   validation  statusFailed (A): {status:'failed', error, issues}
 *               successFalse (B): {success:false, error:{code:'validation_error', message, issues:[{code,message,parameter,path}]}}
 *               errorIssues  (C): {error:{issues:[zod issue]}}
 *               zodResult:        {success:false, error:{issues:[zod issue], name:'ZodError'}}  (zod v3 safeParse result)
 *   failure     statusFailed (A): {status:'failed', error, ...details}
 *               successFalse (B): {success:false, error:{code, message, ...details}}
 *               errorOnly:        {error}
 */
export type ValidationShape = 'statusFailed' | 'successFalse' | 'errorIssues' | 'zodResult';
export type FailureShape = 'statusFailed' | 'successFalse' | 'errorOnly';
export interface ErrorShapes {
  validation: ValidationShape;
  failure: FailureShape;
}

/** Shape A: `{status:'failed', error, ...}` for every failure, refused input included. */
export const STATUS_FAILED_BODY: ErrorShapes = { validation: 'statusFailed', failure: 'statusFailed' };
/** Shape B: `{success:false, error:{code, message, ...}}` for every failure. */
export const SUCCESS_FALSE_BODY: ErrorShapes = { validation: 'successFalse', failure: 'successFalse' };
/** Shape C: refused input as `{error:{issues}}`, other failures `{status:'failed', error, ...}`. */
export const ERROR_ISSUES_BODY: ErrorShapes = { validation: 'errorIssues', failure: 'statusFailed' };
/** Everything under `error`: refused input as `{error:{issues}}`, other failures as `{error}` (the message). */
export const ERROR_FIELD_BODY: ErrorShapes = { validation: 'errorIssues', failure: 'errorOnly' };
/** Refused input as zod's result `{success:false, error:{issues, name:'ZodError'}}`, others `{status:'failed', error, ...}`. */
export const ZOD_RESULT_BODY: ErrorShapes = { validation: 'zodResult', failure: 'statusFailed' };

/** One documented body: its schema (for the API reference, a component named by `.openapi()`) and how it is rendered. */
interface BodyShape<T> {
  schema: z.ZodTypeAny;
  render(value: T): object;
}

/** A zod v3 issue: `code`, `path`, `message` and the fields of its code (`expected`, `validation`, …). */
const zodIssue = z
  .object({ code: z.string(), path: z.array(z.union([z.string(), z.number().int()])), message: z.string() })
  .catchall(z.unknown())
  .openapi('ZodIssue');

const statusFailedFields = { status: z.literal('failed'), error: z.string() };

function issueParameter(issue: ValidationIssue): string {
  return issue.path.join('.');
}

const validationBodies: Record<ValidationShape, BodyShape<ValidationIssue[]>> = {
  statusFailed: {
    schema: z
      .object({ ...statusFailedFields, issues: z.array(zodIssue).optional() })
      .openapi('ValidationFailureA', { description: 'Shape A: `error` sums up the issues' }),
    render: (issues) => ({ status: 'failed', error: summarizeIssues(issues), issues }),
  },
  successFalse: {
    schema: z
      .object({
        success: z.literal(false),
        error: z.object({
          code: z.literal('validation_error'),
          message: z.string(),
          issues: z.array(
            z.object({ code: z.string(), message: z.string(), parameter: z.string(), path: z.string() }),
          ),
        }),
      })
      .openapi('ValidationFailureB', { description: 'Shape B: `parameter` and `path` name the field' }),
    render: (issues) => ({
      success: false,
      error: {
        code: 'validation_error',
        message: summarizeIssues(issues),
        issues: issues.map((issue) => ({
          code: issue.code,
          message: issue.message,
          parameter: issueParameter(issue),
          path: issueParameter(issue),
        })),
      },
    }),
  },
  errorIssues: {
    schema: z
      .object({ error: z.object({ issues: z.array(zodIssue) }) })
      .openapi('ValidationFailureC', { description: 'Shape C: zod’s issues' }),
    render: (issues) => ({ error: { issues } }),
  },
  zodResult: {
    schema: z
      .object({
        success: z.literal(false),
        error: z.object({ issues: z.array(zodIssue), name: z.literal('ZodError') }),
      })
      .openapi('ValidationFailureZod', { description: 'The zod result: `{success:false, error: ZodError}`' }),
    render: (issues) => ({ success: false, error: { issues, name: 'ZodError' } }),
  },
};

const failureBodies: Record<FailureShape, BodyShape<AppError>> = {
  statusFailed: {
    schema: z
      .object(statusFailedFields)
      .catchall(z.unknown())
      .openapi('FailureA', { description: 'Shape A: the message, and the failure’s own fields' }),
    render: (error) => ({ status: 'failed', error: error.message, ...error.details }),
  },
  successFalse: {
    schema: z
      .object({
        success: z.literal(false),
        error: z.object({ code: z.string(), message: z.string() }).catchall(z.unknown()),
      })
      .openapi('FailureB', { description: 'Shape B: the code, the message and the failure’s own fields' }),
    render: (error) => ({
      success: false,
      error: { code: error.code, message: error.message, ...error.details },
    }),
  },
  errorOnly: {
    schema: z.object({ error: z.string() }).openapi('FailureBare', { description: 'The message alone' }),
    render: (error) => ({ error: error.message }),
  },
};

/** The schema of a path's validation failure body. */
export function validationBodySchema(shapes: ErrorShapes): z.ZodTypeAny {
  return validationBodies[shapes.validation].schema;
}

/**
 * The schema of a path's other failure bodies; in Shape B, with `error.code` one of `codes` (the
 * codes of the failures the path declares at one status).
 */
export function failureBodySchema(shapes: ErrorShapes, codes: readonly string[] = []): z.ZodTypeAny {
  const schema = failureBodies[shapes.failure].schema;
  if (shapes.failure !== 'successFalse' || codes.length === 0) return schema;
  return schema.and(z.object({ error: z.object({ code: z.enum(codes as [string, ...string[]]) }) }));
}

/** The one place where error bodies are built. */
export function renderError(shapes: ErrorShapes, error: AppError): { status: number; body: object } {
  const body =
    error instanceof ValidationError
      ? validationBodies[shapes.validation].render(error.issues)
      : failureBodies[shapes.failure].render(error);
  return { status: error.httpStatus, body };
}

export const INTERNAL_ERROR: DocumentedFailure = {
  status: 500,
  codes: ['internal'],
  description: '`Internal server error`, with the `request_id` to quote (the failure is logged with it)',
};

/** The 500 body: `{status:'failed', error}` (Shape A) with the request id to quote. */
export function renderInternalError(requestId: string): { status: number; body: object } {
  return {
    status: INTERNAL_ERROR.status,
    body: { status: 'failed', error: 'Internal server error', request_id: requestId },
  };
}
