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

/**
 * EventBridge has no local engine, so the local stack answers the one call the relay makes,
 * PutEvents, over the same JSON protocol the SDK uses, and applies the delivery rule itself: an
 * entry that matches goes to the delivery queue with its detail as the message body.
 */
export async function startLocalEventBus(options: {
  eventBusName: string;
  sendToDeliveryQueue: (body: string) => Promise<void>;
}): Promise<LocalEventBus> {
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
      const results = await Promise.all(
        Entries.map(async (entry) => {
          if (
            entry.EventBusName !== options.eventBusName ||
            !entry.Source ||
            !entry.DetailType ||
            !entry.Detail
          ) {
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
          try {
            if (matchesDeliveryRule(entry)) await options.sendToDeliveryQueue(entry.Detail);
            return { EventId: randomUUID() };
          } catch (error) {
            logger.error('Local bus could not reach the delivery queue', { error });
            return { ErrorCode: 'InternalFailure', ErrorMessage: 'The rule target did not accept the event' };
          }
        }),
      );
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
