// A thinned mask as polylines, for the bitmap2lines layer, the way the 2018 DTL took them: the set
// pixels are the nodes of a graph whose edges join 8-neighbours; a spanning tree of it is taken (a
// minimum one, with steps across a side shorter than steps across a corner, so a bend keeps the
// pixel in its corner); then the longest path of each piece of the tree is a line, its edges are
// taken out, and what is left is searched again, piece by piece, until no piece has three edges.
import type { Raster } from '../formats/raster.ts';

/** The paths, each the pixels (x, y) it passes in order, in the mask's own coordinates. */
export function skeletonPaths(mask: Raster): [number, number][][] {
  const tree = spanningTree(mask);
  const paths: [number, number][][] = [];
  const queue = pieces(tree, [...tree.keys()]);
  while (queue.length) {
    const piece = queue.shift()!;
    // A tree's edges are one fewer than its nodes.
    if (piece.length - 1 < 3) continue;
    const path = longestPath(tree, piece[0]!);
    paths.push(path.map((p) => [p % mask.width, Math.floor(p / mask.width)]));
    for (let i = 1; i < path.length; i++) {
      tree.get(path[i - 1]!)!.delete(path[i]!);
      tree.get(path[i]!)!.delete(path[i - 1]!);
    }
    const left = piece.filter((p) => tree.get(p)!.size > 0);
    for (const p of piece) if (tree.get(p)!.size === 0) tree.delete(p);
    queue.push(...pieces(tree, left));
  }
  return paths;
}

type Tree = Map<number, Set<number>>;

/** Kruskal over the 8-neighbour edges: side steps before corner steps, each in scan order. */
function spanningTree({ width, height, pixels }: Raster): Tree {
  const tree: Tree = new Map();
  const side: [number, number][] = [];
  const corner: [number, number][] = [];
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const p = y * width + x;
      if (!pixels[p]) continue;
      tree.set(p, new Set());
      // The neighbours before p in scan order, as the 2018 graph joined them.
      if (y > 0 && x > 0 && pixels[p - width - 1]) corner.push([p - width - 1, p]);
      if (y > 0 && pixels[p - width]) side.push([p - width, p]);
      if (y > 0 && x < width - 1 && pixels[p - width + 1]) corner.push([p - width + 1, p]);
      if (x > 0 && pixels[p - 1]) side.push([p - 1, p]);
    }
  }
  const parent = new Map<number, number>();
  const root = (p: number): number => {
    let r = p;
    while (parent.has(r)) r = parent.get(r)!;
    while (p !== r) {
      const next = parent.get(p)!;
      parent.set(p, r);
      p = next;
    }
    return r;
  };
  for (const [a, b] of [...side, ...corner]) {
    const ra = root(a);
    const rb = root(b);
    if (ra === rb) continue;
    parent.set(ra, rb);
    tree.get(a)!.add(b);
    tree.get(b)!.add(a);
  }
  return tree;
}

/** The connected pieces among `nodes`, each in scan order, the pieces in the order of their first node. */
function pieces(tree: Tree, nodes: number[]): number[][] {
  const seen = new Set<number>();
  const out: number[][] = [];
  for (const start of [...nodes].sort((a, b) => a - b)) {
    if (seen.has(start)) continue;
    const piece: number[] = [];
    const stack = [start];
    seen.add(start);
    while (stack.length) {
      const p = stack.pop()!;
      piece.push(p);
      for (const q of tree.get(p)!) {
        if (!seen.has(q)) {
          seen.add(q);
          stack.push(q);
        }
      }
    }
    out.push(piece.sort((a, b) => a - b));
  }
  return out;
}

/** The path from `from` to the node a breadth-first search reaches last. */
function farthestPath(tree: Tree, from: number): number[] {
  const parent = new Map<number, number>([[from, -1]]);
  const queue = [from];
  let last = from;
  for (let head = 0; head < queue.length; head++) {
    const p = queue[head]!;
    last = p;
    for (const q of [...tree.get(p)!].sort((a, b) => a - b)) {
      if (!parent.has(q)) {
        parent.set(q, p);
        queue.push(q);
      }
    }
  }
  const path: number[] = [];
  for (let p = last; p !== -1; p = parent.get(p)!) path.push(p);
  return path.reverse();
}

/** A longest path of a tree: the farthest node from any, then the farthest from that one. */
function longestPath(tree: Tree, start: number): number[] {
  const first = farthestPath(tree, start);
  const second = farthestPath(tree, first[first.length - 1]!);
  return second.length > first.length ? second : first;
}
