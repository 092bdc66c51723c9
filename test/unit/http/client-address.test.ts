import { describe, expect, it } from 'vitest';
import { ServiceUnavailableError } from '#shared/domain/errors.ts';
import { clientAddress, clientNetwork, ORIGIN_SECRET_HEADER, VIEWER_ADDRESS_HEADER } from '#shared/http/client-address.ts';
import { httpEvent } from '../../support/http-event.ts';

const SECRET = 'the-distributions-origin-secret-0123456789';
const EDGE = '130.176.12.34';
const fromEdge = (headers: Record<string, string>) => httpEvent('POST', '/api/auth/login', { headers, ip: EDGE });

describe('the client a per-client limit counts', () => {
  it('is an IPv4 address whole, an IPv6 address by its /64, an IPv4-mapped address as IPv4', () => {
    expect(clientNetwork('198.51.100.7')).toBe('198.51.100.7');
    expect(clientNetwork('2001:db8:a:b:1:2:3:4')).toBe('2001:db8:a:b::/64');
    expect(clientNetwork('2001:db8:a:b::ffff')).toBe('2001:db8:a:b::/64');
    expect(clientNetwork('2001:db8:a:c::1')).toBe('2001:db8:a:c::/64');
    expect(clientNetwork('::ffff:198.51.100.7')).toBe('198.51.100.7');
  });

  it("is the viewer the console's distribution reports, when the request carries the distribution's secret", async () => {
    const secret = async () => [SECRET];
    expect(await clientAddress(fromEdge({ [VIEWER_ADDRESS_HEADER]: '198.51.100.20', [ORIGIN_SECRET_HEADER]: SECRET }), secret)).toBe('198.51.100.20');
    expect(await clientAddress(fromEdge({ [VIEWER_ADDRESS_HEADER]: '2001:db8:a:b::9', [ORIGIN_SECRET_HEADER]: SECRET }), secret)).toBe('2001:db8:a:b::/64');
  });

  it("is the viewer too when the request carries the secret's previous value, which a distribution not yet deployed with the new one sends", async () => {
    const PREVIOUS = 'the-distributions-previous-origin-secret-01';
    const rekeyed = async () => [SECRET, PREVIOUS];
    const viewer = { [VIEWER_ADDRESS_HEADER]: '198.51.100.20' };
    expect(await clientAddress(fromEdge({ ...viewer, [ORIGIN_SECRET_HEADER]: PREVIOUS }), rekeyed)).toBe('198.51.100.20');
    expect(await clientAddress(fromEdge({ ...viewer, [ORIGIN_SECRET_HEADER]: SECRET }), rekeyed)).toBe('198.51.100.20');
    expect(await clientAddress(fromEdge({ ...viewer, [ORIGIN_SECRET_HEADER]: PREVIOUS }), async () => [SECRET])).toBe(EDGE);
  });

  it('is the address API Gateway saw when the viewer address is not vouched for: no secret, a wrong one, none configured, or no address', async () => {
    const secret = async () => [SECRET];
    const viewer = { [VIEWER_ADDRESS_HEADER]: '198.51.100.20' };
    expect(await clientAddress(fromEdge(viewer), secret)).toBe(EDGE);
    expect(await clientAddress(fromEdge({ ...viewer, [ORIGIN_SECRET_HEADER]: `${SECRET.slice(0, -1)}x` }), secret)).toBe(EDGE);
    expect(await clientAddress(fromEdge({ ...viewer, [ORIGIN_SECRET_HEADER]: '' }), secret)).toBe(EDGE);
    expect(await clientAddress(fromEdge({ ...viewer, [ORIGIN_SECRET_HEADER]: SECRET }), async () => undefined)).toBe(EDGE);
    expect(await clientAddress(fromEdge({ [VIEWER_ADDRESS_HEADER]: 'not-an-address', [ORIGIN_SECRET_HEADER]: SECRET }), secret)).toBe(EDGE);
    expect(await clientAddress(httpEvent('GET', '/api/health', { ip: '2001:db8:a:b:c::1' }), secret)).toBe('2001:db8:a:b::/64');
    // Forms ipaddr.js would read, but neither CloudFront nor API Gateway writes.
    for (const odd of ['010.0.0.1', '1.2.3', '3325256711']) {
      expect(await clientAddress(fromEdge({ [VIEWER_ADDRESS_HEADER]: odd, [ORIGIN_SECRET_HEADER]: SECRET }), secret), odd).toBe(EDGE);
    }
  });

  it('is the address API Gateway saw while the secret cannot be read (the loader logs why): stricter, never looser', async () => {
    const unreadable = async (): Promise<readonly string[] | undefined> => {
      throw new ServiceUnavailableError(5);
    };
    const request = fromEdge({ [VIEWER_ADDRESS_HEADER]: '198.51.100.20', [ORIGIN_SECRET_HEADER]: SECRET });
    expect(await clientAddress(request, unreadable)).toBe(EDGE);
  });

  it('reads the secret only for a request that claims a viewer address', async () => {
    let reads = 0;
    const secret = async () => {
      reads++;
      return [SECRET];
    };
    await clientAddress(httpEvent('GET', '/api/health'), secret);
    await clientAddress(fromEdge({ [ORIGIN_SECRET_HEADER]: SECRET }), secret);
    expect(reads).toBe(0);
    await clientAddress(fromEdge({ [VIEWER_ADDRESS_HEADER]: '198.51.100.20', [ORIGIN_SECRET_HEADER]: SECRET }), secret);
    expect(reads).toBe(1);
  });
});
