// Request and response schemas of /v1/search/synonyms.
import { Type } from "typebox";
import { MAX_PHRASE_WORDS } from "../../lexical/synonyms/index.js";
import { SYNONYM_MAX_PHRASES } from "./service.js";

const Phrase = Type.String({ minLength: 1, maxLength: 80, description: `1–${MAX_PHRASE_WORDS} words; stored lower-case` });
const Phrases = Type.Array(Phrase, { minItems: 1, maxItems: SYNONYM_MAX_PHRASES });
const Kind = Type.Union([Type.Literal("one_way"), Type.Literal("multi_way")], {
  description:
    "one_way: each of `words` also finds each of `synonyms`, never the reverse; multi_way: every phrase of `words` finds the others",
});

export const SynonymBody = Type.Object(
  {
    kind: Kind,
    words: Phrases,
    synonyms: Type.Optional(Type.Array(Phrase, { maxItems: SYNONYM_MAX_PHRASES, description: "one_way only" })),
  },
  { additionalProperties: false },
);

export const Synonym = Type.Object({
  id: Type.String(),
  kind: Kind,
  words: Type.Array(Type.String()),
  synonyms: Type.Array(Type.String({ description: "Empty for multi_way" })),
  created_at: Type.String({ format: "date-time" }),
});

export const SynonymIdParams = Type.Object({ synonym_id: Type.String({ minLength: 1, maxLength: 100 }) }, { additionalProperties: false });

export const SynonymDeleted = Type.Object({ deleted: Type.Literal(true), id: Type.String() });
