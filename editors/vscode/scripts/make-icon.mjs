// Draws the extension's icon, media/icon.png (128×128 RGBA): a dark
// rounded square with three ranked slices of code (bars, longest first)
// and a cursor beside them. No dependencies: shapes are sampled 4×4 per
// pixel and written as a PNG with node:zlib.
//
//   node scripts/make-icon.mjs
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import zlib from 'node:zlib';

const N = 128;
const SS = 4; // samples per pixel side

/** A rounded rectangle: [x, y, w, h, r]. */
const inRoundRect = (px, py, [x, y, w, h, r]) => {
  if (px < x || py < y || px > x + w || py > y + h) return false;
  const cx = Math.min(Math.max(px, x + r), x + w - r);
  const cy = Math.min(Math.max(py, y + r), y + h - r);
  return (px - cx) ** 2 + (py - cy) ** 2 <= r * r;
};

// Back to front: each shape and its colour.
const shapes = [
  { rect: [4, 4, 120, 120, 24], rgb: [0x1b, 0x2a, 0x3a] },
  { rect: [22, 30, 8, 68, 4], rgb: [0xff, 0xca, 0x28] }, // the cursor
  { rect: [40, 34, 66, 14, 7], rgb: [0x4f, 0xc3, 0xf7] },
  { rect: [40, 57, 50, 14, 7], rgb: [0x81, 0xd4, 0xfa] },
  { rect: [40, 80, 34, 14, 7], rgb: [0xb3, 0xe5, 0xfc] },
];

const rgba = Buffer.alloc(N * N * 4);
for (let y = 0; y < N; y++) {
  for (let x = 0; x < N; x++) {
    let r = 0, g = 0, b = 0, a = 0;
    for (let sy = 0; sy < SS; sy++) {
      for (let sx = 0; sx < SS; sx++) {
        const px = x + (sx + 0.5) / SS;
        const py = y + (sy + 0.5) / SS;
        let top;
        for (const s of shapes) if (inRoundRect(px, py, s.rect)) top = s.rgb;
        if (top) {
          r += top[0]; g += top[1]; b += top[2]; a++;
        }
      }
    }
    const o = (y * N + x) * 4;
    if (a > 0) {
      rgba[o] = Math.round(r / a);
      rgba[o + 1] = Math.round(g / a);
      rgba[o + 2] = Math.round(b / a);
    }
    rgba[o + 3] = Math.round((255 * a) / (SS * SS));
  }
}

const crcTable = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
const crc32 = (buf) => {
  let c = 0xffffffff;
  for (const byte of buf) c = crcTable[(c ^ byte) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
};
const chunk = (type, data) => {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const td = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(td));
  return Buffer.concat([len, td, crc]);
};
const ihdr = Buffer.alloc(13);
ihdr.writeUInt32BE(N, 0);
ihdr.writeUInt32BE(N, 4);
ihdr[8] = 8; // bit depth
ihdr[9] = 6; // RGBA
const raw = Buffer.alloc(N * (N * 4 + 1));
for (let y = 0; y < N; y++) rgba.copy(raw, y * (N * 4 + 1) + 1, y * N * 4, (y + 1) * N * 4);
const png = Buffer.concat([
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  chunk('IHDR', ihdr),
  chunk('IDAT', zlib.deflateSync(raw, { level: 9 })),
  chunk('IEND', Buffer.alloc(0)),
]);
const out = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'media', 'icon.png');
fs.writeFileSync(out, png);
console.log(`wrote ${out} (${png.length} bytes)`);
