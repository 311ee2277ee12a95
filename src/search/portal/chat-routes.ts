// GET /portal/chat/:file: the assistant's chat component (web/chat, the same files the Assistant
// API serves under /widget/) for the portal's live preview (Assistant section), from the portal's
// own origin so that the page's script-src stays 'self'.
import type { App } from "../../platform/http/app.js";
import { AppError } from "../../platform/errors/catalogue.js";
import { sendScript } from "../../platform/http/scripts.js";
import { loadWidgetFiles, type WIDGET_FILES } from "../../shared/chat-files.js";

/** The chat component's files, read once at start. */
const CHAT_FILES = loadWidgetFiles();

export async function portalChatRoutes(app: App) {
  app.get("/portal/chat/:file", { schema: { hide: true }, config: { auth: "none" } }, async (request, reply) => {
    const file = CHAT_FILES.get((request.params as { file: string }).file as (typeof WIDGET_FILES)[number]);
    if (!file) throw new AppError("not_found", "No such chat file.");
    return sendScript(request, reply, file);
  });
}
