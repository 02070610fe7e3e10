// The sides of a crop, as the 2018 DTL writes them: "<n>px" or "<n>%" of the image (or box) size.
import { Type } from 'typebox';

export const SideLength = Type.String({ pattern: '^[0-9]+(\\.[0-9]+)?(px|%)$', maxLength: 32 });

export const Sides = Type.Object(
  { top: SideLength, left: SideLength, right: SideLength, bottom: SideLength },
  { additionalProperties: false },
);

export interface SideSettings {
  top: string;
  left: string;
  right: string;
  bottom: string;
}

/** A side's length in pixels, rounded, for a dimension `total` pixels long. */
export function sideLength(value: string, total: number): number {
  const number = Number.parseFloat(value);
  return Math.round(value.endsWith('%') ? (total * number) / 100 : number);
}
