// The modules' import graph keeps its shape: no module reaches, through its imports, back to itself
// (a circle makes load order matter and every module in it a part of every other), and the layers
// import downwards only (nothing below the HTTP layer imports it). Imports are read with TypeScript's
// own pre-processor, type-only ones included: a type is a dependency too.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import ts from 'typescript';

const ROOT = path.resolve(import.meta.dirname, '../..');

function sourceFiles(folder: string): string[] {
  const found: string[] = [];
  for (const entry of fs.readdirSync(path.join(ROOT, folder), { withFileTypes: true })) {
    const relative = path.join(folder, entry.name);
    if (entry.isDirectory()) found.push(...sourceFiles(relative));
    else if (/\.tsx?$/.test(entry.name)) found.push(relative);
  }
  return found;
}

/** Each file's relative imports, as files of the same tree. */
function importGraph(folder: string): Map<string, string[]> {
  const files = sourceFiles(folder);
  const known = new Set(files);
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const { importedFiles } = ts.preProcessFile(fs.readFileSync(path.join(ROOT, file), 'utf8'), true, true);
    const targets = importedFiles
      .map((imported) => imported.fileName)
      .filter((name) => name.startsWith('.'))
      .map((name) => path.normalize(path.join(path.dirname(file), name)))
      .filter((target) => known.has(target));
    graph.set(file, targets);
  }
  return graph;
}

/** The circles of a graph: its strongly connected parts of more than one file, or a file importing itself. */
function circles(graph: Map<string, string[]>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (file: string): void => {
    index.set(file, counter);
    low.set(file, counter);
    counter += 1;
    stack.push(file);
    onStack.add(file);
    for (const next of graph.get(file) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(file, Math.min(low.get(file)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(file, Math.min(low.get(file)!, index.get(next)!));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const part: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      part.push(member);
    } while (member !== file);
    if (part.length > 1 || graph.get(file)!.includes(file)) found.push(part.sort());
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return found;
}

test('no module of the server, the command or the web interface imports itself through others', () => {
  for (const folder of ['src', 'web']) {
    const found = circles(importGraph(folder));
    assert.deepEqual(found, [], `${folder}/ has import circles:\n${found.map((part) => part.join(' ↔ ')).join('\n')}`);
  }
});

/**
 * The HTTP layer is built on the rest, never the other way round: below it, nothing imports src/http/
 * (a type included). The composition roots (app, server, worker, cli) assemble the layers, and the
 * command's client shares the API's schemas.
 */
const MAY_IMPORT_HTTP = ['src/http/', 'src/client/', 'src/app.ts', 'src/server.ts', 'src/worker.ts', 'src/cli.ts'];

test('nothing below the HTTP layer imports it', () => {
  const reaching = [...importGraph('src')]
    .filter(([file]) => !MAY_IMPORT_HTTP.some((allowed) => file.startsWith(allowed)))
    .flatMap(([file, targets]) => targets.filter((target) => target.startsWith('src/http/')).map((target) => `${file} → ${target}`));
  assert.deepEqual(reaching, []);
});

/** DTL's graph, layers, geometry and class mapping are pure: what reads the database or the stores lives in services and task handlers. */
const IO = ['src/db/', 'src/repositories/', 'src/storage/', 'src/services/', 'src/tasks/', 'src/http/', 'src/context.ts'];

test('src/dtl/ reads no database and no store: it imports none of their modules', () => {
  const reaching = [...importGraph('src')]
    .filter(([file]) => file.startsWith('src/dtl/'))
    .flatMap(([file, targets]) => targets.filter((target) => IO.some((io) => target.startsWith(io))).map((target) => `${file} → ${target}`));
  assert.deepEqual(reaching, []);
});

test('the circle check finds a circle', () => {
  const graph = new Map([
    ['a.ts', ['b.ts']],
    ['b.ts', ['c.ts']],
    ['c.ts', ['a.ts']],
    ['d.ts', ['a.ts']],
  ]);
  assert.deepEqual(circles(graph), [['a.ts', 'b.ts', 'c.ts']]);
});
