import * as z from 'zod/mini';
import { described, instant, uuid } from './common.js';

export const pingResultSchema = described(
  z.strictObject({
    ok: described(z.literal(true), { description: 'True when the key is healthy.' }),
    organisationId: uuid('The organisation the token belongs to.'),
    version: described(z.string().check(z.regex(/^\d+\.\d+\.\d+$/)), {
      description: 'Interface version (semantic version).',
      examples: ['1.0.0'],
    }),
    at: instant('Server time of the response.'),
  }),
  { id: 'PingResult', description: 'The result of a key health probe.' },
);
