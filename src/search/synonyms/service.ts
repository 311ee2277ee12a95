// A store's own synonyms of text search (issue 35): entries a store adds beside the built-in
// vocabulary (src/lexical/synonyms). They apply to text search, widget search and the assistant's
// catalogue search of that store only (SearchService.lexicon merges them over the built-in map).
//   one_way   — each phrase of `words` also finds every phrase of `synonyms` ("ladies" → women).
//   multi_way — every phrase of `words` finds the others ("hoodie", "sweatshirt", "pullover").
// A phrase is 1–MAX_PHRASE_WORDS words of letters or digits, kept lower-case with one space
// between words. A change is used by this process's next search; other processes pick it up
// within STORE_CACHE_TTL_MS (src/search/cache/store-cache.ts).
import type { AppContext } from "../../context/context.js";
import { iso } from "../../platform/clock.js";
import { AppError } from "../../platform/errors/catalogue.js";
import { prefixedId } from "../../platform/ids.js";
import { noteTextChange } from "../../lexical/changes.js";
import { MAX_PHRASE_WORDS, phraseOf, type SynonymEntry } from "../../lexical/synonyms/index.js";
import type { SynonymRow, SynonymsRepository } from "./repository.js";

/** Entries a store may hold. */
export const SYNONYMS_MAX_PER_STORE = 1000;
/** Phrases on one side of an entry. */
export const SYNONYM_MAX_PHRASES = 20;

export interface SynonymInput {
  kind: "one_way" | "multi_way";
  words: string[];
  synonyms?: string[] | undefined;
}

export function synonymView(row: SynonymRow) {
  return { id: row.id, kind: row.kind, words: row.words, synonyms: row.synonyms, created_at: iso(row.created_at) };
}

const invalid = (field: string, message: string) =>
  new AppError("validation_failed", `${field} ${message}.`, { errors: [{ field, message }] });

/** The side's phrases as stored (lower-case, deduplicated), or a validation error naming the bad one. */
function phrases(field: string, list: readonly string[]): string[] {
  const out: string[] = [];
  for (const [i, raw] of list.entries()) {
    const p = phraseOf(raw);
    if (!p) throw invalid(`${field}[${i}]`, 'has no letters or digits; give a word such as "hoodie"');
    if (p.split(" ").length > MAX_PHRASE_WORDS) throw invalid(`${field}[${i}]`, `has more than ${MAX_PHRASE_WORDS} words`);
    if (!out.includes(p)) out.push(p);
  }
  return out;
}

/** The entry as stored, checked. */
export function normaliseSynonym(input: SynonymInput): SynonymEntry {
  const words = phrases("words", input.words);
  if (input.kind === "multi_way") {
    if (input.synonyms && input.synonyms.length > 0) {
      throw invalid("synonyms", 'is for one_way entries; put every phrase of a multi_way group in "words"');
    }
    if (words.length < 2) throw invalid("words", "needs at least two different phrases for a multi_way group");
    return { kind: "multi_way", words, synonyms: [] };
  }
  const synonyms = phrases("synonyms", input.synonyms ?? []);
  if (synonyms.length === 0) throw invalid("synonyms", "needs at least one phrase that the words also find (one_way)");
  const both = synonyms.find((s) => words.includes(s));
  if (both) throw invalid("synonyms", `repeats "${both}" from words`);
  return { kind: "one_way", words, synonyms };
}

const sameEntry = (a: SynonymEntry, b: SynonymEntry) => {
  const key = (e: SynonymEntry) => `${e.kind}|${[...e.words].sort().join(",")}|${[...e.synonyms].sort().join(",")}`;
  return key(a) === key(b);
};

export class SynonymsService {
  private readonly repo: SynonymsRepository;

  constructor(
    private readonly ctx: AppContext,
    deps: { repo: SynonymsRepository },
  ) {
    this.repo = deps.repo;
  }

  async list(storeId: string) {
    return (await this.repo.list(storeId)).map(synonymView);
  }

  async create(storeId: string, input: SynonymInput) {
    const entry = normaliseSynonym(input);
    const existing = await this.repo.list(storeId);
    this.checkUnique(existing, entry);
    if (existing.length >= SYNONYMS_MAX_PER_STORE) {
      throw new AppError(
        "unprocessable",
        `A store holds at most ${SYNONYMS_MAX_PER_STORE} synonym entries; merge groups into multi_way entries or delete unused ones.`,
      );
    }
    const row: SynonymRow = { id: prefixedId("syn"), created_at: this.ctx.clock.now(), ...entry };
    await this.repo.insert(storeId, row);
    noteTextChange(storeId);
    return synonymView(row);
  }

  async replace(storeId: string, id: string, input: SynonymInput) {
    const entry = normaliseSynonym(input);
    const existing = await this.repo.list(storeId);
    const row = existing.find((r) => r.id === id);
    if (!row) throw this.notFound(id);
    this.checkUnique(
      existing.filter((r) => r.id !== id),
      entry,
    );
    await this.repo.update(storeId, id, entry);
    noteTextChange(storeId);
    return synonymView({ ...row, ...entry });
  }

  async remove(storeId: string, id: string) {
    if (!(await this.repo.delete(storeId, id))) throw this.notFound(id);
    noteTextChange(storeId);
    return { deleted: true as const, id };
  }

  private checkUnique(existing: readonly SynonymRow[], entry: SynonymEntry): void {
    const same = existing.find((r) => sameEntry(r, entry));
    if (same) throw new AppError("conflict", `The store already has this synonym entry (${same.id}).`, { id: same.id });
  }

  private notFound(id: string): AppError {
    return new AppError("not_found", `No synonym entry ${id} in this store; GET /v1/search/synonyms lists them.`);
  }
}
