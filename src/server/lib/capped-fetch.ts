// One request to another server (a payment gateway, the site's own public address) that cannot hold the caller up:
// aborted after `timeoutMs` (connecting, waiting and reading together), and its answer read only up to `maxBytes`, so
// a gateway that hangs, trickles or answers megabytes costs a bounded time and memory. Built on the platform's fetch
// (undici) and its AbortSignal.timeout; the cap reads the body stream and cancels it once over.

export type CappedAnswer =
  | { ok: true; status: number; contentType: string; text: string }
  | { ok: false; reason: 'timeout' | 'unreachable' | 'too_large'; detail: string | null };

export async function cappedFetch(
  url: URL | string,
  options: { method?: 'GET' | 'POST'; form?: Record<string, string>; timeoutMs: number; maxBytes: number },
): Promise<CappedAnswer> {
  const signal = AbortSignal.timeout(options.timeoutMs);
  try {
    const response = await fetch(url, {
      method: options.method ?? 'GET',
      signal,
      redirect: 'manual',
      ...(options.form
        ? {
            body: new URLSearchParams(options.form).toString(),
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
          }
        : {}),
    });
    const text = await readUpTo(response, options.maxBytes);
    if (text === null) return { ok: false, reason: 'too_large', detail: `>${options.maxBytes} B` };
    return { ok: true, status: response.status, contentType: response.headers.get('content-type') ?? '', text };
  } catch (err) {
    if (signal.aborted) return { ok: false, reason: 'timeout', detail: `${options.timeoutMs / 1000} s` };
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    return { ok: false, reason: 'unreachable', detail: cause?.code ?? cause?.message ?? (err as Error).message };
  }
}

/** The body as text, or null once it is longer than `maxBytes` (the rest is not read). */
async function readUpTo(response: Response, maxBytes: number): Promise<string | null> {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      return null;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}
