// The page's task stream as the import and export forms follow one task through it. The browser's
// EventSource and fetch are stood in for by fakes the test drives, so the order of what the server says
// (a read, the stream's snapshot, its events) is the test's to choose.
import assert from 'node:assert/strict';
import { test } from 'node:test';

type Listener = (event: { data: string }) => void;

/** A stand-in for the browser's EventSource: the test sends its events. */
class FakeEventSource {
  static CLOSED = 2;
  static opened: FakeEventSource[] = [];
  readyState = 1;
  onerror: (() => void) | null = null;
  private readonly listeners = new Map<string, Listener[]>();
  constructor(readonly url: string) {
    FakeEventSource.opened.push(this);
  }
  addEventListener(type: string, listener: Listener): void {
    this.listeners.set(type, [...(this.listeners.get(type) ?? []), listener]);
  }
  close(): void {
    this.readyState = FakeEventSource.CLOSED;
  }
  send(type: string, data: unknown): void {
    for (const listener of this.listeners.get(type) ?? []) listener({ data: JSON.stringify(data) });
  }
}

/** The task as GET /v2/tasks/:id answers now. */
let taskOnServer: { id: number; status: string } = { id: 7, status: 'started' };
const reads: string[] = [];
Object.assign(globalThis, {
  EventSource: FakeEventSource,
  fetch: async (url: string) => {
    reads.push(url);
    return new Response(JSON.stringify({ ...taskOnServer, type: 'import', meta: {} }), { status: 200, headers: { 'content-type': 'application/json' } });
  },
});
// Imported by address: the module is typed against the browser's DOM, which this project's type-check
// (Node's) does not have; web/tsconfig.json checks it.
const streamModule = new URL('../../web/task-stream.ts', import.meta.url).href;
const { followTask } = (await import(streamModule)) as { followTask(id: number, onTask: (task: { status: string }) => void): () => void };

const settle = () => new Promise((resolve) => setTimeout(resolve, 10));

test('a task that ends between its first read and the stream’s snapshot is seen to end', async () => {
  taskOnServer = { id: 7, status: 'started' };
  const seen: string[] = [];
  followTask(7, (task) => seen.push(task.status));
  await settle();
  assert.deepEqual(seen, ['started'], 'the first read');
  const stream = FakeEventSource.opened.at(-1)!;
  // It ends now; the snapshot, taken after, holds only the tasks not ended, so not this one.
  taskOnServer = { id: 7, status: 'finished' };
  stream.send('snapshot', { tasks: [] });
  await settle();
  assert.deepEqual(seen, ['started', 'finished']);
  assert.equal(stream.readyState, FakeEventSource.CLOSED, 'nothing else listens: the stream is closed');
});

test('a task in the snapshot is followed by the stream’s events, with no read beyond the first', async () => {
  taskOnServer = { id: 8, status: 'queued' };
  const seen: string[] = [];
  const before = reads.length;
  followTask(8, (task) => seen.push(task.status));
  const stream = FakeEventSource.opened.at(-1)!;
  stream.send('snapshot', { tasks: [{ id: 8, status: 'started' }] });
  await settle();
  assert.equal(reads.length - before, 1);
  stream.send('task', { id: 8, status: 'finished' });
  assert.deepEqual(seen, ['started', 'finished'], 'the read answered after the stream spoke: it does not count');
  assert.equal(stream.readyState, FakeEventSource.CLOSED);
});
