import { execFile } from 'node:child_process';
import { cpSync, lstatSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { baseUrl, unthrottledOrganisation } from '../support/api.js';

const run = promisify(execFile);
const sdkDir = join(import.meta.dirname, '..', '..', 'sdk');
const exampleDir = join(sdkDir, 'examples', 'api-and-webhooks');

/**
 * A project outside the repository installs the SDK from the path (packed, as `npm pack` makes it) and
 * runs the example's two programs against the e2e stack. `--prefer-offline`: what the root `npm ci`
 * put in npm's cache serves the SDK's own dependency and the example's TypeScript.
 */
let outside: string;
let project: string;

beforeAll(async () => {
  outside = mkdtempSync(join(tmpdir(), 'mis-sdk-example-'));
  // prepack builds dist/ with tsc first.
  await run('npm', ['pack', '--pack-destination', outside, '--silent'], { cwd: sdkDir });
  const tarball = readdirSync(outside).find((name) => name.endsWith('.tgz'));
  if (!tarball) throw new Error(`npm pack made no tarball in ${outside}`);
  project = join(outside, 'example');
  cpSync(exampleDir, project, { recursive: true, filter: (source) => !source.includes('node_modules') });
  const manifest = JSON.parse(readFileSync(join(project, 'package.json'), 'utf8'));
  manifest.dependencies['@mis/client'] = `file:${join(outside, tarball)}`;
  writeFileSync(join(project, 'package.json'), JSON.stringify(manifest, null, 2));
  await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'], {
    cwd: project,
  });
}, 240_000);
afterAll(() => rmSync(outside, { recursive: true, force: true }));

async function example(script: string, token: string): Promise<Record<string, unknown>> {
  const { stdout } = await run(
    process.execPath,
    ['--disable-warning=ExperimentalWarning', `src/${script}.ts`],
    {
      cwd: project,
      env: { ...process.env, MIS_BASE_URL: baseUrl(), MIS_TOKEN: token },
      timeout: 60_000,
    },
  );
  const lines = stdout.trim().split('\n');
  return JSON.parse(lines.at(-1) ?? '{}');
}

describe('the SDK installed outside the repository', () => {
  it('is a copy of the packed package (built JavaScript and declarations, no sources), not a link', () => {
    const installed = join(project, 'node_modules', '@mis', 'client');
    expect(lstatSync(installed).isSymbolicLink()).toBe(false);
    const files = readdirSync(join(installed, 'dist'));
    expect(files).toEqual(expect.arrayContaining(['index.js', 'index.d.ts', 'verify-webhook.js']));
    expect(files.some((file) => file.endsWith('.ts') && !file.endsWith('.d.ts'))).toBe(false);
    expect(readdirSync(join(project, 'node_modules'))).toContain('openapi-fetch');
  });

  it("typechecks the example against the package's declarations", async () => {
    await run('npm', ['run', '--silent', 'typecheck'], { cwd: project });
  }, 60_000);

  it('calls the API: ping, declare and contain, page through incidents, read a 404 problem', async () => {
    const { writer } = await unthrottledOrganisation();
    const result = await example('call-api', writer);
    expect(result).toMatchObject({ status: 'contained', incidents: 1, missing: '404 not_found' });
    expect(result.declared).toMatch(/^[0-9a-f-]{36}$/);
  }, 60_000);

  it('receives a webhook and verifies it', async () => {
    const { writer } = await unthrottledOrganisation();
    const result = await example('receive-webhooks', writer);
    expect(result.verified).toBe('incident.declared');
    expect(result.incidentId).toBe(result.declared);
  }, 60_000);
});
