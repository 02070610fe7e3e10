// The settings object of a pixel layer: its own members and the `seed` every layer of a graph may
// carry (the engine seeds the layer's randomness with it), nothing else.
import { type TProperties, Type } from 'typebox';

const Seed = Type.Optional(Type.Union([Type.Integer(), Type.String({ maxLength: 255 })]));

export const layerSettings = <P extends TProperties>(properties: P) => Type.Object({ ...properties, seed: Seed }, { additionalProperties: false });
