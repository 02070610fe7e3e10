// Closing the segment encoder while it encodes an image (a server stopped mid-request, a test's
// teardown) lets that encoding finish and the process exit cleanly: an ONNX Runtime session released
// mid-run aborts the whole process with "terminate called after throwing an instance of 'Napi::Error'".
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';

// Run in a process of its own, since what is checked is how that process ends.
const script = `
import { loadConfig } from './src/config.ts';
import { SegmentEncoder } from './src/services/segment-encoder.ts';
import { disc, shapePicture } from './test/helpers/shapes.ts';

const config = loadConfig({ ...process.env, SEGMENT_THREADS: '2' });
const encoder = new SegmentEncoder(config.segment, 100_000_000);
const picture = await shapePicture(640, 480, disc(320, 240, 100));
const encoding = encoder.encode(picture).then((e) => 'encoded ' + e.dims.join('x'), (error) => 'refused: ' + error.message);
// Closed once the encoding has reached its thread, as a stop would come mid-run.
await new Promise((resolve) => setTimeout(resolve, 300));
await encoder.close();
console.log(await encoding);
console.log('closed');
`;

test('the segment encoder closed mid-encoding ends its encoding and lets the process exit cleanly', { timeout: 180_000 }, () => {
  const run = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: new URL('../..', import.meta.url), encoding: 'utf8', timeout: 170_000 });
  assert.equal(run.signal, null, `the process was killed by ${run.signal}: ${run.stderr}`);
  assert.equal(run.status, 0, run.stderr);
  assert.doesNotMatch(run.stderr, /terminate called/);
  assert.deepEqual(run.stdout.trim().split('\n'), ['encoded 1x256x64x64', 'closed']);
});
