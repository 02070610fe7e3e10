// The gallery's mapping of a list taller than a browser allows onto a shorter scroller (web/scroll-space.ts).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { MAX_SPACE, ScrollSpace } from '../../web/scroll-space.ts';

const VIEW = 700;
const CONTENT = 41_000_000; // a million tiles

describe('ScrollSpace', () => {
  test('a list that fits is not mapped: the content is where the scroller is', () => {
    const space = new ScrollSpace();
    space.resize(100_000, VIEW);
    assert.equal(space.space, 100_000);
    assert.equal(space.scrolled(5000, false), null);
    assert.equal(space.top, 5000);
    assert.equal(space.place(6000), 6000);
  });

  test('the scrollbar maps to the same fraction of the content: its end shows the last row', () => {
    const space = new ScrollSpace();
    space.resize(CONTENT, VIEW);
    assert.equal(space.space, MAX_SPACE);
    space.scrolled((MAX_SPACE - VIEW) / 2, false);
    assert.equal(space.top, (CONTENT - VIEW) / 2);
    space.scrolled(MAX_SPACE - VIEW, false);
    assert.equal(space.top, CONTENT - VIEW);
    // The content's last row is placed inside the scroller, at its bottom.
    assert.equal(space.place(CONTENT - VIEW), MAX_SPACE - VIEW);
    space.scrolled(0, false);
    assert.equal(space.top, 0);
  });

  test('the wheel moves the content by what the scroller moved, and the thumb is put back before it meets an end', () => {
    const space = new ScrollSpace();
    space.resize(CONTENT, VIEW);
    space.scrolled(MAX_SPACE / 2, false);
    const top = space.top;
    assert.equal(space.scrolled(MAX_SPACE / 2 + 100, true), null);
    assert.equal(space.top, top + 100);
    // Far from the fraction: a fine move near the top of the track with content above resyncs.
    space.jumpTo(5_000_000);
    const near = space.scrolled(300, true);
    assert.ok(near !== null && near > VIEW, `resynced to ${near}`);
    // Wheel all the way: every position of the content is reached, by steps of 100 px.
    space.jumpTo(CONTENT - 5000);
    let scrollTop = space.resync();
    for (let i = 0; i < 100 && space.top < CONTENT - VIEW; i += 1) {
      const before = space.top;
      const set = space.scrolled(Math.min(MAX_SPACE - VIEW, scrollTop + 100), true);
      scrollTop = set ?? Math.min(MAX_SPACE - VIEW, scrollTop + 100);
      assert.ok(space.top - before <= 100 + 1 && space.top > before, `step ${i}: ${before} → ${space.top}`);
    }
    assert.equal(space.top, CONTENT - VIEW);
  });
});
