import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { App, Stack } from 'aws-cdk-lib';
import type { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { BUNDLED_FILES } from '../../infra/cdk/bundled-files.js';
import { copyCommands, ServiceFunction } from '../../infra/cdk/constructs/service-function.js';
import { stageSettings } from '../../infra/cdk/stage.js';
import { BASE_PATH } from '../../shared/config.js';
import { routes } from '../../shared/topology/routes.js';
import { type Resource, settingsOnlyTemplate, templateLookups } from '../support/template.js';

let template: Template;

beforeAll(() => {
  // Settings only: bundling is exercised below for the one function whose bundle is special.
  template = settingsOnlyTemplate('dev');
});

const { resources, functionId, tableActionsOf, resourcePath, methodsAt } = templateLookups(() => template);

const method = (httpMethod: string, path: string): Resource['Properties'] | undefined =>
  methodsAt(`${BASE_PATH}${path}`).find((m) => m.Properties.HttpMethod === httpMethod)?.Properties;

const integrationTarget = (properties: Resource['Properties'] | undefined) =>
  JSON.stringify((properties?.Integration as { Uri?: unknown } | undefined)?.Uri).match(
    /"(\w+Function\w*)"/,
  )?.[1];

describe('statistics, events and impact on AWS', () => {
  it('gives each of the three GETs a function of its own behind the authorizer', () => {
    const targets = ['/members', '/events', '/impact'].map((path) => {
      const get = method('GET', path);
      expect(get?.AuthorizationType, path).toBe('CUSTOM');
      return integrationTarget(get);
    });
    expect(new Set(targets).size).toBe(3);
    expect(targets).toEqual([
      functionId('member-statistics'),
      functionId('upcoming-events'),
      functionId('impact-report'),
    ]);
    for (const path of ['/members', '/events', '/impact']) {
      expect(method('POST', path)?.AuthorizationType).toBe('CUSTOM');
    }
  });

  it('grants the reads one Query or GetItem (plus the rate limiter), the writes Put and Update', () => {
    expect(tableActionsOf('member-statistics')).toEqual(['dynamodb:Query', 'dynamodb:UpdateItem']);
    expect(tableActionsOf('upcoming-events')).toEqual(['dynamodb:Query', 'dynamodb:UpdateItem']);
    expect(tableActionsOf('impact-report')).toEqual(['dynamodb:GetItem', 'dynamodb:UpdateItem']);
    for (const writer of ['record-member', 'publish-event', 'publish-impact-report']) {
      expect(tableActionsOf(writer), writer).toEqual([
        'dynamodb:GetItem',
        'dynamodb:PutItem',
        'dynamodb:UpdateItem',
      ]);
    }
  });
});

describe('the public documents on AWS', () => {
  it('serves /openapi.json, /docs and every file under /docs without authorization, from one function', () => {
    const docs = functionId('docs');
    for (const route of routes.filter((r) => r.access === 'public')) {
      const get = method('GET', route.path);
      expect(get?.AuthorizationType, route.path).toBe('NONE');
      expect(integrationTarget(get), route.path).toBe(docs);
    }
    expect(
      resourcePath(
        Object.keys(resources('AWS::ApiGateway::Resource')).find((id) =>
          resourcePath(id).endsWith('{asset+}'),
        ) ?? '',
      ),
    ).toBe(`${BASE_PATH}/docs/{asset+}`);
  });

  it('gives the documents function no access to the table', () => {
    expect(tableActionsOf('docs')).toEqual([]);
  });

  it('compresses responses for clients that accept gzip', () => {
    const [api] = Object.values(resources('AWS::ApiGateway::RestApi'));
    expect(api?.Properties.MinimumCompressionSize).toBe(1024);
  });
});

describe('the documents bundle', () => {
  it('refuses a file path that could leave the project or the bundle', () => {
    expect(copyCommands([{ from: 'node_modules/a.js', to: 'x/a.js' }], '/in', '/out')).toEqual([
      'mkdir -p "/out/x" && cp "/in/node_modules/a.js" "/out/x/a.js"',
    ]);
    expect(() => copyCommands([{ from: '../secret', to: 'a' }], '/in', '/out')).toThrow(
      /plain relative path/,
    );
    expect(() => copyCommands([{ from: 'a"; rm -rf /', to: 'a' }], '/in', '/out')).toThrow(
      /plain relative path/,
    );
  });

  it("carries Swagger UI's files beside a small handler that serves them from there", async () => {
    const outdir = mkdtempSync(join(tmpdir(), 'docs-bundle-'));
    onTestFinished(() => rmSync(outdir, { recursive: true, force: true }));
    const app = new App({ outdir });
    const stack = new Stack(app, 'DocsBundle');
    new ServiceFunction(stack, 'Docs', {
      name: 'docs',
      settings: stageSettings('dev'),
      files: BUNDLED_FILES.docs ?? [],
    });
    const assembly = app.synth();
    const bundle = readdirSync(assembly.directory)
      .map((name) => join(assembly.directory, name))
      .find((dir) => existsSync(join(dir, 'index.mjs')));
    if (!bundle) throw new Error('no bundle written');
    expect(readdirSync(join(bundle, 'swagger-ui')).sort()).toEqual([
      'swagger-ui-bundle.js',
      'swagger-ui.css',
    ]);
    // The handler's own code stays small: the document is in it, Swagger UI and the generator are not.
    expect(statSync(join(bundle, 'index.mjs')).size).toBeLessThan(350 * 1024);
    // Run the bundle as Lambda would (plain Node, no node_modules) and ask it for a Swagger UI file.
    const script = `
      const { handler } = await import(${JSON.stringify(join(bundle, 'index.mjs'))});
      const event = { resource: '${BASE_PATH}/docs/{asset+}', path: '/x', httpMethod: 'GET', headers: {},
        pathParameters: { asset: 'swagger-ui-bundle.js' }, requestContext: { path: '/x' } };
      const response = await handler(event, { getRemainingTimeInMillis: () => 1000 });
      console.log(JSON.stringify({ status: response.statusCode, length: response.body.length }));`;
    const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], {
      cwd: bundle,
      env: { PATH: process.env.PATH ?? '', POWERTOOLS_LOG_LEVEL: 'ERROR' },
    });
    const result = JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}');
    expect(result.status).toBe(200);
    expect(result.length).toBeGreaterThan(500_000);
  }, 120_000);
});
