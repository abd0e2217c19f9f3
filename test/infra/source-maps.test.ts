import { describe, expect, it } from 'vitest';
import { allFunctionNames } from '../../shared/topology/routes.js';
import { settingsOnlyTemplate, templateLookups } from '../support/template.js';

/**
 * `--enable-source-maps` makes Node read a bundle's map at start: a cost on every cold start, worth it
 * where readable traces matter more than latency (dev), not in production.
 */
describe.each([
  ['dev', '--enable-source-maps'],
  ['prod', undefined],
])('functions in %s', (stage, expected) => {
  const template = settingsOnlyTemplate(stage);
  const { functionByName } = templateLookups(() => template, stage);

  it(expected ? 'map stack traces through their source maps' : 'start without mapping stack traces', () => {
    for (const name of allFunctionNames()) {
      const variables = (
        functionByName(name)[1].Properties.Environment as { Variables: Record<string, unknown> }
      ).Variables;
      expect(variables.NODE_OPTIONS, name).toBe(expected);
    }
  });
});
