// The member-by-member JSON reader: the same values as JSON.parse whatever the chunking, the refusals
// JSON.parse would make, and where they are.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { JsonLocationError, type MemberMode, streamMembers } from '../../src/formats/json-members.ts';

async function* chunks(text: string, size: number): AsyncIterable<Buffer> {
  const bytes = Buffer.from(text, 'utf8');
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

async function collect(text: string, size: number, mode: (key: string) => MemberMode = () => 'elements') {
  const out: Record<string, unknown> = {};
  const top = await streamMembers(chunks(text, size), {
    mode,
    element(key, index, value) {
      const list = (out[key] ??= []) as unknown[];
      assert.equal(index, list.length);
      list.push(value);
    },
    member(key, value) {
      out[key] = value;
    },
  });
  return { top, out };
}

const DOCUMENT = `\uFEFF{
  "images": [ {"id": 1, "file_name": "a [1] {x}.jpg", "tag": "quote \\" and \\\\"}, 2.5e3 ,true,null, "é😀", [[1,2],[]], -0 ],
  "info": {"text": "}]", "n": [1, {"m": "["}]},
  "empty": [],
  "number": 12,
  "annotations":[{"a":"\\u00e9"}]
}
`;

async function refusal(text: string, size = 3): Promise<JsonLocationError> {
  const error = await collect(text, size).then(
    () => null,
    (e: unknown) => e,
  );
  assert.ok(error instanceof JsonLocationError, `expected a JsonLocationError for ${JSON.stringify(text)}, got ${String(error)}`);
  return error;
}

describe('streamMembers', () => {
  test('elements and members equal JSON.parse, for every chunk size', async () => {
    // An empty array gives no element, so "empty" never appears.
    const { empty, ...expected } = JSON.parse(DOCUMENT.slice(1)) as Record<string, unknown>;
    assert.deepEqual(empty, []);
    for (const size of [1, 2, 3, 5, 7, 64, 4096]) {
      const { top, out } = await collect(DOCUMENT, size);
      assert.equal(top, 'object');
      assert.deepEqual(out, expected, `chunks of ${size}`);
    }
  });

  test('skipped members are not handed over; whole ones come as one value', async () => {
    const { out } = await collect(DOCUMENT, 5, (key) => (key === 'images' ? 'skip' : 'whole'));
    assert.equal(out.images, undefined);
    assert.deepEqual(out.info, { text: '}]', n: [1, { m: '[' }] });
    assert.deepEqual(out.annotations, [{ a: 'é' }]);
  });

  test('a top-level array or scalar is named without reading on', async () => {
    assert.equal((await collect('[{"bbox": [1, 2', 4)).top, 'array');
    assert.equal((await collect(' 42', 4)).top, 'other');
  });

  test('invalid JSON is refused with its line and column', async () => {
    let e = await refusal('{"images": [1,\n  2,\n  {"id": 3 "x": 1}]}');
    assert.deepEqual([e.line, e.column], [3, 12]);
    assert.match(e.reason, /Expected ',' or '}'/);
    e = await refusal('{"images": [1,\n   tru ]}');
    assert.deepEqual([e.line, e.column], [2, 4]);
    e = await refusal('{"a": 1,}');
    assert.deepEqual([e.line, e.column], [1, 9]);
    assert.match(e.reason, /member name/);
    e = await refusal('{"a": [1,]}');
    assert.match(e.reason, /expected a value/);
    e = await refusal('{"a": [1, 2]');
    assert.match(e.reason, /ends early/);
    e = await refusal('{"a": 1} x');
    assert.match(e.reason, /after the end/);
    e = await refusal('{"a" 1}');
    assert.match(e.reason, /":"/);
    e = await refusal('oops');
    assert.deepEqual([e.line, e.column], [1, 1]);
    await refusal('');
  });
});
