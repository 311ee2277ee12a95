// Framing text of chat replies in the thread's language: the replies of its language pack
// (src/assistant/language/, `replies`); a thread in a language without a pack is answered in the
// default language (English). Quoted policy sentences, product titles and live values are never
// translated: only the words around them are.
import { packOrDefault, threadLanguage, type Lang } from "../language/index.js";

/** The code of the language a chat's replies are framed in (a registered pack's). */
export type ChatLang = Lang;

/** The language replies in a thread of this locale are framed in. */
export const chatLang = (locale: string): ChatLang => threadLanguage(locale);

/** The framing text of replies in a language. */
export const T = (lang: ChatLang) => packOrDefault(lang).replies;
