// The <commerce-ai-chat> component's files (web/chat/), which both APIs serve: the Assistant API
// under /widget/ (src/assistant/widget/routes.ts) and the Search API's portal beside the widget's
// own loader (src/search/portal/chat-routes.ts). Code both APIs need lives in src/shared or src/tenancy.
import { fileURLToPath } from "node:url";
import { loadScript, type Script } from "../platform/http/scripts.js";

/** Files of web/chat/ served under /widget/. */
export const WIDGET_FILES = ["index.js", "markdown.js", "sse.js", "strings.js"] as const;

/** The chat component's files (web/chat), read and hashed for serving. */
export function loadWidgetFiles(): Map<(typeof WIDGET_FILES)[number], Script> {
  return new Map(WIDGET_FILES.map((name) => [name, loadScript(fileURLToPath(new URL(`../../web/chat/${name}`, import.meta.url)))]));
}
