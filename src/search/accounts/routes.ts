// /register and /verify (spec: Accounts and tokens; States: Account).
import { Type } from "typebox";
import type { App } from "../../platform/http/app.js";
import { Email, searchErrors } from "../../platform/http/schemas.js";
import { PASSWORD_POLICY } from "../../platform/auth/passwords.js";
import { prefersHtml } from "../../platform/http/negotiate.js";
import type { AccountsService } from "./service.js";

export async function accountRoutes(app: App, { accounts: service }: { accounts: AccountsService }) {
  app.post(
    "/register",
    {
      schema: {
        tags: ["accounts"],
        summary: "Register a store and its owner; the account stays inactive until the e-mailed link is opened",
        description: `Password policy: ${PASSWORD_POLICY}.`,
        body: Type.Object(
          {
            client_name: Type.String({ minLength: 1, maxLength: 120 }),
            email: Email,
            password: Type.String({ minLength: 1, maxLength: 256, description: PASSWORD_POLICY }),
          },
          { additionalProperties: false },
        ),
        response: {
          201: Type.Object({
            client_id: Type.String({ format: "uuid" }),
            slug: Type.String(),
            status: Type.Literal("inactive"),
            email: Type.String(),
            verification_sent: Type.Boolean(),
          }),
          ...searchErrors(400, 409),
        },
      },
    },
    async (request, reply) => reply.status(201).send(await service.register(request.body)),
  );

  app.get(
    "/verify",
    {
      schema: {
        tags: ["accounts"],
        summary: "Activate the store; returns client_id and the client secret, shown this once",
        description:
          "A browser opening the e-mailed link (Accept prefers text/html) is redirected (302) to the portal page /portal/verify?token=…, which calls this route as JSON, shows the secret once with copy buttons and continues to sign-in. API clients (curl, fetch: Accept */* or application/json) get the JSON below.",
        querystring: Type.Object({ token: Type.String({ minLength: 1, maxLength: 200 }) }),
        response: {
          200: Type.Object({
            client_id: Type.String({ format: "uuid" }),
            client_secret: Type.String(),
            status: Type.Literal("active"),
          }),
          302: Type.Null({ description: "Browsers: redirect to /portal/verify?token=…" }),
          ...searchErrors(400),
        },
      },
    },
    async (request, reply) => {
      if (prefersHtml(request)) return reply.redirect(`/portal/verify?token=${encodeURIComponent(request.query.token)}`, 302);
      return service.verify(request.query.token);
    },
  );
}
