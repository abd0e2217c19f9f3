import { parseArgs } from 'node:util';
import { createOrganisation, getOrganisation } from '../../shared/adapters/organisation-store.js';
import { issueToken, listTokens, revokeToken, summariseToken } from '../../shared/adapters/token-store.js';
import { createWebhookEndpoint } from '../../shared/adapters/webhook-endpoint-store.js';
import { assertAcceptableWebhookUrl } from '../../shared/adapters/webhook-sender.js';
import { overdueOutboxItems } from '../../shared/app/sweep-outbox.js';
import { DomainError, ValidationError } from '../../shared/domain/errors.js';
import { TIERS, type Tier } from '../../shared/domain/organisation.js';
import { MAX_DELIVERY_ATTEMPTS } from '../../shared/domain/retry-schedule.js';
import { parseScopes } from '../../shared/domain/token.js';
import {
  isWebhookEventName,
  WEBHOOK_EVENT_NAMES,
  type WebhookEventName,
} from '../../shared/domain/webhook-events.js';
import { webhookEndpointView } from '../../shared/domain/webhook-view.js';
import { listDeadLetters, redriveDeadLetters, resolveDeadLetterTarget } from './dlq.js';
import { CliError, resolveTarget } from './target.js';

const USAGE = `Usage: mis <command> [options]   (add --json for machine-readable output)

  org create --name <name> [--tier standard|enterprise] [--rate-limit <n>]
  token issue --org <orgId> --scopes read[,write] [--name <label>]
  token list --org <orgId>
  token revoke <tokenId>
  webhook add --org <orgId> --url <url> [--events a,b]
  dlq list                    deliveries that failed ${MAX_DELIVERY_ATTEMPTS} times, with their last error
  dlq redrive                 sends them back for delivery (same delivery id; attempts count from 1 again)
  outbox overdue [--older-than <seconds>]
                              events the relay has not relayed for that long (default: the sweep's threshold)

Acts on the running local stack (npm start; DATA_DIR tells where it keeps its state), or on a
deployed stack with --stack <name> and the usual AWS credentials.`;

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    json: { type: 'boolean', default: false },
    stack: { type: 'string' },
    name: { type: 'string' },
    tier: { type: 'string' },
    'rate-limit': { type: 'string' },
    org: { type: 'string' },
    scopes: { type: 'string' },
    url: { type: 'string' },
    events: { type: 'string' },
    'older-than': { type: 'string' },
    help: { type: 'boolean', short: 'h', default: false },
  },
});

function required(option: 'name' | 'org' | 'scopes' | 'url'): string {
  const value = values[option];
  if (!value) throw new CliError(`--${option} is required.\n\n${USAGE}`);
  return value;
}

function print(json: unknown, human: string): void {
  console.log(values.json ? JSON.stringify(json, null, 2) : human);
}

async function run(): Promise<void> {
  const [group, action, argument] = positionals;
  const command = `${group ?? ''} ${action ?? ''}`.trim();
  if (values.help || !group) {
    console.log(USAGE);
    return;
  }
  const known = [
    'org create',
    'token issue',
    'token list',
    'token revoke',
    'webhook add',
    'dlq list',
    'dlq redrive',
    'outbox overdue',
  ];
  if (!known.includes(command)) throw new CliError(`Unknown command "${command}".\n\n${USAGE}`);
  const target = await resolveTarget(values.stack);

  switch (command) {
    case 'org create': {
      const tier = (values.tier ?? 'standard') as Tier;
      if (!TIERS.includes(tier)) throw new CliError(`--tier must be one of ${TIERS.join(', ')}.`);
      const rateLimit = values['rate-limit'] === undefined ? undefined : Number(values['rate-limit']);
      const org = await createOrganisation({ name: required('name'), tier, rateLimitPerMinute: rateLimit });
      const { id, name, rateLimitPerMinute } = org;
      print(
        { id, name, tier: org.tier, rateLimitPerMinute },
        `Organisation created on the ${target.description}\n  id:         ${id}\n  name:       ${name}\n  tier:       ${org.tier}\n  rate limit: ${rateLimitPerMinute} requests per minute per token`,
      );
      return;
    }
    case 'token issue': {
      const scopes = parseScopes(required('scopes'));
      const { token, record } = await issueToken({
        organisationId: required('org'),
        scopes,
        name: values.name,
      });
      print(
        { id: record.id, token, prefix: record.prefix, scopes: record.scopes },
        `Token ${record.id} issued (scopes: ${record.scopes.join(', ')})\n\n  ${token}\n\nThis is the only time the token is shown: store it now. Only its hash is kept.`,
      );
      return;
    }
    case 'token list': {
      const tokens = (await listTokens(required('org'))).map(summariseToken);
      const lines = tokens.map(
        (t) =>
          `  ${t.id}  ${t.scopes.join(',').padEnd(10)}  ${t.name}  created ${t.createdAt}` +
          `${t.revokedAt ? `  REVOKED ${t.revokedAt}` : ''}${t.lastUsedAt ? `  last used ${t.lastUsedAt}` : ''}`,
      );
      print(tokens, tokens.length ? lines.join('\n') : 'No tokens.');
      return;
    }
    case 'token revoke': {
      if (!argument) throw new CliError(`token revoke needs the token id (tok_…).\n\n${USAGE}`);
      const revoked = await revokeToken(argument);
      await target.flushAuthorizerCache();
      print(
        revoked,
        `Token ${revoked.id} revoked at ${revoked.revokedAt}; the authorizer cache was flushed.`,
      );
      return;
    }
    case 'dlq list': {
      const letters = await listDeadLetters(await resolveDeadLetterTarget(values.stack));
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
    case 'dlq redrive': {
      const redriven = await redriveDeadLetters(await resolveDeadLetterTarget(values.stack));
      print(redriven, `${redriven.length} deliveries sent back to the delivery queue.`);
      return;
    }
    case 'outbox overdue': {
      const olderThan = values['older-than'];
      const items = await overdueOutboxItems(
        olderThan === undefined ? {} : { olderThanMs: Number(olderThan) * 1000 },
      );
      const listed = items.map((i) => ({ ...i.event, pendingSince: i.pendingSince, replays: i.replays }));
      const lines = listed.map(
        (i) =>
          `  ${i.eventId}  ${i.event}  org ${i.organisationId}  occurred ${i.occurredAt}  ` +
          `pending since ${i.pendingSince}  replays ${i.replays}`,
      );
      print(
        listed,
        listed.length
          ? `${listed.length} events not relayed yet (the timers function puts them back on the stream):\n${lines.join('\n')}`
          : 'Every event older than that has been relayed.',
      );
      return;
    }
    case 'webhook add': {
      const organisationId = required('org');
      const url = required('url');
      const events = (values.events ?? '').split(',').filter(Boolean);
      const unknown = events.filter((e) => !isWebhookEventName(e));
      if (unknown.length > 0) {
        throw new CliError(
          `Unknown events: ${unknown.join(', ')}. Known: ${WEBHOOK_EVENT_NAMES.join(', ')}.`,
        );
      }
      assertAcceptableWebhookUrl(url);
      if (!(await getOrganisation(organisationId)))
        throw new CliError(`Organisation ${organisationId} was not found.`);
      const { endpoint, secret } = await createWebhookEndpoint({
        organisationId,
        url,
        events: events as WebhookEventName[],
      });
      const view = webhookEndpointView(endpoint);
      print(
        { id: view.id, url: view.url, events: view.events, secret },
        `Webhook endpoint ${view.id} added for ${view.url}\n  events: ${view.events.join(', ')}\n\n  signing secret: ${secret}\n\nThis is the only time the secret is shown: store it in the receiver's configuration now.`,
      );
      return;
    }
  }
}

run().catch((error: unknown) => {
  const known =
    error instanceof CliError ||
    error instanceof DomainError ||
    error instanceof RangeError ||
    error instanceof TypeError;
  const message =
    error instanceof ValidationError
      ? error.issues.map((issue) => issue.message).join(' ')
      : error instanceof Error
        ? error.message
        : String(error);
  console.error(
    known ? `error: ${message}` : `error: ${message} (${(error as Error)?.name ?? 'unexpected'})`,
  );
  process.exit(known ? 2 : 1);
});
