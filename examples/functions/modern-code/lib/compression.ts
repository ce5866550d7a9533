/**
 * `CompressionStream`/`DecompressionStream` round trips of ~4 kB of text. Only what the bytes decompress to is
 * answered: the compressed bytes differ between zlib builds.
 */
const TEXT = Array.from(
  { length: 100 },
  (_, i) => `line ${String(i).padStart(3, "0")}: invoice INV-${i % 7} settled in full\n`,
).join("");

export async function compression() {
  return { gzip: await roundTrip("gzip"), deflate_raw: await roundTrip("deflate-raw") };
}

async function roundTrip(format: CompressionFormat) {
  const packed = await through(new TextEncoder().encode(TEXT), new CompressionStream(format));
  const back = new TextDecoder().decode(await through(packed, new DecompressionStream(format)));
  return {
    length: TEXT.length,
    decompressed_length: back.length,
    equal: back === TEXT,
    smaller: packed.length < TEXT.length,
  };
}

function through(bytes: Uint8Array<ArrayBuffer>, stream: CompressionStream | DecompressionStream) {
  return new Response(new Blob([bytes]).stream().pipeThrough(stream)).bytes();
}
