import { z } from 'zod';

/** GET /v1/chains, query chainList: no input. */
export const listChainsSchema = z.object({});
