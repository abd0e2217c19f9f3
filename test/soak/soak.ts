import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { DELIVERY_QUEUE } from '../../shared/topology/queues.js';
import { mis, type RunningStack, startLocalStack } from '../support/local-stack.js';

/**
 * The soak: many events through the API to endpoints that misbehave in the ways subscribers do in
 * the field, while the service is SIGKILLed (with its whole process group) and restarted, and
 * DynamoDB Local alone is killed once. At the end every acknowledged event is accounted for, per
 * endpoint: delivered, in the dead-letter queue or logged failed, not sent because the endpoint
 * was disabled, absent because the engine kill took the write itself, or lost.
 */

export type Behaviour = 'healthy' | 'slow' | 'flaky' | 'dead' | 'gone' | 'closes';

export interface SoakOptions {
  /** API write cycles per organisation per phase; each cycle makes 10 events (9 writes). */
  cyclesAlone: number;
  cyclesTogether: number;
  /** Organisations with only a healthy endpoint (besides the one with every behaviour). */
  healthyOrganisations: number;
  /** SIGKILLs of the stack's process group during the second phase. */
  stackKills: number;
  engineKill: boolean;
  /**
   * OUTBOX_SWEEP_AFTER_SECONDS of the stack: how soon an event the stream lost (a kill between the
   * commit and the relay) is put back on it; the settling waits at least this long.
   */
  sweepAfterSeconds: number;
  /**
   * DELIVERY_VISIBILITY_TIMEOUT_SECONDS of the stack (AWS's 180 s when omitted): a message received
   * just before a kill, before the poller noted it in flight, stays hidden this long and is then
   * delivered; the settling waits at least this long, so that such a delivery counts as late, not lost.
   */
  visibilityTimeoutSeconds?: number;
  /** Requests after which the gone endpoint answers 410. */
  goneAfter: number;
  log: (line: string) => void;
}

const EVENTS_PER_CYCLE = 10;
const WRITES_PER_CYCLE = 9;
const SLOW_MS = 8000;
/** Cycles of one organisation driven side by side. */
const STREAMS_PER_ORGANISATION = 2;

/** Which events each endpoint of the mixed organisation takes (a share for the slow and dead ones). */
const SUBSCRIPTIONS: Record<Behaviour, string[] | undefined> = {
  healthy: undefined,
  slow: ['member.created'],
  flaky: undefined,
  dead: ['contribution.received'],
  gone: undefined,
  closes: ['timebank.payout.settled'],
};

interface Receipt {
  path: string;
  deliveryId: string;
  key: string;
  at: number;
  /** The status line sent back (the closing endpoint sends 200 and then cuts its body short). */
  answered: number;
}

/** Local receivers, one path per endpoint; each request noted before it is answered. */
async function startReceivers(goneAfter: number) {
  const receipts: Receipt[] = [];
  const counts = new Map<string, number>();
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (c: Buffer) => chunks.push(c));
    request.on('end', () => {
      const path = request.url ?? '/';
      const n = counts.get(path) ?? 0;
      counts.set(path, n + 1);
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
      const event = String(body.event);
      const resource = Object.values(body).find(
        (v): v is { id: string } => typeof v === 'object' && v !== null && 'id' in v,
      );
      const behaviour = path.split('/')[1] as Behaviour;
      const note = (answered: number) =>
        receipts.push({
          path,
          deliveryId: String(request.headers['x-service-delivery']),
          key: `${event}:${resource?.id}`,
          at: Date.now(),
          answered,
        });
      const reply = (status: number) => {
        note(status);
        response.writeHead(status, { 'content-type': 'text/plain' }).end(status < 300 ? 'ok' : 'no');
      };
      switch (behaviour) {
        case 'healthy':
          return reply(200);
        case 'slow':
          return void setTimeout(() => reply(200), SLOW_MS);
        case 'flaky':
          return reply(Math.random() < 0.5 ? 500 : 200);
        case 'dead':
          return reply(503);
        case 'gone':
          return reply(n < goneAfter ? 200 : 410);
        case 'closes':
          // Noted like any other: the whole signed request was read before the 2xx status line went
          // out, so the subscriber has the event whatever the service makes of the cut-off body.
          note(200);
          response.writeHead(200, { 'content-type': 'text/plain', 'content-length': '100' });
          response.write('partial');
          return void setTimeout(() => response.destroy(), 20);
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { origin, receipts, close: () => new Promise((r) => server.close(r)) };
}

interface Endpoint {
  id: string;
  organisationId: string;
  behaviour: Behaviour;
  path: string;
  events: string[] | undefined;
}

interface Organisation {
  id: string;
  token: string;
  mixed: boolean;
}

/** An acknowledged event: its key, organisation, when its write was acknowledged. */
interface Expected {
  key: string;
  organisationId: string;
  event: string;
  ackAt: number;
  phase: 'alone' | 'together';
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function runSoak(options: SoakOptions) {
  const { log } = options;
  const receivers = await startReceivers(options.goneAfter);
  const env = {
    WEBHOOK_RETRY_DELAYS: '1,1,1,1,1',
    TIMER_INTERVAL_SECONDS: '1',
    OUTBOX_SWEEP_AFTER_SECONDS: String(options.sweepAfterSeconds),
    DELIVERY_VISIBILITY_TIMEOUT_SECONDS: String(
      options.visibilityTimeoutSeconds ?? DELIVERY_QUEUE.visibilityTimeoutSeconds,
    ),
    POWERTOOLS_LOG_LEVEL: 'ERROR',
  };
  let stack: RunningStack = await startLocalStack(env, { ownProcessGroup: true });
  const dataDir = stack.dataDir;
  let base = stack.baseUrl;
  let up = true;
  try {
    return await soakAgainst();
  } finally {
    // Also when the soak fails: no stack or JVM is left behind.
    await stack.stop('SIGTERM');
    await receivers.close();
  }

  async function soakAgainst() {
    const organisations: Organisation[] = [];
    const endpoints: Endpoint[] = [];
    async function organisation(name: string, mixed: boolean, behaviours: Behaviour[]) {
      const org = await mis<{ id: string }>(
        dataDir,
        ...['org', 'create', '--name', name, '--tier', 'enterprise', '--rate-limit', '100000'],
      );
      const { token } = await mis<{ token: string }>(
        dataDir,
        ...['token', 'issue', '--org', org.id, '--scopes', 'read,write'],
      );
      for (const behaviour of behaviours) {
        const path = `/${behaviour}/${org.id}`;
        const events = mixed ? SUBSCRIPTIONS[behaviour] : undefined;
        const added = await mis<{ id: string }>(
          dataDir,
          ...['webhook', 'add', '--org', org.id, '--url', `${receivers.origin}${path}`],
          ...(events ? ['--events', events.join(',')] : []),
        );
        endpoints.push({ id: added.id, organisationId: org.id, behaviour, path, events });
      }
      organisations.push({ id: org.id, token, mixed });
    }
    for (let i = 0; i < options.healthyOrganisations; i++)
      await organisation(`Healthy ${i}`, false, ['healthy']);
    await organisation('Mixed', true, ['healthy', 'slow', 'flaky', 'dead', 'gone', 'closes']);

    const expected: Expected[] = [];
    let engineKilledAt: number | undefined;
    let unavailableAnswers = 0;

    /** POSTs until acknowledged (201, or 200 for an incident's move): the same Idempotency-Key across kills, restarts and 503s. */
    async function write(
      org: Organisation,
      path: string,
      body: unknown | (() => unknown),
    ): Promise<{ id: string; ackAt: number }> {
      let key = randomUUID();
      let payload = typeof body === 'function' ? body() : body;
      for (let tries = 0; ; tries++) {
        if (!up) {
          await pause(200);
          continue;
        }
        try {
          const response = await fetch(`${base}${path}`, {
            method: 'POST',
            headers: {
              Authorization: `Bearer ${org.token}`,
              'Content-Type': 'application/json',
              'Idempotency-Key': key,
            },
            body: JSON.stringify(payload),
            signal: AbortSignal.timeout(30_000),
          });
          const text = await response.text();
          if (response.status === 201 || response.status === 200)
            return { id: (JSON.parse(text) as { id: string }).id, ackAt: Date.now() };
          if (response.status === 503) unavailableAnswers += 1;
          else if (response.status === 400 && typeof body === 'function') {
            // Never acknowledged, and its expiry passed during an outage: a new request, a new key.
            key = randomUUID();
            payload = body();
          } else if (response.status < 500 && response.status !== 429 && response.status !== 409)
            throw new Error(`POST ${path}: ${response.status} ${text}`);
        } catch (error) {
          if (error instanceof Error && error.message.startsWith('POST ')) throw error;
        }
        if (tries > 600) throw new Error(`POST ${path} was never acknowledged`);
        await pause(250);
      }
    }

    function expect(org: Organisation, event: string, id: string, ackAt: number, phase: Expected['phase']) {
      expected.push({ key: `${event}:${id}`, organisationId: org.id, event, ackAt, phase });
    }

    /** One cycle: all nine kinds of event, ten events from nine writes. */
    async function cycle(org: Organisation, phase: Expected['phase']) {
      const member = await write(org, '/members', { membershipType: 'regular', region: 'north' });
      expect(org, 'member.created', member.id, member.ackAt, phase);
      const contribution = await write(org, '/contributions', { amount: { value: '5.00', currency: 'EUR' } });
      expect(org, 'contribution.received', contribution.id, contribution.ackAt, phase);
      const payout = await write(org, '/timebank/payouts', { memberId: member.id, hours: 1.5 });
      expect(org, 'timebank.payout.settled', payout.id, payout.ackAt, phase);
      const file = await write(org, '/sanctuary/files', () => ({
        name: 'minutes.pdf',
        expiresAt: new Date(Date.now() + 3000).toISOString(),
      }));
      expect(org, 'sanctuary.file.expired', file.id, file.ackAt + 3000, phase);
      // Past the 60-hour mark and left open: its deadline alarm fires at once.
      const overdue = await write(org, '/incidents', {
        severity: 'high',
        category: 'confidentiality',
        detectedAt: new Date(Date.now() - 61 * 3600_000).toISOString(),
        title: 'Soak',
      });
      expect(org, 'incident.declared', overdue.id, overdue.ackAt, phase);
      expect(org, 'incident.deadline_72h', overdue.id, overdue.ackAt, phase);
      const contained = await write(org, `/incidents/${overdue.id}/contain`, { note: 'contained' });
      expect(org, 'incident.contained', overdue.id, contained.ackAt, phase);
      const recent = await write(org, '/incidents', {
        severity: 'low',
        category: 'availability',
        detectedAt: new Date().toISOString(),
        title: 'Soak',
      });
      expect(org, 'incident.declared', recent.id, recent.ackAt, phase);
      const notified = await write(org, `/incidents/${recent.id}/notify`, { authorityReference: 'DPA-1' });
      expect(org, 'incident.notified', recent.id, notified.ackAt, phase);
      const closed = await write(org, `/incidents/${recent.id}/close`, { note: 'closed' });
      expect(org, 'incident.closed', recent.id, closed.ackAt, phase);
    }

    async function drive(orgs: Organisation[], cycles: number, phase: Expected['phase']) {
      await Promise.all(
        orgs.flatMap((org) =>
          Array.from({ length: STREAMS_PER_ORGANISATION }, async (_, stream) => {
            for (let i = stream; i < cycles; i += STREAMS_PER_ORGANISATION) await cycle(org, phase);
          }),
        ),
      );
    }

    const started = Date.now();
    log(`phase 1: healthy organisations alone, ${options.cyclesAlone} cycles each`);
    const healthyOrgs = organisations.filter((o) => !o.mixed);
    await drive(healthyOrgs, options.cyclesAlone, 'alone');
    const aloneEndedAt = Date.now();
    const aloneEventsPerSecond = expected.length / ((aloneEndedAt - started) / 1000);
    log(
      `  ${expected.length} events at ${aloneEventsPerSecond.toFixed(1)}/s: DynamoDB Local's pace through the API`,
    );

    log(`phase 2: every organisation, ${options.cyclesTogether} cycles each, with faults`);
    const faults: { at: number; what: string; backAt?: number }[] = [];
    let driving = true;
    const driven = drive(organisations, options.cyclesTogether, 'together').finally(() => {
      driving = false;
    });
    const together = Date.now();
    const estimated = Math.max(
      20_000,
      (aloneEndedAt - started) * (options.cyclesTogether / Math.max(1, options.cyclesAlone)),
    );
    const plan = [
      ...Array.from({ length: options.stackKills }, () => 'stack'),
      ...(options.engineKill ? ['engine'] : []),
    ];
    for (let i = 0; i < plan.length; i++) {
      // A random moment within each slice of the expected phase length.
      const slice = estimated / plan.length;
      const at = together + slice * i + slice * (0.2 + 0.6 * Math.random());
      while (Date.now() < at && driving) await pause(100);
      // Driving may end first (short runs): the kill then comes while deliveries are under way.
      const what = plan[i];
      const fault: { at: number; what: string; backAt?: number } = { at: Date.now(), what: String(what) };
      faults.push(fault);
      if (what === 'stack') {
        up = false;
        await stack.stop('SIGKILL', { group: true });
        log(`  SIGKILL of the stack's process group at +${((Date.now() - together) / 1000).toFixed(1)} s`);
        stack = await startLocalStack({ ...env, DATA_DIR: dataDir }, { ownProcessGroup: true });
        base = stack.baseUrl;
        up = true;
      } else {
        const pid = Number(readFileSync(join(dataDir, 'dynamodb', 'dynamodb-local.pid'), 'utf8'));
        engineKilledAt = Date.now();
        process.kill(pid, 'SIGKILL');
        log(`  SIGKILL of DynamoDB Local alone at +${((Date.now() - together) / 1000).toFixed(1)} s`);
      }
      fault.backAt = Date.now();
    }
    await driven;
    const drivenMs = Date.now() - started;
    log(
      `${expected.length} events acknowledged in ${(drivenMs / 1000).toFixed(0)} s; waiting for deliveries to settle`,
    );

    // Settled: every expected (endpoint, event) has a final answer, or nothing new arrives for a while.
    const pairs = expectedPairs(expected, endpoints);
    let lastCount = -1;
    let quietSince = Date.now();
    const quietMs = Math.max(
      45_000,
      (options.sweepAfterSeconds + 20) * 1000,
      (Number(env.DELIVERY_VISIBILITY_TIMEOUT_SECONDS) + 20) * 1000,
    );
    while (Date.now() - quietSince < quietMs) {
      const count = receivers.receipts.length;
      if (count !== lastCount) {
        lastCount = count;
        quietSince = Date.now();
      }
      const done = pairs.filter((p) => final(p, receivers.receipts)).length;
      if (done === pairs.length) break;
      await pause(2000);
    }
    // The last attempt's message reaches the dead-letter queue at its next receive.
    await pause(10_000);
    const dlq = await mis<{ deliveryId?: string }[]>(dataDir, 'dlq', 'list');
    const overdueOutbox = await mis<unknown[]>(dataDir, 'outbox', 'overdue', '--older-than', '30');
    const logged = await deliveryLogs(base, organisations, endpoints);
    const figures = account({
      expected,
      endpoints,
      receipts: receivers.receipts,
      dlq: new Set(dlq.flatMap((d) => (d.deliveryId ? [d.deliveryId] : []))),
      logged,
      engineKilledAt,
      faults,
      aloneEndedAt,
    });
    return {
      events: expected.length,
      organisations: organisations.length,
      drivenSeconds: drivenMs / 1000,
      writesPerSecond: ((expected.length / EVENTS_PER_CYCLE) * WRITES_PER_CYCLE) / (drivenMs / 1000),
      faults: faults.map((f) => ({ what: f.what, atSeconds: (f.at - together) / 1000 })),
      aloneEventsPerSecond,
      unavailableAnswers,
      overdueOutbox: overdueOutbox.length,
      ...figures,
    };
  }
}

function expectedPairs(expected: Expected[], endpoints: Endpoint[]) {
  return endpoints.flatMap((endpoint) =>
    expected
      .filter(
        (e) => e.organisationId === endpoint.organisationId && (endpoint.events?.includes(e.event) ?? true),
      )
      .map((e) => ({ endpoint, expected: e })),
  );
}

/** A pair is final once its endpoint took it (a 2xx status line, cut-off body or not), or it has had all six attempts. */
function final(pair: { endpoint: Endpoint; expected: Expected }, receipts: Receipt[]): boolean {
  const mine = receipts.filter((r) => r.path === pair.endpoint.path && r.key === pair.expected.key);
  if (pair.endpoint.behaviour === 'gone') return true;
  return mine.some((r) => r.answered >= 200 && r.answered < 300) || mine.length >= 6;
}

interface LoggedOutcome {
  deliveryId: string;
  outcome: string;
}

/** The delivery log of every endpoint, through the API as an integrator reads it. */
async function deliveryLogs(base: string, organisations: Organisation[], endpoints: Endpoint[]) {
  const byEndpoint = new Map<string, LoggedOutcome[]>();
  for (const endpoint of endpoints) {
    const token = organisations.find((o) => o.id === endpoint.organisationId)?.token ?? '';
    const all: LoggedOutcome[] = [];
    let cursor: string | null = null;
    do {
      const query: string = `limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const response = await fetch(`${base}/webhooks/${endpoint.id}/deliveries?${query}`, {
        headers: { Authorization: `Bearer ${token}` },
      });
      if (response.status !== 200) break;
      const page = (await response.json()) as {
        items?: LoggedOutcome[];
        data?: LoggedOutcome[];
        nextCursor: string | null;
      };
      all.push(...(page.items ?? page.data ?? []));
      cursor = page.nextCursor;
    } while (cursor);
    byEndpoint.set(endpoint.id, all);
  }
  return byEndpoint;
}

const percentile = (values: number[], p: number) => {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
};

function account(input: {
  expected: Expected[];
  endpoints: Endpoint[];
  receipts: Receipt[];
  dlq: Set<string>;
  logged: Map<string, LoggedOutcome[]>;
  engineKilledAt: number | undefined;
  faults: { at: number; backAt?: number }[];
  aloneEndedAt: number;
}) {
  const rows = input.endpoints.map((endpoint) => {
    const mine = input.expected.filter(
      (e) => e.organisationId === endpoint.organisationId && (endpoint.events?.includes(e.event) ?? true),
    );
    const receipts = input.receipts.filter((r) => r.path === endpoint.path);
    const deliveryOf = new Map<string, string>();
    for (const r of receipts) deliveryOf.set(r.key, r.deliveryId);
    const succeeded = receipts.filter((r) => r.answered >= 200 && r.answered < 300);
    const log = input.logged.get(endpoint.id) ?? [];
    const outcomes = new Map<string, Set<string>>();
    for (const l of log) outcomes.set(l.deliveryId, (outcomes.get(l.deliveryId) ?? new Set()).add(l.outcome));
    const outcome = (key: string, name: string) =>
      outcomes.get(deliveryOf.get(key) ?? '')?.has(name) ?? false;
    // Delivered: the receiver read the whole request and answered a 2xx status line (also when it
    // then cut the connection, so a log write lost to the engine kill does not make it lost), or the
    // service logged it succeeded.
    const deliveredKeys = new Set([
      ...succeeded.map((r) => r.key),
      ...mine.filter((e) => outcome(e.key, 'succeeded')).map((e) => e.key),
    ]);
    const duplicates = succeeded.length - new Set(succeeded.map((r) => r.key)).size;
    const sameIdDuplicates = succeeded.every((r) => deliveryOf.get(r.key) === r.deliveryId);
    const disabled = receipts.some((r) => r.answered === 410);
    let dlqOrFailed = 0;
    let notSent = 0;
    const lostKeys: Expected[] = [];
    for (const e of mine) {
      if (deliveredKeys.has(e.key)) continue;
      const id = deliveryOf.get(e.key);
      if (id && (input.dlq.has(id) || outcome(e.key, 'failed'))) dlqOrFailed += 1;
      // Until skipped deliveries are logged (issue 13), an endpoint disabled by its 410 is left out
      // of the fan-out: its later events are counted apart, as not sent.
      else if (endpoint.behaviour === 'gone' && disabled) notSent += 1;
      else lostKeys.push(e);
    }
    const unexplained = lostKeys;
    const absentAfterEngineKill = unexplained.filter(
      (e) => input.engineKilledAt !== undefined && Math.abs(e.ackAt - input.engineKilledAt) < 1000,
    ).length;
    const inFault = (t: number) =>
      input.faults.some((f) => t >= f.at - 1000 && t <= (f.backAt ?? f.at) + 15_000);
    const latencies = (phase: Expected['phase']) =>
      mine
        .filter((e) => e.phase === phase && !inFault(e.ackAt) && !e.event.startsWith('sanctuary'))
        .flatMap((e) => {
          const first = succeeded.find((r) => r.key === e.key);
          return first && !inFault(first.at) ? [first.at - e.ackAt] : [];
        });
    return {
      behaviour: endpoint.behaviour,
      organisation: endpoint.organisationId.slice(0, 8),
      expected: mine.length,
      delivered: deliveredKeys.size,
      duplicates,
      duplicatesWithSameDeliveryId: sameIdDuplicates,
      dlqOrLoggedFailed: dlqOrFailed,
      notSentEndpointDisabled: notSent,
      absentAfterEngineKill,
      lost: unexplained.length - absentAfterEngineKill,
      lostKeys: unexplained.slice(0, 5).map((e) => e.key),
      latencyAlone: endpoint.behaviour === 'healthy' ? latencies('alone') : [],
      latencyTogether: endpoint.behaviour === 'healthy' ? latencies('together') : [],
    };
  });
  const healthy = rows.filter((r) => r.behaviour === 'healthy');
  const alone = healthy.flatMap((r) => r.latencyAlone);
  const together = healthy.flatMap((r) => r.latencyTogether);
  return {
    endpoints: rows.map(({ latencyAlone, latencyTogether, ...rest }) => rest),
    healthyLatency: {
      alone: { count: alone.length, p50Ms: percentile(alone, 50), p99Ms: percentile(alone, 99) },
      withNeighbours: {
        count: together.length,
        p50Ms: percentile(together, 50),
        p99Ms: percentile(together, 99),
      },
    },
  };
}
