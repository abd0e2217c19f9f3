import { randomUUID } from 'node:crypto';
import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { dynamodb, tableName } from '../../shared/adapters/dynamodb.js';
import { markRelayed, outboxWrite } from '../../shared/adapters/outbox.js';
import { commitTransaction } from '../../shared/adapters/transaction.js';
import { overdueOutboxItems, sweepUnrelayedOutbox } from '../../shared/app/sweep-outbox.js';
import { newDomainEvent } from '../../shared/domain/webhook-events.js';
import { useFreshTable } from '../support/table.js';

beforeAll(async () => {
  await useFreshTable();
});

const MINUTE = 60_000;

async function item(pk: string) {
  const { Item } = await dynamodb().send(
    new GetItemCommand({ TableName: tableName(), Key: marshall({ pk, sk: 'EVENT' }) }),
  );
  return Item ? unmarshall(Item) : undefined;
}

/** An outbox item committed `minutesAgo`, as a write's transaction commits it, that no relay marked. */
async function unrelayedEvent(minutesAgo: number) {
  const event = newDomainEvent(
    'member.created',
    randomUUID(),
    { member: { id: randomUUID() } },
    new Date(Date.now() - minutesAgo * MINUTE),
  );
  await commitTransaction([outboxWrite(event)]);
  return event;
}

describe('the outbox sweep', () => {
  it('puts an event the relay never marked back on the stream, with the same event id, and lists it until then', async () => {
    const lost = await unrelayedEvent(10);
    const recent = await unrelayedEvent(0);
    const overdue = (await overdueOutboxItems({ olderThanMs: 5 * MINUTE })).map((i) => i.event.eventId);
    expect(overdue).toContain(lost.eventId);
    expect(overdue).not.toContain(recent.eventId);

    const sweep = await sweepUnrelayedOutbox({ olderThanMs: 5 * MINUTE });
    expect(sweep.replayed).toBeGreaterThanOrEqual(1);
    // A new INSERT of an outbox item: the stream filter passes it to the relay, which fans it out
    // with delivery ids derived from the same event id.
    expect(await item(`OUTBOX#${lost.eventId}#REPLAY#1`)).toMatchObject({
      kind: 'outbox',
      eventId: lost.eventId,
      event: lost.event,
      organisationId: lost.organisationId,
      occurredAt: lost.occurredAt,
    });
    expect(await item(`OUTBOX#${recent.eventId}#REPLAY#1`)).toBeUndefined();
    // Its clock restarts: a relay that is still failing gets it again only after another threshold.
    const again = await overdueOutboxItems({ olderThanMs: 5 * MINUTE });
    expect(again.map((i) => i.event.eventId)).not.toContain(lost.eventId);
    const pending = await overdueOutboxItems({ olderThanMs: 0, now: new Date(Date.now() + MINUTE) });
    expect(pending.find((i) => i.event.eventId === lost.eventId)?.replays).toBe(1);
  });

  it('leaves what the relay marked relayed alone', async () => {
    const relayed = await unrelayedEvent(10);
    await markRelayed([relayed]);
    const pending = await overdueOutboxItems({ olderThanMs: 0, now: new Date(Date.now() + MINUTE) });
    expect(pending.map((i) => i.event.eventId)).not.toContain(relayed.eventId);
    await sweepUnrelayedOutbox({ olderThanMs: 5 * MINUTE });
    expect(await item(`OUTBOX#${relayed.eventId}#REPLAY#1`)).toBeUndefined();
    expect((await item(`OUTBOX#${relayed.eventId}`))?.relayedAt).toBeTypeOf('string');
  });
});
