// Runs items through a planned graph, depth first: an item goes all the way to the output (or a
// dead end) before the next one starts, so only the items one image becomes are in memory at once.
import type { Mapping } from './classes.ts';
import { mapTitle } from './classes.ts';
import type { DtlItem, LayerContext } from './item.ts';
import { branchLayer, processingLayer } from './layers/index.ts';
import { seededRandom } from './random.ts';
import type { Plan, PlannedLayer } from './validate.ts';

/** The item with the data layer's class mapping applied to its objects. */
export function mappedItem(item: DtlItem, mapping: 'default' | Mapping): DtlItem {
  if (mapping === 'default') return item;
  const objects = [];
  for (const o of item.annotation.objects) {
    const title = mapTitle(mapping, o.classTitle);
    if (title === null) continue;
    objects.push(title === undefined || title === o.classTitle ? o : { ...o, classTitle: title });
  }
  return { ...item, annotation: { ...item.annotation, objects } };
}

function context(layer: PlannedLayer, item: DtlItem): LayerContext {
  let random: (() => number) | undefined;
  // Seeded on first use only: most layers draw no number.
  return { random: () => (random ??= seededRandom(layer.seed, layer.index, item.name))() };
}

/** Called for each item that reaches a dead end: destination `dst` (its index) of layer `layer`. */
export type DeadEndCounter = (layer: number, dst: number) => void;

/** Every item one image of a data layer becomes at the output, in depth-first order. */
export async function runItem(plan: Plan, dataLayer: number, item: DtlItem, deadEnd: DeadEndCounter = () => undefined): Promise<DtlItem[]> {
  const out: DtlItem[] = [];
  const onward = async (layer: PlannedLayer, dst: number, current: DtlItem): Promise<void> => {
    const next = layer.next[dst]!;
    if (next.length === 0) deadEnd(layer.index, dst);
    for (const n of next) await visit(n, current);
  };
  const visit = async (index: number, current: DtlItem): Promise<void> => {
    const layer = plan.layers[index]!;
    switch (layer.kind) {
      case 'output':
        out.push(current);
        return;
      case 'data':
        await onward(layer, 0, mappedItem(current, layer.prepared as 'default' | Mapping));
        return;
      case 'branch':
        await onward(layer, await branchLayer.route(current, layer.prepared, context(layer, current)), current);
        return;
      case 'processing': {
        const results = await processingLayer(layer.action)!.run(current, layer.prepared, context(layer, current));
        for (const result of results) await onward(layer, 0, result);
        return;
      }
    }
  };
  await visit(dataLayer, item);
  return out;
}
