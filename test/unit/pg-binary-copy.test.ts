// Reading PostgreSQL's binary COPY format wherever the chunks it arrives in happen to be cut.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BinaryCopyReader } from '../../src/db/pg-copy.ts';

const int16 = (n: number) => Buffer.from([(n >> 8) & 0xff, n & 0xff]);
const int32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeInt32BE(n);
  return b;
};
const text = (s: string | null) => (s === null ? int32(-1) : Buffer.concat([int32(Buffer.byteLength(s)), Buffer.from(s)]));

/** Header (with a 3-byte extension, which readers skip), tuples of (int4, text, text), trailer. */
function copyData(rows: [number, string | null, string | null][]): Buffer {
  const parts = [Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1'), int32(0), int32(3), Buffer.from('ext')];
  for (const [id, a, b] of rows) parts.push(int16(3), int32(4), int32(id), text(a), text(b));
  parts.push(int16(-1));
  return Buffer.concat(parts);
}

function readAll(chunks: Buffer[]): { rows: [number, string | null, string][]; copied: string } {
  const reader = new BinaryCopyReader(chunks);
  const out = Buffer.alloc(reader.totalBytes);
  let at = 0;
  const rows: [number, string | null, string][] = [];
  while (reader.nextTuple() !== null) {
    const id = reader.intField();
    const a = reader.textField();
    const length = reader.copyField(out, at);
    rows.push([id, a, out.toString('utf8', at, at + length)]);
    at += length;
  }
  return { rows, copied: out.toString('utf8', 0, at) };
}

test('reads the same tuples however the data is cut into chunks', () => {
  const rows: [number, string | null, string | null][] = [
    [1, 'é☃', '{"a":1}'],
    [-7, null, ''],
    [2 ** 31 - 1, '', '🚗'.repeat(5)],
  ];
  const data = copyData(rows);
  const expected = { rows: rows.map(([id, a, b]) => [id, a, b ?? '']), copied: '{"a":1}' + '🚗'.repeat(5) };
  assert.deepEqual(readAll([data]), expected);
  for (let cut = 0; cut <= data.length; cut += 1) {
    assert.deepEqual(readAll([data.subarray(0, cut), Buffer.alloc(0), data.subarray(cut)]), expected, `cut at ${cut}`);
  }
  const bytes = [...data].map((b) => Buffer.from([b]));
  assert.deepEqual(readAll(bytes), expected);
});

test('refuses data that is not the binary format, and data cut short', () => {
  assert.throws(() => new BinaryCopyReader([Buffer.from('1\tplain\n')]), /not PostgreSQL binary COPY data/);
  assert.throws(() => new BinaryCopyReader([]), /not PostgreSQL binary COPY data/);
  const data = copyData([[1, 'abc', 'def']]);
  assert.throws(() => readAll([data.subarray(0, data.length - 5)]), /ends early/);
});
