import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { logger } from '../../shared/observability.js';
import { DELIVERY_RULE_PATTERN } from '../../shared/topology/event-bus.js';

/** EventBridge's own limits, checked here so that the local bus refuses what AWS would refuse. */
const MAX_ENTRIES = 10;
const MAX_REQUEST_BYTES = 256 * 1024;

interface Entry {
  EventBusName?: string;
  Source?: string;
  DetailType?: string;
  Detail?: string;
}

export interface LocalEventBus {
  endpoint: string;
  stop(): Promise<void>;
}

function matchesDeliveryRule(entry: Entry): boolean {
  return (
    (DELIVERY_RULE_PATTERN.source as readonly string[]).includes(entry.Source ?? '') &&
    (DELIVERY_RULE_PATTERN['detail-type'] as readonly string[]).includes(entry.DetailType ?? '')
  );
}

async function readJson(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const body = Buffer.concat(chunks);
  if (body.length > MAX_REQUEST_BYTES) throw new Error('Request too large');
  return JSON.parse(body.toString('utf8'));
}

type EntryError = { ErrorCode: string; ErrorMessage: string };

/** What PutEvents checks of one entry before the rule sees it. */
function checkEntry(entry: Entry, eventBusName: string): 'ok' | EntryError {
  if (entry.EventBusName !== eventBusName || !entry.Source || !entry.DetailType || !entry.Detail) {
    return {
      ErrorCode: 'MalformedDetail',
      ErrorMessage: 'EventBusName, Source, DetailType and Detail are required',
    };
  }
  try {
    JSON.parse(entry.Detail);
  } catch {
    return { ErrorCode: 'MalformedDetail', ErrorMessage: 'Detail is not JSON' };
  }
  return 'ok';
}

/**
 * EventBridge has no local engine, so the local stack answers the one call the relay makes,
 * PutEvents, over the same JSON protocol the SDK uses, and applies the delivery rule itself: an
 * entry that matches goes to the delivery queue with its detail as the message body.
 */
export async function startLocalEventBus(options: {
  eventBusName: string;
  sendToDeliveryQueue: (body: string) => Promise<void>;
  /**
   * The entries of one PutEvents that match the rule, sent together (SendMessageBatch); true for
   * each body the queue took. Without it, each is sent on its own.
   */
  sendBatchToDeliveryQueue?: (bodies: string[]) => Promise<boolean[]>;
}): Promise<LocalEventBus> {
  async function sendMatching(bodies: string[]): Promise<boolean[]> {
    if (bodies.length === 0) return [];
    try {
      if (options.sendBatchToDeliveryQueue) return await options.sendBatchToDeliveryQueue(bodies);
      return await Promise.all(
        bodies.map((body) =>
          options.sendToDeliveryQueue(body).then(
            () => true,
            (error: unknown) => {
              logger.error('Local bus could not reach the delivery queue', { error });
              return false;
            },
          ),
        ),
      );
    } catch (error) {
      logger.error('Local bus could not reach the delivery queue', { error });
      return bodies.map(() => false);
    }
  }

  const server = createServer(async (request, response) => {
    const reply = (status: number, body: unknown) => {
      response.writeHead(status, {
        'Content-Type': 'application/x-amz-json-1.1',
        'x-amzn-RequestId': randomUUID(),
      });
      response.end(JSON.stringify(body));
    };
    try {
      if (request.headers['x-amz-target'] !== 'AWSEvents.PutEvents') {
        return reply(400, {
          __type: 'UnknownOperationException',
          message: 'Only PutEvents is served locally',
        });
      }
      const { Entries } = (await readJson(request)) as { Entries?: Entry[] };
      if (!Array.isArray(Entries) || Entries.length === 0 || Entries.length > MAX_ENTRIES) {
        return reply(400, { __type: 'ValidationException', message: `Send 1 to ${MAX_ENTRIES} entries` });
      }
      const checked = Entries.map((entry) => checkEntry(entry, options.eventBusName));
      const matching = checked.flatMap((result, index) =>
        result === 'ok' && matchesDeliveryRule(Entries[index] as Entry) ? [index] : [],
      );
      const taken = await sendMatching(matching.map((index) => (Entries[index] as Entry).Detail ?? ''));
      const results = checked.map((result, index) => {
        if (result !== 'ok') return result;
        const at = matching.indexOf(index);
        if (at >= 0 && !taken[at]) {
          return { ErrorCode: 'InternalFailure', ErrorMessage: 'The rule target did not accept the event' };
        }
        return { EventId: randomUUID() };
      });
      reply(200, { FailedEntryCount: results.filter((r) => 'ErrorCode' in r).length, Entries: results });
    } catch {
      reply(400, { __type: 'SerializationException', message: 'Malformed request' });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    stop: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
