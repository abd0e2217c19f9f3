import * as z from 'zod/mini';
import en from 'zod/v4/locales/en.js';

// zod/mini carries no messages of its own ("Invalid input"); English ones cost 3 KB. Importing the one
// locale, not `z.locales`, keeps the other languages (270 KB) out of the bundle. Every request is
// parsed through shared/http/request.ts, which imports this module, so every schema gets them.
z.config(en());
