import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CLASS_PALETTE, classColorSource, colorDistance, deltaE2000, nextClassColor } from '../../src/formats/class-colors.ts';

describe('class colours', () => {
  it('measures CIEDE2000 as the reference data of Sharma, Wu and Dalal', () => {
    const pairs: [[number, number, number], [number, number, number], number][] = [
      [[50, 2.6772, -79.7751], [50, 0, -82.7485], 2.0425],
      [[50, 2.5, 0], [50, 0, -2.5], 4.3065],
      [[50, 2.5, 0], [73, 25, -18], 27.1492],
      [[60.2574, -34.0099, 36.2677], [60.4626, -34.1751, 39.4387], 1.2644],
      [[22.7233, 20.0904, -46.694], [23.0331, 14.973, -42.5619], 2.0373],
      [[2.0776, 0.0795, -1.135], [0.9033, -0.0636, -0.5514], 0.9082],
    ];
    for (const [a, b, expected] of pairs) assert.ok(Math.abs(deltaE2000(a, b) - expected) < 1e-4, `${a} ${b}: ${deltaE2000(a, b)} ≠ ${expected}`);
  });

  it('gives 12 classes of a new project colours pairwise far apart, and 24 still apart', () => {
    const next = classColorSource();
    const colors = Array.from({ length: 24 }, () => next());
    const minimum = (n: number) => {
      let least = Infinity;
      for (let i = 0; i < n; i += 1) for (let j = i + 1; j < n; j += 1) least = Math.min(least, colorDistance(colors[i]!, colors[j]!));
      return least;
    };
    // 20 is far beyond "noticeable" (2.3): the chess pieces' three greens were under 5 apart.
    assert.ok(minimum(12) >= 20, `12 classes: nearest pair ${minimum(12)}`);
    assert.ok(minimum(24) >= 15, `24 classes: nearest pair ${minimum(24)}`);
    for (let i = 1; i < colors.length; i += 1) assert.ok(colorDistance(colors[i - 1]!, colors[i]!) >= 20, `classes ${i} and ${i + 1} are alike`);
  });

  it('keeps clear of the colours a project already has, and of those given', () => {
    assert.equal(nextClassColor([]), CLASS_PALETTE[0]);
    // A red near the palette's first is taken as that colour.
    assert.equal(nextClassColor(['#e8204e']), CLASS_PALETTE[1]);
    const next = classColorSource(['#00d000']);
    assert.equal(next(), CLASS_PALETTE[0]);
    assert.equal(next('#7a10ff'), '#7a10ff');
    assert.equal(next(), CLASS_PALETTE[3]);
  });

  it('still answers a palette colour once all 32 are taken', () => {
    const color = nextClassColor(CLASS_PALETTE);
    assert.ok(CLASS_PALETTE.includes(color));
  });
});
