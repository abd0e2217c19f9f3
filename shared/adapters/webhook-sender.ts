import { promises as dns, type LookupAddress, type LookupOptions } from 'node:dns';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { classifyAddress, isBlockedAddress, isIpLiteral } from '../domain/address-guard.js';
import type { DeliveryErrorClass } from '../domain/delivery-attempt.js';
import { ValidationError } from '../domain/errors.js';

/** A 2xx within this time is a success (INTERFACE.md); connect, TLS and the answer all count. */
export const DELIVERY_TIMEOUT_MS = 10_000;
/** Enough of a subscriber's answer to debug with; the rest is never read. */
export const RESPONSE_EXCERPT_BYTES = 512;
export const MAX_WEBHOOK_URL_LENGTH = 2048;

export interface SendResult {
  /** A 2xx answer. */
  ok: boolean;
  statusCode?: number;
  errorClass?: DeliveryErrorClass;
  /** Until the status line arrived, or until the failure. */
  latencyMs: number;
  responseExcerpt: string;
  /** The raw `Retry-After` header, if the subscriber sent one. */
  retryAfter?: string;
}

/** Resolves a host name to every address it has. */
export type Resolver = (hostname: string, options: LookupOptions) => Promise<LookupAddress[]>;

export interface SendOptions {
  /** http and private addresses allowed: the local stack only. Default from `ALLOW_PRIVATE_WEBHOOK_URLS`. */
  allowPrivate?: boolean;
  timeoutMs?: number;
  resolver?: Resolver;
}

/** The local stack sets `ALLOW_PRIVATE_WEBHOOK_URLS=true` so that a developer can receive on localhost. */
export function privateUrlsAllowed(): boolean {
  return process.env.ALLOW_PRIVATE_WEBHOOK_URLS === 'true';
}

const systemResolver: Resolver = (hostname, options) => dns.lookup(hostname, { ...options, all: true });

class BlockedAddressError extends Error {
  readonly code = 'EBLOCKEDADDRESS';
}

/**
 * The socket's own name resolution, refusing the connection when any address of the host is not
 * public. Checking here, at connect time, and not only at registration, is what stops DNS
 * rebinding: the address checked is the address connected to.
 */
export function guardedLookup(resolver: Resolver = systemResolver): LookupFunction {
  return (hostname, options, callback) => {
    resolver(hostname, options).then(
      (addresses) => {
        const blocked = addresses.find((a) => isBlockedAddress(a.address));
        const first = addresses[0];
        if (blocked || !first) {
          const error = blocked
            ? new BlockedAddressError(`${hostname} resolves to a ${classifyAddress(blocked.address)} address`)
            : Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' });
          callback(error, '', 0);
        } else if (options.all) {
          callback(null, addresses);
        } else {
          callback(null, first.address, first.family);
        }
      },
      (error: NodeJS.ErrnoException) => callback(error, '', 0),
    );
  };
}

const bareHost = (hostname: string) => hostname.replace(/^\[(.*)\]$/, '$1');

interface UrlProblem {
  errorClass: 'invalid_url' | 'blocked_address';
  message: string;
}

/** Why a URL may not be used for webhooks, or undefined when it may. */
function urlProblem(url: string, allowPrivate: boolean): UrlProblem | undefined {
  const invalid = (message: string): UrlProblem => ({ errorClass: 'invalid_url', message });
  const blocked = (message: string): UrlProblem => ({ errorClass: 'blocked_address', message });
  if (url.length > MAX_WEBHOOK_URL_LENGTH)
    return invalid(`must be at most ${MAX_WEBHOOK_URL_LENGTH} characters`);
  if (!URL.canParse(url)) return invalid('must be an absolute URL');
  const target = new URL(url);
  const schemes = allowPrivate ? ['https:', 'http:'] : ['https:'];
  if (!schemes.includes(target.protocol))
    return invalid(allowPrivate ? 'must use http or https' : 'must use https');
  if (target.username || target.password) return invalid('must not contain credentials');
  const host = bareHost(target.hostname);
  if (host === '') return invalid('must name a host');
  if (allowPrivate) return undefined;
  // Node connects to an IP literal without calling `lookup`, so literals are checked here.
  if (isIpLiteral(host) && isBlockedAddress(host)) {
    return blocked(`must point to a public address, not a ${classifyAddress(host).replace('_', '-')} one`);
  }
  if (host === 'localhost' || host.endsWith('.localhost'))
    return blocked('must point to a public address, not a loopback one');
  return undefined;
}

/**
 * The registration-time check (POST /webhooks, `mis webhook add`): https on AWS, no credentials, no
 * private literal address, at most 2048 characters. Host names are checked again at every delivery.
 */
export function assertAcceptableWebhookUrl(url: string, allowPrivate = privateUrlsAllowed()): void {
  const problem = urlProblem(url, allowPrivate);
  if (problem) throw new ValidationError([{ field: 'url', message: `The webhook URL ${problem.message}.` }]);
}

function errorCode(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code) return code;
  // Happy eyeballs (autoSelectFamily) reports one error per address tried.
  if (error instanceof AggregateError) return errorCode(error.errors[0]);
  return '';
}

function classifyError(error: unknown): DeliveryErrorClass {
  const code = errorCode(error);
  if (code === 'EBLOCKEDADDRESS') return 'blocked_address';
  if (code === 'ECONNREFUSED') return 'connection_refused';
  if (['ECONNRESET', 'EPIPE', 'ECONNABORTED'].includes(code)) return 'connection_reset';
  if (['ENOTFOUND', 'EAI_AGAIN', 'EAI_FAIL', 'EAI_NODATA', 'EAI_NONAME'].includes(code)) return 'dns';
  if (code === 'ETIMEDOUT') return 'timeout';
  if (/^(ERR_TLS|ERR_SSL)|CERT|SELF_SIGNED|UNABLE_TO_(GET|VERIFY)/.test(code)) return 'tls';
  if (code.startsWith('HPE_')) return 'protocol_error';
  return 'network';
}

function resultOf(response: IncomingMessage, latencyMs: number, excerpt: Buffer): SendResult {
  const statusCode = response.statusCode ?? 0;
  const ok = statusCode >= 200 && statusCode < 300;
  const retryAfter = response.headers['retry-after'];
  return {
    ok,
    statusCode,
    // Redirects are never followed: the signed request went to the registered URL or nowhere.
    ...(ok ? {} : { errorClass: statusCode >= 300 && statusCode < 400 ? 'redirect' : 'http_error' }),
    latencyMs,
    responseExcerpt: excerpt.toString('utf8'),
    ...(retryAfter === undefined ? {} : { retryAfter }),
  };
}

/**
 * POSTs exactly `body` with `headers` and classifies the outcome; never throws. node:http rather
 * than fetch: it takes a `lookup` for the socket (the address check), follows no redirect, and
 * lets the answer be cut off after a short excerpt instead of buffering it.
 */
export function sendWebhook(
  url: string,
  body: Uint8Array,
  headers: Record<string, string>,
  options: SendOptions = {},
): Promise<SendResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const allowPrivate = options.allowPrivate ?? privateUrlsAllowed();
  const problem = urlProblem(url, allowPrivate);
  if (problem)
    return Promise.resolve({ ok: false, errorClass: problem.errorClass, latencyMs: 0, responseExcerpt: '' });
  const target = new URL(url);
  const send = target.protocol === 'https:' ? httpsRequest : httpRequest;

  return new Promise<SendResult>((resolve) => {
    let settled = false;
    let response: IncomingMessage | undefined;
    let latencyMs = 0;
    const excerpt: Buffer[] = [];
    let excerptSize = 0;

    const request = send({
      method: 'POST',
      protocol: target.protocol,
      hostname: bareHost(target.hostname),
      port: target.port || undefined,
      path: `${target.pathname}${target.search}`,
      headers: { ...headers, 'content-length': String(body.byteLength) },
      // A fresh connection per delivery: a pooled socket that the subscriber closed while idle
      // would fail a delivery that never reached it.
      agent: false,
      ...(allowPrivate ? {} : { lookup: guardedLookup(options.resolver) }),
    });

    const settle = (result: SendResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      request.destroy();
      resolve(result);
    };
    const settleWithResponse = () => {
      if (response) settle(resultOf(response, latencyMs, Buffer.concat(excerpt)));
    };
    const fail = (errorClass: DeliveryErrorClass) =>
      settle({ ok: false, errorClass, latencyMs: elapsed(), responseExcerpt: '' });

    // Once the status line is in, the deadline only cuts the excerpt short.
    const timer = setTimeout(
      () => (response ? settleWithResponse() : fail('timeout')),
      options.timeoutMs ?? DELIVERY_TIMEOUT_MS,
    );

    request.on('response', (incoming) => {
      response = incoming;
      latencyMs = elapsed();
      incoming.on('data', (chunk: Buffer) => {
        const room = RESPONSE_EXCERPT_BYTES - excerptSize;
        if (room > 0) {
          const kept = chunk.subarray(0, room);
          excerpt.push(kept);
          excerptSize += kept.length;
        }
        if (excerptSize >= RESPONSE_EXCERPT_BYTES) settleWithResponse();
      });
      incoming.on('end', settleWithResponse);
      incoming.on('error', settleWithResponse);
      incoming.on('close', settleWithResponse);
    });
    request.on('error', (error) => (response ? settleWithResponse() : fail(classifyError(error))));
    request.end(body);
  });
}
