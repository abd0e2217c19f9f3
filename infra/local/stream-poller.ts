import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
  type _Record as StreamRecord,
} from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { logger } from '../../shared/observability.js';
import { RELAY_STREAM } from '../../shared/topology/relay-stream.js';
import { OUTBOX_STREAM_FILTER } from '../../shared/topology/stream-filter.js';

export type StreamHandler = (event: DynamoDBStreamEvent) => Promise<DynamoDBBatchResponse | undefined>;

/** Where each shard was read up to, so that a restart (even after SIGKILL) relays what was not relayed. */
type Checkpoints = Record<string, string>;

function loadCheckpoints(file: string): Checkpoints {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as Checkpoints;
  } catch {
    return {};
  }
}

function saveCheckpoints(file: string, checkpoints: Checkpoints): void {
  writeFileSync(`${file}.tmp`, JSON.stringify(checkpoints));
  renameSync(`${file}.tmp`, file);
}

/** The event source mapping's filter (OUTBOX_STREAM_FILTER), applied to one record. */
export function matchesOutboxFilter(record: StreamRecord): boolean {
  return (
    (OUTBOX_STREAM_FILTER.eventName as readonly string[]).includes(record.eventName ?? '') &&
    (OUTBOX_STREAM_FILTER.dynamodb.NewImage.kind.S as readonly string[]).includes(
      record.dynamodb?.NewImage?.kind?.S ?? '',
    )
  );
}

type Image = Record<string, unknown>;

/**
 * The streams SDK reads an empty map attribute as `{}`, where Lambda's event would carry
 * `{"M":{}}`; put the type back so that the relay sees what it sees on AWS.
 */
function restoreEmptyMaps(image: Image | undefined): Image | undefined {
  if (!image) return image;
  const fix = (value: unknown): unknown => {
    if (typeof value !== 'object' || value === null) return value;
    const entries = Object.entries(value);
    if (entries.length === 0) return { M: {} };
    const [type, inner] = entries[0] as [string, unknown];
    if (type === 'M') return { M: restoreEmptyMaps(inner as Image) };
    if (type === 'L') return { L: (inner as unknown[]).map(fix) };
    return value;
  };
  return Object.fromEntries(Object.entries(image).map(([name, value]) => [name, fix(value)]));
}

function toLambdaRecord(record: StreamRecord, streamArn: string): DynamoDBRecord {
  const change = record.dynamodb ?? {};
  return {
    eventID: record.eventID,
    eventName: record.eventName as DynamoDBRecord['eventName'],
    eventVersion: record.eventVersion,
    eventSource: 'aws:dynamodb',
    awsRegion: record.awsRegion,
    eventSourceARN: streamArn,
    dynamodb: {
      ApproximateCreationDateTime: change.ApproximateCreationDateTime
        ? Math.floor(change.ApproximateCreationDateTime.getTime() / 1000)
        : undefined,
      Keys: change.Keys as NonNullable<DynamoDBRecord['dynamodb']>['Keys'],
      NewImage: restoreEmptyMaps(change.NewImage) as NonNullable<DynamoDBRecord['dynamodb']>['NewImage'],
      SequenceNumber: change.SequenceNumber,
      SizeBytes: change.SizeBytes,
      StreamViewType: change.StreamViewType as NonNullable<DynamoDBRecord['dynamodb']>['StreamViewType'],
    },
  };
}

/**
 * The local stand-in for Lambda's DynamoDB stream event source mapping: reads every shard in order,
 * passes the records that match the filter to the relay handler in real-shaped events, and moves
 * its checkpoint only past what the handler accepted.
 */
export function startStreamPoller(options: {
  endpoint: string;
  tableName: string;
  checkpointFile: string;
  handler: StreamHandler;
  intervalMs?: number;
}): { stop(): Promise<void> } {
  const config = {
    endpoint: options.endpoint,
    region: 'local',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  };
  const dynamodb = new DynamoDBClient(config);
  const streams = new DynamoDBStreamsClient(config);
  const checkpoints = loadCheckpoints(options.checkpointFile);
  const iterators = new Map<string, string | undefined>();
  let running = true;
  let wake: (() => void) | undefined;
  /** After a failed batch the relay is retried with growing pauses, as Lambda backs off too. */
  let backoffMs = 0;

  async function iteratorFor(streamArn: string, shardId: string): Promise<string | undefined> {
    if (iterators.has(shardId)) return iterators.get(shardId);
    const after = checkpoints[shardId];
    const { ShardIterator } = await streams.send(
      new GetShardIteratorCommand({
        StreamArn: streamArn,
        ShardId: shardId,
        ShardIteratorType: after ? 'AFTER_SEQUENCE_NUMBER' : 'TRIM_HORIZON',
        ...(after ? { SequenceNumber: after } : {}),
      }),
    );
    iterators.set(shardId, ShardIterator);
    return ShardIterator;
  }

  /** Reads one batch of a shard; true when it held records (the next poll then follows at once). */
  async function pollShard(streamArn: string, shardId: string): Promise<boolean> {
    const iterator = await iteratorFor(streamArn, shardId);
    if (!iterator) return false;
    // The mapping's batch size: the relay sees batches as large as it does on AWS.
    const { Records = [], NextShardIterator } = await streams.send(
      new GetRecordsCommand({ ShardIterator: iterator, Limit: RELAY_STREAM.batchSize }),
    );
    const matching = Records.filter(matchesOutboxFilter);
    let accepted = Records;
    if (matching.length > 0) {
      const result = await options.handler({ Records: matching.map((r) => toLambdaRecord(r, streamArn)) });
      const failed = result?.batchItemFailures[0]?.itemIdentifier;
      if (failed !== undefined) {
        accepted = Records.slice(
          0,
          Records.findIndex((r) => r.dynamodb?.SequenceNumber === failed),
        );
        iterators.delete(shardId);
        backoffMs = Math.min(30_000, Math.max(500, backoffMs * 2));
      } else {
        backoffMs = 0;
      }
    }
    const last = accepted.at(-1)?.dynamodb?.SequenceNumber;
    if (last) {
      checkpoints[shardId] = last;
      saveCheckpoints(options.checkpointFile, checkpoints);
    }
    if (accepted === Records) iterators.set(shardId, NextShardIterator);
    return Records.length > 0;
  }

  /** Shards change rarely (DynamoDB rolls them over every few hours), so they are listed every few seconds. */
  let shards: { streamArn: string; ids: string[]; listedAt: number } | undefined;

  async function listShards() {
    const { Table } = await dynamodb.send(new DescribeTableCommand({ TableName: options.tableName }));
    const streamArn = Table?.LatestStreamArn;
    if (!streamArn) return undefined;
    const { StreamDescription } = await streams.send(new DescribeStreamCommand({ StreamArn: streamArn }));
    const ids = (StreamDescription?.Shards ?? []).flatMap((shard) => (shard.ShardId ? [shard.ShardId] : []));
    return { streamArn, ids, listedAt: Date.now() };
  }

  let failedPolls = 0;
  const loop = (async () => {
    while (running) {
      // While records flow the next poll follows at once; the interval is only for an idle stream.
      let flowing = false;
      try {
        if (!shards || Date.now() - shards.listedAt > 3000) shards = await listShards();
        for (const shardId of shards?.ids ?? []) {
          if (shards && (await pollShard(shards.streamArn, shardId))) flowing = true;
        }
        if (failedPolls > 0) {
          logger.warn('Stream poll recovered', { failedPolls });
          failedPolls = 0;
          backoffMs = 0;
        }
      } catch (error) {
        // DynamoDB unreachable (e.g. the engine restarting): one line per outage, growing pauses.
        if (running && failedPolls === 0)
          logger.error('Stream poll failed; retrying with backoff', { error });
        failedPolls += 1;
        backoffMs = Math.min(5_000, Math.max(200, backoffMs * 2));
        iterators.clear();
        shards = undefined;
      }
      if (flowing && backoffMs === 0) continue;
      await new Promise<void>((resolve) => {
        wake = resolve;
        setTimeout(resolve, backoffMs || (options.intervalMs ?? 50));
      });
    }
  })();

  return {
    stop: async () => {
      running = false;
      wake?.();
      await loop;
      dynamodb.destroy();
      streams.destroy();
    },
  };
}
