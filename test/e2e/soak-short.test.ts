import { describe, expect, it } from 'vitest';
import { runSoak } from '../soak/soak.js';

/**
 * The soak (`npm run soak`) in small: every kind of event to every behaviour of subscriber, its
 * three phases (healthy alone, beside the misbehaving endpoints, then one SIGKILL of the stack's
 * process group at a random moment): every acknowledged event is delivered, dead-lettered, logged
 * failed or (once the gone endpoint answered 410) logged skipped; none is lost, and every duplicate
 * carries its first copy's delivery id.
 */
describe('the short soak', { timeout: 240_000 }, () => {
  it('loses no acknowledged event through a SIGKILL, with every kind of misbehaving subscriber', async () => {
    const result = await runSoak({
      cycles: { 'warm-up': 1, alone: 1, neighbours: 2, faults: 3 },
      healthyOrganisations: 1,
      stackKills: 1,
      engineKill: false,
      goneAfter: 5,
      sweepAfterSeconds: 30,
      // Above the longest batch (the slow endpoint's 8 s, the 10 s deadline), below AWS's 180 s so
      // that a message cut off by the kill returns within the test's time.
      visibilityTimeoutSeconds: 25,
      log: () => {},
    });
    expect(result.faults).toHaveLength(1);
    expect(result.phases.map((p) => p.phase)).toEqual(['warm-up', 'alone', 'neighbours', 'faults']);
    for (const row of result.endpoints) {
      expect({ endpoint: row.behaviour, lost: row.lost, diagnoses: row.lossDiagnoses }).toEqual({
        endpoint: row.behaviour,
        lost: 0,
        diagnoses: [],
      });
      expect({ endpoint: row.behaviour, problems: row.problems }).toEqual({
        endpoint: row.behaviour,
        problems: [],
      });
      expect(row.duplicatesWithSameDeliveryId).toBe(true);
      expect(row.absentAfterEngineKill).toBe(0);
      // Every endpoint that answered 410 was disabled: its later events are in its log as skipped.
      if (row.answered410) expect(row.skippedLogged).toBeGreaterThan(0);
    }
    const healthy = result.endpoints.filter((r) => r.behaviour === 'healthy');
    expect(healthy.every((r) => r.delivered === r.expected)).toBe(true);
    // The gone endpoint answers 410 after 5 requests: within the neighbours phase's 20 events.
    expect(result.endpoints.find((r) => r.behaviour === 'gone')?.answered410).toBe(true);
    expect(result.healthyLatency.alone.count).toBeGreaterThan(0);
    expect(result.healthyLatency.neighbours.count).toBeGreaterThan(0);
  });
});
