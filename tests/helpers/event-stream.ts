// Reads GET /api/events over real HTTP, as a browser's EventSource would: frames split at blank lines, `id:` and
// `data:` fields, comment lines (the heartbeat) counted.

export interface StreamEvent {
  id: string;
  data: any;
}

export interface OpenedStream {
  status: number;
  headers: Headers;
  /** The envelope of a refusal (not 200). */
  refusal?: { code: number; message: string };
}

export class EventStreamReader {
  readonly events: StreamEvent[] = [];
  comments = 0;
  retry: number | undefined;
  #waiters: (() => void)[] = [];
  #controller = new AbortController();
  #done: Promise<void> = Promise.resolve();

  /** Opens the stream with the session cookie (and `Last-Event-ID`); a refusal is answered, not thrown. */
  static async open(
    base: string,
    cookie: string | undefined,
    options: { lastEventId?: string } = {},
  ): Promise<{ reader: EventStreamReader; opened: OpenedStream }> {
    const reader = new EventStreamReader();
    const headers: Record<string, string> = { accept: 'text/event-stream' };
    if (cookie) headers.cookie = cookie;
    if (options.lastEventId !== undefined) headers['last-event-id'] = options.lastEventId;
    const response = await fetch(`${base}/api/events`, { headers, signal: reader.#controller.signal });
    if (response.status !== 200) {
      const json = await response.json();
      return { reader, opened: { status: response.status, headers: response.headers, refusal: json } };
    }
    reader.#done = reader.#pump(response.body!);
    return { reader, opened: { status: 200, headers: response.headers } };
  }

  async #pump(body: ReadableStream<Uint8Array>) {
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      const reader = body.getReader();
      for (let read = await reader.read(); !read.done; read = await reader.read()) {
        buffer += decoder.decode(read.value, { stream: true });
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          this.#frame(buffer.slice(0, end));
          buffer = buffer.slice(end + 2);
        }
      }
    } catch {
      // aborted by close()
    }
    this.ended = true;
    this.#wake();
  }

  ended = false;

  #frame(text: string) {
    let id = '';
    let data = '';
    for (const line of text.split('\n')) {
      if (line.startsWith(':')) this.comments++;
      else if (line.startsWith('id: ')) id = line.slice(4);
      else if (line.startsWith('data: ')) data += line.slice(6);
      else if (line.startsWith('retry: ')) this.retry = Number(line.slice(7));
    }
    if (data !== '') this.events.push({ id, data: JSON.parse(data) });
    this.#wake();
  }

  #wake() {
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const w of waiters) w();
  }

  /** Events other than the stream's own `ready`. */
  get changes(): StreamEvent[] {
    return this.events.filter((e) => e.data.kind !== 'ready');
  }

  /** Waits until `done` holds for what was read, or throws after `ms`. */
  async until(what: string, done: (reader: this) => boolean, ms = 5000): Promise<void> {
    const deadline = Date.now() + ms;
    while (!done(this)) {
      const left = deadline - Date.now();
      if (left <= 0)
        throw new Error(`timed out waiting for ${what}; read ${JSON.stringify(this.events.map((e) => e.data))}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.#waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** Waits for an event matching `match` (by its data) and answers it. */
  async next(match: (data: any) => boolean, ms = 5000): Promise<StreamEvent> {
    await this.until('an event', (r) => r.events.some((e) => match(e.data)), ms);
    return this.events.find((e) => match(e.data))!;
  }

  async close(): Promise<void> {
    this.#controller.abort();
    await this.#done;
  }
}
