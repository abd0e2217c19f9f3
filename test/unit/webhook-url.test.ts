import { describe, expect, it } from 'vitest';
import { assertAcceptableWebhookUrl } from '../../shared/adapters/webhook-sender.js';
import { ValidationError } from '../../shared/domain/errors.js';
import { thrownBy, validationIssuesOf } from '../support/throws.js';

const onAws = (url: string) => () => assertAcceptableWebhookUrl(url, false);
const locally = (url: string) => () => assertAcceptableWebhookUrl(url, true);

/** The field issue's message, or undefined when the URL is accepted. */
function refusal(url: string, allowPrivate: boolean): string | undefined {
  const issues = validationIssuesOf(() => assertAcceptableWebhookUrl(url, allowPrivate));
  return issues.length > 0 ? issues.map((i) => `${i.field}: ${i.message}`).join('; ') : undefined;
}

describe('webhook URL registration', () => {
  it('accepts public https URLs on AWS', () => {
    expect(onAws('https://hooks.example.com/incoming?team=7')).not.toThrow();
    expect(onAws('https://93.184.216.34:8443/hook')).not.toThrow();
    expect(onAws('https://[2606:4700:4700::1111]/hook')).not.toThrow();
  });

  it.each([
    ['http://hooks.example.com/', /https/],
    ['ftp://hooks.example.com/', /https/],
    ['hooks.example.com/hook', /absolute URL/],
    ['https://user:pass@hooks.example.com/', /credentials/],
    ['https://token@hooks.example.com/', /credentials/],
    ['https://127.0.0.1/', /loopback/],
    ['https://10.1.2.3/', /private/],
    ['https://169.254.169.254/latest/meta-data/', /metadata/],
    ['https://[::1]/', /loopback/],
    ['https://[::ffff:10.0.0.1]/', /private/],
    ['https://[fd00:ec2::254]/', /metadata/],
    ['https://0x7f000001/', /loopback/],
    ['https://localhost/', /loopback/],
    ['https://api.localhost/', /loopback/],
  ])('refuses %s on AWS', (url, reason) => {
    expect(refusal(url, false)).toMatch(reason);
  });

  it('refuses URLs longer than 2048 characters', () => {
    expect(refusal(`https://hooks.example.com/${'a'.repeat(2048)}`, false)).toMatch(/at most 2048/);
  });

  it('names the url field', () => {
    expect(thrownBy(onAws('http://example.com'), ValidationError).issues).toEqual([
      { field: 'url', message: 'The webhook URL must use https.' },
    ]);
  });

  it('lets the local stack use http and loopback, but still no credentials or other schemes', () => {
    expect(locally('http://localhost:4000/hook')).not.toThrow();
    expect(locally('http://127.0.0.1:4000/hook')).not.toThrow();
    expect(refusal('https://user:pass@localhost/', true)).toMatch(/credentials/);
    expect(refusal('file:///etc/passwd', true)).toMatch(/http or https/);
  });
});
