// IEEE 754 half precision, for embeddings stored and sent at half the bytes of float32. Node 20 and
// the browsers the interface supports have no Float16Array, so the bits are made by hand (round to
// nearest even, subnormals kept, overflow to infinity).

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

export function toHalf(value: number): number {
  f32[0] = value;
  const bits = u32[0]!;
  const sign = (bits >>> 16) & 0x8000;
  const exponent = (bits >>> 23) & 0xff;
  let mantissa = bits & 0x7fffff;
  if (exponent === 0xff) return sign | 0x7c00 | (mantissa ? 0x200 : 0);
  const e = exponent - 127 + 15;
  if (e >= 0x1f) return sign | 0x7c00;
  if (e <= 0) {
    if (e < -10) return sign;
    mantissa |= 0x800000;
    const shift = 14 - e;
    const half = mantissa >>> shift;
    const rest = mantissa & ((1 << shift) - 1);
    const midway = 1 << (shift - 1);
    return sign | (rest > midway || (rest === midway && half & 1) ? half + 1 : half);
  }
  const half = (e << 10) | (mantissa >>> 13);
  const rest = mantissa & 0x1fff;
  // A carry out of the mantissa rounds up into the exponent, as it should.
  return sign | (rest > 0x1000 || (rest === 0x1000 && half & 1) ? half + 1 : half);
}

export function fromHalf(half: number): number {
  const sign = half & 0x8000 ? -1 : 1;
  const exponent = (half >>> 10) & 0x1f;
  const mantissa = half & 0x3ff;
  if (exponent === 0) return sign * mantissa * 2 ** -24;
  if (exponent === 0x1f) return mantissa ? NaN : sign * Infinity;
  return sign * (1 + mantissa / 1024) * 2 ** (exponent - 15);
}

export function float32ToFloat16(values: Float32Array): Uint16Array {
  const out = new Uint16Array(values.length);
  for (let i = 0; i < values.length; i++) out[i] = toHalf(values[i]!);
  return out;
}

/** The float32 values of fp16 bits; a table of the 65,536 halves makes it one lookup each. */
export function float16ToFloat32(halves: Uint16Array): Float32Array {
  const table = halfTable();
  const out = new Float32Array(halves.length);
  for (let i = 0; i < halves.length; i++) out[i] = table[halves[i]!]!;
  return out;
}

let table: Float32Array | undefined;
function halfTable(): Float32Array {
  if (!table) {
    table = new Float32Array(65536);
    for (let h = 0; h < 65536; h++) table[h] = fromHalf(h);
  }
  return table;
}
