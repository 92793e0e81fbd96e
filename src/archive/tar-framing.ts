/**
 * Follows a tar stream's block framing (512-byte headers, each followed by
 * its data rounded up to whole blocks) without interpreting anything else,
 * to find where the archive ends: at two zero blocks where a header is
 * due. tar-stream reads on past that point, one zero block at a time, so a
 * small gzip that inflates to gigabytes of zeros after a valid archive
 * would be read whole; with this, reading stops at the end marker.
 *
 * It only has to agree with tar-stream on valid archives. Where it does
 * not, it fails closed: it ends too early (tar-stream then reports a
 * truncated archive) or too late (the byte and time limits still hold).
 */
export class TarFraming {
  private header = Buffer.alloc(0);
  private skip = 0;
  private zeros = 0;
  /** Bytes passed so far. */
  seen = 0;

  /**
   * The part of `chunk` that belongs to the archive; `ended` once the end
   * marker has been passed (nothing after it is archive). Throws on a
   * single zero block followed by a header, which no tar writer produces.
   */
  take(chunk: Buffer): { readonly data: Buffer; readonly ended: boolean } {
    let i = 0;
    while (i < chunk.length) {
      if (this.skip > 0) {
        const n = Math.min(this.skip, chunk.length - i);
        i += n;
        this.skip -= n;
        continue;
      }
      const need = 512 - this.header.length;
      const part = chunk.subarray(i, i + need);
      this.header = this.header.length === 0 ? Buffer.from(part) : Buffer.concat([this.header, part]);
      i += part.length;
      if (this.header.length < 512) break;
      const block = this.header;
      this.header = Buffer.alloc(0);
      if (block.every((byte) => byte === 0)) {
        if (++this.zeros === 2) {
          this.seen += i;
          return { data: chunk.subarray(0, i), ended: true };
        }
        continue;
      }
      if (this.zeros > 0) throw new Error('a zero block inside the archive, where a header was due');
      // A directory's size is not followed by data (tar-stream reads the next header right away).
      this.skip = block[156] === 0x35 ? 0 : Math.ceil(entrySize(block) / 512) * 512;
    }
    this.seen += chunk.length;
    return { data: chunk, ended: false };
  }
}

/** The size field (offset 124, 12 bytes): octal text, or base-256 when its first byte has the high bit set. */
function entrySize(block: Buffer): number {
  const field = block.subarray(124, 136);
  if ((field[0]! & 0x80) !== 0) {
    let value = field[0]! & 0x7f;
    for (const byte of field.subarray(1)) value = value * 256 + byte;
    return value;
  }
  const text = field
    .toString('latin1')
    .replace(/[\0 ]+$/, '')
    .trim();
  if (!/^[0-7]*$/.test(text)) throw new Error('a header whose size is not a number');
  return text === '' ? 0 : Number.parseInt(text, 8);
}
