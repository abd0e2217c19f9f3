import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DynamoDBClient, paginateScan } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { localCipher } from '../../shared/adapters/secret-cipher.js';
import { SECRET_LENGTH, tokenPattern } from '../../shared/domain/token.js';
import { readStackInfo } from '../../shared/topology/local-stack.js';
import { issuedSecretsFile } from './local-stack.js';

/**
 * What must never be in a log line (DESIGN.md, "Observability"), as exact as the formats allow:
 * bearer tokens, their secret part alone, webhook signing secrets (whole, or the base64 key after
 * `whsec_`), and both delivery signatures. A base64 value of 32 bytes is both the `whsec_` key and
 * a Standard Webhooks signature, so it is looked for on its own too.
 */
export function secretPatterns(tag: string): { kind: string; pattern: RegExp }[] {
  const base64Run = (body: string) => new RegExp(`(?<![A-Za-z0-9+/])${body}(?![A-Za-z0-9+/=])`, 'g');
  return [
    { kind: 'bearer token', pattern: new RegExp(tokenPattern(tag), 'g') },
    {
      // Exactly the secret's length, upper and lower case mixed as a random secret's are (a hex
      // digest of that length is not one); the odds that a secret has no letter of one case are 10⁻⁹.
      kind: 'token secret',
      pattern: new RegExp(
        `(?<![A-Za-z0-9+/])(?=[A-Za-z0-9]*[A-Z])(?=[A-Za-z0-9]*[a-z])[A-Za-z0-9]{${SECRET_LENGTH}}(?![A-Za-z0-9+/])`,
        'g',
      ),
    },
    { kind: 'webhook signing secret', pattern: /whsec_[A-Za-z0-9+/]{16,}/g },
    { kind: 'signature (sha256=)', pattern: /sha256=[0-9a-fA-F]{64}/g },
    { kind: 'signature (v1,)', pattern: /v1,[A-Za-z0-9+/]{43}=/g },
    { kind: '32-byte base64 value (signing key or signature)', pattern: base64Run('[A-Za-z0-9+/]{43}=') },
  ];
}

export interface SecretInLog {
  kind: string;
  line: number;
  /** The text around the secret, which is shown by its first characters only. */
  excerpt: string;
}

/** Every secret found in `log`, line by line: by pattern, and each of `known` (issued during the run) verbatim. */
export function findSecrets(log: string, known: readonly string[] = [], tag = 'svc'): SecretInLog[] {
  const patterns = secretPatterns(tag);
  const found: SecretInLog[] = [];
  log.split('\n').forEach((text, index) => {
    const hits: { kind: string; value: string; at: number }[] = [];
    for (const { kind, pattern } of patterns) {
      for (const match of text.matchAll(pattern)) hits.push({ kind, value: match[0], at: match.index });
    }
    for (const value of known) {
      const at = value ? text.indexOf(value) : -1;
      if (at >= 0) hits.push({ kind: 'secret issued during the run', value, at });
    }
    for (const hit of hits) {
      if (found.some((f) => f.line === index + 1 && f.kind === hit.kind)) continue;
      const shown = `${hit.value.slice(0, 8)}…(${hit.value.length} characters)`;
      const excerpt = `${text.slice(Math.max(0, hit.at - 80), hit.at)}${shown}`;
      found.push({ kind: hit.kind, line: index + 1, excerpt });
    }
  });
  return found;
}

/** One line per kind: how many log lines hold it, and the first of them. */
export function describeSecretsInLog(found: readonly SecretInLog[]): string {
  const kinds = [...new Set(found.map((f) => f.kind))];
  return kinds
    .map((kind) => {
      const lines = found.filter((f) => f.kind === kind);
      const first = lines[0] as SecretInLog;
      return `  ${kind}: ${lines.length} line(s), first line ${first.line}: …${first.excerpt}`;
    })
    .join('\n');
}

/**
 * The secrets a running stack has handed out: the tokens and secrets `mis` printed, and the signing
 * secret of every webhook endpoint still in the table (those created through the API), decrypted
 * with the stack's local key. Each with its secret part alone (after the token's last `_`, after
 * `whsec_`). Read it before the stack stops: it needs the stack's DynamoDB.
 */
export async function secretsIssuedBy(dataDir: string): Promise<string[]> {
  const secrets = existsSync(issuedSecretsFile(dataDir))
    ? readFileSync(issuedSecretsFile(dataDir), 'utf8').split('\n').filter(Boolean)
    : [];
  const info = readStackInfo(dataDir);
  if (info) {
    const cipher = localCipher(
      Buffer.from(readFileSync(join(dataDir, 'signing-secrets.key'), 'utf8'), 'base64'),
    );
    const client = new DynamoDBClient({
      endpoint: info.dynamodbEndpoint,
      region: 'local',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
    const pages = paginateScan(
      { client },
      {
        TableName: info.tableName,
        FilterExpression: '#kind = :kind',
        ExpressionAttributeNames: { '#kind': 'kind' },
        ExpressionAttributeValues: { ':kind': { S: 'webhook-endpoint' } },
      },
    );
    for await (const page of pages) {
      for (const item of (page.Items ?? []).map((raw) => unmarshall(raw))) {
        const context = { organisationId: String(item.organisationId), endpointId: String(item.id) };
        secrets.push(await cipher.decrypt(String(item.encryptedSecret), context));
      }
    }
    client.destroy();
  }
  return secrets.flatMap((secret) => [
    secret,
    secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret.slice(secret.lastIndexOf('_') + 1),
  ]);
}
