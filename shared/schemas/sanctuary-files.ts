import * as z from 'zod/mini';
import { described, instant, instantInput, text, uuid } from './common.js';

export const registerFileBody = described(
  z.strictObject({
    name: text(
      'The name of the file. Shown to API readers only, never sent in a webhook.',
      200,
      'Statement 2027-014.pdf',
    ),
    expiresAt: instantInput('When the file expires: `sanctuary.file.expired` is sent then. In the future.'),
  }),
  { id: 'RegisterFile', description: 'A sanctuary file to keep until it expires.' },
);

export const sanctuaryFileSchema = described(
  z.strictObject({
    id: uuid('The file id.'),
    name: z.string(),
    expiresAt: instant('When the file expires.'),
    createdAt: instant('When the file was registered.'),
    status: described(z.enum(['active', 'expired']), {
      description: '`expired` once the expiry has been processed and `sanctuary.file.expired` sent.',
    }),
    expiredAt: z.nullable(
      instant('When the expiry was processed (at most a minute or so after `expiresAt`), or null.'),
    ),
  }),
  { id: 'SanctuaryFile', description: 'A registered sanctuary file.' },
);
