import type { Response } from 'express';
import { AppError, ValidationError, summarizeIssues, type ValidationIssue } from '../errors';

/**
 * The interface documents several failure bodies; each endpoint names the ones it uses.
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

function issueParameter(issue: ValidationIssue): string {
  return issue.path.join('.');
}

function renderValidation(shape: ValidationShape, issues: ValidationIssue[]): object {
  switch (shape) {
    case 'A':
      return { status: 'failed', error: summarizeIssues(issues), issues };
    case 'B':
      return {
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
      };
    case 'C':
      return { error: { issues } };
    case 'zod':
      return { success: false, error: { issues, name: 'ZodError' } };
  }
}

function renderFailure(shape: FailureShape, error: AppError): object {
  switch (shape) {
    case 'A':
      return { status: 'failed', error: error.message, ...error.details };
    case 'B':
      return { success: false, error: { code: error.code, message: error.message, ...error.details } };
    case 'bare':
      return { error: error.message };
  }
}

/** The one place where error bodies are built. */
export function renderError(shapes: ErrorShapes, error: AppError): { status: number; body: object } {
  if (error instanceof ValidationError) {
    return { status: error.httpStatus, body: renderValidation(shapes.validation, error.issues) };
  }
  return { status: error.httpStatus, body: renderFailure(shapes.failure, error) };
}

/** Answers an AppError over HTTP in the given documented shape, with the headers it carries. */
export function sendError(res: Response, shapes: ErrorShapes, error: AppError): void {
  const { status, body } = renderError(shapes, error);
  res.set(error.headers).status(status).json(body);
}

export function renderInternalError(requestId: string): { status: number; body: object } {
  return { status: 500, body: { status: 'failed', error: 'Internal server error', request_id: requestId } };
}
