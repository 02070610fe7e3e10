// CRC-32 (the zip and gzip polynomial), continued chunk by chunk. Node 22 has it natively
// (zlib.crc32); Node 20, which the project still supports, does not, so a table version stands in.
import zlib from 'node:zlib';

type Crc32 = (data: Buffer, value?: number) => number;

const native = (zlib as unknown as { crc32?: Crc32 }).crc32;

/**
 * Slicing by 8: eight tables let the loop take eight bytes a step, several times faster than the
 * byte-at-a-time table on image-sized inputs.
 */
const TABLES: Uint32Array[] = (() => {
  const tables = Array.from({ length: 8 }, () => new Uint32Array(256));
  for (let n = 0; n < 256; n += 1) {
    let c = n;
    for (let k = 0; k < 8; k += 1) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    tables[0]![n] = c >>> 0;
  }
  for (let n = 0; n < 256; n += 1) {
    for (let t = 1; t < 8; t += 1) tables[t]![n] = (tables[0]![tables[t - 1]![n]! & 0xff]! ^ (tables[t - 1]![n]! >>> 8)) >>> 0;
  }
  return tables;
})();

function tableCrc32(data: Buffer, value = 0): number {
  const [t0, t1, t2, t3, t4, t5, t6, t7] = TABLES as [Uint32Array, Uint32Array, Uint32Array, Uint32Array, Uint32Array, Uint32Array, Uint32Array, Uint32Array];
  let crc = ~value >>> 0;
  let i = 0;
  const end8 = data.length - (data.length % 8);
  for (; i < end8; i += 8) {
    const a = (crc ^ (data[i]! | (data[i + 1]! << 8) | (data[i + 2]! << 16) | (data[i + 3]! << 24))) >>> 0;
    crc =
      t7[a & 0xff]! ^
      t6[(a >>> 8) & 0xff]! ^
      t5[(a >>> 16) & 0xff]! ^
      t4[a >>> 24]! ^
      t3[data[i + 4]!]! ^
      t2[data[i + 5]!]! ^
      t1[data[i + 6]!]! ^
      t0[data[i + 7]!]!;
  }
  for (; i < data.length; i += 1) crc = t0[(crc ^ data[i]!) & 0xff]! ^ (crc >>> 8);
  return ~crc >>> 0;
}

/** The CRC-32 of `data`, continuing from `value` (the CRC of the bytes before it; 0 to start). */
export const crc32: Crc32 = native ?? tableCrc32;

/** The table version, exported so a test can hold it against known values on any Node. */
export { tableCrc32 };
