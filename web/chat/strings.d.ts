export interface ChatStrings {
  [key: string]: unknown;
  rateLimited(seconds: number): string;
}
export const STRINGS: { en: ChatStrings; de: ChatStrings } & Record<string, ChatStrings>;
export function stringsFor(locale: string): ChatStrings;
