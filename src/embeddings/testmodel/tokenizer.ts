// Builds a CLIP-style tokenizer for the tiny test model: byte-level BPE with the `</w>` end-of-word
// suffix, lower-casing, CLIP's pre-tokenizer and `<|startoftext|>`/`<|endoftext|>` specials — the
// same structure as openai/clip-vit-base-patch32's tokenizer, so transformers.js loads it through
// the same CLIPTokenizer code path — but with a vocabulary learnt here from the project's own word
// list (vocabulary.ts). Deterministic: the same words always give the same files.

export const BOS_TOKEN = "<|startoftext|>";
export const EOS_TOKEN = "<|endoftext|>";
export const END_OF_WORD = "</w>";
/** CLIP's context length. */
export const MAX_LENGTH = 77;

/** GPT-2/CLIP byte-to-unicode table: printable bytes map to themselves, others to U+0100 onwards. */
export function bytesToUnicode(): string[] {
  const bs: number[] = [];
  for (let b = 0x21; b <= 0x7e; b++) bs.push(b);
  for (let b = 0xa1; b <= 0xac; b++) bs.push(b);
  for (let b = 0xae; b <= 0xff; b++) bs.push(b);
  const cs = [...bs];
  let n = 0;
  for (let b = 0; b < 256; b++) {
    if (!bs.includes(b)) {
      bs.push(b);
      cs.push(256 + n);
      n++;
    }
  }
  // Return the characters in CLIP's vocabulary order (the order of `bs`).
  return cs.map((c) => String.fromCodePoint(c));
}

/**
 * Learns BPE merges from a list of distinct words (each counted once) until every word is a
 * single symbol, so each known word encodes to exactly one token. Ties between equally frequent
 * pairs go to the pair seen first, which keeps the result deterministic.
 */
export function learnMerges(words: readonly string[]): [string, string][] {
  const seqs: string[][] = words.map((w) => {
    const chars = Array.from(w);
    const last = chars.length - 1;
    chars[last] = (chars[last] ?? "") + END_OF_WORD;
    return chars;
  });
  const merges: [string, string][] = [];
  for (;;) {
    const counts = new Map<string, { pair: [string, string]; count: number; first: number }>();
    let order = 0;
    for (const s of seqs) {
      for (let i = 0; i + 1 < s.length; i++) {
        const a = s[i]!;
        const b = s[i + 1]!;
        const key = `${a} ${b}`;
        const entry = counts.get(key);
        if (entry) entry.count++;
        else counts.set(key, { pair: [a, b], count: 1, first: order++ });
      }
    }
    if (counts.size === 0) break;
    let best: { pair: [string, string]; count: number; first: number } | undefined;
    for (const e of counts.values()) {
      if (!best || e.count > best.count || (e.count === best.count && e.first < best.first)) best = e;
    }
    const [a, b] = best!.pair;
    merges.push([a, b]);
    for (let k = 0; k < seqs.length; k++) {
      const s = seqs[k]!;
      const out: string[] = [];
      for (let i = 0; i < s.length; i++) {
        if (i + 1 < s.length && s[i] === a && s[i + 1] === b) {
          out.push(a + b);
          i++;
        } else out.push(s[i]!);
      }
      seqs[k] = out;
    }
  }
  return merges;
}

/** The learnt vocabulary: token → id, with the specials last (as in CLIP). */
export interface BuiltTokenizer {
  vocab: Record<string, number>;
  merges: [string, string][];
  bosId: number;
  eosId: number;
  vocabSize: number;
  /** The files to write, by file name. */
  files: Record<string, string>;
}

/** Builds the tokenizer files (tokenizer.json, tokenizer_config.json, special_tokens_map.json, vocab.json, merges.txt). */
export function buildTokenizer(words: readonly string[]): BuiltTokenizer {
  const byteChars = bytesToUnicode();
  const merges = learnMerges(words);
  const tokens = [...byteChars, ...byteChars.map((c) => c + END_OF_WORD), ...merges.map(([a, b]) => a + b)];
  const vocab: Record<string, number> = {};
  for (const t of tokens) if (!(t in vocab)) vocab[t] = Object.keys(vocab).length;
  const bosId = Object.keys(vocab).length;
  const eosId = bosId + 1;
  vocab[BOS_TOKEN] = bosId;
  vocab[EOS_TOKEN] = eosId;

  const special = (content: string, id: number, normalized: boolean) => ({
    id,
    content,
    single_word: false,
    lstrip: false,
    rstrip: false,
    normalized,
    special: true,
  });
  const tokenizerJson = {
    version: "1.0",
    truncation: null,
    padding: null,
    added_tokens: [special(BOS_TOKEN, bosId, true), special(EOS_TOKEN, eosId, false)],
    normalizer: {
      type: "Sequence",
      normalizers: [{ type: "NFC" }, { type: "Replace", pattern: { Regex: "\\s+" }, content: " " }, { type: "Lowercase" }],
    },
    pre_tokenizer: {
      type: "Sequence",
      pretokenizers: [
        {
          type: "Split",
          pattern: {
            Regex: "<\\|startoftext\\|>|<\\|endoftext\\|>|'s|'t|'re|'ve|'m|'ll|'d|[\\p{L}]+|[\\p{N}]|[^\\s\\p{L}\\p{N}]+",
          },
          behavior: "Removed",
          invert: true,
        },
        { type: "ByteLevel", add_prefix_space: false, trim_offsets: true, use_regex: true },
      ],
    },
    post_processor: {
      type: "RobertaProcessing",
      sep: [EOS_TOKEN, eosId],
      cls: [BOS_TOKEN, bosId],
      trim_offsets: false,
      add_prefix_space: false,
    },
    decoder: { type: "ByteLevel", add_prefix_space: true, trim_offsets: true, use_regex: true },
    model: {
      type: "BPE",
      dropout: null,
      unk_token: EOS_TOKEN,
      continuing_subword_prefix: "",
      end_of_word_suffix: END_OF_WORD,
      fuse_unk: false,
      byte_fallback: false,
      ignore_merges: false,
      vocab,
      merges: merges.map(([a, b]) => `${a} ${b}`),
    },
  };

  const addedTokenDecoder = Object.fromEntries(tokenizerJson.added_tokens.map(({ id, ...rest }) => [String(id), rest]));
  const tokenizerConfig = {
    add_prefix_space: false,
    added_tokens_decoder: addedTokenDecoder,
    bos_token: BOS_TOKEN,
    clean_up_tokenization_spaces: false,
    do_lower_case: true,
    eos_token: EOS_TOKEN,
    errors: "replace",
    model_max_length: MAX_LENGTH,
    pad_token: EOS_TOKEN,
    processor_class: "CLIPProcessor",
    tokenizer_class: "CLIPTokenizer",
    unk_token: EOS_TOKEN,
  };
  const tokenEntry = (content: string, normalized: boolean) => ({
    content,
    lstrip: false,
    normalized,
    rstrip: false,
    single_word: false,
  });
  const specialTokensMap = {
    bos_token: tokenEntry(BOS_TOKEN, true),
    eos_token: tokenEntry(EOS_TOKEN, false),
    pad_token: tokenEntry(EOS_TOKEN, false),
    unk_token: tokenEntry(EOS_TOKEN, false),
  };

  return {
    vocab,
    merges,
    bosId,
    eosId,
    vocabSize: eosId + 1,
    files: {
      "tokenizer.json": JSON.stringify(tokenizerJson),
      "tokenizer_config.json": JSON.stringify(tokenizerConfig, null, 2),
      "special_tokens_map.json": JSON.stringify(specialTokensMap, null, 2),
      "vocab.json": JSON.stringify(vocab),
      "merges.txt": ["#version: 0.2", ...merges.map(([a, b]) => `${a} ${b}`)].join("\n") + "\n",
    },
  };
}
