import { randomBytes, randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { GetQueueAttributesCommand } from '@aws-sdk/client-sqs';
import { timerIntervalSeconds } from '../../infra/local/schedule-poller.js';
import { listDeliveries } from '../../shared/adapters/delivery-log.js';
import { outboxWrite } from '../../shared/adapters/outbox.js';
import { createSqsClient } from '../../shared/adapters/sqs.js';
import type { TransactionItem } from '../../shared/adapters/transaction.js';
import {
  DELIVERY_TIMEOUT_MS,
  RESPONSE_EXCERPT_BYTES,
  sendWebhook,
} from '../../shared/adapters/webhook-sender.js';
import { DEADLINE_ALARM_AFTER_MS, declareIncident, incidentEventData } from '../../shared/domain/incident.js';
import { newDomainEvent } from '../../shared/domain/webhook-events.js';
import { mis } from '../support/local-stack.js';
import { type BenchStack, benchTempDir, newCaller } from './bench-stack.js';
import { onCleanup } from './cleanup.js';
import { type DeliveryFloorResult, runDeliveryFloor } from './delivery-floor-process.js';
import { percentile } from './load.js';
import { benchManagedWebhooks, type ManagedWebhookReport } from './managed-webhook-bench.js';
import type { BenchCaller } from './scenarios.js';
import { applyInBulk } from './seed.js';
import { WEBHOOK_LOAD, WEBHOOK_TARGETS } from './settings.js';
import { epochMs, type Receipt, startWebhookSink, type WebhookSink } from './webhook-sink.js';

export interface Spread {
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

export interface LatencyFigures {
  /** Incidents the API accepted (201) in the measured run. */
  declared: number;
  received: number;
  apiErrors: number;
  /** Sink receipt minus the arrival of the 201: the commit happened before the response was sent. */
  fromCommit: Spread;
  /** Sink receipt minus the start of POST /incidents: an upper bound that includes the API call. */
  fromRequestStart: Spread;
  /** POST /incidents alone, request start to 201. */
  apiResponse: Spread;
  /**
   * From the delivery log's attempt start (`at`, when the delivery function began with the
   * message): 201 → attempt start is the stream poll, relay, bus, queue and receive; attempt start
   * → receipt is the endpoint read, secret decryption, signing and POST. Only when every webhook
   * received has its attempt in the log.
   */
  toAttemptStart: Spread | null;
  attemptToReceipt: Spread | null;
  p50Ok: boolean;
  p99Ok: boolean;
}

export interface DeliveryRun {
  events: number;
  received: number;
  /** First receipt to last. */
  flowingSeconds: number;
  /** (received − 1) ÷ flowingSeconds: the rate once deliveries flow. */
  deliveriesPerSecond: number;
}

export interface StackDeliveryRun extends DeliveryRun {
  /** Writing the outbox items (the commits). */
  seedSeconds: number;
  firstCommitToFirstReceiptMs: number;
  firstCommitToLastReceiptSeconds: number;
  /** Most messages waiting in the delivery queue at once (sampled every 200 ms). */
  maxQueueBacklog: number;
}

/** The waits that tests check only the order of (a test asserts that they happen, the bench how long they take). */
export interface CutoffFigures {
  /** Incident.deadline_72h webhooks: receipt minus the moment the incident reached 60 h since detection. */
  alarms: { declared: number; received: number; timerIntervalSeconds: number; late: Spread | null };
  /** sendWebhook to a subscriber that never answers: its latencyMs minus the deadline (DELIVERY_TIMEOUT_MS). */
  timeoutOvershoot: Spread;
  /** sendWebhook to a subscriber that sends 64 KB and never ends the answer: until it settled on the excerpt. */
  endlessAnswer: Spread;
}

export interface WebhookReport {
  latency: LatencyFigures;
  throughput: {
    /** The round whose ratio is the median. */
    stack: StackDeliveryRun;
    floor: DeliveryRun & DeliveryFloorResult;
    /** stack ÷ floor deliveries per second, the median of the rounds: below 1 means the stack delivers fewer per second. */
    ratio: number;
    /** Each round: the stack, then the floor at once after it. */
    rounds: { stack: number; floor: number; ratio: number }[];
  };
  cutoffs: CutoffFigures;
  managed: ManagedWebhookReport;
  sink: { badSignatures: number; malformed: number; duplicates: number };
  /** Missing webhooks, refused requests, bad signatures: the figures measured something else. */
  failures: string[];
}

const LATENCY_PATH = '/latency';
/** Each throughput round has its own paths at the sink. */
const STACK_PATH = (round: number) => `/stack-${round}`;
const FLOOR_PATH = (round: number) => `/floor-${round}`;
const ALARM_PATH = '/deadline-alarm';
const TIMEOUT_MS = WEBHOOK_LOAD.receiptTimeoutSeconds * 1000;

function spread(values: number[]): Spread {
  const sorted = Float64Array.from(values).sort();
  return { p50Ms: percentile(sorted, 50), p99Ms: percentile(sorted, 99), maxMs: sorted.at(-1) ?? Number.NaN };
}

function deliveryRun(events: number, receipts: Iterable<Receipt>): DeliveryRun {
  const times = [...receipts].map((r) => r.at).sort((a, b) => a - b);
  const flowingSeconds = ((times.at(-1) ?? 0) - (times[0] ?? 0)) / 1000;
  return {
    events,
    received: times.length,
    flowingSeconds,
    deliveriesPerSecond: times.length > 1 ? (times.length - 1) / flowingSeconds : 0,
  };
}

/** An endpoint for every incident.declared (or `event`) of the caller's organisation, as an operator adds one. */
async function addEndpoint(
  stack: BenchStack,
  sink: WebhookSink,
  caller: BenchCaller,
  path: string,
  event = 'incident.declared',
) {
  const endpoint = await mis<{ id: string; secret: string }>(
    stack.dataDir,
    ...['webhook', 'add', '--org', caller.organisationId, '--url', sink.url(path)],
    ...['--events', event],
  );
  sink.expectSecret(path, endpoint.secret);
  return endpoint.id;
}

interface Declared {
  incidentId: string;
  requestStart: number;
  responseAt: number;
}

async function declareThroughApi(
  stack: BenchStack,
  caller: BenchCaller,
  n: number,
  detectedAt = new Date().toISOString(),
): Promise<Declared> {
  const requestStart = epochMs();
  const response = await fetch(`${stack.baseUrl}/incidents`, {
    method: 'POST',
    headers: { authorization: caller.authorization, 'content-type': 'application/json' },
    body: JSON.stringify({
      severity: 'low',
      category: 'availability',
      detectedAt,
      title: `Bench incident ${n}`,
    }),
  });
  const responseAt = epochMs();
  const body = await response.text();
  if (response.status !== 201) {
    throw new Error(`POST /incidents answered ${response.status}: ${body.slice(0, 200)}`);
  }
  return { incidentId: (JSON.parse(body) as { id: string }).id, requestStart, responseAt };
}

/**
 * When each delivery attempt started, by delivery id, from the endpoint's delivery log. The log is
 * written after the POST, so the last few may lag the receipts a little: read again, bounded.
 */
async function attemptStarts(organisationId: string, endpointId: string, deliveryIds: string[]) {
  const starts = new Map<string, number>();
  const deadline = Date.now() + 5000;
  while (deliveryIds.some((id) => !starts.has(id)) && Date.now() < deadline) {
    let cursor: string | undefined;
    do {
      const page = await listDeliveries(organisationId, endpointId, { limit: 100, cursor });
      for (const attempt of page.deliveries) {
        if (attempt.attempt === 1) starts.set(attempt.deliveryId, Date.parse(attempt.at));
      }
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    if (deliveryIds.some((id) => !starts.has(id))) await sleep(200);
  }
  return starts;
}

async function measureLatency(
  stack: BenchStack,
  sink: WebhookSink,
  log: (line: string) => void,
  failures: string[],
): Promise<LatencyFigures> {
  const { warmupIncidents, latencyIncidents, incidentsPerSecond } = WEBHOOK_LOAD;
  const caller = await newCaller(stack, 'webhook latency', 'read,write');
  const endpointId = await addEndpoint(stack, sink, caller, LATENCY_PATH);
  log(
    `webhook latency: ${warmupIncidents} incidents one at a time to warm up the relay and the delivery worker …`,
  );
  for (let n = 0; n < warmupIncidents; n++) {
    const { incidentId } = await declareThroughApi(stack, caller, n);
    await sink.waitFor(LATENCY_PATH, 1, TIMEOUT_MS, new Set([incidentId]));
  }

  log(
    `webhook latency: ${latencyIncidents} incidents at ${incidentsPerSecond} per second through POST /incidents …`,
  );
  const pending: Promise<Declared | Error>[] = [];
  const start = performance.now();
  for (let n = 0; n < latencyIncidents; n++) {
    const wait = start + (n * 1000) / incidentsPerSecond - performance.now();
    if (wait > 0) await sleep(wait);
    pending.push(declareThroughApi(stack, caller, warmupIncidents + n).catch((error: Error) => error));
  }
  const results = await Promise.all(pending);
  const declared = results.filter((r): r is Declared => !(r instanceof Error));
  const apiErrors = results.filter((r): r is Error => r instanceof Error);
  if (apiErrors.length > 0) {
    failures.push(
      `webhook latency: ${apiErrors.length} POST /incidents failed, first: ${apiErrors[0]?.message}`,
    );
  }
  const wanted = new Set(declared.map((d) => d.incidentId));
  const receipts = await sink.waitFor(LATENCY_PATH, wanted.size, TIMEOUT_MS, wanted);
  if (receipts.size < wanted.size) {
    failures.push(
      `webhook latency: ${wanted.size - receipts.size} of ${wanted.size} webhooks did not arrive within ${WEBHOOK_LOAD.receiptTimeoutSeconds} s`,
    );
  }

  const delivered = declared.flatMap((d) => {
    const receipt = receipts.get(d.incidentId);
    return receipt ? [{ ...d, receipt }] : [];
  });
  const starts = await attemptStarts(
    caller.organisationId,
    endpointId,
    delivered.map((d) => d.receipt.deliveryId),
  );
  const split = delivered.flatMap(({ responseAt, receipt }) => {
    const attemptAt = starts.get(receipt.deliveryId);
    return attemptAt === undefined ? [] : [{ responseAt, attemptAt, receiptAt: receipt.at }];
  });
  const complete = split.length === delivered.length && delivered.length > 0;
  const fromCommit = spread(delivered.map((d) => d.receipt.at - d.responseAt));
  return {
    declared: declared.length,
    received: receipts.size,
    apiErrors: apiErrors.length,
    fromCommit,
    fromRequestStart: spread(delivered.map((d) => d.receipt.at - d.requestStart)),
    apiResponse: spread(declared.map((d) => d.responseAt - d.requestStart)),
    toAttemptStart: complete ? spread(split.map((s) => s.attemptAt - s.responseAt)) : null,
    attemptToReceipt: complete ? spread(split.map((s) => s.receiptAt - s.attemptAt)) : null,
    p50Ok: fromCommit.p50Ms < WEBHOOK_TARGETS.p50Ms,
    p99Ok: fromCommit.p99Ms < WEBHOOK_TARGETS.p99Ms,
  };
}

/** Samples how many messages wait in the stack's delivery queue, until stopped; returns the most seen. */
function watchQueueBacklog(stack: BenchStack) {
  const client = createSqsClient(stack.info.sqsEndpoint);
  let most = 0;
  let watching = true;
  const loop = (async () => {
    while (watching) {
      try {
        const { Attributes } = await client.send(
          new GetQueueAttributesCommand({
            QueueUrl: stack.info.deliveryQueueUrl,
            AttributeNames: ['ApproximateNumberOfMessages'],
          }),
        );
        most = Math.max(most, Number(Attributes?.ApproximateNumberOfMessages ?? 0));
      } catch {
        // The stack is stopping (Ctrl-C): a missed sample only lowers a diagnostic figure.
        return;
      }
      await sleep(200);
    }
  })();
  return async () => {
    watching = false;
    await loop;
    client.destroy();
    return most;
  };
}

/**
 * The stack's side: outbox items written straight to the table (the items POST /incidents commits,
 * built by the same outboxWrite, without the incident and timer items beside them), so that what
 * is measured is the stream, the relay, the bus, the queue and the delivery worker rather than
 * the API's write rate.
 */
async function measureStackDeliveries(
  stack: BenchStack,
  sink: WebhookSink,
  log: (line: string) => void,
  failures: string[],
  round: number,
): Promise<StackDeliveryRun> {
  const events = WEBHOOK_LOAD.throughputEvents;
  const caller = await newCaller(stack, `webhook throughput ${round}`, 'read,write');
  await addEndpoint(stack, sink, caller, STACK_PATH(round));
  const now = new Date();
  const incidentIds: string[] = [];
  const transactions: TransactionItem[][] = [];
  for (let n = 0; n < events; n++) {
    const detectedAt = now.toISOString();
    const incident = declareIncident(
      randomUUID(),
      caller.organisationId,
      { severity: 'low', category: 'availability', detectedAt, title: `Bench incident ${n}` },
      caller.tokenId,
      now,
    );
    incidentIds.push(incident.id);
    const event = newDomainEvent(
      'incident.declared',
      caller.organisationId,
      incidentEventData(incident),
      now,
    );
    transactions.push([outboxWrite(event)]);
  }
  log(
    `webhook throughput, round ${round}, stack: writing ${events.toLocaleString('en')} outbox items, then waiting for their webhooks …`,
  );
  const stopWatching = watchQueueBacklog(stack);
  const firstCommit = epochMs();
  await applyInBulk(transactions);
  const seedSeconds = (epochMs() - firstCommit) / 1000;
  const receipts = await sink.waitFor(STACK_PATH(round), events, TIMEOUT_MS, new Set(incidentIds));
  const maxQueueBacklog = await stopWatching();
  if (receipts.size < events) {
    failures.push(
      `webhook throughput (stack): ${events - receipts.size} of ${events} webhooks did not arrive within ${WEBHOOK_LOAD.receiptTimeoutSeconds} s`,
    );
  }
  const times = [...receipts.values()].map((r) => r.at);
  return {
    ...deliveryRun(events, receipts.values()),
    seedSeconds,
    firstCommitToFirstReceiptMs: Math.min(...times) - firstCommit,
    firstCommitToLastReceiptSeconds: (Math.max(...times) - firstCommit) / 1000,
    maxQueueBacklog,
  };
}

async function measureFloorDeliveries(
  stack: BenchStack,
  sink: WebhookSink,
  log: (line: string) => void,
  failures: string[],
  round: number,
): Promise<DeliveryRun & DeliveryFloorResult> {
  const events = WEBHOOK_LOAD.throughputEvents;
  const secret = `whsec_${randomBytes(32).toString('base64')}`;
  const path = FLOOR_PATH(round);
  sink.expectSecret(path, secret);
  sink.expectSecret(`${path}-warmup`, secret);
  log(
    `webhook throughput, round ${round}, floor: its own SQS emulator, ${WEBHOOK_LOAD.floorWarmupMessages} messages to warm up, ` +
      `then ${events.toLocaleString('en')} sent and delivered …`,
  );
  const result = await runDeliveryFloor(
    {
      dataDir: benchTempDir('mis-bench-floor-sqs-'),
      secret,
      warmupUrl: sink.url(`${path}-warmup`),
      warmupMessages: WEBHOOK_LOAD.floorWarmupMessages,
      url: sink.url(path),
      messages: events,
      receivers: WEBHOOK_LOAD.floorReceivers,
      batchSize: WEBHOOK_LOAD.floorBatchSize,
      dynamodbEndpoint: stack.info.dynamodbEndpoint,
      tableName: stack.info.tableName,
    },
    TIMEOUT_MS + 30_000,
  );
  // The floor awaited every answer before it exited, and the sink records before it answers.
  const receipts = sink.firstReceipts(path);
  if (receipts.size < events)
    failures.push(`webhook floor: ${events - receipts.size} webhooks did not arrive`);
  if (result.postFailures > 0) failures.push(`webhook floor: ${result.postFailures} POSTs failed`);
  if (result.deleteFailures > 0) failures.push(`webhook floor: ${result.deleteFailures} deletes failed`);
  return { ...deliveryRun(events, receipts.values()), ...result };
}

/**
 * The stack and the floor, each round one right after the other: the machine's speed drifts by a
 * third or more over a minute (other tenants of the host), so a ratio only compares runs made at
 * the same moment, and the median of the rounds is what is reported.
 */
async function measureThroughput(
  stack: BenchStack,
  sink: WebhookSink,
  log: (line: string) => void,
  failures: string[],
): Promise<WebhookReport['throughput']> {
  const runs: { stack: StackDeliveryRun; floor: DeliveryRun & DeliveryFloorResult; ratio: number }[] = [];
  for (let round = 1; round <= WEBHOOK_LOAD.throughputRounds; round++) {
    const stackRun = await measureStackDeliveries(stack, sink, log, failures, round);
    const floorRun = await measureFloorDeliveries(stack, sink, log, failures, round);
    runs.push({
      stack: stackRun,
      floor: floorRun,
      ratio: stackRun.deliveriesPerSecond / floorRun.deliveriesPerSecond,
    });
  }
  const sorted = [...runs].sort((a, b) => a.ratio - b.ratio);
  const median = sorted[Math.floor(sorted.length / 2)] ?? runs[0];
  if (!median) throw new Error('No throughput round ran');
  return {
    ...median,
    rounds: runs.map((r) => ({
      stack: r.stack.deliveriesPerSecond,
      floor: r.floor.deliveriesPerSecond,
      ratio: r.ratio,
    })),
  };
}

/**
 * Deadline alarms on the bench's stack, whose timers run every TIMER_INTERVAL_SECONDS (5 s unless
 * set): incidents detected almost 60 h ago, due 2 s from now and then spread over one interval, so
 * that the alarms fall at different points of it.
 */
async function measureDeadlineAlarms(
  stack: BenchStack,
  sink: WebhookSink,
  log: (line: string) => void,
  failures: string[],
): Promise<CutoffFigures['alarms']> {
  const count = WEBHOOK_LOAD.deadlineAlarms;
  const interval = timerIntervalSeconds();
  const caller = await newCaller(stack, 'deadline alarms', 'read,write');
  await addEndpoint(stack, sink, caller, ALARM_PATH, 'incident.deadline_72h');
  log(`deadline alarms: ${count} incidents coming due over ${interval} s (timers every ${interval} s) …`);
  const dueAt = new Map<string, number>();
  const start = Date.now();
  for (let n = 0; n < count; n++) {
    const due = start + 2000 + (n * interval * 1000) / count;
    const detectedAt = new Date(due - DEADLINE_ALARM_AFTER_MS).toISOString();
    const { incidentId } = await declareThroughApi(stack, caller, n, detectedAt);
    dueAt.set(incidentId, Date.parse(detectedAt) + DEADLINE_ALARM_AFTER_MS);
  }
  const receipts = await sink.waitFor(ALARM_PATH, count, TIMEOUT_MS, new Set(dueAt.keys()));
  if (receipts.size < count) {
    failures.push(`deadline alarms: ${count - receipts.size} of ${count} did not arrive`);
  }
  const late = [...receipts.values()].map((r) => r.at - (dueAt.get(r.resourceId) ?? Number.NaN));
  return {
    declared: count,
    received: receipts.size,
    timerIntervalSeconds: interval,
    late: late.length ? spread(late) : null,
  };
}

/**
 * sendWebhook's two cut-offs against a bare node:http server in the bench process: the deadline
 * (a subscriber that never answers; runs side by side, as the delivery worker's are) and the
 * excerpt (a 64 KB answer that never ends; one after another).
 */
async function measureSenderCutoffs(
  log: (line: string) => void,
  failures: string[],
): Promise<Pick<CutoffFigures, 'timeoutOvershoot' | 'endlessAnswer'>> {
  const runs = WEBHOOK_LOAD.cutoffRuns;
  const server = createServer((request, response) => {
    request.resume();
    if (request.url === '/endless') {
      response.writeHead(200, { 'content-type': 'text/plain' });
      response.write('x'.repeat(64 * 1024));
    }
    // Any other path never answers.
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const body = Buffer.from('{"event":"incident.declared"}');
  const send = (path: string) => sendWebhook(`${origin}${path}`, body, {}, { allowPrivate: true });
  try {
    log(
      `sender cut-offs: ${runs} sends to a subscriber that never answers (the ${DELIVERY_TIMEOUT_MS / 1000} s deadline) …`,
    );
    const silent = await Promise.all(Array.from({ length: runs }, () => send('/silent')));
    if (silent.some((r) => r.errorClass !== 'timeout'))
      failures.push('sender cut-offs: a silent subscriber was not a timeout');
    log(`sender cut-offs: ${runs} sends to a 64 KB answer that never ends …`);
    const endless: number[] = [];
    for (let n = 0; n < runs; n++) {
      const started = performance.now();
      const result = await send('/endless');
      endless.push(performance.now() - started);
      if (!result.ok || result.responseExcerpt.length !== RESPONSE_EXCERPT_BYTES) {
        failures.push(
          `sender cut-offs: an endless answer gave ${JSON.stringify({ ...result, responseExcerpt: undefined })}`,
        );
      }
    }
    return {
      timeoutOvershoot: spread(silent.map((r) => r.latencyMs - DELIVERY_TIMEOUT_MS)),
      endlessAnswer: spread(endless),
    };
  } finally {
    server.closeAllConnections();
    server.close();
  }
}

/**
 * Issue 4's webhook targets on the bench's stack: latency from the commit to the subscriber's
 * receipt, then deliveries per second beside a floor measured in the same run; then the cut-offs
 * whose order alone the tests check (deadline alarms, the sender's deadline and excerpt).
 */
export async function benchWebhooks(stack: BenchStack, log: (line: string) => void): Promise<WebhookReport> {
  const sink = await startWebhookSink();
  onCleanup(sink.close);
  const failures: string[] = [];
  const latency = await measureLatency(stack, sink, log, failures);
  const throughput = await measureThroughput(stack, sink, log, failures);
  const managed = await benchManagedWebhooks(stack, sink, throughput.stack.deliveriesPerSecond, log);
  failures.push(...managed.failures);
  const alarms = await measureDeadlineAlarms(stack, sink, log, failures);
  const senderCutoffs = await measureSenderCutoffs(log, failures);
  const problems = sink.problems();
  if (problems.badSignatures > 0)
    failures.push(`webhooks: ${problems.badSignatures} signatures did not verify`);
  if (problems.malformed > 0) failures.push(`webhooks: ${problems.malformed} bodies without an incident id`);
  await sink.close();
  return {
    latency,
    throughput,
    cutoffs: { alarms, ...senderCutoffs },
    managed,
    sink: { ...problems, duplicates: sink.duplicates() },
    failures,
  };
}
