// Request bodies sent compressed (Content-Encoding: gzip or deflate, RFC 9110 8.4): a pipeline's
// snapshot deflates 10-20x, and Lambda takes at most 6 MB of body. Inflated as it arrives, and
// held to the body limit once inflated, so a small body that inflates past it is a 413 after at
// most the limit's worth of work. A coding netpolc cannot read is a 415 naming the ones it can
// (RFC 7694 3); bytes that are not what their coding says are a 400.
import type { MiddlewareHandler } from 'hono';
import { ApiError } from './errors.js';

const FORMATS: Readonly<Record<string, 'gzip' | 'deflate'>> = { gzip: 'gzip', 'x-gzip': 'gzip', deflate: 'deflate' };

export function inflatedBodies(maxBodyBytes: number): MiddlewareHandler {
  return async (c, next) => {
    const header = c.req.header('content-encoding');
    const codings = (header ?? '').split(',').map((s) => s.trim().toLowerCase()).filter((s) => s !== '' && s !== 'identity');
    const body = c.req.raw.body;
    if (codings.length === 0 || !body) return next();
    // One coding: a list (gzip, gzip) is legal HTTP that no client sends.
    const format = codings.length === 1 && Object.hasOwn(FORMATS, codings[0]!) ? FORMATS[codings[0]!]! : null;
    if (!format) throw new ApiError('unsupported_media_type', `Content-Encoding "${header}" cannot be read here; send the body as it is, or gzip or deflate it`, undefined, { headers: { 'accept-encoding': 'gzip, deflate' } });
    const headers = new Headers(c.req.raw.headers);
    headers.delete('content-encoding');
    headers.delete('content-length');
    c.req.raw = new Request(c.req.raw.url, { method: c.req.raw.method, headers, body: inflated(body, format, maxBodyBytes), duplex: 'half', signal: c.req.raw.signal } as RequestInit);
    await next();
  };
}

/** The body inflated, chunk by chunk; its reader fails with the 400 or 413 the client gets. */
function inflated(body: ReadableStream<Uint8Array>, format: 'gzip' | 'deflate', maxBodyBytes: number): ReadableStream<Uint8Array> {
  const reader = body.pipeThrough(new DecompressionStream(format) as unknown as ReadableWritablePairOf<Uint8Array>).getReader();
  let size = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      let next: Awaited<ReturnType<typeof reader.read>>;
      try {
        next = await reader.read();
      } catch (e) {
        throw new ApiError('bad_request', `the body is not valid ${format} (Content-Encoding: ${format}): ${e instanceof Error ? e.message : String(e)}`);
      }
      if (next.done) return controller.close();
      size += next.value.byteLength;
      if (size > maxBodyBytes) {
        void reader.cancel().catch(() => undefined);
        throw new ApiError('too_large', `the request body inflates to more than the limit of ${maxBodyBytes} bytes (MAX_BODY_BYTES)`);
      }
      controller.enqueue(next.value);
    },
    cancel: (reason) => reader.cancel(reason),
  });
}

type ReadableWritablePairOf<T> = { readable: ReadableStream<T>; writable: WritableStream<T> };
