import { describe, expect, it } from 'vitest';
import {
  type AddressClass,
  classifyAddress,
  isBlockedAddress,
  isIpLiteral,
} from '../../shared/domain/address-guard.js';

const cases: [string, AddressClass][] = [
  // IPv4 private
  ['10.0.0.1', 'private'],
  ['10.255.255.255', 'private'],
  ['172.16.0.1', 'private'],
  ['172.31.255.254', 'private'],
  ['192.168.1.1', 'private'],
  // IPv4 loopback, link-local, metadata
  ['127.0.0.1', 'loopback'],
  ['127.255.255.254', 'loopback'],
  ['169.254.0.1', 'link_local'],
  ['169.254.169.253', 'link_local'],
  ['169.254.169.254', 'metadata'],
  ['169.254.170.2', 'metadata'],
  // unspecified, CGNAT, multicast, reserved
  ['0.0.0.0', 'unspecified'],
  ['0.1.2.3', 'reserved'],
  ['100.64.0.1', 'cgnat'],
  ['100.100.100.200', 'cgnat'],
  ['100.127.255.255', 'cgnat'],
  ['224.0.0.1', 'multicast'],
  ['239.255.255.250', 'multicast'],
  ['240.0.0.1', 'reserved'],
  ['255.255.255.255', 'reserved'],
  ['192.0.0.8', 'reserved'],
  ['192.0.2.1', 'reserved'],
  ['198.18.0.1', 'reserved'],
  ['198.51.100.7', 'reserved'],
  ['203.0.113.9', 'reserved'],
  // IPv4 public, including neighbours of the blocked ranges
  ['8.8.8.8', 'public'],
  ['93.184.216.34', 'public'],
  ['9.255.255.255', 'public'],
  ['11.0.0.0', 'public'],
  ['100.63.255.255', 'public'],
  ['100.128.0.0', 'public'],
  ['126.255.255.255', 'public'],
  ['128.0.0.0', 'public'],
  ['169.253.255.255', 'public'],
  ['169.255.0.0', 'public'],
  ['172.15.255.255', 'public'],
  ['172.32.0.0', 'public'],
  ['192.167.255.255', 'public'],
  ['192.169.0.0', 'public'],
  ['223.255.255.255', 'public'],
  // IPv6
  ['::', 'unspecified'],
  ['::1', 'loopback'],
  ['0:0:0:0:0:0:0:1', 'loopback'],
  ['fe80::1', 'link_local'],
  ['fe80::1%eth0', 'link_local'],
  ['febf:ffff::1', 'link_local'],
  ['fc00::1', 'private'],
  ['fd12:3456:789a::1', 'private'],
  ['fd00:ec2::254', 'metadata'],
  ['fd00:ec2::23', 'private'],
  ['fec0::1', 'private'],
  ['ff02::1', 'multicast'],
  ['ff05::1:3', 'multicast'],
  ['2001:db8::1', 'reserved'],
  ['2001:0:4136:e378::1', 'reserved'],
  ['100::1', 'reserved'],
  ['::10.0.0.1', 'reserved'],
  ['4000::1', 'reserved'],
  ['2606:4700:4700::1111', 'public'],
  ['2a00:1450:4001:82a::200e', 'public'],
  // IPv4 embedded in IPv6: judged by the IPv4 address the packets reach
  ['::ffff:10.0.0.1', 'private'],
  ['::ffff:127.0.0.1', 'loopback'],
  ['::ffff:169.254.169.254', 'metadata'],
  ['::ffff:a9fe:a9fe', 'metadata'],
  ['::ffff:7f00:1', 'loopback'],
  ['0:0:0:0:0:ffff:0a00:0001', 'private'],
  ['::ffff:0:10.1.2.3', 'private'],
  ['::ffff:8.8.8.8', 'public'],
  ['64:ff9b::10.0.0.1', 'private'],
  ['64:ff9b::8.8.8.8', 'public'],
  ['64:ff9b:1::1', 'reserved'],
  ['2002:a9fe:a9fe::1', 'metadata'],
  ['2002:c0a8:0101::1', 'private'],
  ['2002:0808:0808::1', 'public'],
  // not addresses at all
  ['example.com', 'not_an_ip'],
  ['localhost', 'not_an_ip'],
  ['', 'not_an_ip'],
  ['10.0.0.256', 'not_an_ip'],
  ['1.2.3', 'not_an_ip'],
];

describe('address classification', () => {
  it.each(cases)('%s is %s', (address, expected) => {
    expect(classifyAddress(address)).toBe(expected);
    expect(isBlockedAddress(address)).toBe(expected !== 'public');
  });

  it('accepts URL-style bracketed IPv6 hosts', () => {
    expect(classifyAddress('[::1]')).toBe('loopback');
    expect(classifyAddress('[::ffff:a00:1]')).toBe('private');
    expect(isIpLiteral('[2606:4700::1]')).toBe(true);
  });

  it('sees the normalised hosts of IPv4 written in other notations', () => {
    // The URL parser turns decimal, octal and hex forms into dotted quads before any check.
    expect(classifyAddress(new URL('http://2130706433/').hostname)).toBe('loopback');
    expect(classifyAddress(new URL('http://0x7f.1/').hostname)).toBe('loopback');
    expect(classifyAddress(new URL('http://0251.0376.0251.0376/').hostname)).toBe('metadata');
    expect(classifyAddress(new URL('http://[::ffff:169.254.169.254]/').hostname)).toBe('metadata');
  });

  it('tells IP literals from host names', () => {
    expect(isIpLiteral('192.168.0.1')).toBe(true);
    expect(isIpLiteral('fe80::1')).toBe(true);
    expect(isIpLiteral('hooks.example.com')).toBe(false);
  });
});
