// GET /widget.js: the drop-in search widget (web/widget/widget.js; spec: Widget endpoints).
import { fileURLToPath } from "node:url";
import type { App } from "../../platform/http/app.js";
import { loadScript, sendScript } from "../../platform/http/scripts.js";
import { widgetTags as tags } from "./gate.js";

export async function widgetScriptRoutes(app: App) {
  // The drop-in script, read once at start. It holds no secret: the page passes its public key.
  const script = loadScript(fileURLToPath(new URL("../../../web/widget/widget.js", import.meta.url)));

  app.get(
    "/widget.js",
    {
      config: { auth: "none" },
      schema: {
        tags,
        summary: "The drop-in search widget (plain JavaScript, defines window.ServiceWidget)",
        description:
          'Load it with <script src="{base_url}/widget.js"></script>, then ServiceWidget.mount(element, {key: "pk_live_…"}) and, on the order page, ServiceWidget.trackPurchase(product_id, {order_value, currency, quantity}).',
        produces: ["text/javascript"],
      },
    },
    async (request, reply) => sendScript(request, reply, script),
  );
}
