// An open-loop, paced load generator for the benches: requests leave on a fixed schedule (`rate` a second) whether or
// not the ones before have been answered, and each latency counts from the request's SCHEDULED send. A closed-loop
// generator (wrk, autocannon: each connection waits for its answer before it sends again) sends nothing while the
// server stalls, so a one-second stall costs it one slow request per connection and its p99 hides the stall
// ("coordinated omission"); here every request that should have left during the stall counts its wait.
//
//   paced({ rate, seconds, until, request, drainMs })
//     rate      requests a second (spread evenly: request i is scheduled at start + i / rate)
//     seconds   how long to send, at most
//     until     optional promise: sending stops when it settles (a job ended), if that comes first
//     request   (i) => Promise<boolean>: sends request i and answers whether it succeeded
//     drainMs   how long to wait, after the last send, for answers still outstanding (they count as unanswered)
//   answers { rate, seconds, sent, ok, failed, unanswered, latencyMs: {p50, p90, p99, max}, sendLagMaxMs }
//
// latencyMs covers every request sent (answered or not: an unanswered one counts the time it waited until drainMs ran
// out, which is less than it would have waited, so such a run reports `unanswered` too); sendLagMaxMs is how late this process itself was
// in sending (a busy generator shows here; its lateness is counted in the latencies, never hidden). Used by
// background.mjs, and made to serve the other benches' steady-rate measurements as well.

import { Pool } from 'undici';

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The HTTP client for a paced load: undici's request on a pool of kept-alive connections, not fetch. What this process
 * spends on each request is counted as the server's latency (it delays the send and the reading of the answer), and
 * fetch's WHATWG machinery (streams, Headers, Request and Response objects) cost enough to dominate the tail: paced at
 * 200/s against the bare hello server, on one machine in the same minute, fetch's p99 was 56 ms and this one's 7 ms.
 *   send({ method, path, headers, body, timeoutMs }) answers { status, text }
 */
export function pacedClient(base, { connections = 64 } = {}) {
  const pool = new Pool(base, { connections });
  return {
    async send({ method = 'GET', path, headers = {}, body, timeoutMs = 10_000 }) {
      const response = await pool.request({ method, path, headers, body, signal: AbortSignal.timeout(timeoutMs) });
      return { status: response.statusCode, text: await response.body.text() };
    },
    close: () => pool.close(),
  };
}

/** The value below which `share` of the sorted values fall (nearest rank); null for none. */
export function percentile(sorted, share) {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(share * sorted.length) - 1))];
}

export async function paced({ rate, seconds, until, request, drainMs = 30_000 }) {
  if (!(rate > 0) || !(seconds > 0)) throw new Error('paced: rate and seconds must be positive');
  const interval = 1000 / rate;
  const total = Math.floor(seconds * rate);
  let stopped = false;
  until?.then(
    () => (stopped = true),
    () => (stopped = true),
  );
  const latencies = [];
  let ok = 0;
  let failed = 0;
  let sendLagMaxMs = 0;
  /** Requests not answered yet, with their scheduled times. */
  const outstanding = new Map();

  const fire = (i, scheduled) => {
    sendLagMaxMs = Math.max(sendLagMaxMs, performance.now() - scheduled);
    const answer = Promise.resolve()
      .then(() => request(i))
      .then(
        (success) => (success ? ok++ : failed++),
        () => failed++,
      )
      .then(() => latencies.push(performance.now() - scheduled))
      .finally(() => outstanding.delete(answer));
    outstanding.set(answer, scheduled);
  };

  const start = performance.now();
  let sent = 0;
  while (sent < total && !stopped) {
    // Every request whose time has come leaves now, with its own scheduled time (a late timer sends a few at once).
    const now = performance.now();
    while (sent < total && start + sent * interval <= now) {
      fire(sent, start + sent * interval);
      sent++;
    }
    if (sent < total) await sleep(Math.max(0, start + sent * interval - performance.now()));
  }
  const sentFor = (performance.now() - start) / 1000;
  const drained = Promise.allSettled([...outstanding.keys()]);
  await Promise.race([drained, sleep(drainMs)]);
  // A request still unanswered has waited at least this long: counted so, rather than left out of the percentiles.
  const unanswered = outstanding.size;
  for (const scheduled of outstanding.values()) latencies.push(performance.now() - scheduled);
  const sorted = latencies.sort((a, b) => a - b);
  return {
    rate,
    seconds: sentFor,
    sent,
    ok,
    failed,
    unanswered,
    latencyMs: {
      p50: percentile(sorted, 0.5),
      p90: percentile(sorted, 0.9),
      p99: percentile(sorted, 0.99),
      max: sorted.at(-1) ?? null,
    },
    sendLagMaxMs,
  };
}
