// What a server's RateLimit-Policy header says of its buckets (src/http/plugins/rate-limits.ts):
// the burst of each, so that a client can keep a request within what passes at once.

/** The bucket of request body bytes, as the server names it in the header. */
export const UPLOAD_BYTES_POLICY = 'upload-bytes';

/** The burst (`q`) of the named policy in a RateLimit-Policy header, when the header has it. */
export function policyBurstOf(headers: Headers, name: string): number | undefined {
  const header = headers.get('ratelimit-policy');
  if (header === null) return undefined;
  for (const item of header.split(',')) {
    const [policyName, ...parameters] = item.trim().split(';');
    if (policyName !== `"${name}"`) continue;
    for (const parameter of parameters) {
      const [key, value] = parameter.trim().split('=');
      const burst = Number(value);
      if (key === 'q' && Number.isInteger(burst) && burst > 0) return burst;
    }
  }
  return undefined;
}
