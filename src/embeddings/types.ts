// Types shared by the embedding runtime and its callers.

/**
 * A decoded image: raw interleaved RGB (3 bytes a pixel, row-major, no padding) — the shape
 * `decodeImage` in src/embeddings/image.ts produces. RGBA (4 bytes a pixel) is accepted too; the
 * alpha channel is dropped.
 */
export interface DecodedImage {
  rgb: Uint8Array;
  width: number;
  height: number;
}

/**
 * Identifies the model that produced a vector; stored with every vector so that a changed model
 * is detected at start. Two fingerprints denote the same embedding space when `hash` and `dim`
 * are equal (see `sameEmbeddingSpace`); `id` and `revision` are informational (a model folder
 * may be moved without invalidating its vectors).
 */
export interface ModelFingerprint {
  /** CLIP_MODEL as configured: a Hugging Face model id or a folder path. */
  id: string;
  /** "main" for a Hugging Face download, "local" for a folder (transformers.js does not expose commits). */
  revision: string;
  /** Embedding dimension. */
  dim: number;
  /** sha256 (hex) over the two ONNX graphs, the preprocessor config and the tokenizer. */
  hash: string;
}

/** True when vectors made under `a` and `b` are comparable (same weights, preprocessing and dimension). */
export function sameEmbeddingSpace(a: ModelFingerprint, b: ModelFingerprint): boolean {
  return a.hash === b.hash && a.dim === b.dim;
}

/** A short, stable key of an embedding space (`<first 16 hex of hash>/<dim>`), for storing with vectors. */
export function fingerprintKey(fp: ModelFingerprint): string {
  return `${fp.hash.slice(0, 16)}/${fp.dim}`;
}

/** The model adapter the rest of the service uses. Vectors are L2-normalised float32. */
export interface EmbeddingModel {
  readonly fingerprint: ModelFingerprint;
  /** One vector per image, in input order. Rejects with AppError('service_unavailable') when the queue is full. */
  embedImages(images: readonly DecodedImage[]): Promise<Float32Array[]>;
  /** One vector per text, in input order. Rejects with AppError('service_unavailable') when the queue is full. */
  embedTexts(texts: readonly string[]): Promise<Float32Array[]>;
  /** Finishes the running batch, refuses queued work with AppError('model_unavailable') and stops the runtime. */
  close(): Promise<void>;
  /** False once the runtime failed or is closing (readiness); absent means always usable. */
  readonly usable?: boolean;
  /** Queue, batch and worker counters (metrics); absent for models without a runtime. */
  stats?(): EmbeddingStats;
  /** Subscribes to per-batch inference timings (metrics); returns the unsubscribe function. */
  onInference?(fn: (e: { kind: "image" | "text"; items: number; seconds: number }) => void): () => void;
}

/**
 * The image preprocessing a model expects, read from its preprocessor_config.json
 * (CLIPImageProcessor / SiglipImageProcessor fields).
 */
export interface PreprocessSpec {
  /** Resize so the shorter side is this long (CLIP), or to exactly `resizeTo` (SigLIP), or not at all. */
  resize: { shortestEdge: number } | { width: number; height: number } | null;
  /** Centre crop to this size after resizing (null: no crop). */
  crop: { width: number; height: number } | null;
  /** PIL resample code: 0 nearest, 1 lanczos, 2 bilinear, 3 bicubic. */
  resample: number;
  /** Multiplier turning bytes into [0, 1] (usually 1/255); 1 when rescaling is off. */
  rescale: number;
  /** Per-channel mean and std (identity when normalisation is off). */
  mean: [number, number, number];
  std: [number, number, number];
  /** Final tensor size (width × height). */
  width: number;
  height: number;
}

/** Counters for health checks and tests. */
export interface EmbeddingStats {
  /** Items waiting for a batch. */
  queued: number;
  /** Items in the batch the worker is running. */
  inFlight: number;
  batches: number;
  items: number;
  largestBatch: number;
  /** Calls refused because the queue was full. */
  refused: number;
  /** Single-threaded workers started for load (0 until the first backlog, or when off). */
  parallelWorkers: number;
  /** Batches that went to those workers. */
  parallelBatches: number;
}
