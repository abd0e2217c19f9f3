import * as z from 'zod/mini';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../domain/cursor.js';
import { described } from './common.js';

export { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE };

const LIMIT_RULE = `Use a whole number from 1 to ${MAX_PAGE_SIZE}.`;

/**
 * `limit`, the one declaration every list uses. A query value is text, so it is read as digits and
 * checked as a number; the document shows what a client sends: an integer from 1 to 100.
 */
export const limitParam = () =>
  described(
    z
      .pipe(z.string().check(z.regex(/^\d{1,3}$/, LIMIT_RULE)), z.transform(Number))
      .check(z.refine((n: number) => n >= 1 && n <= MAX_PAGE_SIZE, LIMIT_RULE)),
    {
      description: `Items per page, 1 to ${MAX_PAGE_SIZE}; default ${DEFAULT_PAGE_SIZE}.`,
      override: ({ jsonSchema }: { jsonSchema: Record<string, unknown> }) => {
        delete jsonSchema.pattern;
        Object.assign(jsonSchema, {
          type: 'integer',
          minimum: 1,
          maximum: MAX_PAGE_SIZE,
          default: DEFAULT_PAGE_SIZE,
        });
      },
    },
  );

/** `cursor`: the `nextCursor` of the previous page, opaque. */
export const cursorParam = (description = '`nextCursor` of the previous page.') =>
  described(z.string().check(z.minLength(1, 'Pass nextCursor as it was sent.'), z.maxLength(2048)), {
    description,
  });

/** `?limit=1..100&cursor=…`: the paging parameters of every list. */
export const pageQuery = z.strictObject({
  limit: z.optional(limitParam()),
  cursor: z.optional(cursorParam()),
});
