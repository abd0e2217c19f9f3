import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { APIGatewayAuthorizerResult, APIGatewayTokenAuthorizerEvent } from 'aws-lambda';
import { build } from 'esbuild';
import { beforeAll, describe, expect, it } from 'vitest';
import { esbuildOptions, functionEntry } from '../../infra/cdk/bundling.js';
import { createOrganisation } from '../../shared/adapters/organisation-store.js';
import { issueToken } from '../../shared/adapters/token-store.js';
import { AUTHORIZER_FUNCTION } from '../../shared/topology/routes.js';
import { useFreshTable } from '../support/table.js';

beforeAll(async () => {
  await useFreshTable();
});

describe('a deployed bundle', () => {
  it('authorizes a real token with credentials from the environment, as Lambda provides them', async () => {
    const outdir = mkdtempSync(join(tmpdir(), 'mis-bundle-'));
    await build({
      ...esbuildOptions(functionEntry(AUTHORIZER_FUNCTION)),
      outdir,
      outExtension: { '.js': '.mjs' },
    });
    // What the Lambda runtime sets for the function role: the bundle's only credential source, so the
    // call below fails if the trimmed credential chain cannot read them.
    Object.assign(process.env, {
      AWS_LAMBDA_FUNCTION_NAME: AUTHORIZER_FUNCTION,
      AWS_ACCESS_KEY_ID: 'ASIAEXAMPLE',
      AWS_SECRET_ACCESS_KEY: 'example-secret',
      AWS_SESSION_TOKEN: 'example-session',
    });
    const bundled = (await import(pathToFileURL(join(outdir, 'handler.mjs')).href)) as {
      handler: (event: APIGatewayTokenAuthorizerEvent) => Promise<APIGatewayAuthorizerResult>;
    };
    const org = await createOrganisation({ name: 'Bundled', tier: 'standard' });
    const { token } = await issueToken({ organisationId: org.id, scopes: ['read'] });
    const result = await bundled.handler({
      type: 'TOKEN',
      authorizationToken: `Bearer ${token}`,
      methodArn: 'arn:aws:execute-api:eu-west-1:123456789012:api/dev/GET/api/public/v1/ping',
    });
    expect(result.context).toMatchObject({ organisationId: org.id, scopes: 'read' });
  });
});
