// The labelled catalogue of ../shared/datasets/fashion-products (products.jsonl: one product a
// line), as read by eval:search and bench:search.
import fs from "node:fs";

export interface DatasetProduct {
  id: string;
  name: string;
  gender: string;
  masterCategory: string;
  subCategory: string;
  articleType: string;
  baseColour: string;
  season: string | null;
  usage: string | null;
  /** The image file, relative to the dataset folder. */
  image: string;
}

/** Every product of a products.jsonl file. */
export function readDataset(file: string): DatasetProduct[] {
  return fs
    .readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as DatasetProduct);
}
