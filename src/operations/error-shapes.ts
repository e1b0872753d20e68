import { z } from 'zod';
import { AppError, ValidationError, summarizeIssues, type ValidationIssue } from '../errors';

/**
 * The interface's failure bodies, each declared once: the schema the API reference publishes and
 * the rendering the server answers come from the same entry. Each REST path names the ones it uses.
 *   validation  A:   {status:'failed', error, issues}
 *               B:   {success:false, error:{code:'validation_error', message, issues:[{code,message,parameter,path}]}}
 *               C:   {error:{issues:[zod issue]}}
 *               zod: {success:false, error:{issues:[zod issue], name:'ZodError'}}  (zod v3 safeParse result)
 *   failure     A:   {status:'failed', error, ...details}
 *               B:   {success:false, error:{code, message, ...details}}
 *               bare:{error}
 */
export type ValidationShape = 'A' | 'B' | 'C' | 'zod';
export type FailureShape = 'A' | 'B' | 'bare';
export interface ErrorShapes {
  validation: ValidationShape;
  failure: FailureShape;
}

export const SHAPE_A: ErrorShapes = { validation: 'A', failure: 'A' };
export const SHAPE_B: ErrorShapes = { validation: 'B', failure: 'B' };
export const SHAPE_C: ErrorShapes = { validation: 'C', failure: 'A' };
export const SHAPE_ZOD: ErrorShapes = { validation: 'zod', failure: 'A' };

/** One documented body: its schema (for the API reference) and how it is rendered. */
interface BodyShape<T> {
  schema: z.ZodTypeAny;
  render(value: T): object;
}

const zodIssue = z
  .object({ code: z.string(), path: z.array(z.union([z.string(), z.number().int()])), message: z.string() })
  .passthrough();

const shapeAFields = { status: z.literal('failed'), error: z.string() };

function issueParameter(issue: ValidationIssue): string {
  return issue.path.join('.');
}

const validationBodies: Record<ValidationShape, BodyShape<ValidationIssue[]>> = {
  A: {
    schema: z.object({ ...shapeAFields, issues: z.array(zodIssue).optional() }),
    render: (issues) => ({ status: 'failed', error: summarizeIssues(issues), issues }),
  },
  B: {
    schema: z.object({
      success: z.literal(false),
      error: z.object({
        code: z.literal('validation_error'),
        message: z.string(),
        issues: z.array(
          z.object({ code: z.string(), message: z.string(), parameter: z.string(), path: z.string() }),
        ),
      }),
    }),
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
  C: {
    schema: z.object({ error: z.object({ issues: z.array(zodIssue) }) }),
    render: (issues) => ({ error: { issues } }),
  },
  zod: {
    schema: z.object({
      success: z.literal(false),
      error: z.object({ issues: z.array(zodIssue), name: z.literal('ZodError') }),
    }),
    render: (issues) => ({ success: false, error: { issues, name: 'ZodError' } }),
  },
};

const failureBodies: Record<FailureShape, BodyShape<AppError>> = {
  A: {
    schema: z.object(shapeAFields).passthrough(),
    render: (error) => ({ status: 'failed', error: error.message, ...error.details }),
  },
  B: {
    schema: z.object({
      success: z.literal(false),
      error: z.object({ code: z.string(), message: z.string() }).passthrough(),
    }),
    render: (error) => ({
      success: false,
      error: { code: error.code, message: error.message, ...error.details },
    }),
  },
  bare: {
    schema: z.object({ error: z.string() }),
    render: (error) => ({ error: error.message }),
  },
};

/** The schema of a path's validation failure body. */
export function validationBodySchema(shapes: ErrorShapes): z.ZodTypeAny {
  return validationBodies[shapes.validation].schema;
}

/** The schema of a path's other failure bodies. */
export function failureBodySchema(shapes: ErrorShapes): z.ZodTypeAny {
  return failureBodies[shapes.failure].schema;
}

/** The one place where error bodies are built. */
export function renderError(shapes: ErrorShapes, error: AppError): { status: number; body: object } {
  const body =
    error instanceof ValidationError
      ? validationBodies[shapes.validation].render(error.issues)
      : failureBodies[shapes.failure].render(error);
  return { status: error.httpStatus, body };
}

/** The 500 body: Shape A with the request id to quote. */
export function renderInternalError(requestId: string): { status: number; body: object } {
  return { status: 500, body: { status: 'failed', error: 'Internal server error', request_id: requestId } };
}
