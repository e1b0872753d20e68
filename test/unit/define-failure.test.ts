import {
  AppError,
  ChainUnavailableError,
  CHAIN_UNAVAILABLE,
  defineFailure,
  NotFoundError,
} from '../../src/errors';

const THING_NOT_FOUND = defineFailure({
  status: 404,
  codes: ['thing_not_found'],
  description: 'No thing has this id',
});

class ThingNotFoundError extends THING_NOT_FOUND.Error {
  constructor(id: string) {
    super(`thing ${id} not found`, { id });
  }
}

const THING_REFUSED = defineFailure({
  status: 400,
  codes: ['too_big', 'too_small'],
  description: 'The thing is too big or too small',
});

class ThingRefusedError extends THING_REFUSED.Error {}

describe('defineFailure', () => {
  it('gives the documented entry as declared', () => {
    expect({ ...THING_REFUSED, Error: undefined }).toEqual({
      status: 400,
      codes: ['too_big', 'too_small'],
      description: 'The thing is too big or too small',
      Error: undefined,
    });
  });

  it("makes an error with the entry's code and status, its class's name and its details", () => {
    const error = new ThingNotFoundError('7');
    expect(error).toBeInstanceOf(AppError);
    expect(error).toBeInstanceOf(ThingNotFoundError);
    expect(error.code).toBe('thing_not_found');
    expect(error.httpStatus).toBe(404);
    expect(error.message).toBe('thing 7 not found');
    expect(error.details).toEqual({ id: '7' });
    expect(error.name).toBe('ThingNotFoundError');
  });

  it('makes the error of a 404 failure a NotFoundError, and of another status not', () => {
    expect(new ThingNotFoundError('7')).toBeInstanceOf(NotFoundError);
    expect(new ThingRefusedError('too_big', 'too big')).not.toBeInstanceOf(NotFoundError);
  });

  it('takes the code first when the failure has several', () => {
    const error = new ThingRefusedError('too_small', 'too small');
    expect([error.code, error.httpStatus, error.message, error.details]).toEqual([
      'too_small',
      400,
      'too small',
      {},
    ]);
  });

  it('refuses, at typecheck, a code the failure does not declare', () => {
    // @ts-expect-error 'too_wide' is not one of THING_REFUSED's codes
    const error = new ThingRefusedError('too_wide', 'too wide');
    expect(error.httpStatus).toBe(THING_REFUSED.status);
  });

  it('keeps the fields and arguments of a class of its own', () => {
    const error = new ChainUnavailableError('base', 'no answer within 10 ms', true, { method: 'eth_call' });
    expect(error.code).toBe(CHAIN_UNAVAILABLE.codes[0]);
    expect(error.httpStatus).toBe(CHAIN_UNAVAILABLE.status);
    expect(error.message).toBe('Chain "base" is unavailable: no answer within 10 ms');
    expect(error.details).toEqual({ chain: 'base', method: 'eth_call' });
    expect([error.reason, error.mayHaveArrived, error.name]).toEqual([
      'no answer within 10 ms',
      true,
      'ChainUnavailableError',
    ]);
  });
});
