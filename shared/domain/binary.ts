/**
 * Protobuf's wire primitives: base-128 varints, zig-zag signed varints, little-endian fixed-width
 * numbers, length-prefixed bytes and UTF-8 strings. Rollups and latency sketches are written with
 * them and no field tags, byte for byte what protobufjs's Writer wrote for the rollups stored before;
 * OTLP messages are read and written with them and field tags (otlp/protobuf.ts).
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
  /** The same bytes as a Buffer (a view, not a copy), for decoding UTF-8 in place. */
  private readonly text: Buffer;

  constructor(private readonly buffer: Uint8Array) {
    this.len = buffer.length;
    this.text = Buffer.from(buffer.buffer, buffer.byteOffset, buffer.byteLength);
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

  /** A varint of up to 10 bytes (any 64-bit value), as its low 32 bits read as a signed integer: protobuf's int32 and enums. */
  int32(): number {
    let low = 0;
    for (let i = 0; i < 10; i++) {
      const byte = this.byte();
      if (i < 5) low += (byte & 0x7f) * 2 ** (7 * i);
      if (byte < 0x80) return (low % TWO_POW_32) | 0;
    }
    throw new RangeError('varint longer than 10 bytes');
  }

  /** A varint of up to 10 bytes as an unsigned 64-bit integer (int64 values are its two's complement). */
  uint64(): bigint {
    let value = 0n;
    for (let i = 0n; i < 10n; i++) {
      const byte = this.byte();
      value |= BigInt(byte & 0x7f) << (7n * i);
      if (byte < 0x80) return BigInt.asUintN(64, value);
    }
    throw new RangeError('varint longer than 10 bytes');
  }

  fixed64(): bigint {
    const bytes = this.take(8);
    return new DataView(bytes.buffer, bytes.byteOffset, 8).getBigUint64(0, true);
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
    const end = this.lengthPrefixedEnd();
    const start = this.pos;
    this.pos = end;
    return this.text.toString('utf8', start, end);
  }

  /** Reads a length prefix and answers where the value it announces ends, which must be within the bytes. */
  lengthPrefixedEnd(): number {
    const length = this.uint32();
    if (this.pos + length > this.len) throw new RangeError(`index out of range: ${this.pos} + ${length} > ${this.len}`);
    return this.pos + length;
  }

  /** Steps over a value of the given wire type (protobuf's unknown fields). */
  skip(wireType: number): void {
    if (wireType === 0) this.uint64();
    else if (wireType === 1) this.take(8);
    else if (wireType === 2) this.take(this.uint32());
    else if (wireType === 5) this.take(4);
    else throw new RangeError(`unsupported wire type ${wireType}`);
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
