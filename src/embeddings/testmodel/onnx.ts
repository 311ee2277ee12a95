// A minimal ONNX ModelProto encoder: just the messages and fields needed to write small
// inference graphs (nodes, attributes, float/int64 initialisers, typed inputs and outputs).
// Field numbers follow onnx/onnx.proto (IR version 8). Hand-written protobuf wire format, so the
// project needs no protobuf dependency and the output is byte-for-byte deterministic.

/** ONNX TensorProto.DataType values used here. */
export const DataType = { FLOAT: 1, INT64: 7 } as const;
export type ElemType = "float" | "int64";

const elemTypeCode = (t: ElemType): number => (t === "float" ? DataType.FLOAT : DataType.INT64);

/** A constant tensor (initialiser or attribute value). Data is row-major. */
export interface TensorInit {
  name: string;
  type: ElemType;
  dims: readonly number[];
  data: Float32Array | BigInt64Array;
}

/** A graph input or output: name, element type and shape (numbers are fixed, strings symbolic). */
export interface ValueInfo {
  name: string;
  type: ElemType;
  shape: ReadonlyArray<number | string>;
}

/** One node attribute; the variant selects the AttributeProto field that is written. */
export type Attribute =
  | { kind: "int"; value: number }
  | { kind: "ints"; value: readonly number[] }
  | { kind: "float"; value: number }
  | { kind: "floats"; value: readonly number[] }
  | { kind: "string"; value: string }
  | { kind: "tensor"; value: TensorInit };

/** Attribute constructors, so graph code reads `{ axis: attr.int(1) }`. */
export const attr = {
  int: (value: number): Attribute => ({ kind: "int", value }),
  ints: (value: readonly number[]): Attribute => ({ kind: "ints", value }),
  float: (value: number): Attribute => ({ kind: "float", value }),
  floats: (value: readonly number[]): Attribute => ({ kind: "floats", value }),
  string: (value: string): Attribute => ({ kind: "string", value }),
  tensor: (value: TensorInit): Attribute => ({ kind: "tensor", value }),
};

export interface NodeInit {
  op: string;
  inputs: readonly string[];
  outputs: readonly string[];
  name: string;
  attributes?: Readonly<Record<string, Attribute>>;
}

export interface GraphInit {
  name: string;
  nodes: readonly NodeInit[];
  initializers: readonly TensorInit[];
  inputs: readonly ValueInfo[];
  outputs: readonly ValueInfo[];
}

export interface ModelInit {
  graph: GraphInit;
  /** Default-domain opset version (e.g. 17). */
  opset: number;
  /** ONNX IR version (8 pairs with opsets up to 18). */
  irVersion?: number;
  producerName?: string;
  producerVersion?: string;
  docString?: string;
}

// ------------------------------------------------------------------ protobuf wire format

const WIRE_VARINT = 0;
const WIRE_LEN = 2;
const WIRE_FIXED32 = 5;

const utf8 = new TextEncoder();

/** Accumulates protobuf-encoded bytes. */
class Writer {
  private readonly parts: Uint8Array[] = [];
  private size = 0;

  private push(bytes: Uint8Array): void {
    this.parts.push(bytes);
    this.size += bytes.length;
  }

  private rawVarint(value: bigint): void {
    // int64 semantics: negative numbers are written as their 64-bit two's complement (10 bytes).
    let v = BigInt.asUintN(64, value);
    const out: number[] = [];
    do {
      let byte = Number(v & 0x7fn);
      v >>= 7n;
      if (v !== 0n) byte |= 0x80;
      out.push(byte);
    } while (v !== 0n);
    this.push(Uint8Array.from(out));
  }

  private tag(field: number, wire: number): void {
    this.rawVarint(BigInt((field << 3) | wire));
  }

  /** Writes an int32/int64/enum field. */
  int(field: number, value: number | bigint): this {
    this.tag(field, WIRE_VARINT);
    this.rawVarint(typeof value === "bigint" ? value : BigInt(value));
    return this;
  }

  /** Writes a length-delimited bytes field. */
  bytes(field: number, value: Uint8Array): this {
    this.tag(field, WIRE_LEN);
    this.rawVarint(BigInt(value.length));
    this.push(value);
    return this;
  }

  string(field: number, value: string): this {
    return this.bytes(field, utf8.encode(value));
  }

  /** Writes an embedded message built by `build`. */
  message(field: number, build: (w: Writer) => void): this {
    const inner = new Writer();
    build(inner);
    return this.bytes(field, inner.finish());
  }

  /** Writes a single float (fixed32) field. */
  float(field: number, value: number): this {
    this.tag(field, WIRE_FIXED32);
    const b = new Uint8Array(4);
    new DataView(b.buffer).setFloat32(0, value, true);
    this.push(b);
    return this;
  }

  /** Writes a packed repeated float field. */
  packedFloats(field: number, values: readonly number[]): this {
    const b = new Uint8Array(values.length * 4);
    const dv = new DataView(b.buffer);
    values.forEach((v, i) => dv.setFloat32(i * 4, v, true));
    return this.bytes(field, b);
  }

  /** Writes a packed repeated int64 field. */
  packedInts(field: number, values: readonly number[]): this {
    const inner = new Writer();
    for (const v of values) inner.rawVarint(BigInt(v));
    return this.bytes(field, inner.finish());
  }

  finish(): Uint8Array {
    const out = new Uint8Array(this.size);
    let offset = 0;
    for (const p of this.parts) {
      out.set(p, offset);
      offset += p.length;
    }
    return out;
  }
}

// ------------------------------------------------------------------ onnx.proto messages

/** Little-endian bytes of a typed array (the layout TensorProto.raw_data requires). */
function littleEndianBytes(data: Float32Array | BigInt64Array): Uint8Array {
  const out = new Uint8Array(data.length * data.BYTES_PER_ELEMENT);
  const dv = new DataView(out.buffer);
  if (data instanceof Float32Array) data.forEach((v, i) => dv.setFloat32(i * 4, v, true));
  else data.forEach((v, i) => dv.setBigInt64(i * 8, v, true));
  return out;
}

// TensorProto: dims=1, data_type=2, name=8, raw_data=9
function writeTensor(w: Writer, t: TensorInit): void {
  const expected = t.dims.reduce((a, b) => a * b, 1);
  if (expected !== t.data.length) {
    throw new Error(`tensor ${t.name}: dims ${t.dims.join("x")} need ${expected} values, got ${t.data.length}`);
  }
  if ((t.type === "float") !== t.data instanceof Float32Array) {
    throw new Error(`tensor ${t.name}: data does not match type ${t.type}`);
  }
  w.packedInts(1, t.dims);
  w.int(2, elemTypeCode(t.type));
  w.string(8, t.name);
  w.bytes(9, littleEndianBytes(t.data));
}

// ValueInfoProto: name=1, type=2 → TypeProto.tensor_type=1 → {elem_type=1, shape=2 → dim=1 → {dim_value=1 | dim_param=2}}
function writeValueInfo(w: Writer, v: ValueInfo): void {
  w.string(1, v.name);
  w.message(2, (type) =>
    type.message(1, (tensor) => {
      tensor.int(1, elemTypeCode(v.type));
      tensor.message(2, (shape) => {
        for (const d of v.shape) {
          shape.message(1, (dim) => (typeof d === "number" ? dim.int(1, d) : dim.string(2, d)));
        }
      });
    }),
  );
}

// AttributeProto: name=1, f=2, i=3, s=4, t=5, floats=7, ints=8, type=20
// AttributeType: FLOAT=1, INT=2, STRING=3, TENSOR=4, FLOATS=6, INTS=7
function writeAttribute(w: Writer, name: string, a: Attribute): void {
  w.string(1, name);
  switch (a.kind) {
    case "float":
      w.float(2, a.value).int(20, 1);
      break;
    case "int":
      w.int(3, a.value).int(20, 2);
      break;
    case "string":
      w.string(4, a.value).int(20, 3);
      break;
    case "tensor":
      w.message(5, (t) => writeTensor(t, a.value)).int(20, 4);
      break;
    case "floats":
      w.packedFloats(7, a.value).int(20, 6);
      break;
    case "ints":
      w.packedInts(8, a.value).int(20, 7);
      break;
  }
}

// NodeProto: input=1, output=2, name=3, op_type=4, attribute=5
function writeNode(w: Writer, n: NodeInit): void {
  for (const i of n.inputs) w.string(1, i);
  for (const o of n.outputs) w.string(2, o);
  w.string(3, n.name);
  w.string(4, n.op);
  for (const [name, a] of Object.entries(n.attributes ?? {})) w.message(5, (x) => writeAttribute(x, name, a));
}

// GraphProto: node=1, name=2, initializer=5, input=11, output=12
function writeGraph(w: Writer, g: GraphInit): void {
  for (const n of g.nodes) w.message(1, (x) => writeNode(x, n));
  w.string(2, g.name);
  for (const t of g.initializers) w.message(5, (x) => writeTensor(x, t));
  for (const i of g.inputs) w.message(11, (x) => writeValueInfo(x, i));
  for (const o of g.outputs) w.message(12, (x) => writeValueInfo(x, o));
}

/**
 * Encodes a ModelProto (ir_version=1, producer_name=2, producer_version=3, doc_string=6,
 * graph=7, opset_import=8 → {domain=1, version=2}).
 */
export function encodeModel(m: ModelInit): Uint8Array {
  const w = new Writer();
  w.int(1, m.irVersion ?? 8);
  w.string(2, m.producerName ?? "shopsight");
  if (m.producerVersion) w.string(3, m.producerVersion);
  if (m.docString) w.string(6, m.docString);
  w.message(7, (g) => writeGraph(g, m.graph));
  w.message(8, (op) => op.string(1, "").int(2, m.opset));
  return w.finish();
}

// ------------------------------------------------------------------ graph builder

/**
 * Builds a graph node by node: `node()` returns the name of its (first) output, so graphs read
 * as expressions. Names are generated deterministically from a counter.
 */
export class GraphBuilder {
  readonly nodes: NodeInit[] = [];
  readonly initializers: TensorInit[] = [];
  private counter = 0;

  /** Adds a float initialiser and returns its name. */
  floatConst(name: string, dims: readonly number[], data: Float32Array | readonly number[]): string {
    const values = data instanceof Float32Array ? data : Float32Array.from(data);
    this.initializers.push({ name, type: "float", dims, data: values });
    return name;
  }

  /** Adds an int64 initialiser and returns its name. */
  int64Const(name: string, dims: readonly number[], data: readonly number[]): string {
    this.initializers.push({ name, type: "int64", dims, data: BigInt64Array.from(data.map(BigInt)) });
    return name;
  }

  /** Adds a node; returns the name of its first output (`output` names it, else generated). */
  node(op: string, inputs: readonly string[], attributes: Record<string, Attribute> = {}, output?: string): string {
    const id = this.counter++;
    const out = output ?? `${op.toLowerCase()}_${id}`;
    this.nodes.push({ op, inputs, outputs: [out], name: `${op}_${id}`, attributes });
    return out;
  }

  /** Finishes the graph with its typed inputs and outputs. */
  graph(name: string, inputs: readonly ValueInfo[], outputs: readonly ValueInfo[]): GraphInit {
    return { name, nodes: this.nodes, initializers: this.initializers, inputs, outputs };
  }
}
