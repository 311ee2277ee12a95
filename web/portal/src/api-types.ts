// The API's own types for the portal, derived from the types generated from each API's
// /openapi.json (src/generated, `npm run portal:types`; a test fails when they are stale). A page
// names the route whose answer it reads, never a hand-written copy of the answer's shape.
import type { paths as SearchPaths } from "./generated/search-api";
import type { paths as AssistantPaths } from "./generated/assistant-api";

type Method = "get" | "post" | "put" | "patch" | "delete";
type JsonOf<R> = R extends { content: { "application/json": infer T } } ? T : never;
/** The JSON body of an operation's 200, 201 or 202 answer. */
type OkOf<Op> = Op extends { responses: infer R } ? JsonOf<R[Extract<keyof R, 200 | 201 | 202>]> : never;
/** The JSON request body of an operation. */
type BodyOf<Op> = Op extends { requestBody?: infer B } ? JsonOf<NonNullable<B>> : never;

/** The success answer of a Search API route: `SearchOk<"/v1/billing/usage">`. */
export type SearchOk<P extends keyof SearchPaths, M extends Method = "get"> = OkOf<SearchPaths[P][M]>;
/** The request body of a Search API route. */
export type SearchBody<P extends keyof SearchPaths, M extends Method = "post"> = BodyOf<SearchPaths[P][M]>;
/** The success answer of an Assistant API route. */
export type AssistantOk<P extends keyof AssistantPaths, M extends Method = "get"> = OkOf<AssistantPaths[P][M]>;
/** The request body of an Assistant API route. */
export type AssistantBody<P extends keyof AssistantPaths, M extends Method = "post"> = BodyOf<AssistantPaths[P][M]>;
/** One element of an array type. */
export type Item<A> = A extends readonly (infer T)[] ? T : never;
