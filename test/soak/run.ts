import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { table } from '../bench/report.js';
import { BEHAVIOURS, type Phase, runSoak } from './soak.js';

/**
 * `npm run soak`: the full soak (about 5,000 events over five organisations, three SIGKILLs of the
 * stack's process group, one of DynamoDB Local alone): about 9 minutes on a quiet 2-core machine,
 * where DynamoDB Local's pace through the API (printed) is the limit; a busy machine takes longer.
 * SOAK_CYCLES scales it: the cycles every organisation drives (10 events each), shared between the
 * neighbours and faults phases, plus a fifth of it for the healthy organisations alone.
 */
const cycles = Number(process.env.SOAK_CYCLES || 87);
// A third of the cycles without faults gives the healthy endpoints beside the misbehaving ones about
// as many deliveries to measure as alone (29 × 5 × 9 ≈ 1,300 by default, against 17 × 4 × 9 ≈ 600),
// enough for a p99, and puts the slow endpoint's limit to work (it subscribes to one event a cycle);
// the other two thirds leave the four faults slices of 20 s or more, each with the stack's restart.
// The cycles of all five organisations are the same 87 as when the faults ran through the whole
// second phase: about 5,000 events and the same ~10 minutes (the warm-up adds 80 events).
const neighbours = Math.max(1, Math.round(cycles / 3));
const result = await runSoak({
  cycles: {
    'warm-up': 2,
    alone: Math.max(2, Math.round(cycles / 5)),
    neighbours,
    faults: Math.max(1, cycles - neighbours),
  },
  healthyOrganisations: 4,
  stackKills: 3,
  engineKill: true,
  goneAfter: 30,
  sweepAfterSeconds: 60,
  // Unpaced, the API takes about 35 writes/s here since a delivery writes one item, more than the
  // relay and the delivery worker sustain beside it on one DynamoDB Local; 18 (20 events/s) is
  // what the healthy organisations ran at alone before, with sub-second latency.
  writesPerSecond: 18,
  // As in the short soak: above the longest batch (the slow endpoint's 8 s, the 10 s deadline), so
  // nothing is received twice by a healthy worker, but a message cut off by a kill returns in 25 s
  // instead of AWS's 180, and the settling waits that much less.
  visibilityTimeoutSeconds: 25,
  log: (line) => console.log(line),
});

const ms = (v: number) => (Number.isNaN(v) ? '-' : `${Math.round(v)} ms`);
const latency = (phase: Phase) => {
  const l = result.healthyLatency[phase];
  return `p50 ${ms(l.p50Ms)} p99 ${ms(l.p99Ms)} (${l.count})`;
};
const misbehaving = BEHAVIOURS.filter((b) => b !== 'healthy');
console.log(
  [
    '',
    `Soak: ${result.events} events acknowledged across ${result.organisations} organisations in ${result.drivenSeconds.toFixed(0)} s; ` +
      `faults: ${result.faults.map((f) => `${f.what} kill at +${f.atSeconds.toFixed(0)} s`).join(', ')}; ` +
      `503 answers meanwhile: ${result.unavailableAnswers}; outbox items still unrelayed: ${result.overdueOutbox}`,
    '',
    table(
      [
        'phase',
        'cycles',
        'events',
        'driven',
        'events/s',
        'API writes/s',
        ...misbehaving.map((b) => `${b} requests`),
      ],
      result.phases.map((p) => [
        p.phase,
        p.cycles,
        p.events,
        `${p.drivenSeconds.toFixed(0)} s`,
        p.eventsPerSecond.toFixed(1),
        p.writesPerSecond.toFixed(1),
        ...misbehaving.map((b) => p.requests[b]),
      ]),
    ),
    '',
    "Events/s alone is DynamoDB Local's pace through the API. Healthy endpoints, independence: " +
      `alone ${latency('alone')}, beside misbehaving neighbours ${latency('neighbours')} (no faults in either); ` +
      `with the faults, outside ${result.faultWindowSeconds.before} s before to ${result.faultWindowSeconds.after} s after each, ${latency('faults')}.`,
    '',
    table(
      [
        'endpoint',
        'org',
        'expected',
        'delivered',
        'duplicates',
        'same id',
        'DLQ/failed',
        'skipped (logged)',
        'absent after engine kill',
        'lost',
      ],
      result.endpoints.map((r) => [
        r.behaviour,
        r.organisation,
        r.expected,
        r.delivered,
        r.duplicates,
        r.duplicatesWithSameDeliveryId ? 'yes' : 'NO',
        r.dlqOrLoggedFailed,
        r.skippedLogged,
        r.absentAfterEngineKill,
        r.lost,
      ]),
    ),
    '',
    `Lost: ${result.endpoints.reduce((n, r) => n + r.lost, 0)}`,
    ...result.endpoints.flatMap((r) => r.lossDiagnoses.map((d) => describeLoss(r, d))),
    ...result.endpoints.flatMap((r) =>
      r.problems.map((p) => `PROBLEM at ${r.behaviour} (org ${r.organisation}): ${p}`),
    ),
    ...result.endpoints.flatMap((r) =>
      r.notes.map((n) => `Note at ${r.behaviour} (org ${r.organisation}): ${n}`),
    ),
  ].join('\n'),
);

type Row = (typeof result.endpoints)[number];
/** What is known of one lost event, for whoever explains it. */
function describeLoss(row: Row, d: Row['lossDiagnoses'][number]): string {
  const seconds = (s: number) => `${s >= 0 ? '+' : ''}${s.toFixed(1)} s`;
  const fromFaults = d.ackSecondsFromFaults.map((f, i) => {
    const nth = d.ackSecondsFromFaults.slice(0, i + 1).filter((g) => g.what === f.what).length;
    const when = f.seconds >= 0 ? `${f.seconds.toFixed(1)} s after` : `${(-f.seconds).toFixed(1)} s before`;
    return `${when} ${f.what} kill ${nth}`;
  });
  const answered = d.receipts.answered.map(
    (a, i) => `${a} at ${seconds(d.receipts.secondsAfterAck[i] ?? 0)}`,
  );
  return [
    `  ${row.behaviour} (org ${row.organisation}) ${d.key}, ${d.phase} phase; acknowledged ${fromFaults.join(', ') || 'with no fault'}`,
    `    here: ${d.receipts.count} requests${answered.length > 0 ? ` (answered ${answered.join(', ')})` : ''}; ` +
      `delivery id ${d.deliveryId ? `${d.deliveryId} (from its ${d.deliveryIdFrom})` : 'unknown (no receipt and log elsewhere name its event id)'}; ` +
      `logged: ${d.logged.join(', ') || 'nothing'}; in the DLQ: ${d.inDlq ? 'yes' : 'no'}`,
    `    received elsewhere in the organisation: ${d.elsewhere.join(', ') || 'nowhere'}`,
  ].join('\n');
}

mkdirSync('.bench', { recursive: true });
writeFileSync(
  join('.bench', 'soak.json'),
  JSON.stringify({ at: new Date().toISOString(), ...result }, null, 2),
);
process.exit(result.endpoints.some((r) => r.lost > 0 || r.problems.length > 0) ? 1 : 0);
