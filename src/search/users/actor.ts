// The acting principal of a store request, as the users and team services see it.
import type { FastifyRequest } from "fastify";
import { actorUserIdOf, storeOf } from "../../tenancy/authenticate.js";
import type { Actor } from "./service.js";

/** The acting principal as the users/team services see it. */
export function actorOf(request: FastifyRequest): Actor {
  const store = storeOf(request);
  return { userId: actorUserIdOf(request), role: store.role, grant: store.permissions };
}
