import packageJson from '../../package.json' with { type: 'json' };
import { MAX_DELIVERY_ATTEMPTS } from '../../shared/domain/retry-schedule.js';

/**
 * The command line of `mis`: every group, command and option once, from which the parser, the
 * three levels of help and the error messages are all made.
 */

export const VERSION = packageJson.version;

interface OptionSpec {
  placeholder: string;
  description: string;
  required?: true;
}

interface CommandSpec {
  summary: string;
  description: string;
  /** The one positional argument, if the command takes one (always required). */
  argument?: { name: string; description: string };
  options: Readonly<Record<string, OptionSpec>>;
  example: string;
}

interface GroupSpec {
  summary: string;
  commands: Readonly<Record<string, CommandSpec>>;
}

const ORG: OptionSpec = { placeholder: '<orgId>', description: "the organisation's id", required: true };
const ENDPOINT = { name: 'endpointId', description: "the endpoint's id, from mis webhook list" };

export const GROUPS = {
  org: {
    summary: 'organisations',
    commands: {
      create: {
        summary: 'creates an organisation',
        description: 'Creates an organisation and prints its id, which the other commands take as --org.',
        options: {
          name: { placeholder: '<name>', description: 'its name, 1 to 200 characters', required: true },
          tier: { placeholder: 'standard|enterprise', description: 'its tier (default standard)' },
          'rate-limit': {
            placeholder: '<n>',
            description:
              'requests per minute per token; only an enterprise organisation has its own (default 60)',
          },
        },
        example: 'npx mis org create --name "Friends of the Park"',
      },
    },
  },
  token: {
    summary: "an organisation's API tokens",
    commands: {
      issue: {
        summary: 'issues a token (shown only this once)',
        description:
          'Issues an API token for an organisation. The token is shown only this once: only its SHA-256 is stored.',
        options: {
          org: ORG,
          scopes: {
            placeholder: 'read[,write]',
            description: 'what the token may do: read, write or both',
            required: true,
          },
          name: { placeholder: '<label>', description: 'a label for mis token list (default: the token id)' },
        },
        example: 'npx mis token issue --org 6f1d3c52-1e0b-4c55-9a8e-2f43b7d90a11 --scopes read,write',
      },
      list: {
        summary: "lists an organisation's tokens",
        description:
          "Lists an organisation's tokens with their scopes, and when each was created, revoked and last used (as fresh as the authorizer's 60-second cache).",
        options: { org: ORG },
        example: 'npx mis token list --org 6f1d3c52-1e0b-4c55-9a8e-2f43b7d90a11',
      },
      revoke: {
        summary: 'revokes a token at once',
        description:
          "Revokes a token and flushes the API's authorizer cache, so that the token is refused from the next request on.",
        argument: { name: 'tokenId', description: "the token's id (tok_…), from mis token list" },
        options: {},
        example: 'npx mis token revoke tok_AbCd1234',
      },
    },
  },
  webhook: {
    summary: "an organisation's webhook endpoints",
    commands: {
      add: {
        summary: 'registers a webhook endpoint (its secret is shown only this once)',
        description:
          'Registers a webhook endpoint for an organisation and prints its signing secret, shown only this once.',
        options: {
          org: ORG,
          url: { placeholder: '<url>', description: 'where the events are POSTed', required: true },
          events: {
            placeholder: '<a,b>',
            description: 'the events it receives, comma-separated (default: all)',
          },
        },
        example:
          'npx mis webhook add --org 6f1d3c52-1e0b-4c55-9a8e-2f43b7d90a11 --url https://example.org/hooks/mis',
      },
      list: {
        summary: "lists an organisation's endpoints with their status",
        description:
          "Lists an organisation's webhook endpoints: URL, events, status and why a disabled one is disabled (gone, failing or manual). Never their secrets.",
        options: { org: ORG },
        example: 'npx mis webhook list --org 6f1d3c52-1e0b-4c55-9a8e-2f43b7d90a11',
      },
      show: {
        summary: 'shows one endpoint (as GET /webhooks/{id})',
        description: 'Shows one endpoint as GET /webhooks/{id} answers it, with its status.',
        argument: ENDPOINT,
        options: { org: ORG },
        example:
          'npx mis webhook show 0b9d7c1e-2f4a-4e8b-9c3d-5a6f7e8d9c0b --org 6f1d3c52-1e0b-4c55-9a8e-2f43b7d90a11',
      },
      enable: {
        summary: 'enables an endpoint again (then recover what was skipped)',
        description:
          'Enables a disabled endpoint: it is sent its events again. What it missed meanwhile is in its delivery log as skipped; mis webhook recover sends it.',
        argument: ENDPOINT,
        options: { org: ORG },
        example:
          'npx mis webhook enable 0b9d7c1e-2f4a-4e8b-9c3d-5a6f7e8d9c0b --org 6f1d3c52-1e0b-4c55-9a8e-2f43b7d90a11',
      },
      disable: {
        summary: 'disables an endpoint; its events are kept as skipped',
        description:
          'Disables an endpoint (reason manual): nothing is sent to it, and its events are kept in its delivery log as skipped, to be recovered.',
        argument: ENDPOINT,
        options: { org: ORG },
        example:
          'npx mis webhook disable 0b9d7c1e-2f4a-4e8b-9c3d-5a6f7e8d9c0b --org 6f1d3c52-1e0b-4c55-9a8e-2f43b7d90a11',
      },
      test: {
        summary: 'sends webhook.test to the endpoint',
        description:
          'Sends {event: "webhook.test", organisationId, webhook: {id}, attempt} to this endpoint alone, signed, one attempt; prints the delivery id to look for in its delivery log.',
        argument: ENDPOINT,
        options: { org: ORG },
        example:
          'npx mis webhook test 0b9d7c1e-2f4a-4e8b-9c3d-5a6f7e8d9c0b --org 6f1d3c52-1e0b-4c55-9a8e-2f43b7d90a11',
      },
      recover: {
        summary: 'sends again what failed or was skipped since a time',
        description:
          'Sends again every delivery of the endpoint whose last outcome since --since is failed or skipped, each with a fresh retry schedule; prints how many. --since must lie within the delivery log retention (90 days by default) and not in the future.',
        argument: ENDPOINT,
        options: {
          org: ORG,
          since: {
            placeholder: '<instant>',
            description: 'RFC 3339 date-time, e.g. 2026-11-20T08:00:00Z',
            required: true,
          },
        },
        example:
          'npx mis webhook recover 0b9d7c1e-2f4a-4e8b-9c3d-5a6f7e8d9c0b --org 6f1d3c52-1e0b-4c55-9a8e-2f43b7d90a11 --since 2026-11-20T08:00:00Z',
      },
    },
  },
  dlq: {
    summary: 'webhook deliveries that failed every attempt',
    commands: {
      list: {
        summary: `lists deliveries that failed ${MAX_DELIVERY_ATTEMPTS} times, with their last error`,
        description: `Lists the dead-letter queue: deliveries that failed ${MAX_DELIVERY_ATTEMPTS} times, with their event, endpoint, attempts and last error. Nothing is taken off the queue.`,
        options: {},
        example: 'npx mis dlq list',
      },
      redrive: {
        summary: 'sends them back for delivery',
        description:
          'Sends every dead-lettered delivery back for delivery, with the same delivery id; it gets a fresh schedule of attempts.',
        options: {},
        example: 'npx mis dlq redrive',
      },
    },
  },
  outbox: {
    summary: 'events the relay has not passed on yet',
    commands: {
      overdue: {
        summary: 'lists events not relayed for longer than a threshold',
        description:
          "Lists committed events that no relay receipt names, committed longer than --older-than seconds ago (default: the sweep's threshold), with their replays. The timers function puts them back on the stream; a growing list means the relay is stuck.",
        options: {
          'older-than': {
            placeholder: '<seconds>',
            description: "how long unrelayed (default: the sweep's threshold)",
          },
        },
        example: 'npx mis outbox overdue --older-than 60',
      },
    },
  },
  deliveries: {
    summary: 'webhook deliveries waiting for their next attempt',
    commands: {
      stuck: {
        summary: 'lists deliveries whose next attempt is overdue',
        description:
          'Lists webhook deliveries whose next attempt (a retry, or a delivery sent back while its endpoint was limited) was due more than --older-than seconds ago (default 300) and has not happened: a lost visibility change, a worker that keeps dying. Redeliver them by hand or redrive the dead-letter queue; the StuckDeliveries alarm watches the same list on AWS.',
        options: {
          'older-than': {
            placeholder: '<seconds>',
            description: 'how long overdue (default 300)',
          },
        },
        example: 'npx mis deliveries stuck --older-than 600',
      },
    },
  },
} as const satisfies Record<string, GroupSpec>;

type Groups = typeof GROUPS;
export type GroupName = keyof Groups;
export type CommandName = {
  [G in GroupName]: `${G} ${keyof Groups[G]['commands'] & string}`;
}[GroupName];

const GLOBAL_OPTIONS: Readonly<Record<string, OptionSpec>> = {
  stack: {
    placeholder: '<name>',
    description: 'act on a deployed stack (its CloudFormation name) with the usual AWS credentials',
  },
};

const GLOBAL_HELP = `Options of every command:
  --json            JSON on stdout; an error as {"error":{"code","message"}} on stderr
  --stack <name>    ${GLOBAL_OPTIONS.stack?.description}
  -h, --help        this help; also mis <group> --help and mis <group> <command> --help
  -v, --version     the version of mis

Without --stack, mis acts on the running local stack (npm start), whatever DATA_DIR it was started
with; when several are running, choose one with DATA_DIR=<its DATA_DIR> before the command.
Exit codes: 0 done, 1 the command failed (e.g. not found, no stack running), 2 the command line is wrong.`;

/** A mistake in the command line: one line, exit code 2. */
export class UsageError extends Error {
  constructor(
    readonly code:
      | 'unknown_command'
      | 'missing_command'
      | 'unknown_option'
      | 'missing_value'
      | 'repeated_option'
      | 'missing_option'
      | 'unexpected_argument'
      | 'missing_argument'
      | 'invalid_value',
    message: string,
  ) {
    super(message);
    this.name = 'UsageError';
  }
}

export type Invocation =
  | { kind: 'help'; text: string }
  | { kind: 'version' }
  | {
      kind: 'run';
      command: CommandName;
      /** Each option given, without its `--`, and its value. */
      options: ReadonlyMap<string, string>;
      argument: string | undefined;
      json: boolean;
      stack: string | undefined;
    };

function findGroup(name: string): GroupSpec {
  if (Object.hasOwn(GROUPS, name)) return (GROUPS as Record<string, GroupSpec>)[name] as GroupSpec;
  throw new UsageError(
    'unknown_command',
    `Unknown command "${name}": it is one of ${Object.keys(GROUPS).join(', ')} (see mis --help).`,
  );
}

function findCommand(groupName: string, group: GroupSpec, name: string): CommandSpec {
  if (Object.hasOwn(group.commands, name)) return group.commands[name] as CommandSpec;
  throw new UsageError(
    'unknown_command',
    `Unknown command "mis ${groupName} ${name}": mis ${groupName} has ${Object.keys(group.commands).join(', ')} (see mis ${groupName} --help).`,
  );
}

function synopsis(command: CommandSpec): string {
  return [
    ...(command.argument ? [`<${command.argument.name}>`] : []),
    ...Object.entries(command.options).map(([name, option]) => {
      const word = `--${name} ${option.placeholder}`;
      return option.required ? word : `[${word}]`;
    }),
  ].join(' ');
}

const columns = (rows: [string, string][]): string => {
  const width = Math.max(...rows.map(([left]) => left.length)) + 2;
  return rows.map(([left, right]) => `  ${left.padEnd(width)}${right}`).join('\n');
};

function mainHelp(): string {
  const rows = Object.entries(GROUPS as Record<string, GroupSpec>).flatMap(([groupName, group]) =>
    Object.entries(group.commands).map(([name, command]): [string, string] => [
      `${groupName} ${name}`,
      command.summary,
    ]),
  );
  return `mis ${VERSION}: the operator CLI of the Membership and Incident Service

Usage: mis <group> <command> [options]
       mis help [<group> [<command>]]

Commands:
${columns(rows)}

${GLOBAL_HELP}`;
}

function groupHelp(groupName: string, group: GroupSpec): string {
  const rows = Object.entries(group.commands).map(([name, command]): [string, string] => [
    name,
    command.summary,
  ]);
  return `Usage: mis ${groupName} <command> [options]

Commands on ${group.summary}:
${columns(rows)}

${Object.entries(group.commands)
  .map(([name, command]) => `  mis ${groupName} ${name} ${synopsis(command)}`.trimEnd())
  .join('\n')}

mis ${groupName} <command> --help tells more; mis --help lists every command and the options they all take.`;
}

function commandHelp(groupName: string, name: string, command: CommandSpec): string {
  const rows: [string, string][] = [
    ...(command.argument
      ? [[`<${command.argument.name}>`, command.argument.description] as [string, string]]
      : []),
    ...Object.entries(command.options).map(([option, spec]): [string, string] => [
      `--${option} ${spec.placeholder}`,
      `${spec.description}${spec.required ? ' (required)' : ''}`,
    ]),
    ['--json', 'JSON on stdout; an error as {"error":{"code","message"}} on stderr'],
    ['--stack <name>', 'act on a deployed stack instead of the local one (see mis --help)'],
  ];
  return `Usage: mis ${groupName} ${name} ${synopsis(command)}`.trimEnd().concat(`

${command.description}

${columns(rows)}

Example:
  ${command.example}`);
}

/** Whether errors are to be printed as JSON: known even when the rest of the command line is wrong. */
export function wantsJson(argv: readonly string[]): boolean {
  return argv.includes('--json');
}

interface GivenOption {
  name: string;
  value: string | undefined;
}

/** Parses `mis`'s arguments (without `node` and the script). Throws a UsageError for any mistake. */
export function parseCommandLine(argv: readonly string[]): Invocation {
  const words: string[] = [];
  const given: GivenOption[] = [];
  let help = false;
  let version = false;
  let json = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === '-h' || arg === '--help') help = true;
    else if (arg === '-v' || arg === '--version') version = true;
    else if (arg === '--json') json = true;
    else if (arg.startsWith('--')) {
      const equals = arg.indexOf('=');
      if (equals !== -1) {
        given.push({ name: arg.slice(2, equals), value: arg.slice(equals + 1) });
        continue;
      }
      // An option's value is the next argument unless that is an option itself: `--rate-limit -5`
      // gives -5 (refused as a value), `--name --json` gives no name.
      const next = argv[i + 1];
      const takesValue = arg !== '--' && isValueOption(arg.slice(2));
      if (takesValue && next !== undefined && !next.startsWith('--')) {
        given.push({ name: arg.slice(2), value: next });
        i++;
      } else given.push({ name: arg.slice(2), value: undefined });
    } else if (arg.startsWith('-') && arg !== '-') given.push({ name: arg.slice(1), value: undefined });
    else words.push(arg);
  }

  if (words[0] === 'help') return { kind: 'help', text: helpFor(words.slice(1)) };
  if (help) return { kind: 'help', text: helpFor(words) };
  if (version) return { kind: 'version' };
  const [groupName, commandName, ...rest] = words;
  if (groupName === undefined) {
    const first = given[0];
    if (!first) return { kind: 'help', text: mainHelp() };
    if (!isValueOption(first.name)) {
      throw new UsageError('unknown_option', `mis has no option ${optionWord(first.name)} (see mis --help).`);
    }
    throw new UsageError('missing_command', 'mis needs a command (see mis --help).');
  }
  const group = findGroup(groupName);
  if (commandName === undefined) {
    throw new UsageError(
      'missing_command',
      `mis ${groupName} needs a command: ${Object.keys(group.commands).join(', ')} (see mis ${groupName} --help).`,
    );
  }
  const command = findCommand(groupName, group, commandName);

  const usage = `mis ${groupName} ${commandName}`;
  const see = `(see ${usage} --help)`;
  const options = new Map<string, string>();
  for (const { name, value } of given) {
    const display = optionWord(name);
    if (!Object.hasOwn(command.options, name) && !Object.hasOwn(GLOBAL_OPTIONS, name)) {
      throw new UsageError('unknown_option', `${usage} has no option ${display} ${see}.`);
    }
    if (value === undefined || value.trim() === '') {
      const placeholder = (command.options[name] ?? GLOBAL_OPTIONS[name])?.placeholder;
      throw new UsageError('missing_value', `${display} needs a value: ${display} ${placeholder} ${see}.`);
    }
    if (options.has(name)) throw new UsageError('repeated_option', `${display} is given twice ${see}.`);
    options.set(name, value);
  }

  const [argument, ...extra] = rest;
  if (command.argument && argument === undefined) {
    throw new UsageError(
      'missing_argument',
      `${usage} needs <${command.argument.name}>: ${command.argument.description} ${see}.`,
    );
  }
  const unexpected = command.argument ? extra[0] : argument;
  if (unexpected !== undefined) {
    throw new UsageError('unexpected_argument', `${usage} does not take "${unexpected}" ${see}.`);
  }
  for (const [name, option] of Object.entries(command.options)) {
    if (option.required && !options.has(name)) {
      throw new UsageError('missing_option', `${usage} needs --${name} ${option.placeholder} ${see}.`);
    }
  }
  const stack = options.get('stack');
  options.delete('stack');
  return {
    kind: 'run',
    command: `${groupName} ${commandName}` as CommandName,
    options,
    argument: command.argument ? argument : undefined,
    json,
    stack,
  };
}

const optionWord = (name: string) => (name.length === 1 ? `-${name}` : `--${name}`);

function isValueOption(name: string): boolean {
  return (
    Object.hasOwn(GLOBAL_OPTIONS, name) ||
    Object.values(GROUPS as Record<string, GroupSpec>).some((group) =>
      Object.values(group.commands).some((command) => Object.hasOwn(command.options, name)),
    )
  );
}

/** The help of the level that `words` name: the whole CLI, a group or a command. */
function helpFor(words: readonly string[]): string {
  const [groupName, commandName] = words;
  if (groupName === undefined) return mainHelp();
  const group = findGroup(groupName);
  if (commandName === undefined) return groupHelp(groupName, group);
  return commandHelp(groupName, commandName, findCommand(groupName, group, commandName));
}
