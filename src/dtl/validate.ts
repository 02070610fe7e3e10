// A DTL config checked whole before a task exists, and made into a plan: the JSON shape of every
// layer, names that join the layers up, one output, no cycle, one connected graph, data layers that
// name the team's projects and datasets, and classes that are there where a layer names them. The
// classes and tags on every edge are computed on the way (classes.ts). Any problem is one 400 that
// names the layer by index and action, with a pointer into the request's `config`. Pure: the data
// layers' projects and datasets are found by the resolver it is given (services/dtl-data.ts).
import type { TSchema } from 'typebox';
import { Value } from 'typebox/value';
import { AppError } from '../errors.ts';
import { CLONE, ClassError, ClassListBuilder, type ClassSet, DEFAULT, IGNORE, type Mapping, NEW, OTHER, mapTitle, mergeSets, requireMappedClasses } from './classes.ts';
import { type Action, DtlConfig, type DtlConfigT, LAYER_SETTINGS, type LayerT, type OutputAction, PIXEL_ACTIONS, isAction, isOutput } from './config.ts';
import { branchLayer, pixelSettings, processingLayer } from './layers/index.ts';
import { unsupportedMembers } from './unsupported-settings.ts';

/** A data layer's images: its project and datasets, resolved to ids. */
export interface DataSource {
  projectId: number;
  project: string;
  /** The datasets read; of a version, its groups of images (ids 0), see `version`. */
  datasets: { id: number; title: string }[];
  /** A version read instead of the project: its images grouped by subset, or by dataset without a split. */
  version?: { id: number; column: 'subset' | 'dataset_title' };
}

export interface PlannedLayer {
  index: number;
  action: Action;
  kind: 'data' | 'processing' | 'branch' | 'output';
  /** The layers each destination feeds, one list a destination; a dead end (null, or a name no layer reads) feeds none. */
  next: number[][];
  /** The layer's destinations as the config names them (the output layer's: its output's name). */
  dst: string[];
  /** What the layer's function takes (see ProcessingLayer.plan); the mapping of a data layer. */
  prepared: unknown;
  /** The seed of the layer's randomness. */
  seed: string | number;
  source?: DataSource;
}

export interface Plan {
  layers: PlannedLayer[];
  /** Data layers in config order. */
  data: number[];
  output: { index: number; action: OutputAction; name: string; settings: Record<string, unknown>; classes: ClassSet };
  /**
   * Whether the items of one output dataset may arrive apart (a `dataset` layer, several data
   * layers): the writers need each dataset's items together, so the run then regroups them.
   */
  regroup: boolean;
}

/** How the config's data layers were resolved, kept with the task so the worker reads the same datasets. */
export type Resolved = Record<number, { projectId: number; datasetIds: number[] | null; versionId?: number }>;

/** Datasets one data layer reads, at most. */
export const MAX_DATASETS = 1000;

/** A 400 about one layer. */
export function layerError(index: number, action: string, message: string, at = ''): AppError {
  return new AppError('VALIDATION', `layer ${index} (${action}): ${message}`, { layer: index, action, pointer: `/config/${index}${at}` });
}

export const list = (value: string | string[]): string[] => (Array.isArray(value) ? value : [value]);
const isStream = (name: string) => /^\$[A-Za-z0-9_.-]{1,200}$/.test(name);

function checkSchema(schema: TSchema, value: unknown, index: number, action: string, at: string): void {
  if (Value.Check(schema, value)) return;
  const errors = [...Value.Errors(schema, value)];
  const unsupported = unsupportedMembers(schema, errors);
  if (unsupported) throw layerError(index, action, unsupported.message, `${at}${unsupported.at}`);
  // The deepest error says most; a union's own error only says that no branch fitted.
  const first = errors.sort((a, b) => b.instancePath.length - a.instancePath.length)[0];
  const where = first?.instancePath ?? '';
  // "boolean schema is false" is how the schema says a member does not belong with the others.
  const message = first?.keyword === 'boolean' ? 'is not allowed with the other settings given' : first?.message;
  const detail = first ? `${message}${first.keyword === 'additionalProperties' ? ` (${JSON.stringify(first.params)})` : ''}` : 'is not valid';
  throw layerError(index, action, `settings${where.replaceAll('/', '.')} ${detail}`, `${at}${where}`);
}

/** The shape of the config and of each layer's settings. */
function checkShapes(config: unknown): DtlConfigT {
  if (!Value.Check(DtlConfig, config)) {
    const first = [...Value.Errors(DtlConfig, config)].sort((a, b) => b.instancePath.length - a.instancePath.length)[0];
    const path = first?.instancePath ?? '';
    const index = /^\/(\d+)/.exec(path);
    const message = `config${path.replaceAll('/', '.')} ${first?.message ?? 'is not valid'}`;
    if (index) {
      const action = (config as { action?: unknown }[])[Number(index[1])]?.action;
      throw new AppError('VALIDATION', `layer ${index[1]} (${typeof action === 'string' ? action : '?'}): ${message}`, { layer: Number(index[1]), action, pointer: `/config${path}` });
    }
    throw new AppError('VALIDATION', message, { pointer: `/config${path}` });
  }
  config.forEach((layer, i) => {
    if (!isAction(layer.action)) throw layerError(i, layer.action, `unknown action "${layer.action}"`, '/action');
    if ((PIXEL_ACTIONS as readonly string[]).includes(layer.action) && !processingLayer(layer.action)) {
      throw layerError(i, layer.action, `the ${layer.action} layer is not supported yet`, '/action');
    }
    const settings = layer.settings ?? {};
    checkSchema(LAYER_SETTINGS[layer.action], settings, i, layer.action, '/settings');
    const own = pixelSettings(layer.action);
    if (own) checkSchema(own, settings, i, layer.action, '/settings');
    const mapping = (settings as { classes_mapping?: unknown }).classes_mapping;
    if (typeof mapping === 'object' && mapping !== null) {
      for (const [from, to] of Object.entries(mapping as Record<string, string>)) {
        if (to === OTHER || to === NEW) throw layerError(i, layer.action, `${to} is not a target of a mapping: name a title, ${DEFAULT}, ${CLONE} or ${IGNORE}`, `/settings/classes_mapping/${from.replaceAll('~', '~0').replaceAll('/', '~1')}`);
      }
    }
  });
  return config;
}

function kindOf(action: Action): PlannedLayer['kind'] {
  if (action === 'data') return 'data';
  if (action === 'if') return 'branch';
  return isOutput(action) ? 'output' : 'processing';
}

/** Names: what each layer reads and writes, one output, streams that are written and read. */
function wire(config: DtlConfigT, defaultSeed: string | number): { layers: PlannedLayer[]; output: number } {
  const writers = new Map<string, number[]>();
  const layers: PlannedLayer[] = config.map((layer, index) => {
    const action = layer.action as Action;
    const kind = kindOf(action);
    const dst = list(layer.dst);
    const fail = (message: string, at: string) => layerError(index, action, message, at);
    if (kind === 'output') {
      if (dst.length !== 1 || isStream(dst[0]!) || dst[0] === 'null' || dst[0]!.trim() === '') throw fail('dst is the name of the output, one name that does not start with $', '/dst');
    } else {
      if (kind === 'branch' && dst.length !== 2) throw fail('dst of an if layer has exactly two entries: where items go when the condition holds, and when not', '/dst');
      if (kind !== 'branch' && dst.length !== 1) throw fail('dst is one name', '/dst');
      dst.forEach((d, k) => {
        if (d !== 'null' && !isStream(d)) throw fail(`"${d}" is not a name: names start with $ (or are null, a dead end)`, Array.isArray(layer.dst) ? `/dst/${k}` : '/dst');
        if (d !== 'null') writers.set(d, [...(writers.get(d) ?? []), index]);
      });
    }
    list(layer.src).forEach((s, k) => {
      const at = Array.isArray(layer.src) ? `/src/${k}` : '/src';
      if (kind === 'data') {
        const slash = s.lastIndexOf('/');
        if (slash <= 0 || slash === s.length - 1) throw fail(`"${s}" is not "project/dataset" or "project/*"`, at);
      } else if (!isStream(s)) throw fail(`"${s}" is not a name: a layer reads names that start with $`, at);
    });
    const seed = (layer.settings as { seed?: string | number } | undefined)?.seed ?? defaultSeed;
    return { index, action, kind, next: [], dst, prepared: undefined, seed };
  });
  const outputs = layers.filter((l) => l.kind === 'output');
  if (outputs.length !== 1) {
    const at = outputs[1] ?? layers[layers.length - 1]!;
    throw layerError(at.index, at.action, outputs.length === 0 ? 'a graph needs one output layer (save, save_masks, supervisely, coco, yolo, pascal_voc); it has none' : 'a graph has exactly one output layer; this is another');
  }
  if (!layers.some((l) => l.kind === 'data')) throw layerError(0, layers[0]!.action, 'a graph needs a data layer');
  const readers = new Map<string, number[]>();
  for (const layer of layers) {
    if (layer.kind === 'data') continue;
    list(config[layer.index]!.src).forEach((s, k) => {
      if (!writers.has(s)) throw layerError(layer.index, layer.action, `no layer writes ${s}`, Array.isArray(config[layer.index]!.src) ? `/src/${k}` : '/src');
      readers.set(s, [...(readers.get(s) ?? []), layer.index]);
    });
  }
  // A name no layer reads is a dead end, as null is: the 2018 engine dropped what went there, and
  // published graphs rely on it (an if's unwanted branch named `$skip` and read by nobody).
  for (const layer of layers) {
    if (layer.kind === 'output') continue;
    layer.next = layer.dst.map((d) => (d === 'null' ? [] : [...new Set(readers.get(d) ?? [])]));
  }
  return { layers, output: outputs[0]!.index };
}

/** Layers in an order where each comes after those it reads; a cycle is a 400 at a layer on it. */
function topologicalOrder(layers: PlannedLayer[]): number[] {
  const state = new Uint8Array(layers.length); // 0 unseen, 1 on the path, 2 done
  const order: number[] = [];
  const visit = (start: number) => {
    const stack: [number, number][] = [[start, 0]];
    state[start] = 1;
    while (stack.length) {
      const top = stack[stack.length - 1]!;
      const next = layers[top[0]]!.next.flat();
      if (top[1] < next.length) {
        const n = next[top[1]++]!;
        if (state[n] === 1) throw layerError(n, layers[n]!.action, 'the graph has a cycle through this layer');
        if (state[n] === 0) {
          state[n] = 1;
          stack.push([n, 0]);
        }
      } else {
        state[top[0]] = 2;
        order.push(top[0]);
        stack.pop();
      }
    }
  };
  for (const layer of layers) if (state[layer.index] === 0) visit(layer.index);
  return order.reverse();
}

/** Every layer joined to the others: the graph is one component. */
function checkConnected(layers: PlannedLayer[]): void {
  const parent = layers.map((_, i) => i);
  const root = (i: number): number => (parent[i] === i ? i : (parent[i] = root(parent[i]!)));
  for (const layer of layers) for (const n of layer.next.flat()) parent[root(n)] = root(layer.index);
  const first = root(0);
  const apart = layers.find((l) => root(l.index) !== first);
  if (apart) throw layerError(apart.index, apart.action, 'the layer is not connected to the rest of the graph (a graph is one component)');
}

/** What a data layer reads, found by its `src`: its project and datasets, and the project's classes and tags. */
export interface ResolvedData {
  source: DataSource;
  set: ClassSet;
  resolved: Resolved[number];
}

/**
 * Finds a data layer's sources (services/dtl-data.ts reads them from the database): the layer, its
 * index, and how it was resolved when the task was made (the worker reads the same projects and
 * datasets). Throws layerError for a source that is not there.
 */
export type DataResolver = (layer: LayerT, index: number, resolved: Resolved[number] | undefined) => Promise<ResolvedData>;

/** The data layer's classes after its mapping. */
function mappedData(set: ClassSet, mapping: 'default' | Mapping): ClassSet {
  if (mapping === 'default') return set;
  requireMappedClasses(set, mapping, '/classes_mapping');
  const out = new ClassListBuilder('/classes_mapping');
  for (const c of set.classes) {
    const title = mapTitle(mapping, c.title);
    if (title !== null) out.clone(c, title ?? c.title);
  }
  return { classes: out.list(), tags: set.tags };
}

export interface ValidateOptions {
  /** The seed of layers that give none (the task's id). */
  seed: string | number;
  /** Data layers resolved when the task was created: the worker reads the same projects and datasets. */
  resolved?: Resolved;
}

/** The config checked and planned; throws a 400 AppError naming the layer at the first problem. */
export async function planGraph(resolveData: DataResolver, config: unknown, options: ValidateOptions): Promise<{ plan: Plan; resolved: Resolved }> {
  const checked = checkShapes(config);
  const { layers, output } = wire(checked, options.seed);
  const order = topologicalOrder(layers);
  checkConnected(layers);
  const resolved: Resolved = {};
  const outputOf = new Map<number, ClassSet>();
  const inputs = new Map<number, ClassSet[]>();
  for (const index of order) {
    const layer = layers[index]!;
    const config = checked[index]!;
    const settings = (config.settings ?? {}) as Record<string, unknown>;
    let set: ClassSet;
    try {
      if (layer.kind === 'data') {
        const data = await resolveData(config, index, options.resolved?.[index]);
        layer.source = data.source;
        resolved[index] = data.resolved;
        const mapping = settings.classes_mapping as 'default' | Mapping;
        layer.prepared = mapping;
        set = mappedData(data.set, mapping);
      } else {
        const input = mergeSets(inputs.get(index) ?? [], '/src');
        if (layer.kind === 'output') {
          set = input;
        } else {
          const definition = layer.kind === 'branch' ? branchLayer : processingLayer(layer.action)!;
          const planned = definition.plan(settings, input);
          layer.prepared = planned.prepared;
          set = planned.output;
        }
      }
    } catch (error) {
      if (error instanceof ClassError) throw layerError(index, layer.action, error.message, error.at === '/src' ? '/src' : `/settings${error.at}`);
      throw error;
    }
    outputOf.set(index, set);
    for (const n of layer.next.flat()) inputs.set(n, [...(inputs.get(n) ?? []), set]);
  }
  const out = layers[output]!;
  const plan: Plan = {
    layers,
    data: layers.filter((l) => l.kind === 'data').map((l) => l.index),
    output: { index: output, action: out.action as OutputAction, name: list(checked[output]!.dst)[0]!, settings: (checked[output]!.settings ?? {}) as Record<string, unknown>, classes: outputOf.get(output)! },
    regroup: layers.some((l) => l.action === 'dataset') || layers.filter((l) => l.kind === 'data').length > 1,
  };
  return { plan, resolved };
}
