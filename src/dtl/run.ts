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

/** Every item one image of a data layer becomes at the output, in depth-first order. */
export async function runItem(plan: Plan, dataLayer: number, item: DtlItem): Promise<DtlItem[]> {
  const out: DtlItem[] = [];
  const visit = async (index: number, current: DtlItem): Promise<void> => {
    const layer = plan.layers[index]!;
    switch (layer.kind) {
      case 'output':
        out.push(current);
        return;
      case 'data':
        for (const n of layer.next[0]!) await visit(n, mappedItem(current, layer.prepared as 'default' | Mapping));
        return;
      case 'branch': {
        const branch = await branchLayer.route(current, layer.prepared, context(layer, current));
        for (const n of layer.next[branch]!) await visit(n, current);
        return;
      }
      case 'processing': {
        const results = await processingLayer(layer.action)!.run(current, layer.prepared, context(layer, current));
        for (const result of results) for (const n of layer.next[0]!) await visit(n, result);
        return;
      }
    }
  };
  await visit(dataLayer, item);
  return out;
}
