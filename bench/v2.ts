// API v2's performance targets, one after another: image lists (bench/v2-images.ts), cached
// thumbnails and file ranges (bench/v2-files.ts), and the PUT of a 1,000-polygon annotation
// (bench/v2-annotation.ts). Each prints its own figures and ratios against its floor; see
// bench/README.md for what each measures.
//
//   node --import tsx bench/v2.ts [--db sqlite|postgres]
//
// Anything after the options is passed to each bench as it is (e.g. `--rounds 1`).
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const BENCHES = ['v2-images.ts', 'v2-files.ts', 'v2-annotation.ts'];
const args = process.argv.slice(2);
let failed = 0;
for (const bench of BENCHES) {
  console.log(`\n===== ${bench} ${args.join(' ')}`);
  const run = spawnSync(process.execPath, ['--import', 'tsx', path.join(path.dirname(fileURLToPath(import.meta.url)), bench), ...args], { stdio: 'inherit' });
  if (run.status !== 0) {
    failed += 1;
    console.log(`===== ${bench} exited ${run.status ?? run.signal}`);
  }
}
process.exitCode = failed === 0 ? 0 : 1;
