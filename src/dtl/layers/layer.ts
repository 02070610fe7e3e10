// What a processing layer is to the graph: a function from an item to the items it becomes, and a
// plan of what the layer makes of the classes and tags before any item runs. The plan also prepares
// what the function takes (titles resolved, the shapes of the classes it reads), so the function
// does no lookups of its own.
import type { ClassShape } from '../../formats/canonical.ts';
import type { ClassSet } from '../classes.ts';
import type { DtlItem, LayerContext, LayerFunction } from '../item.ts';

export interface LayerPlan<P> {
  output: ClassSet;
  prepared: P;
}

export interface ProcessingLayer<S = unknown, P = unknown> {
  /** The classes and tags after the layer, and what `run` takes; throws ClassError for names that are not there. */
  plan(settings: S, input: ClassSet): LayerPlan<P>;
  run: LayerFunction<P>;
}

/** `if`: each item goes to one of the layer's two destinations. */
export interface BranchLayer<S = unknown, P = unknown> {
  plan(settings: S, input: ClassSet): LayerPlan<P>;
  /** 0: the first destination (the condition holds), 1: the second. */
  route(item: DtlItem, prepared: P, context: LayerContext): 0 | 1 | Promise<0 | 1>;
}

/** The shape of each class of a class set, by title. */
export const shapesOf = (set: ClassSet): Map<string, ClassShape> => new Map(set.classes.map((c) => [c.title, c.shape]));

/** A plan that leaves the classes as they are and passes the settings on. */
export const samePlan = <S>(settings: S, input: ClassSet): LayerPlan<S> => ({ output: input, prepared: settings });
