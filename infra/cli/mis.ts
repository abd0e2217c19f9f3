import { createOrganisation, getOrganisation } from '../../shared/adapters/organisation-store.js';
import { issueToken, listTokens, revokeToken, summariseToken } from '../../shared/adapters/token-store.js';
import {
  createWebhookEndpoint,
  listWebhookEndpoints,
  updateWebhookEndpoint,
} from '../../shared/adapters/webhook-endpoint-store.js';
import { assertAcceptableWebhookUrl } from '../../shared/adapters/webhook-sender.js';
import { ownEndpoint, recoverDeliveries, sendTestDelivery } from '../../shared/app/send-again.js';
import { stuckDeliveries } from '../../shared/app/stuck-deliveries.js';
import { unrelayedEvents } from '../../shared/app/sweep-outbox.js';
import { DomainError, NotFoundError, ValidationError } from '../../shared/domain/errors.js';
import { MAX_RATE_LIMIT, STANDARD_RATE_LIMIT, TIERS, type Tier } from '../../shared/domain/organisation.js';
import { parseScopes, type Scope } from '../../shared/domain/token.js';
import {
  isWebhookEventName,
  WEBHOOK_EVENT_NAMES,
  type WebhookEventName,
} from '../../shared/domain/webhook-events.js';
import { webhookEndpointView } from '../../shared/domain/webhook-view.js';
import { shellWord } from '../../shared/topology/local-stack.js';
import { type Invocation, parseCommandLine, UsageError, VERSION, wantsJson } from './commands.js';
import { sendToDeliveryQueue } from './delivery-queue.js';
import { listDeadLetters, redriveDeadLetters, resolveDeadLetterTarget } from './dlq.js';
import { CliError, resolveTarget } from './target.js';

type Run = Extract<Invocation, { kind: 'run' }>;

const argv = process.argv.slice(2);
const json = wantsJson(argv);

function print(result: unknown, human: string): void {
  console.log(json ? JSON.stringify(result, null, 2) : human);
}

const invalid = (run: Run, message: string) =>
  new UsageError('invalid_value', `${message} (see mis ${run.command} --help).`);

function tierOf(run: Run): Tier {
  const tier = run.options.get('tier') ?? 'standard';
  if (!(TIERS as readonly string[]).includes(tier)) {
    throw invalid(run, `--tier must be one of ${TIERS.join(', ')}, not "${tier}"`);
  }
  return tier as Tier;
}

function rateLimitOf(run: Run, tier: Tier): number | undefined {
  const given = run.options.get('rate-limit');
  if (given === undefined) return undefined;
  const limit = /^\d+$/.test(given) ? Number(given) : Number.NaN;
  if (!(limit >= 1 && limit <= MAX_RATE_LIMIT)) {
    throw invalid(run, `--rate-limit must be a whole number from 1 to ${MAX_RATE_LIMIT}, not "${given}"`);
  }
  if (tier !== 'enterprise' && limit !== STANDARD_RATE_LIMIT) {
    throw invalid(run, 'Only an enterprise organisation (--tier enterprise) can have its own --rate-limit');
  }
  return limit;
}

function scopesOf(run: Run): Scope[] {
  const given = run.options.get('scopes') ?? '';
  try {
    return parseScopes(given);
  } catch {
    throw invalid(run, `--scopes must be read, write or read,write, not "${given}"`);
  }
}

function eventsOf(run: Run): WebhookEventName[] {
  const events = (run.options.get('events') ?? '').split(',').filter(Boolean);
  const unknown = events.filter((e) => !isWebhookEventName(e));
  if (unknown.length > 0) {
    throw invalid(run, `Unknown events: ${unknown.join(', ')}; known: ${WEBHOOK_EVENT_NAMES.join(', ')}`);
  }
  return events as WebhookEventName[];
}

/** The organisation, or the one error every command gives for an organisation that does not exist. */
async function existingOrganisation(organisationId: string): Promise<string> {
  if (!(await getOrganisation(organisationId))) throw new NotFoundError(`Organisation ${organisationId}`);
  return organisationId;
}

/** The command an operator runs next, ready to paste: it reaches the same stack as this one. */
function sameStack(run: Run, command: string): string {
  const dataDir = process.env.DATA_DIR && !run.stack ? `DATA_DIR=${shellWord(process.env.DATA_DIR)} ` : '';
  const stack = run.stack ? ` --stack ${shellWord(run.stack)}` : '';
  return `${dataDir}npx mis ${command}${stack}`;
}

async function execute(run: Run): Promise<void> {
  const option = (name: string) => run.options.get(name) as string;
  switch (run.command) {
    case 'org create': {
      const tier = tierOf(run);
      const rateLimitPerMinute = rateLimitOf(run, tier);
      const target = await resolveTarget(run.stack);
      const org = await createOrganisation({ name: option('name'), tier, rateLimitPerMinute });
      print(
        { id: org.id, name: org.name, tier: org.tier, rateLimitPerMinute: org.rateLimitPerMinute },
        [
          `Organisation created on the ${target.description}`,
          `  id:         ${org.id}`,
          `  name:       ${org.name}`,
          `  tier:       ${org.tier}`,
          `  rate limit: ${org.rateLimitPerMinute} requests per minute per token`,
          '',
          'Its first token:',
          `  ${sameStack(run, `token issue --org ${org.id} --scopes read,write`)}`,
        ].join('\n'),
      );
      return;
    }
    case 'token issue': {
      const scopes = scopesOf(run);
      await resolveTarget(run.stack);
      const { token, record } = await issueToken({
        organisationId: option('org'),
        scopes,
        name: run.options.get('name'),
      });
      print(
        { id: record.id, token, prefix: record.prefix, scopes: record.scopes },
        `Token ${record.id} issued (scopes: ${record.scopes.join(', ')})\n\n  ${token}\n\nThis is the only time the token is shown: store it now. Only its hash is kept.`,
      );
      return;
    }
    case 'token list': {
      await resolveTarget(run.stack);
      const tokens = (await listTokens(await existingOrganisation(option('org')))).map(summariseToken);
      const lines = tokens.map(
        (t) =>
          `  ${t.id}  ${t.scopes.join(',').padEnd(10)}  ${t.name}  created ${t.createdAt}` +
          `${t.revokedAt ? `  REVOKED ${t.revokedAt}` : ''}${t.lastUsedAt ? `  last used ${t.lastUsedAt}` : ''}`,
      );
      print(tokens, tokens.length ? lines.join('\n') : 'No tokens.');
      return;
    }
    case 'token revoke': {
      const target = await resolveTarget(run.stack);
      const revoked = await revokeToken(run.argument as string);
      await target.flushAuthorizerCache();
      print(
        revoked,
        `Token ${revoked.id} revoked at ${revoked.revokedAt}; the authorizer cache was flushed.`,
      );
      return;
    }
    case 'webhook add': {
      const events = eventsOf(run);
      await resolveTarget(run.stack);
      // After the target: the local stack accepts http and loopback URLs, AWS does not.
      assertAcceptableWebhookUrl(option('url'));
      const { endpoint, secret } = await createWebhookEndpoint({
        organisationId: await existingOrganisation(option('org')),
        url: option('url'),
        events,
      });
      const view = webhookEndpointView(endpoint);
      print(
        { id: view.id, url: view.url, events: view.events, secret },
        `Webhook endpoint ${view.id} added for ${view.url}\n  events: ${view.events.join(', ')}\n\n  signing secret: ${secret}\n\nThis is the only time the secret is shown: store it in the receiver's configuration now.`,
      );
      return;
    }
    case 'webhook list': {
      await resolveTarget(run.stack);
      const endpoints = (await listWebhookEndpoints(await existingOrganisation(option('org')))).map((e) =>
        webhookEndpointView(e),
      );
      const lines = endpoints.map(
        (e) =>
          `  ${e.id}  ${e.status}${e.disabledReason ? ` (${e.disabledReason})` : ''}${e.failingSince ? ` failing since ${e.failingSince}` : ''}  ${e.url}`,
      );
      print(endpoints, endpoints.length ? lines.join('\n') : 'No webhook endpoints.');
      return;
    }
    case 'webhook show': {
      await resolveTarget(run.stack);
      const endpoint = webhookEndpointView(await ownEndpoint(option('org'), run.argument as string));
      print(endpoint, describeEndpoint(endpoint));
      return;
    }
    case 'webhook enable':
    case 'webhook disable': {
      await resolveTarget(run.stack);
      const organisationId = option('org');
      await ownEndpoint(organisationId, run.argument as string);
      const enabled = run.command === 'webhook enable';
      const endpoint = webhookEndpointView(
        await updateWebhookEndpoint(organisationId, run.argument as string, { enabled }),
      );
      print(
        endpoint,
        enabled
          ? `Webhook endpoint ${endpoint.id} enabled. What it missed is in its log as skipped: mis webhook recover ${endpoint.id} --org ${organisationId} --since <instant> sends it.`
          : `Webhook endpoint ${endpoint.id} disabled (${endpoint.disabledReason}): its events are kept as skipped.`,
      );
      return;
    }
    case 'webhook test': {
      await resolveTarget(run.stack);
      const endpoint = await ownEndpoint(option('org'), run.argument as string);
      const deliveryId = await sendTestDelivery(
        endpoint,
        sendToDeliveryQueue(await resolveDeadLetterTarget(run.stack)),
      );
      print({ deliveryId }, `webhook.test sent to ${endpoint.url} (delivery ${deliveryId}).`);
      return;
    }
    case 'webhook recover': {
      const since = new Date(option('since'));
      if (!/^\d{4}-\d\d-\d\dT/.test(option('since')) || Number.isNaN(since.getTime())) {
        throw invalid(run, `--since must be an RFC 3339 date-time, not "${option('since')}"`);
      }
      await resolveTarget(run.stack);
      const endpoint = await ownEndpoint(option('org'), run.argument as string);
      const count = await recoverDeliveries(
        endpoint,
        since,
        sendToDeliveryQueue(await resolveDeadLetterTarget(run.stack)),
      );
      print({ count }, `${count} deliveries sent again to ${endpoint.url}.`);
      return;
    }
    case 'dlq list': {
      await resolveTarget(run.stack);
      const letters = await listDeadLetters(await resolveDeadLetterTarget(run.stack));
      const lines = letters.map(
        (d) =>
          `  ${d.deliveryId ?? d.messageId}  ${d.event ?? '?'}  endpoint ${d.endpointId ?? '?'}  ` +
          `${d.attempts ?? '?'} attempts  last error: ${d.lastError ?? 'unknown'}`,
      );
      print(
        letters,
        letters.length
          ? `${letters.length} in the dead-letter queue:\n${lines.join('\n')}`
          : 'The dead-letter queue is empty.',
      );
      return;
    }
    case 'outbox overdue': {
      await resolveTarget(run.stack);
      const olderThan = run.options.get('older-than');
      const seconds = olderThan === undefined ? undefined : Number(olderThan);
      if (seconds !== undefined && !(Number.isInteger(seconds) && seconds >= 0)) {
        throw new UsageError('invalid_value', '--older-than must be whole seconds, 0 or more.');
      }
      const items = await unrelayedEvents(seconds === undefined ? {} : { olderThanMs: seconds * 1000 });
      const listed = items.map((i) => ({ ...i.event, lastOnStreamAt: i.onStreamAt, replays: i.replays }));
      const lines = listed.map(
        (i) =>
          `  ${i.eventId}  ${i.event}  org ${i.organisationId}  occurred ${i.occurredAt}  ` +
          `replays ${i.replays}, the last at ${i.lastOnStreamAt}`,
      );
      print(
        listed,
        listed.length
          ? `${listed.length} events not relayed yet (the timers function puts them back on the stream):\n${lines.join('\n')}`
          : 'Every event older than that has been relayed.',
      );
      return;
    }
    case 'deliveries stuck': {
      await resolveTarget(run.stack);
      const olderThan = run.options.get('older-than');
      const seconds = olderThan === undefined ? undefined : Number(olderThan);
      if (seconds !== undefined && !(Number.isInteger(seconds) && seconds >= 0)) {
        throw new UsageError('invalid_value', '--older-than must be whole seconds, 0 or more.');
      }
      const stuck = await stuckDeliveries(seconds === undefined ? {} : { olderThanMs: seconds * 1000 });
      const lines = stuck.map(
        (d) =>
          `  ${d.deliveryId}  ${d.event}  org ${d.organisationId}  endpoint ${d.endpointId}  ` +
          `attempt ${d.nextAttempt} due ${d.nextAttemptAt} (${d.overdueSeconds} s overdue, ${d.why})`,
      );
      print(
        stuck,
        stuck.length
          ? `${stuck.length} deliveries past their next attempt:\n${lines.join('\n')}`
          : 'No delivery is overdue by that much.',
      );
      return;
    }
    case 'dlq redrive': {
      await resolveTarget(run.stack);
      const redriven = await redriveDeadLetters(await resolveDeadLetterTarget(run.stack));
      print(redriven, `${redriven.length} deliveries sent back to the delivery queue.`);
      return;
    }
  }
}

function describeEndpoint(e: ReturnType<typeof webhookEndpointView>): string {
  return [
    `Webhook endpoint ${e.id}`,
    `  url:     ${e.url}`,
    `  status:  ${e.status}${e.disabledReason ? ` (${e.disabledReason}, since ${e.disabledAt})` : ''}`,
    ...(e.failingSince ? [`  failing since ${e.failingSince}`] : []),
    `  events:  ${e.events.join(', ')}`,
    ...(e.description ? [`  note:    ${e.description}`] : []),
    ...(e.previousSecretExpiresAt ? [`  previous secret signs until ${e.previousSecretExpiresAt}`] : []),
  ].join('\n');
}

interface Failure {
  code: string;
  message: string;
  /** 2: the command line is wrong; 1: the command could not be done. */
  exitCode: 1 | 2;
}

function failureOf(error: unknown): Failure {
  if (error instanceof UsageError) return { code: error.code, message: error.message, exitCode: 2 };
  // The domain's own checks of a value given on the command line (a name's length, a URL).
  if (error instanceof ValidationError) {
    return { code: 'invalid_value', message: error.issues.map((i) => i.message).join(' '), exitCode: 2 };
  }
  if (error instanceof RangeError) return { code: 'invalid_value', message: error.message, exitCode: 2 };
  if (error instanceof DomainError || error instanceof CliError) {
    return { code: error.code, message: error.message, exitCode: 1 };
  }
  const { name, message } = error instanceof Error ? error : { name: 'Error', message: String(error) };
  return { code: 'failed', message: `${message} (${name})`, exitCode: 1 };
}

async function main(): Promise<void> {
  const invocation = parseCommandLine(argv);
  if (invocation.kind === 'help') console.log(invocation.text);
  else if (invocation.kind === 'version') console.log(json ? JSON.stringify({ version: VERSION }) : VERSION);
  else await execute(invocation);
}

main().catch((error: unknown) => {
  const failure = failureOf(error);
  // One line, whatever the error: a script reads it, a person sees it whole.
  const message = failure.message.replace(/\s*\n\s*/g, ' ');
  console.error(json ? JSON.stringify({ error: { code: failure.code, message } }) : `error: ${message}`);
  process.exit(failure.exitCode);
});
