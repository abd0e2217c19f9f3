import * as z from 'zod/mini';

/** `?limit=1..100&cursor=…`: the paging parameters of every list. */
export const pageQuery = z.strictObject({
  limit: z.optional(
    z
      .pipe(
        z.string().check(z.regex(/^\d{1,3}$/)),
        z.transform((v) => Number(v)),
      )
      .check(z.refine((n) => n >= 1 && n <= 100, 'Must be from 1 to 100.')),
  ),
  cursor: z.optional(z.string().check(z.maxLength(2048))),
});
