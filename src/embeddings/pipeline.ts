// The image pipeline used by indexing and search: bytes (uploaded, or fetched through the safe
// fetch) → decoded RGB (oriented, alpha flattened, size-limited) → dominant colours, a stored
// copy for re-embedding later (JPEG of the decoded image, longest side ≤ 512 px), and embeddings.
import sharp from "sharp";
import { AppError } from "../platform/errors/catalogue.js";
import { sha256 } from "../platform/ids.js";
import type { SafeFetch } from "../platform/outbound/safe-fetch.js";
import { decodeImage, fetchImage, type Region } from "./image.js";
import { dominantColors } from "./colors.js";
import { QueryEmbeddingCache } from "./query-cache.js";
import { fingerprintKey, type DecodedImage, type EmbeddingModel } from "./types.js";
import "./errors.js"; // registers the error codes thrown here

export const STORED_IMAGE_MAX_SIDE = 512;

export interface PreparedImage {
  /** SHA-256 of the original bytes. */
  sha256: string;
  decoded: DecodedImage;
  colors: { hex: string; share: number }[];
  stored: { bytes: Buffer; contentType: "image/jpeg"; width: number; height: number };
}

export interface PipelineLimits {
  maxPixels: number;
}

export class ImagePipeline {
  /** Text-query embeddings of recent searches (LRU, per model; see query-cache.ts). */
  readonly queryCache: QueryEmbeddingCache;

  constructor(
    private readonly model: EmbeddingModel | null,
    private readonly fetch: SafeFetch,
    private readonly limits: PipelineLimits,
    queryCache: QueryEmbeddingCache = new QueryEmbeddingCache(),
  ) {
    this.queryCache = queryCache;
  }

  /** Downloads (safe fetch: address checks, time and size limits) and prepares an image. */
  async fromUrl(url: string): Promise<PreparedImage> {
    const fetched = await fetchImage(this.fetch, url);
    return this.fromBytes(fetched.body);
  }

  async fromBytes(bytes: Buffer, region?: Region): Promise<PreparedImage> {
    const decoded = await this.decode(bytes, region);
    const colors = dominantColors(decoded.rgb, decoded.width, decoded.height, { count: 5 });
    const { data, info } = await sharp(decoded.rgb, { raw: { width: decoded.width, height: decoded.height, channels: 3 } })
      .jpeg({ quality: 90 })
      .toBuffer({ resolveWithObject: true });
    return {
      sha256: sha256(bytes),
      decoded,
      colors,
      stored: { bytes: data, contentType: "image/jpeg", width: info.width, height: info.height },
    };
  }

  /** Decodes (cropping first when a region is given) and downscales to ≤ 512 px a side; no colours, no stored copy. */
  async decode(bytes: Buffer, region?: Region): Promise<DecodedImage> {
    return decodeImage(bytes, {
      maxPixels: this.limits.maxPixels,
      maxSide: STORED_IMAGE_MAX_SIDE,
      ...(region ? { region } : {}),
    });
  }

  async decodeUrl(url: string, region?: Region): Promise<DecodedImage> {
    return this.decode((await fetchImage(this.fetch, url)).body, region);
  }

  embed(images: readonly DecodedImage[]): Promise<Float32Array[]> {
    return this.requireModel().embedImages(images);
  }

  /** Text vectors, served from the query cache when the same text was embedded recently. */
  embedTexts(texts: readonly string[]): Promise<Float32Array[]> {
    const model = this.requireModel();
    return this.queryCache.embed(fingerprintKey(model.fingerprint), texts, (missing) => model.embedTexts(missing));
  }

  /** The key of the loaded model's embedding space. */
  modelKey(): string {
    return fingerprintKey(this.requireModel().fingerprint);
  }

  get available(): boolean {
    return this.model !== null;
  }

  private requireModel(): EmbeddingModel {
    if (!this.model) throw new AppError("model_unavailable", "The embedding model is not loaded (MODEL_DISABLED is set).");
    return this.model;
  }
}
