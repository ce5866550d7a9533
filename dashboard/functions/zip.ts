import { crc32, inflateRawSync } from "node:zlib";

/**
 * A small, careful reader of the zip files a person uploads to deploy a function: it reads the
 * central directory (APPNOTE.TXT §4.3.12), the archive's own table of contents, and inflates each
 * entry with Node's zlib. Refused before anything is inflated: more entries than allowed, declared
 * sizes over the limit, encrypted entries, ZIP64, methods other than stored and deflate, paths that
 * leave the folder (`..`, absolute, `\`) and symbolic links. An entry that inflates past its declared
 * size (a zip bomb lies there) or fails its CRC-32 is refused too.
 */

export interface UnzipLimits {
  maxEntries: number;
  /** The most bytes all entries may inflate to, together. */
  maxTotalBytes: number;
}

export interface ZipEntry {
  path: string;
  bytes: Buffer;
}

/** Why an archive was refused; the message is for the person who uploaded it. */
export class ZipRefused extends Error {}

const EOCD = 0x06054b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;
const EOCD_BYTES = 22;
const MAX_COMMENT = 0xffff;
/** `version made by` naming Unix, whose external attributes carry the file's mode (§4.4.2). */
const UNIX = 3;
const S_IFMT = 0o170000;
const S_IFLNK = 0o120000;
/** macOS Finder's "Compress" adds resource forks under this folder: not part of the function. */
const MACOS_METADATA = "__MACOSX/";

/** The files of a zip archive (folders and macOS metadata left out), or a `ZipRefused`. */
export function unzip(zip: Buffer, limits: UnzipLimits): ZipEntry[] {
  const directory = centralDirectory(zip, limits);
  const entries: ZipEntry[] = [];
  let total = 0;
  for (const header of directory) {
    total += header.size;
    if (total > limits.maxTotalBytes) {
      throw new ZipRefused(`The zip unpacks to more than ${limits.maxTotalBytes} bytes`);
    }
  }
  for (const header of directory) entries.push({ path: header.path, bytes: inflate(zip, header) });
  return entries;
}

interface CentralHeader {
  path: string;
  method: number;
  crc: number;
  compressedSize: number;
  size: number;
  localOffset: number;
}

/** Every file entry of the central directory, each checked before anything is inflated. */
function centralDirectory(zip: Buffer, limits: UnzipLimits): CentralHeader[] {
  const end = findEndRecord(zip);
  const count = zip.readUInt16LE(end + 10);
  const offset = zip.readUInt32LE(end + 16);
  if (count === 0xffff || offset === 0xffffffff) throw new ZipRefused("ZIP64 archives are not supported");
  if (count > limits.maxEntries) throw new ZipRefused(`The zip holds more than ${limits.maxEntries} entries`);
  const headers: CentralHeader[] = [];
  const seen = new Set<string>();
  let at = offset;
  for (let index = 0; index < count; index++) {
    if (at + 46 > zip.length || zip.readUInt32LE(at) !== CENTRAL) throw corrupt();
    const nameLength = zip.readUInt16LE(at + 28);
    const path = zip.toString("utf8", at + 46, at + 46 + nameLength);
    const header = {
      path,
      method: zip.readUInt16LE(at + 10),
      crc: zip.readUInt32LE(at + 16),
      compressedSize: zip.readUInt32LE(at + 20),
      size: zip.readUInt32LE(at + 24),
      localOffset: zip.readUInt32LE(at + 42),
    };
    checkEntry(zip, at, path);
    at += 46 + nameLength + zip.readUInt16LE(at + 30) + zip.readUInt16LE(at + 32);
    if (path.endsWith("/") || path.startsWith(MACOS_METADATA)) continue;
    if (seen.has(path)) throw new ZipRefused(`The zip holds '${path}' twice`);
    seen.add(path);
    headers.push(header);
  }
  return headers;
}

/** The end of central directory record: the last one, behind at most a 64 KiB comment. */
function findEndRecord(zip: Buffer): number {
  const stop = Math.max(0, zip.length - EOCD_BYTES - MAX_COMMENT);
  for (let at = zip.length - EOCD_BYTES; at >= stop; at--) {
    if (zip.readUInt32LE(at) === EOCD) return at;
  }
  throw new ZipRefused("This file is not a zip archive");
}

/** An entry's flags, method, mode and path, judged from its central directory header at `at`. */
function checkEntry(zip: Buffer, at: number, path: string): void {
  if (zip.readUInt16LE(at + 8) & 1) throw new ZipRefused(`'${path}' is encrypted`);
  const method = zip.readUInt16LE(at + 10);
  if (!path.endsWith("/") && method !== 0 && method !== 8) {
    throw new ZipRefused(`'${path}' uses compression method ${method}; only stored and deflate are read`);
  }
  const madeOn = zip.readUInt16LE(at + 4) >> 8;
  const mode = zip.readUInt32LE(at + 38) >>> 16;
  if (madeOn === UNIX && (mode & S_IFMT) === S_IFLNK) {
    throw new ZipRefused(`'${path}' is a symbolic link: links are not allowed`);
  }
  // A `\` is a separator to Windows tools: `..\x` leaves the folder there.
  if (path.startsWith("/") || /^[A-Za-z]:/.test(path) || path.includes("\\")) {
    throw new ZipRefused(`'${path}' is an absolute path: entries must stay inside the folder`);
  }
  if (path.split("/").includes("..")) {
    throw new ZipRefused(`'${path}' points outside the folder (..): entries must stay inside it`);
  }
}

/** One entry's bytes, from its local header (whose own sizes are not trusted: the central ones are). */
function inflate(zip: Buffer, header: CentralHeader): Buffer {
  const at = header.localOffset;
  if (at + 30 > zip.length || zip.readUInt32LE(at) !== LOCAL) throw corrupt();
  const start = at + 30 + zip.readUInt16LE(at + 26) + zip.readUInt16LE(at + 28);
  const end = start + header.compressedSize;
  if (end > zip.length) throw corrupt();
  const data = zip.subarray(start, end);
  let bytes: Buffer;
  try {
    // Never more than the declared size: a bomb's output stops there and fails the check below.
    bytes = header.method === 0 ? data : inflateRawSync(data, { maxOutputLength: Math.max(1, header.size) });
  } catch {
    throw new ZipRefused(`'${header.path}' does not unpack to its declared size`);
  }
  if (bytes.length !== header.size || crc32(bytes) !== header.crc) {
    throw new ZipRefused(`'${header.path}' is damaged (its size or checksum does not match)`);
  }
  return bytes;
}

const corrupt = () => new ZipRefused("The zip is damaged: its table of contents does not match its entries");
