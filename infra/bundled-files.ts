import { SWAGGER_UI_FILES } from '../functions/docs/console.js';
import type { BundledFile } from './constructs/service-function.js';

/**
 * Files a function reads at run time besides its code. The docs function serves Swagger UI's own
 * files; they are copied into its bundle (as `swagger-ui/<name>`, where the handler looks first)
 * instead of being imported, so the 1.7 MB script is neither parsed at cold start nor counted in
 * the function's code size.
 */
export const BUNDLED_FILES: Readonly<Record<string, readonly BundledFile[]>> = {
  docs: Object.keys(SWAGGER_UI_FILES).map((name) => ({
    from: `node_modules/swagger-ui-dist/${name}`,
    to: `swagger-ui/${name}`,
  })),
};
