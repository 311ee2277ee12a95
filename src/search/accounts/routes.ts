// /register and /verify (spec: Accounts and tokens; States: Account).
import type { App } from "../../platform/http/app.js";
import { searchErrors } from "../http/schemas.js";
import { PASSWORD_POLICY } from "../../platform/auth/passwords.js";
import { prefersHtml } from "../../platform/http/negotiate.js";
import { SIGNUP_LIMITS, type AccountsService } from "./service.js";
import { RegisterBody, Registered, ResendAccepted, ResendBody, Verified, VerifyQuery, VerifyRedirect } from "./schemas.js";

export async function accountRoutes(app: App, { accounts: service }: { accounts: AccountsService }) {
  app.post(
    "/register",
    {
      schema: {
        tags: ["accounts"],
        summary: "Register a store and its owner; the account stays inactive until the e-mailed link is opened",
        description: `Password policy: ${PASSWORD_POLICY}. At most ${SIGNUP_LIMITS.registerPerAddress.points} sign-ups per client address and ${SIGNUP_LIMITS.registerPerEmail.points} per e-mail an hour (429 too_many_requests with retry_after).`,
        body: RegisterBody,
        response: { 201: Registered, ...searchErrors(400, 409, 429) },
      },
    },
    async (request, reply) => reply.status(201).send(await service.register(request.body, request.ip)),
  );

  app.post(
    "/register/resend",
    {
      schema: {
        tags: ["accounts"],
        summary: "E-mail a new verification link to the owner of a store still waiting for verification",
        description: `The answer is the same whether or not such a store exists (it does not tell which addresses have accounts). At most ${SIGNUP_LIMITS.resendPerEmail.points} per e-mail and ${SIGNUP_LIMITS.resendPerAddress.points} per client address an hour (429 too_many_requests with retry_after).`,
        body: ResendBody,
        response: { 202: ResendAccepted, ...searchErrors(400, 429) },
      },
    },
    async (request, reply) => reply.status(202).send(await service.resendVerification(request.body.email, request.ip)),
  );

  app.get(
    "/verify",
    {
      schema: {
        tags: ["accounts"],
        summary: "Activate the store; returns client_id and the client secret, shown this once",
        description:
          "A browser opening the e-mailed link (Accept prefers text/html) is redirected (302) to the portal page /portal/verify?token=…, which calls this route as JSON, shows the secret once with copy buttons and continues to sign-in. API clients (curl, fetch: Accept */* or application/json) get the JSON below.",
        querystring: VerifyQuery,
        response: { 200: Verified, 302: VerifyRedirect, ...searchErrors(400) },
      },
    },
    async (request, reply) => {
      if (prefersHtml(request)) return reply.redirect(`/portal/verify?token=${encodeURIComponent(request.query.token)}`, 302);
      return service.verify(request.query.token);
    },
  );
}
