import { randomBytes } from 'node:crypto';
import { PassThrough, type Readable } from 'node:stream';
import { tooManyRequests } from '../lib/errors.js';
import type { LiveConfig } from '../config/live.js';
import type { Audience, LiveEvent, RoutedEvent, SessionsEnded } from './events.js';

/** A reader this far behind (a stalled phone) is cut off; it reconnects and resumes from its last event id. */
const MAX_BUFFERED_BYTES = 256 * 1024;
/** How long EventSource waits before reconnecting after the stream ends. */
const RETRY_MS = 3000;

interface OpenStream {
  userId: number;
  /** The stored hash of the session it was opened with: when that session ends, so does the stream. */
  sessionHash: string;
  admin: boolean;
  out: PassThrough;
  expiry: NodeJS.Timeout;
}

/** Who may open a stream: the signed-in caller. */
export interface StreamOwner {
  id: number;
  userRole: string;
}

const endsStream = (stream: OpenStream, ended: SessionsEnded): boolean =>
  ended.only ? ended.only.includes(stream.sessionHash) : stream.sessionHash !== ended.except;

const hears = (stream: OpenStream, audience: Audience): boolean =>
  audience.everyone === true ||
  (audience.admins === true && stream.admin) ||
  (audience.users?.includes(stream.userId) ?? false);

const frame = (id: string, event: LiveEvent) => `id: ${id}\ndata: ${JSON.stringify(event)}\n\n`;

/**
 * This process's open streams: routes each event to the streams of its audience, keeps a window of recent events for
 * reconnects (`Last-Event-ID`), writes the heartbeat, and caps streams per user and per process. Event ids are
 * `<epoch>-<n>`: the epoch names this process's run, so an id from another process (or before a restart) is known to
 * be foreign and answered with `resync` instead of a wrong replay.
 */
export class LiveHub {
  readonly #epoch = randomBytes(6).toString('base64url').replace(/[-_]/g, 'x');
  #seq = 0;
  /** The last `replayEvents` events, at index seq % size. */
  readonly #window: (RoutedEvent | undefined)[];
  readonly #byUser = new Map<number, Set<OpenStream>>();
  readonly #all = new Set<OpenStream>();
  readonly #heartbeat: NodeJS.Timeout;
  #closed = false;

  constructor(private readonly config: LiveConfig) {
    this.#window = new Array<RoutedEvent | undefined>(config.replayEvents);
    this.#heartbeat = setInterval(() => {
      for (const stream of this.#all) this.#write(stream, ': ping\n\n');
    }, config.heartbeatMs);
    this.#heartbeat.unref();
  }

  /** Streams open now (for the benchmark and tests). */
  get size(): number {
    return this.#all.size;
  }

  #id(seq = this.#seq): string {
    return `${this.#epoch}-${seq}`;
  }

  /** An event from the bus (any process's): numbered, kept for replay, written to the streams that hear it. */
  deliver(routed: RoutedEvent): void {
    if (routed.audience.sessionsOf) {
      this.#endSessions(routed.event, routed.audience.sessionsOf);
      return;
    }
    const seq = ++this.#seq;
    if (this.#window.length > 0) this.#window[seq % this.#window.length] = routed;
    const text = frame(this.#id(seq), routed.event);
    const { users, admins, everyone } = routed.audience;
    if (everyone) {
      for (const stream of this.#all) this.#write(stream, text);
      return;
    }
    const reached = new Set<OpenStream>();
    for (const userId of users ?? []) for (const stream of this.#byUser.get(userId) ?? []) reached.add(stream);
    if (admins) for (const stream of this.#all) if (stream.admin) reached.add(stream);
    for (const stream of reached) this.#write(stream, text);
  }

  /**
   * Sessions ended (a logout, a ban, a reset, 登录设备): their streams get the reason as their last event and close, so
   * the phone shows the sign-in page at once. Not kept for replay: a reconnect with an ended session is refused anyway.
   */
  #endSessions(event: LiveEvent, ended: SessionsEnded): void {
    const text = frame(this.#id(), event);
    for (const stream of [...(this.#byUser.get(ended.userId) ?? [])]) {
      if (!endsStream(stream, ended)) continue;
      this.#write(stream, text);
      stream.out.end();
    }
  }

  /** Events may have been lost on the way (the bus reconnected): every screen reads everything again. */
  gap(): void {
    const text = frame(this.#id(), { kind: 'resync' });
    for (const stream of this.#all) this.#write(stream, text);
  }

  /**
   * Opens a stream for the caller, after what it missed since `lastEventId` when this process still has it (else a
   * `resync`), then `ready`. Refused with 429 / 42900 over a cap.
   */
  open(owner: StreamOwner, sessionHash: string, lastEventId: string | undefined): Readable {
    if (this.#closed || this.#all.size >= this.config.maxStreams)
      throw tooManyRequests('服务器繁忙，实时更新暂不可用，页面会定时刷新', 60);
    const own = this.#byUser.get(owner.id) ?? new Set<OpenStream>();
    if (own.size >= this.config.maxStreamsPerUser)
      throw tooManyRequests('打开的页面太多，实时更新已暂停，请关闭其他页面后刷新', 60);
    const out = new PassThrough();
    const stream: OpenStream = {
      userId: owner.id,
      sessionHash,
      admin: owner.userRole === 'admin',
      out,
      // Past its age the stream ends and EventSource comes back through the session guard, resuming where it was.
      expiry: setTimeout(() => out.end(), this.config.maxAgeMs).unref(),
    };
    own.add(stream);
    this.#byUser.set(owner.id, own);
    this.#all.add(stream);
    out.on('close', () => this.#forget(stream));
    this.#write(stream, `retry: ${RETRY_MS}\n\n`);
    for (const text of this.#missed(stream, lastEventId)) this.#write(stream, text);
    this.#write(stream, frame(this.#id(), { kind: 'ready' }));
    return out;
  }

  /** What the stream missed since `lastEventId`: the events it hears, or `resync` when they are not all here. */
  #missed(stream: OpenStream, lastEventId: string | undefined): string[] {
    if (lastEventId === undefined || lastEventId === '') return [];
    const match = /^([A-Za-z0-9]+)-(\d{1,15})$/.exec(lastEventId);
    const last = match?.[1] === this.#epoch ? Number(match[2]) : -1;
    const oldestKept = this.#seq - this.#window.length + 1;
    if (last < 0 || last > this.#seq || last + 1 < oldestKept) return [frame(this.#id(), { kind: 'resync' })];
    const texts: string[] = [];
    for (let seq = last + 1; seq <= this.#seq; seq++) {
      const routed = this.#window[seq % this.#window.length]!;
      if (hears(stream, routed.audience)) texts.push(frame(this.#id(seq), routed.event));
    }
    return texts;
  }

  #write(stream: OpenStream, text: string) {
    if (stream.out.writableLength > MAX_BUFFERED_BYTES) {
      stream.out.destroy();
      return;
    }
    stream.out.write(text);
  }

  #forget(stream: OpenStream) {
    clearTimeout(stream.expiry);
    this.#all.delete(stream);
    const own = this.#byUser.get(stream.userId);
    own?.delete(stream);
    if (own?.size === 0) this.#byUser.delete(stream.userId);
  }

  /** Ends every stream (shutdown must not wait for them) and refuses new ones. */
  close(): void {
    this.#closed = true;
    clearInterval(this.#heartbeat);
    for (const stream of [...this.#all]) stream.out.end();
  }
}
