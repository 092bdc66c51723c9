/**
 * The binary encoding of rollups and latency sketches: protobuf's wire primitives (base-128 varints,
 * zig-zag signed varints, little-endian doubles, length-prefixed bytes and UTF-8 strings) without
 * field tags, byte for byte what protobufjs's Writer wrote for the rollups stored before.
 */
const TWO_POW_32 = 2 ** 32;

export class ByteWriter {
  private readonly chunks: Uint8Array[] = [];
  private current: number[] = [];

  /** A whole number in [0, 2^32). */
  uint32(value: number): this {
    if (!Number.isInteger(value) || value < 0 || value >= TWO_POW_32) throw new RangeError(`uint32 out of range: ${value}`);
    let rest = value;
    while (rest >= 0x80) {
      this.current.push((rest % 0x80) | 0x80);
      rest = Math.floor(rest / 0x80);
    }
    this.current.push(rest);
    return this;
  }

  /** A whole number in [-2^31, 2^31), zig-zag encoded so small magnitudes stay short. */
  sint32(value: number): this {
    if (!Number.isInteger(value) || value < -(2 ** 31) || value >= 2 ** 31) throw new RangeError(`sint32 out of range: ${value}`);
    return this.uint32(((value << 1) ^ (value >> 31)) >>> 0);
  }

  bool(value: boolean): this {
    return this.uint32(value ? 1 : 0);
  }

  double(value: number): this {
    const bytes = new Uint8Array(8);
    new DataView(bytes.buffer).setFloat64(0, value, true);
    return this.raw(bytes);
  }

  bytes(value: Uint8Array): this {
    return this.uint32(value.length).raw(value);
  }

  string(value: string): this {
    return this.bytes(Buffer.from(value, 'utf8'));
  }

  finish(): Uint8Array {
    this.flush();
    return Buffer.concat(this.chunks);
  }

  private raw(bytes: Uint8Array): this {
    this.flush();
    this.chunks.push(bytes);
    return this;
  }

  private flush(): void {
    if (this.current.length === 0) return;
    this.chunks.push(Uint8Array.from(this.current));
    this.current = [];
  }
}

export class ByteReader {
  pos = 0;
  readonly len: number;

  constructor(private readonly buffer: Uint8Array) {
    this.len = buffer.length;
  }

  uint32(): number {
    let value = 0;
    for (let shift = 0; shift < 35; shift += 7) {
      const byte = this.byte();
      value += (byte & 0x7f) * 2 ** shift;
      if (byte < 0x80) return value % TWO_POW_32;
    }
    throw new RangeError('varint longer than 5 bytes');
  }

  sint32(): number {
    const zigzag = this.uint32();
    return (zigzag >>> 1) ^ -(zigzag & 1);
  }

  bool(): boolean {
    return this.uint32() !== 0;
  }

  double(): number {
    const bytes = this.take(8);
    return new DataView(bytes.buffer, bytes.byteOffset, 8).getFloat64(0, true);
  }

  bytes(): Uint8Array {
    return this.take(this.uint32());
  }

  string(): string {
    return Buffer.from(this.bytes()).toString('utf8');
  }

  private byte(): number {
    if (this.pos >= this.len) throw new RangeError(`index out of range: ${this.pos} + 1 > ${this.len}`);
    return this.buffer[this.pos++]!;
  }

  private take(length: number): Uint8Array {
    if (this.pos + length > this.len) throw new RangeError(`index out of range: ${this.pos} + ${length} > ${this.len}`);
    const slice = this.buffer.subarray(this.pos, this.pos + length);
    this.pos += length;
    return slice;
  }
}
