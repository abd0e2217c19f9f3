import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, inject, it, vi } from 'vitest';
import packageJson from '../../package.json' with { type: 'json' };
import { registerLocalStack } from '../../shared/topology/local-stack.js';
import { startLocalStack } from '../support/local-stack.js';

/**
 * `mis` as an operator meets it: run through bin.js in a process of its own, with its exit code,
 * stdout and stderr; the help at each level, one-line errors for a wrong command line, the same
 * error for an unknown organisation on every command, and the stack found whatever its DATA_DIR.
 */
const root = join(import.meta.dirname, '..', '..');

interface Outcome {
  code: number;
  stdout: string;
  stderr: string;
}

function run(
  file: string,
  args: string[],
  options: { env?: Record<string, string | undefined>; cwd?: string } = {},
): Promise<Outcome> {
  return new Promise((resolve) => {
    execFile(
      file,
      args,
      { cwd: options.cwd ?? root, env: { ...process.env, ...options.env }, timeout: 60_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/** `mis <args>`, against the shared e2e stack unless env says otherwise. */
const mis = (args: string[], env: Record<string, string | undefined> = {}, cwd?: string) =>
  run(process.execPath, [join(root, 'infra/cli/bin.js'), ...args], {
    env: { DATA_DIR: inject('stackDataDir'), ...env },
    ...(cwd ? { cwd } : {}),
  });

/** A command line as a person pastes it into a shell. */
const shell = (line: string, env: Record<string, string | undefined>) =>
  run('/bin/sh', ['-c', line], { env });

const COMMANDS = [
  'org create',
  'token issue',
  'token list',
  'token revoke',
  'webhook add',
  'webhook list',
  'webhook show',
  'webhook enable',
  'webhook disable',
  'webhook test',
  'webhook recover',
  'dlq list',
  'dlq redrive',
  'deliveries stuck',
];

describe('mis help', () => {
  it('prints the usage of every command for mis, mis help, mis --help and mis -h', async () => {
    const outcomes = await Promise.all([[], ['help'], ['--help'], ['-h']].map((args) => mis(args)));
    for (const outcome of outcomes) {
      expect(outcome).toMatchObject({ code: 0, stderr: '' });
      expect(outcome.stdout).toBe(outcomes[0]?.stdout);
    }
    const usage = outcomes[0]?.stdout ?? '';
    expect(usage).toContain('Usage: mis <group> <command> [options]');
    for (const command of COMMANDS) expect(usage).toMatch(new RegExp(`^ {2}${command} `, 'm'));
    for (const option of ['--json', '--stack <name>', '--help', '--version']) expect(usage).toContain(option);
  });

  it("prints a group's commands for mis <group> --help and mis help <group>", async () => {
    const [flag, word] = await Promise.all([mis(['token', '--help']), mis(['help', 'token'])]);
    expect(flag).toMatchObject({ code: 0, stderr: '' });
    expect(word.stdout).toBe(flag.stdout);
    expect(flag.stdout).toContain('Usage: mis token <command> [options]');
    for (const synopsis of [
      'mis token issue --org <orgId> --scopes read[,write] [--name <label>]',
      'mis token list --org <orgId>',
      'mis token revoke <tokenId>',
    ]) {
      expect(flag.stdout).toContain(synopsis);
    }
    expect(flag.stdout).not.toContain('org create');
  });

  it("prints a command's options for mis <group> <command> --help, wherever --help is", async () => {
    const outcomes = await Promise.all([
      mis(['org', 'create', '--help']),
      mis(['help', 'org', 'create']),
      mis(['org', 'create', '--name', 'X', '-h']),
    ]);
    for (const outcome of outcomes) expect(outcome).toMatchObject({ code: 0, stderr: '' });
    const [help] = outcomes;
    expect(outcomes.map((o) => o.stdout)).toEqual(Array(3).fill(help?.stdout));
    expect(help?.stdout).toMatch(
      /^Usage: mis org create --name <name> \[--tier standard\|enterprise\] \[--rate-limit <n>\]\n/,
    );
    for (const option of ['--name <name>', '--tier standard|enterprise', '--rate-limit <n>', '--json']) {
      expect(help?.stdout).toMatch(new RegExp(`^ {2}${option.replace(/[[\]|]/g, '\\$&')} +\\S`, 'm'));
    }
    expect(help?.stdout).toContain('Example:\n  npx mis org create --name');
  });

  it("prints the package's version for --version and -v", async () => {
    for (const flag of ['--version', '-v']) {
      expect(await mis([flag])).toEqual({ code: 0, stdout: `${packageJson.version}\n`, stderr: '' });
    }
  });
});

describe('a wrong command line', () => {
  /** Each: the arguments, the error code in --json, and what the one-line message says. */
  const mistakes: [string, string[], string, RegExp][] = [
    ['an unknown flag', ['org', 'create', '--name', 'X', '--bogus'], 'unknown_option', /no option --bogus/],
    ['a flag of another command', ['token', 'list', '--org', 'x', '--url', 'y'], 'unknown_option', /--url/],
    ['a missing value', ['org', 'create', '--name'], 'missing_value', /--name needs a value/],
    ['an option for a value', ['org', 'create', '--name', '--tier', 'enterprise'], 'missing_value', /--name/],
    ['a negative rate limit', ['org', 'create', '--name', 'X', '--rate-limit', '-5'], 'invalid_value', /-5/],
    [
      'a rate limit that is no number',
      ['org', 'create', '--name', 'X', '--rate-limit', 'ten'],
      'invalid_value',
      /ten/,
    ],
    ['an unknown tier', ['org', 'create', '--name', 'X', '--tier', 'gold'], 'invalid_value', /gold/],
    ['unknown scopes', ['token', 'issue', '--org', 'x', '--scopes', 'admin'], 'invalid_value', /admin/],
    [
      'an unknown event',
      ['webhook', 'add', '--org', 'x', '--url', 'http://localhost/x', '--events', 'nope'],
      'invalid_value',
      /nope/,
    ],
    ['a required option left out', ['token', 'issue', '--org', 'x'], 'missing_option', /--scopes/],
    ['an unknown command', ['frobnicate'], 'unknown_command', /frobnicate/],
    ['an unknown command of a group', ['token', 'burn'], 'unknown_command', /burn/],
    ['a group without a command', ['token'], 'missing_command', /create|issue/],
    ['a missing argument', ['token', 'revoke'], 'missing_argument', /<tokenId>/],
    ['an extra argument', ['token', 'revoke', 'tok_a', 'tok_b'], 'unexpected_argument', /tok_b/],
  ];

  it.each(mistakes)(
    '%s: one line on stderr, exit code 2; with --json, {"error": {"code", "message"}}',
    async (_, args, code, says) => {
      const [text, json] = await Promise.all([mis(args), mis([...args, '--json'])]);
      expect(text.code).toBe(2);
      expect(text.stdout).toBe('');
      expect(text.stderr).toMatch(/^error: [^\n]+\n$/);
      expect(text.stderr).toMatch(says);
      expect(text.stderr).not.toMatch(/\bat .*:\d+:\d+|node:internal|Error \[/);

      expect(json.code).toBe(2);
      expect(json.stdout).toBe('');
      expect(json.stderr).toMatch(/^[^\n]+\n$/);
      expect(JSON.parse(json.stderr)).toEqual({
        error: { code, message: text.stderr.trim().replace(/^error: /, '') },
      });
    },
  );
});

describe('an unknown organisation', () => {
  const unknown = '00000000-0000-4000-8000-000000000000';
  const commands = [
    ['token', 'issue', '--org', unknown, '--scopes', 'read'],
    ['token', 'list', '--org', unknown],
    ['webhook', 'add', '--org', unknown, '--url', 'http://localhost:9/hooks'],
  ];

  it('is the same error on token issue, token list and webhook add', async () => {
    const outcomes = await Promise.all(commands.map((args) => mis(args)));
    for (const outcome of outcomes) {
      expect(outcome).toEqual({
        code: 1,
        stdout: '',
        stderr: `error: Organisation ${unknown} was not found.\n`,
      });
    }
    const json = await Promise.all(commands.map((args) => mis([...args, '--json'])));
    for (const outcome of json) {
      expect(outcome.code).toBe(1);
      expect(JSON.parse(outcome.stderr)).toEqual({
        error: { code: 'not_found', message: `Organisation ${unknown} was not found.` },
      });
    }
  });
});

describe('the local stack, whatever its DATA_DIR', { timeout: 120_000 }, () => {
  it("is found without DATA_DIR, and the start banner's commands work as they are pasted", async () => {
    // Its own register of running stacks (under TMPDIR), so that no other stack on the machine is in it.
    const register = mkdtempSync(join(tmpdir(), 'mis-register-'));
    const stack = await startLocalStack({ TMPDIR: register });
    const pasted = { DATA_DIR: undefined, TMPDIR: register };
    try {
      // From another folder, without DATA_DIR: the only stack running.
      const found = await mis(['org', 'create', '--name', 'Found', '--json'], pasted, register);
      expect(found.stderr).toBe('');
      const foundId = (JSON.parse(found.stdout) as { id: string }).id;
      expect(await mis(['token', 'list', '--org', foundId], { DATA_DIR: stack.dataDir })).toMatchObject({
        code: 0,
        stdout: 'No tokens.\n',
      });

      // With a second stack running (the shared one), no DATA_DIR is ambiguous: the error says how to choose.
      vi.stubEnv('TMPDIR', register);
      registerLocalStack(inject('stackDataDir'));
      vi.unstubAllEnvs();
      const ambiguous = await mis(['dlq', 'list'], pasted, register);
      expect(ambiguous).toMatchObject({ code: 1, stdout: '' });
      expect(ambiguous.stderr).toMatch(/^error: 2 local stacks are running; choose one by setting DATA_DIR/);
      for (const dir of [stack.dataDir, inject('stackDataDir')]) expect(ambiguous.stderr).toContain(dir);

      // The banner names this stack's DATA_DIR, and org create answers with the next command, ready to paste.
      const banner = stack.output().match(/First token, from this project's folder: (.+)\n/)?.[1];
      expect(banner).toBe(`DATA_DIR=${stack.dataDir} npx mis org create --name "My association"`);
      const created = await shell(banner as string, pasted);
      expect(created).toMatchObject({ code: 0 });
      const [, orgId] = created.stdout.match(/ id: +(\S+)/) ?? [];
      const next = created.stdout.trimEnd().split('\n').at(-1)?.trim() ?? '';
      expect(next).toBe(`DATA_DIR=${stack.dataDir} npx mis token issue --org ${orgId} --scopes read,write`);

      const issued = await shell(next, pasted);
      expect(issued).toMatchObject({ code: 0 });
      const token = issued.stdout.match(/\bsvc_\w+_\w+/)?.[0];
      const ping = await fetch(`${stack.baseUrl}/ping`, { headers: { Authorization: `Bearer ${token}` } });
      expect(ping.status).toBe(200);
      expect(await ping.json()).toMatchObject({ organisationId: orgId });
    } finally {
      await stack.stop();
    }
    const stopped = await mis(['dlq', 'list'], { DATA_DIR: stack.dataDir }, register);
    expect(stopped).toMatchObject({ code: 1, stdout: '' });
    expect(stopped.stderr).toMatch(
      /^error: The local stack with DATA_DIR=\S+ is not running: start it with `npm start`/,
    );
  });
});
