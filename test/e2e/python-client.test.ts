// The Python package in clients/python, tested with pytest against a real server it starts (with the
// Node that runs this test). Debian's python3 has pytest when python3-pytest is installed (.ci/run
// installs it); without it this test skips with a line that says so. The loader's tests
// (tests/test_torch.py) need python3-torch, python3-torchvision, python3-numpy and python3-pil: without
// them pytest skips that file, and a line here says so.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { test } from 'node:test';

const PYTHON = process.env.ANNOSTORE_PYTHON ?? '/usr/bin/python3';
const CLIENT = path.resolve(import.meta.dirname, '../../clients/python');

function pytestMissing(): string | false {
  const probe = spawnSync(PYTHON, ['-c', 'import pytest'], { encoding: 'utf8' });
  if (probe.error) return `${PYTHON} not found: the Python client's tests skipped`;
  return probe.status === 0 ? false : `pytest is not installed for ${PYTHON} (apt-get install python3-pytest): the Python client's tests skipped`;
}

function torchMissing(): string | false {
  const probe = spawnSync(PYTHON, ['-c', 'import torch, torchvision, numpy, PIL'], { encoding: 'utf8' });
  return probe.status === 0
    ? false
    : `PyTorch, torchvision, NumPy or Pillow is not installed for ${PYTHON} (apt-get install python3-torch python3-torchvision python3-numpy python3-pil): the loader's tests skip`;
}

const skip = pytestMissing();
if (skip) console.log(`# ${skip}`);
const noTorch = skip ? false : torchMissing();
if (noTorch) console.log(`# ${noTorch}`);

test('the Python client passes its pytest suite against a real server', { skip, timeout: 1_200_000 }, () => {
  const run = spawnSync(PYTHON, ['-m', 'pytest', '-q', '-rs', '-p', 'no:cacheprovider', 'tests'], {
    cwd: CLIENT,
    env: { ...process.env, ANNOSTORE_NODE: process.execPath, PYTHONDONTWRITEBYTECODE: '1' },
    encoding: 'utf8',
    timeout: 1_190_000,
  });
  assert.equal(run.status, 0, `pytest failed:\n${run.stdout}\n${run.stderr}`);
  assert.match(run.stdout, / passed/);
  assert.doesNotMatch(run.stdout, / (failed|error)/);
  if (!noTorch) assert.doesNotMatch(run.stdout, /SKIPPED/, 'with PyTorch installed, the loader’s tests run');
});
