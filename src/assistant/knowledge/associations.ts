// Word associations learned from shoppers' questions and the policy sentences that answer them
// (issue 36: a paraphrase names what a policy says in other words — "it arrived smashed" for
// "damaged", "ring you" for "call"). `npm run fit:associations` reads the dev questions whose
// expected answer quotes a fact, pairs each question's stems that the answering sentence lacks
// with that sentence's stems, and keeps a pair when it is general and strong (associate()): seen
// with at least MIN_STORES different stores (so no one store's words enter the engine), in at least
// MIN_SHARE of the questions holding the word, and at least MIN_LIFT times as often as the sentence
// word answers questions in general (so a word every answer holds — "return", "days" — is no
// association). A kept pair makes the sentence word a synonym of the question word (retrieval.ts
// groupAlts), weighed as every synonym is. The statistic is a translation table in the sense of
// Berger & Lafferty's statistical translation retrieval model, estimated by counting co-occurrence.
import fitted from "./associations.json" with { type: "json" };
import type { Lang } from "./text.js";

/** A question whose expected answer quotes a fact: its stems the answering sentence lacks, and the sentence's stems. */
export interface AssociationPair {
  /** Which store (and set) it was asked in: associations must hold across stores. */
  store: string;
  lang: Lang;
  question: ReadonlySet<string>;
  answer: ReadonlySet<string>;
}

export const MIN_STORES = 3;
export const MIN_SHARE = 0.25;
export const MIN_LIFT = 20;
/** At most this many sentence words per question word. */
export const MAX_PER_WORD = 3;

/** Per language: a question stem → the sentence stems it stands for, strongest first. */
export type Associations = Record<Lang, Record<string, string[]>>;

/** A number or a stem of one or two letters says nothing of a word's meaning. */
const meaningful = (stem: string): boolean => stem.length >= 3 && !/^\p{N}/u.test(stem);

/** The associations the pairs support (see the file's header for the rule). */
export function associate(pairs: readonly AssociationPair[]): Associations {
  const out: Associations = {};
  for (const lang of [...new Set(pairs.map((p) => p.lang))].sort()) {
    const ps = pairs.filter((p) => p.lang === lang);
    const answering = new Map<string, number>();
    const asked = new Map<string, number>();
    const together = new Map<string, Map<string, Set<string>>>();
    for (const p of ps) {
      for (const a of p.answer) answering.set(a, (answering.get(a) ?? 0) + 1);
      for (const q of p.question) {
        if (!meaningful(q)) continue;
        asked.set(q, (asked.get(q) ?? 0) + 1);
        let byAnswer = together.get(q);
        if (!byAnswer) together.set(q, (byAnswer = new Map<string, Set<string>>()));
        for (const a of p.answer) {
          if (!meaningful(a)) continue;
          let stores = byAnswer.get(a);
          if (!stores) byAnswer.set(a, (stores = new Set<string>()));
          stores.add(p.store);
        }
      }
    }
    const table: Record<string, string[]> = {};
    for (const [q, byAnswer] of [...together].sort(([a], [b]) => a.localeCompare(b))) {
      const kept: { a: string; strength: number }[] = [];
      for (const [a, stores] of byAnswer) {
        const share = stores.size / asked.get(q)!;
        const lift = share / (answering.get(a)! / ps.length);
        if (stores.size >= MIN_STORES && share >= MIN_SHARE && lift >= MIN_LIFT) kept.push({ a, strength: share * lift });
      }
      kept.sort((x, y) => y.strength - x.strength || x.a.localeCompare(y.a));
      if (kept.length > 0) table[q] = kept.slice(0, MAX_PER_WORD).map((k) => k.a);
    }
    out[lang] = table;
  }
  return out;
}

const LEARNED: Associations = fitted;

/** The sentence stems a question stem stands for, learned (none for a word or language without any). */
export function learnedAlternatives(stem: string, lang: Lang): readonly string[] {
  return LEARNED[lang]?.[stem] ?? [];
}
