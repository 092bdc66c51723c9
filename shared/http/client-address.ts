import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import ipaddr from 'ipaddr.js';
import { constantTimeEqual } from '../domain/accounts/secrets.ts';

/**
 * On AWS the console reaches the API through its CloudFront distribution, so API Gateway sees
 * CloudFront's address, shared by every console user at that edge. The distribution sends the
 * viewer's own address in `VIEWER_ADDRESS_HEADER` (set by a function on the viewer request, so a
 * viewer cannot choose it) and proves the request passed through it with `ORIGIN_SECRET_HEADER`
 * (an origin custom header, which replaces any header of that name a viewer sent). Anyone can call
 * API Gateway directly with both headers, so the viewer address is believed only with the secret.
 */
export const VIEWER_ADDRESS_HEADER = 'x-aos-viewer-address';
export const ORIGIN_SECRET_HEADER = 'x-aos-origin-secret';

/**
 * What a per-client limit counts: an IPv4 address whole, an IPv6 address by its /64. One subscriber,
 * host or VM is given a whole /64, so counting its addresses apart would give one client 2^64
 * allowances. IPv4-mapped IPv6 addresses count as the IPv4 address.
 */
export function clientNetwork(address: string): string {
  if (!isAddress(address)) return address;
  const parsed = ipaddr.process(address);
  if (parsed.kind() === 'ipv4') return parsed.toString();
  const network = new ipaddr.IPv6([...(parsed as ipaddr.IPv6).parts.slice(0, 4), 0, 0, 0, 0]);
  return `${network.toString()}/64`;
}

/** An address as API Gateway and CloudFront write them: IPv4 in four decimal parts, or IPv6. */
const isAddress = (text: string): boolean => ipaddr.IPv4.isValidFourPartDecimal(text) || ipaddr.IPv6.isValid(text);

/**
 * The client's network (`clientNetwork`): the viewer's address that the console's CloudFront
 * distribution reports, when the request carries the distribution's origin secret, and otherwise the
 * address API Gateway saw. `originSecrets` are the secret's values the distribution may send: its
 * current one and, while a re-key reaches the distribution, its previous one; undefined where no
 * distribution is deployed (locally). While the secret cannot be read (before any value was), the
 * address API Gateway saw counts: the edge's, shared by more clients, so stricter, never looser.
 */
export async function clientAddress(event: APIGatewayProxyEventV2, originSecrets: () => Promise<readonly string[] | undefined>): Promise<string> {
  const viewer = event.headers[VIEWER_ADDRESS_HEADER];
  const presented = event.headers[ORIGIN_SECRET_HEADER];
  const seen = clientNetwork(event.requestContext.http.sourceIp);
  if (viewer === undefined || presented === undefined || !isAddress(viewer)) return seen;
  let secrets: readonly string[] | undefined;
  try {
    secrets = await originSecrets();
  } catch {
    // The loader has logged why (secretLoader's logAs).
    return seen;
  }
  return secrets?.some((secret) => constantTimeEqual(presented, secret)) ? clientNetwork(viewer) : seen;
}
