// The stop word lists of the `stopword` package (it ships no types): one array per ISO 639-3 code.
declare module "stopword" {
  export const eng: string[];
  export const deu: string[];
}
